// test_x11_frames.cpp: each frame's fate from the X server's Present events
// (pacer/backends/src/x11_frames.h: ticks and PixmapComplete), and the pacer
// on a made-up X server whose ticks are dated in software with jitter, with
// a tick lost, two out of order and the counter wrapping: auto locks to it
// and the screen repeats or loses almost nothing.
#include "x11_frames.h"

#include "fakes.h"

#include <pacer/status.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

using namespace pacer;
using pacer::backends::detail::X11Frames;
using pacer::testing::contains;
using pacer::testing::FakeClock;
using pacer::testing::FakeSleeper;
using pacer::testing::fake_config;

namespace {

constexpr int64_t kTickNs = 16'666'667;

std::vector<Presented> take_all(X11Frames& frames) {
    std::vector<Presented> out;
    for (Presented p; frames.take(&p);) out.push_back(p);
    return out;
}

TEST(X11Frames, EachImageShowsAtTheFirstTickAfterIt) {
    X11Frames frames;
    frames.tick(100, 0);
    for (int i = 0; i < 5; ++i) {
        frames.sent(i, (i + 1) * kTickNs - 4'000'000);   // 4 ms before each next tick
        frames.tick(101 + static_cast<uint64_t>(i), (i + 1) * kTickNs);
    }
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 5u);
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(got[static_cast<size_t>(i)].frame_index, i);
        EXPECT_FALSE(got[static_cast<size_t>(i)].discarded);
        EXPECT_EQ(got[static_cast<size_t>(i)].seq, 101u + static_cast<uint64_t>(i));
        EXPECT_EQ(got[static_cast<size_t>(i)].displayed_ns, (i + 1) * kTickNs);
        EXPECT_EQ(got[static_cast<size_t>(i)].flags, kPresentedVsync);   // software-dated: no kPresentedHwClock
    }
}

TEST(X11Frames, TwoImagesBeforeOneTickShowTheNewest) {
    X11Frames frames;
    frames.tick(1, 0);
    frames.sent(7, 2'000'000);
    frames.sent(8, 9'000'000);
    EXPECT_TRUE(take_all(frames).empty());   // no tick since: fates unknown
    frames.tick(2, kTickNs);
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].frame_index, 7);
    EXPECT_TRUE(got[0].discarded);
    EXPECT_EQ(got[1].frame_index, 8);
    EXPECT_EQ(got[1].seq, 2u);
}

TEST(X11Frames, AnImageAfterTheTickWaitsForTheNext) {
    X11Frames frames;
    frames.tick(1, 0);
    frames.sent(0, kTickNs + 1);   // a hair past tick 2
    frames.tick(2, kTickNs);
    EXPECT_TRUE(take_all(frames).empty());
    frames.tick(3, 2 * kTickNs);
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].seq, 3u);
}

TEST(X11Frames, ALaterSendMovesTheFramesTime) {
    X11Frames frames;
    frames.tick(1, 0);
    frames.sent(4, kTickNs - 1'000'000);     // the swap began before tick 2 ...
    frames.sent(4, kTickNs + 500'000);       // ... and returned after it
    frames.tick(2, kTickNs);
    EXPECT_TRUE(take_all(frames).empty());
    frames.tick(3, 2 * kTickNs);
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].frame_index, 4);
    EXPECT_EQ(got[0].seq, 3u);
}

TEST(X11Frames, AMissingTickIsFilledInEvenly) {
    X11Frames frames;
    frames.tick(10, 0);
    frames.sent(0, kTickNs - 3'000'000);       // before tick 11, which was not heard
    frames.sent(1, 2 * kTickNs - 3'000'000);   // before tick 12
    frames.tick(12, 2 * kTickNs);
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_FALSE(got[0].discarded);
    EXPECT_EQ(got[0].seq, 11u);
    EXPECT_EQ(got[0].displayed_ns, kTickNs);   // halfway between the two heard
    EXPECT_EQ(got[1].seq, 12u);
}

TEST(X11Frames, OutOfOrderAndRepeatedTicksAreLeftOut) {
    X11Frames frames;
    EXPECT_TRUE(frames.tick(5, 0));
    EXPECT_TRUE(frames.tick(7, 2 * kTickNs));
    EXPECT_FALSE(frames.tick(6, kTickNs));        // came late: 6 was filled in already
    EXPECT_TRUE(frames.tick(9, 3 * kTickNs));
    EXPECT_FALSE(frames.tick(9 - X11Frames::kMaxFilled, kTickNs));   // as far back as a gap is filled: late
    EXPECT_FALSE(frames.tick(9, 3 * kTickNs));    // twice
    EXPECT_FALSE(frames.tick(10, 3 * kTickNs));   // not after the one before: no tick
    EXPECT_EQ(frames.last_msc(), 9u);
}

TEST(X11Frames, TheCounterWrapsAsOneStep) {
    X11Frames frames;
    const uint64_t top = std::numeric_limits<uint64_t>::max();
    frames.tick(top - 1, 0);
    frames.sent(0, kTickNs / 2);
    frames.tick(top, kTickNs);
    frames.sent(1, kTickNs + kTickNs / 2);
    frames.tick(0, 2 * kTickNs);
    frames.sent(2, 2 * kTickNs + kTickNs / 2);
    frames.tick(1, 3 * kTickNs);
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].seq, top);
    EXPECT_EQ(got[1].seq, 0u);   // the report's "unknown", as the counter reads there
    EXPECT_EQ(got[1].displayed_ns, 2 * kTickNs);
    EXPECT_EQ(got[2].seq, 1u);
}

TEST(X11Frames, AFarJumpStartsTheCountAfresh) {
    X11Frames frames;
    frames.tick(1'000'000, 0);
    frames.sent(0, kTickNs / 2);
    EXPECT_TRUE(frames.tick(5, kTickNs));   // a new counter (another CRTC): taken as it is
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].seq, 5u);
    EXPECT_TRUE(frames.tick(6, 2 * kTickNs));
}

TEST(X11Frames, PixmapCompletionsNameFramesInOrderFromThenOn) {
    X11Frames frames(kPresentedVsync | kPresentedHwClock);
    frames.tick(1, 0);
    frames.sent(0, 1'000'000);
    frames.sent(1, 2'000'000);
    frames.sent(2, 3'000'000);
    frames.completed(X11Frames::Mode::Flip, 2, kTickNs);
    frames.completed(X11Frames::Mode::Skip, 0, 0);
    frames.tick(2, kTickNs);   // ticks no longer name frames
    EXPECT_TRUE(frames.by_completions());
    std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].frame_index, 0);
    EXPECT_EQ(got[0].flags, kPresentedVsync | kPresentedHwClock | kPresentedZeroCopy);
    EXPECT_EQ(got[1].frame_index, 1);
    EXPECT_TRUE(got[1].discarded);
    frames.completed(X11Frames::Mode::Copy, 3, 2 * kTickNs);
    got = take_all(frames);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].frame_index, 2);
    EXPECT_EQ(got[0].seq, 3u);
    EXPECT_EQ(got[0].flags, kPresentedVsync | kPresentedHwClock);
    frames.completed(X11Frames::Mode::Copy, 4, 3 * kTickNs);   // one presented before we listened
    EXPECT_TRUE(take_all(frames).empty());
}

TEST(X11Frames, FramesWithNoTickAreKeptUpToTheCap) {
    X11Frames frames;
    for (int i = 0; i < 3 * X11Frames::kMaxPending; ++i) frames.sent(i, i);
    frames.tick(1, 1'000'000'000);
    const std::vector<Presented> got = take_all(frames);
    ASSERT_EQ(got.size(), static_cast<size_t>(X11Frames::kMaxPending));
    EXPECT_EQ(got.back().frame_index, 3 * X11Frames::kMaxPending - 1);
    EXPECT_FALSE(got.back().discarded);
}

// An X server as pacer::x11::PresentFeedback sees it, on the fake clock: its
// ticks every kTickNs dated with a uniform software error (Xvfb's timer:
// +-1 ms), heard in batches as the pacer polls; one tick never heard, two
// heard in the wrong order, and the counter wraps. A swap puts its image at
// once (nonblocking_ns later it returns).
class FakeXServer final : public Host {
public:
    explicit FakeXServer(FakeClock& clock) : clock_(clock), base_ns_(clock.now_ns()) {}
    bool set_swap_interval(int interval) override { return interval == 0; }   // Xvfb: no vsync
    double refresh_rate_hz() override { return 0; }                          // RandR says nothing
    const char* present_clock_name() override { return "X Present"; }
    bool take_presented(Presented* out) override {
        hear();
        return frames_.take(out);
    }
    void swap(int64_t frame_index) {
        hear();
        images.push_back(clock_.now_ns());
        frames_.sent(frame_index, clock_.now_ns());
        clock_.advance(nonblocking_ns);
    }
    int64_t tick_ns(int64_t k) const { return base_ns_ + k * kTickNs + jitter(k); }
    int64_t nonblocking_ns = 200'000;
    std::vector<int64_t> images;   // when each image reached the server
    int64_t lost_tick = 300, swapped_tick = 600;   // the tick never heard; the pair heard out of order
    uint64_t msc_base = std::numeric_limits<uint64_t>::max() - 900;   // wraps after 900 ticks

private:
    int64_t jitter(int64_t k) const {   // uniform in [-1 ms, 1 ms], the same for a tick each time asked
        uint64_t state = static_cast<uint64_t>(k) * 6364136223846793005ULL + 1442695040888963407ULL;
        state ^= state >> 29;
        state *= 0xbf58476d1ce4e5b9ULL;
        state ^= state >> 32;
        return static_cast<int64_t>((static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1) * 1e6);
    }
    void hear() {
        while (tick_ns(next_k_) <= clock_.now_ns()) {
            const int64_t k = next_k_++;
            if (k == lost_tick) continue;
            if (k == swapped_tick && tick_ns(k + 1) <= clock_.now_ns()) {   // k + 1 first, then k
                deliver(k + 1);
                deliver(k);
                ++next_k_;
                continue;
            }
            deliver(k);
        }
    }
    void deliver(int64_t k) { frames_.tick(msc_base + static_cast<uint64_t>(k), tick_ns(k)); }

    FakeClock& clock_;
    int64_t base_ns_;
    int64_t next_k_ = 1;
    X11Frames frames_;
};

TEST(X11Clock, AutoLocksToJitteryTicksAndTheScreenKeepsCadence) {
    FakeClock clock;
    FakeSleeper sleeper(clock);
    FakeXServer server(clock);
    Config config = fake_config(clock, sleeper, 60, Strategy::Auto);
    config.host = &server;
    config.wait_point = WaitPoint::BeforePresent;
    Pacer pacer(config);
    int64_t built = -1;
    std::vector<Frame> frames;
    for (int i = 0; i < 3000; ++i) {   // 50 s: 3,000 ticks, the counter wrapping at 900
        const Frame f = pacer.wait();
        if (built >= 0) {
            server.swap(built);
            pacer.mark_present();
        }
        clock.advance_busy(3 * kNsPerMs + (i % 7) * 250'000);   // 3-4.5 ms of work
        built = f.index;
        frames.push_back(f);
    }
    EXPECT_EQ(pacer.decision().in_force, Strategy::DisplayLock) << pacer.decision().reason;
    EXPECT_TRUE(contains(pacer.decision().reason, "; X Present, 6")) << pacer.decision().reason;
    EXPECT_TRUE(contains(pacer.decision().reason, " Hz / 1, each deadline")) << pacer.decision().reason;
    // The instrument's count: from 10 s on, a tick with no image since the
    // one before repeats a frame; each image past one between two ticks is lost.
    int repeats = 0, lost = 0, ticks = 0;
    const auto& images = server.images;
    for (int64_t k = 600; server.tick_ns(k + 1) < images.back(); ++k, ++ticks) {
        const auto first = std::lower_bound(images.begin(), images.end(), server.tick_ns(k));
        const auto last = std::lower_bound(images.begin(), images.end(), server.tick_ns(k + 1));
        const int n = static_cast<int>(last - first);
        repeats += n == 0;
        lost += std::max(0, n - 1);
    }
    ASSERT_GT(ticks, 2000);
    EXPECT_LE(1000.0 * (repeats + lost) / ticks, 2.0) << repeats << " repeats, " << lost << " lost in " << ticks;
    // The pacer's own count agrees with the instrument's.
    EXPECT_LE(pacer.status().display_hitches_per_1000, 2.0);
}

}  // namespace

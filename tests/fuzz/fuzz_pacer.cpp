// fuzz_pacer.cpp: libFuzzer target for the library's arithmetic. Built with
// Clang, whose UBSan also checks float-cast-overflow (a double out of an
// integer's range cast to it), which GCC's does not. The input is read as a
// config (any double, any integer: NaN, infinities, the extremes), which
// validate() must accept or refuse with a line; a valid one drives a Pacer on
// the unit tests' fake clock, sleeper and compositor (a stated refresh that
// may be NaN or lie) through frames whose work, timer lateness and swap
// report times also come from the input, and, through WildReports, shown-frame
// reports whose every field is the input's; then its statistics. Nothing may
// crash, hang or trip a sanitizer.
#include "../unit/fakes.h"

#include <pacer/metrics.h>
#include <pacer/pacer.h>
#include <pacer/status.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace {

// The input's bytes as values, in order; zeros once it runs out.
class Input {
public:
    Input(const uint8_t* data, size_t size) : data_(data), left_(size) {}
    template <typename T>
    T take() {
        T value{};
        const size_t n = left_ < sizeof(T) ? left_ : sizeof(T);
        std::memcpy(&value, data_, n);
        data_ += n;
        left_ -= n;
        return value;
    }
    bool flag() { return (take<uint8_t>() & 1) != 0; }   // a byte into a bool would be UB
    // The default most of the time, else any value: one wild field among
    // sane ones gets past validate() more often than all of them wild.
    template <typename T>
    T or_default(T fallback) {
        return (take<uint8_t>() & 7) == 0 ? take<T>() : fallback;
    }
    bool empty() const { return left_ == 0; }

private:
    const uint8_t* data_;
    size_t left_;
};

// The compositor's reports, with wild ones from the input among them: any
// frame index, time, refresh, seq or flags a Host could report.
class WildReports final : public pacer::Host {
public:
    WildReports(pacer::Host& real, Input& in) : real_(real), in_(in) {}
    bool set_swap_interval(int interval) override { return real_.set_swap_interval(interval); }
    double refresh_rate_hz() override { return real_.refresh_rate_hz(); }
    bool take_presented(pacer::Presented* out) override {
        if ((in_.take<uint8_t>() & 3) != 0) return real_.take_presented(out);
        if (in_.empty()) return false;
        out->frame_index = in_.take<int64_t>();
        out->discarded = in_.flag();
        out->displayed_ns = in_.take<int64_t>();
        out->refresh_ns = in_.take<int64_t>();
        out->seq = in_.take<uint64_t>();
        out->flags = in_.take<uint32_t>();
        return true;
    }

private:
    pacer::Host& real_;
    Input& in_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pacer;
    using namespace pacer::testing;
    Input in(data, size);
    FakeClock clock;
    FakeSleeper sleeper(clock);
    // The fake's own refresh clock stays sane (it is not under test); what it
    // states, which the library reads, is anything.
    const double real_period_ns = 1e6 + static_cast<double>(in.take<uint32_t>() % 100'000'000u);
    FakeCompositor compositor(clock, real_period_ns, in.or_default(hz_of(real_period_ns)));
    compositor.accepts = in.flag();
    compositor.blocks = in.flag();
    compositor.jitter_ns = in.take<uint16_t>() * int64_t{100};

    const double hz = in.or_default(1.0 + in.take<uint16_t>() % 1000);
    Config config = fake_config(clock, sleeper, hz, static_cast<Strategy>(in.take<uint8_t>() % 9));
    config.miss_policy = static_cast<MissPolicy>(in.take<uint8_t>() % 3);
    config.wait_point = static_cast<WaitPoint>(in.take<uint8_t>() % 3);
    config.resync_after_periods = in.or_default(config.resync_after_periods);
    config.max_dt_ns = in.or_default(config.max_dt_ns);
    config.display.lead_ns = in.or_default(config.display.lead_ns);
    config.display.hitches_per_1000 = in.or_default(config.display.hitches_per_1000);
    config.stats.off_tolerance_ns = in.or_default(config.stats.off_tolerance_ns);
    config.stats.history_frames = in.or_default<uint16_t>(1024);   // bounded: memory, not arithmetic
    config.tuning.scheduler_period_ns = in.or_default(config.tuning.scheduler_period_ns);
    config.tuning.precise.sigma_k = in.or_default(config.tuning.precise.sigma_k);
    config.tuning.precise.initial_estimate_ns = in.or_default(config.tuning.precise.initial_estimate_ns);
    config.tuning.robust.tolerance_ns = in.or_default(config.tuning.robust.tolerance_ns);
    config.tuning.timer.margin_ns = in.or_default(config.tuning.timer.margin_ns);
    config.tuning.timer.min_margin_ns = in.or_default(config.tuning.timer.min_margin_ns);
    config.tuning.timer.max_margin_ns = in.or_default(config.tuning.timer.max_margin_ns);
    config.tuning.timer.margin_quantile = in.or_default(config.tuning.timer.margin_quantile);
    config.tuning.timer.margin_headroom = in.or_default(config.tuning.timer.margin_headroom);
    config.tuning.timer.margin_pad_ns = in.or_default(config.tuning.timer.margin_pad_ns);
    config.tuning.timer.margin_window = in.or_default<uint16_t>(512);
    config.tuning.timer.max_wait_cpu_ns = in.or_default(config.tuning.timer.max_wait_cpu_ns);
    config.tuning.timer.max_wait_cpu_pct = in.or_default(config.tuning.timer.max_wait_cpu_pct);
    config.tuning.timer.contention_wait_ns = in.or_default(config.tuning.timer.contention_wait_ns);
    config.tuning.timer.last_sleep_ns = in.or_default(config.tuning.timer.last_sleep_ns);
    WildReports wild(compositor, in);
    if (in.flag()) config.host = in.flag() ? static_cast<Host*>(&wild) : &compositor;
    if (!validate(config).empty()) return 0;

    std::unique_ptr<Pacer> pacer = Pacer::create(config);
    if (!pacer) return 0;
    if (in.flag()) clock.runqueue_ns = 0;   // a run-queue count: contention can be seen
    // A long period is waited out in 20 ms slices (interrupt()), all of
    // them fake but not free: fewer frames there keep a run short.
    const int frames = config.target_hz >= 1 ? 64 : 3;
    for (int i = 0; i < frames && !in.empty(); ++i) {
        sleeper.timer_latenesses.push_back(in.take<uint16_t>() * int64_t{1000});   // up to 65 ms
        sleeper.timer_runqueue_waits.push_back(in.take<uint8_t>() * int64_t{20'000});   // up to 5 ms
        const Frame frame = pacer->wait();
        clock.advance(in.take<uint16_t>() * int64_t{1000});   // the frame's work
        if (config.host != nullptr) compositor.swap(frame.index);
        pacer->mark_present(in.flag() ? -1 : in.take<int64_t>());
        if (in.take<uint8_t>() == 0xff) {
            Config changed = pacer->config();
            changed.target_hz = in.or_default(1.0 + in.take<uint16_t>() % 1000);
            (void)pacer->reconfigure(changed);
        }
    }
    (void)pacer->stats().summarize();
    (void)compute_window_metrics(pacer->stats());
    (void)pacer->status();
    (void)pacer->display();

    std::vector<double> sample;
    while (!in.empty() && sample.size() < 64) sample.push_back(in.take<double>());
    (void)percentiles(sample);   // NaN and infinities are documented as taken
    try {
        (void)compute_metrics(sample);
    } catch (const std::invalid_argument&) {   // its documented refusal of a bad frame time
    }
    return 0;   // libFuzzer reserves other values
}

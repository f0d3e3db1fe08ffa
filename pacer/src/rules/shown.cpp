// shown.cpp: auto judges display_lock by what it shows (shown.h).
//
// A compositor that composes slower than the target (weston composing a
// 1280x720 window in software on the 2-core VM: 30-40 frames a second for a
// 60 Hz target) shows one frame a repaint at best. vsync gets that: each
// swap waits for the repaint. display_lock aims each frame at a repaint
// predicted from a cadence that wanders, and there showed 33 frames a
// second where vsync showed 37 (docs/design.md). So auto keeps what its
// vsync probe showed, and once display_lock has shown kShownJudged frames
// of its own at kShownShortfall or more below that, it leaves display_lock for
// vsync, which it then keeps through the cadence's wander (its swaps must
// still block), and tries display_lock again after kMaxBackoffNs. So it does
// where display_lock loses the clock on such a display: its cadence wanders
// (weston composing in software lost it every 75-130 frames, and each loss
// was a vsync probe and a new lock: 10 decisions in 900 frames). Both rates
// leave out the display's outages (kOutageSteps): headless mutter stops
// showing frames for 0.3-0.5 s about 4 times in 20 s under every strategy,
// and one such stop in display_lock's 64 frames had read as 44 frames a
// second against vsync's 56.6, sending auto to vsync (twice the latency)
// for 64 s over a stop that vsync suffers as well (docs/bench/mutter.md).
#include "rules/shown.h"

#include "base/saturate.h"

#include <cmath>
#include <cstdio>

namespace pacer::detail {

using namespace rules;

void ShownRate::start(int64_t after_index, int64_t outage_ns) {
    after_index_ = after_index;
    outage_ns_ = outage_ns;
    last_ns_ = -1;
    spanned_ns_ = 0;
    intervals_ = 0;
}

void ShownRate::add(const PresentModel::Report& report) {
    if (!report.shown || report.frame_index <= after_index_ || report.displayed_ns <= last_ns_) return;
    const int64_t interval = last_ns_ >= 0 ? report.displayed_ns - last_ns_ : -1;
    if (interval > 0 && (outage_ns_ <= 0 || interval <= outage_ns_)) {
        spanned_ns_ += interval;
        ++intervals_;
    }
    last_ns_ = report.displayed_ns;
}

double ShownRate::hz() const {
    return intervals_ > 0 ? static_cast<double>(intervals_) * kNsPerSecond / static_cast<double>(spanned_ns_) : 0.0;
}

namespace {

std::string per_second(double hz) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", hz);
    return text;
}

// The bar's why, with the shortfall that makes it so.
std::string short_of(const std::string& why, double target_hz) {
    return why + " (the display shows fewer than the " + hz_text(target_hz) + " target)";
}

}  // namespace

void ShownJudge::stint(Strategy from, Strategy to, int64_t index, double step_ns) {
    if (from == to) return;
    if (from == Strategy::Vsync && shown_.intervals() >= kProbeFrames) vsync_hz_ = shown_.hz();
    // display_lock's first kProbeFrames are the switch's own: frames the vsync queue still held.
    const int64_t outage_ns = std::llround(kOutageSteps * step_ns);
    shown_.start(to == Strategy::DisplayLock ? sat_add(index, kProbeFrames) : index, outage_ns);
}

bool ShownJudge::vsync_fell_short(double target_hz) const {
    return vsync_hz_ > 0 && vsync_hz_ < (1 - kRateTolerance) * target_hz;
}

std::optional<std::string> ShownJudge::fewer(double target_hz, int refreshes) const {
    if (!vsync_fell_short(target_hz)) return std::nullopt;
    // Only where display_lock asks a frame a refresh, as vsync did (a new n
    // is a new display mode, which vsync's old figure says nothing of). The
    // fitted refresh itself is no guide there: weston's repaint timer runs at
    // 60 Hz, and where composing takes 25 ms its fit flips between 39.6 Hz
    // and 60 Hz as its frames come one or two slots apart.
    if (refreshes != 1 || shown_.intervals() < kShownJudged) return std::nullopt;
    const double locked_hz = shown_.hz();
    if (locked_hz >= (1 - kShownShortfall) * vsync_hz_) return std::nullopt;
    return short_of("display_lock showed " + per_second(locked_hz) + " frames a second, vsync " + per_second(vsync_hz_),
                    target_hz);
}

std::string ShownJudge::lost_why(double target_hz) const {
    return short_of("display_lock lost the display's clock, vsync showed " + per_second(vsync_hz_) +
                        " frames a second",
                    target_hz);
}

}  // namespace pacer::detail

// contention.cpp: the contention signs (contention.h).
//
// A sign at the start of a timer wait is either of:
//  - more threads want a CPU than there are;
//  - the run-queue wait since the signs were last read (the engine's work
//    and the waits since) is at or over the threshold.
// The first is what shows full load: a woken sleeper preempts a busy
// neighbour at once, so nearly every frame has no run-queue wait at all
// (docs/precision.md). Full load shows a sign at every wait, so contention
// starts only once every reading over kContentionOnsetNs has shown one: at
// idle, the host's own holds and other programs' bursts show signs too, a
// few readings in a row, and must not put the timer in contention without a
// margin (docs/precision.md has the readings). It ends once no reading has shown a sign for
// kContentionCalmNs. Both are by the deadlines' time, so alike at every rate.
// A reading covers every timer wait since the last one: a run-queue sum over
// several frames misses no frame that was over.
#include "wait/contention.h"

#include "base/saturate.h"

#include <algorithm>

namespace pacer::detail {

void Contention::update(int32_t runnable, int32_t cpus, int64_t runqueue_now_ns, int64_t deadline_ns,
                        int64_t wait_sign_ns) {
    const int frames = std::max(waits_unread_, 1);
    waits_unread_ = 0;
    bool sign = runnable >= 0 && cpus > 0 && runnable > cpus;
    if (runqueue_now_ns < 0 || last_runqueue_ns_ < 0 || runqueue_now_ns < last_runqueue_ns_) {
        runqueue_wait_ns_ = -1;
    } else {
        const int64_t waited = runqueue_now_ns - last_runqueue_ns_;
        sign = sign || waited >= wait_sign_ns;
        runqueue_wait_ns_ = waited / frames;
    }
    last_runqueue_ns_ = runqueue_now_ns;
    // A deadline before those remembered (a caller's stale or new grid) moves
    // them back to it, so neither rule waits on a time ahead.
    signs_since_ns_ = std::min(signs_since_ns_, deadline_ns);
    last_sign_ns_ = std::min(last_sign_ns_, deadline_ns);
    if (sign) {
        if (signs_since_ns_ < 0) signs_since_ns_ = deadline_ns;
        last_sign_ns_ = deadline_ns;
        if (sat_sub(deadline_ns, signs_since_ns_) >= kContentionOnsetNs) contended_ = true;
    } else {
        signs_since_ns_ = -1;
        if (contended_ && sat_sub(deadline_ns, last_sign_ns_) >= kContentionCalmNs) contended_ = false;
    }
}

}  // namespace pacer::detail

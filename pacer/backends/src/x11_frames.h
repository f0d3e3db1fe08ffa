// x11_frames.h: each frame's fate from what the X server's Present extension
// says, the part of pacer::x11::PresentFeedback (x11.h) that needs no
// server: header-only, tested with made-up ticks (tests/unit/test_x11_frames.cpp).
//
// Two ways a frame reaches an X window, and how each is told:
//   - the program presents through Present (PresentPixmap: Mesa's DRI3 GLX
//     and its Vulkan X11 swapchains on a GPU). The server sends a
//     CompleteNotify of kind PIXMAP for each, in order, to every client that
//     selected the window's events: shown (COPY, FLIP) at an MSC and its UST,
//     or SKIP (replaced before a refresh). Each names the oldest frame sent.
//   - the program puts its image (XPutImage, XShmPutImage, xcb_put_image:
//     Mesa's software GLX and Vulkan, and any server without DRI3). Nothing
//     says when it is shown. It counts as shown at the first refresh tick
//     after it was sent (the UST of the server's MSC, heard through
//     PresentNotifyMSC), as a server that copies it to the screen at the
//     next vblank shows it; where two or more frames were sent between two
//     ticks, the newest is shown and the others were replaced unseen.
// The first PIXMAP completion switches a feedback to the first way for good.
//
// Ticks: each MSC once, in order, the counter's wrap a step like any other.
// A tick at or up to kMaxFilled before the newest heard is left out (heard
// late, or twice: requests of other clients reach us too); one further back
// is a new count (the window moved to another CRTC) and taken as it is. A
// gap of up to kMaxFilled ticks is filled in evenly between the two heard,
// so that a frame sent in it still names its own refresh; a longer one
// (nothing was heard for a while) is not.
#pragma once

#include <pacer/host.h>

#include <cstdint>
#include <deque>

namespace pacer::backends::detail {

class X11Frames {
public:
    static constexpr int kMaxPending = 64;        // frames awaiting their fate; the oldest left out beyond
    static constexpr int64_t kMaxFilled = 64;     // missing ticks filled in between two heard

    // Present's CompleteNotify modes (xcb_present_complete_mode_t).
    enum class Mode : uint8_t { Copy = 0, Flip = 1, Skip = 2, SuboptimalCopy = 3 };

    // kPresented* bits every shown report carries (kPresentedVsync; with
    // kPresentedHwClock where the server's UST is the display's own vblank).
    explicit X11Frames(uint32_t flags = kPresentedVsync) : flags_(flags) {}

    // Frame frame_index's image went to the server at sent_ns (the swap's
    // return where known, else its start); a later call for the same frame
    // moves its time.
    void sent(int64_t frame_index, int64_t sent_ns) {
        if (!pending_.empty() && pending_.back().index == frame_index) {
            pending_.back().sent_ns = sent_ns;
            return;
        }
        if (static_cast<int>(pending_.size()) >= kMaxPending) pending_.pop_front();
        pending_.push_back({frame_index, sent_ns});
    }

    // A refresh tick: the window's MSC and its UST (ns, CLOCK_MONOTONIC).
    // stalled: the server answered late since the tick before (it stopped
    // for a while: Xwayland under a busy compositor), so the ticks between
    // came and went without it taking any image, and none is filled in: the
    // frames sent since show at this tick. Returns whether it was a new one.
    bool tick(uint64_t msc, int64_t ust_ns, bool stalled = false) {
        const int64_t step = static_cast<int64_t>(msc - last_msc_);   // modular: a wrap is a step of 1
        const bool restart = !heard_ || step < -kMaxFilled;
        if (!restart && (step <= 0 || ust_ns <= last_ust_ns_)) return false;
        if (!restart && !stalled && step <= kMaxFilled) {
            for (int64_t k = 1; k < step; ++k) {
                const int64_t filled_ns = last_ust_ns_ + (ust_ns - last_ust_ns_) * k / step;
                at_tick(last_msc_ + static_cast<uint64_t>(k), filled_ns);
            }
        }
        heard_ = true;
        last_msc_ = msc;
        last_ust_ns_ = ust_ns;
        at_tick(msc, ust_ns);
        return true;
    }

    // The program's own PresentPixmap completed: its oldest frame sent.
    void completed(Mode mode, uint64_t msc, int64_t ust_ns) {
        by_completions_ = true;
        if (pending_.empty()) return;   // presented before we listened
        const int64_t index = pending_.front().index;
        pending_.pop_front();
        Presented report;
        report.frame_index = index;
        if (mode == Mode::Skip) {
            report.discarded = true;
        } else {
            report.displayed_ns = ust_ns;
            report.seq = msc;
            report.flags = flags_ | (mode == Mode::Flip ? kPresentedZeroCopy : 0u);
        }
        ready_.push_back(report);
    }

    // The oldest fate known; false when none waits.
    bool take(Presented* out) {
        if (ready_.empty()) return false;
        *out = ready_.front();
        ready_.pop_front();
        return true;
    }

    bool heard() const { return heard_; }
    uint64_t last_msc() const { return last_msc_; }
    int64_t last_ust_ns() const { return last_ust_ns_; }
    bool by_completions() const { return by_completions_; }
    bool waiting() const { return !pending_.empty(); }

private:
    struct Sent {
        int64_t index;
        int64_t sent_ns;
    };

    // The frames sent before the tick: the newest shown at it, the rest replaced.
    void at_tick(uint64_t msc, int64_t ust_ns) {
        if (by_completions_) return;
        int before = 0;
        while (before < static_cast<int>(pending_.size()) && pending_[static_cast<size_t>(before)].sent_ns < ust_ns)
            ++before;
        for (int i = 0; i < before; ++i) {
            Presented report;
            report.frame_index = pending_.front().index;
            if (i + 1 < before) {
                report.discarded = true;
            } else {
                report.displayed_ns = ust_ns;
                report.seq = msc;
                report.flags = flags_;
            }
            pending_.pop_front();
            ready_.push_back(report);
        }
    }

    uint32_t flags_;
    std::deque<Sent> pending_;       // sent, fate unknown, oldest first
    std::deque<Presented> ready_;    // fate known, not yet taken
    bool heard_ = false;             // a tick has been heard
    uint64_t last_msc_ = 0;          // the newest tick
    int64_t last_ust_ns_ = 0;
    bool by_completions_ = false;    // the program presents through Present
};

}  // namespace pacer::backends::detail

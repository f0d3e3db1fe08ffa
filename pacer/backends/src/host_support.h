// host_support.h: what the GLFW and SDL2 Hosts share (internal, in
// pacer_backend_support): the window's present feedback, the answer to the
// last swap-interval request, and the callback that sees each report.
#pragma once

#include <pacer/backends/swap_interval.h>
#include <pacer/pacer.h>

#include <cstdint>
#include <memory>
#include <string>

namespace pacer::backends::detail {

// A window's present feedback: wp_presentation where the window is on
// Wayland and pacer was built with it (present_source_wayland.cpp), else
// none (present_source_none.cpp).
class PresentSource {
public:
    virtual ~PresentSource() = default;
    virtual void request(int64_t frame_index) = 0;
    virtual bool take(Presented* out) = 0;
    virtual std::string describe() const = 0;   // "wp_presentation, clock CLOCK_MONOTONIC"
};
// wl_display and wl_surface may be null (not on Wayland). nullptr and *why
// when there is no feedback.
std::unique_ptr<PresentSource> open_present_source(void* wl_display, void* wl_surface, std::string* why);

class HostSupport {
public:
    // Once the window exists, with its Wayland handles (null: not on Wayland).
    void open_feedback(void* wl_display, void* wl_surface);
    void before_swap(int64_t frame_index) {
        if (source_) source_->request(frame_index);
    }
    bool take_presented(Presented* out);
    const char* present_feedback() const { return feedback_text_.c_str(); }
    void on_presented(PresentedCallback callback, void* user) {
        callback_ = callback;
        user_ = user;
    }
    // Notes a request and its answer; what set_swap_interval returns.
    bool record_swap(int interval, SwapAnswer answer) {
        swap_ = {interval, answer};
        return answer != SwapAnswer::Refused;
    }
    SwapIntervalState swap_interval() const { return swap_; }

private:
    std::unique_ptr<PresentSource> source_;
    std::string feedback_text_ = "none: not asked";
    PresentedCallback callback_ = nullptr;
    void* user_ = nullptr;
    SwapIntervalState swap_;
};

}  // namespace pacer::backends::detail

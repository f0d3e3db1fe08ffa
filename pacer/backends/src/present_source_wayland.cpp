// present_source_wayland.cpp: a window's present feedback from
// pacer::wayland::PresentFeedback (built where libwayland-client,
// wayland-scanner and wayland-protocols are found).
#include "present_source.h"

#include <pacer/backends/wayland.h>
#include <poll.h>
#include <wayland-client-core.h>

namespace pacer::backends::detail {
namespace {

class WaylandSource final : public PresentSource {
public:
    explicit WaylandSource(std::unique_ptr<wayland::PresentFeedback> feedback) : feedback_(std::move(feedback)) {}
    void request(int64_t frame_index) override { feedback_->request(frame_index); }
    bool take(Presented* out) override { return feedback_->take(out); }
    std::string describe() const override { return std::string("wp_presentation, clock ") + feedback_->clock_name(); }
    const char* clock_name() const override { return "wp_presentation"; }

private:
    std::unique_ptr<wayland::PresentFeedback> feedback_;
};

}  // namespace

std::unique_ptr<PresentSource> open_present_source(void* display, void* surface, std::string* why) {
    if (display == nullptr || surface == nullptr) {
        *why = "not on Wayland";
        return nullptr;
    }
    std::unique_ptr<wayland::PresentFeedback> feedback = wayland::PresentFeedback::open(
        static_cast<wl_display*>(display), static_cast<wl_surface*>(surface), why);
    if (!feedback) return nullptr;
    return std::make_unique<WaylandSource>(std::move(feedback));
}

// libwayland keeps the first fatal error of a connection (a protocol error,
// a failed read) and fails every call after it, but a flush that met EPIPE
// records none (GLFW 3.3 then only closes its windows): the socket's hang-up,
// asked without reading, covers that.
bool display_connection_broken(void* display) {
    if (display == nullptr) return false;
    auto* d = static_cast<wl_display*>(display);
    if (wl_display_get_error(d) != 0) return true;
    pollfd fd{wl_display_get_fd(d), 0, 0};   // POLLHUP and POLLERR come unasked
    return poll(&fd, 1, 0) == 1 && (fd.revents & (POLLHUP | POLLERR)) != 0;
}

}  // namespace pacer::backends::detail

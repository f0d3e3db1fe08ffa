// present_source_x11.cpp: an X11 window's present feedback from
// pacer::x11::PresentFeedback (built where XCB's Present headers are found).
#include "present_source.h"

#include <pacer/backends/x11.h>

#include <dlfcn.h>

namespace pacer::backends::detail {
namespace {

class X11Source final : public PresentSource {
public:
    explicit X11Source(std::unique_ptr<x11::PresentFeedback> feedback) : feedback_(std::move(feedback)) {}
    void request(int64_t frame_index) override { feedback_->request(frame_index); }
    void sent() override { feedback_->sent(); }
    bool take(Presented* out) override { return feedback_->take(out); }
    std::string describe() const override { return feedback_->describe(); }
    const char* clock_name() const override { return "X Present"; }

private:
    std::unique_ptr<x11::PresentFeedback> feedback_;
};

// The server's name as the program's Xlib connection has it, from the libX11
// the window system loaded (nothing links against it); null: $DISPLAY.
const char* display_name(void* xlib_display) {
    using NameFn = const char* (*)(void*);
    static const NameFn name = [] {
        void* x11 = dlopen("libX11.so.6", RTLD_LAZY | RTLD_NOLOAD);
        return x11 != nullptr ? reinterpret_cast<NameFn>(dlsym(x11, "XDisplayString")) : nullptr;
    }();
    return xlib_display != nullptr && name != nullptr ? name(xlib_display) : nullptr;
}

}  // namespace

std::unique_ptr<PresentSource> open_x11_present_source(void* xlib_display, unsigned long window, std::string* why) {
    std::unique_ptr<x11::PresentFeedback> feedback =
        x11::PresentFeedback::open(display_name(xlib_display), static_cast<uint32_t>(window), why);
    if (!feedback) return nullptr;
    return std::make_unique<X11Source>(std::move(feedback));
}

}  // namespace pacer::backends::detail

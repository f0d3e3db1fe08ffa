// x11_present.cpp: an engine on a bare X11 window, as pacer/backends/x11.h
// is meant to be used: its own pacer::Host over pacer::x11::PresentFeedback,
// auto at 60 Hz, each frame drawn with the core protocol and presented one
// of the two ways a driver does:
//   --mode put      PutImage on the window (as Mesa's software drivers do);
//   --mode pixmap   drawn into a pixmap, shown with PresentPixmap (as Mesa's
//                   DRI3 GL and Vulkan do on a GPU): the source takes each
//                   frame's fate from the server's PixmapComplete.
// Prints the decision, the frames the display reported (shown, discarded),
// the source's cost per frame (requests, events, round trips) and whether
// it told frames by completions; check_run.py x11 reads those lines.
//
//   pacer_x11_present --mode put|pixmap [--frames N]
#include <pacer/backends/x11.h>
#include <pacer/pacer.h>
#include <pacer/status.h>

#include <xcb/present.h>
#include <xcb/xcb.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr uint16_t kWidth = 320, kHeight = 240;

// The engine's Host: no swap interval (the window system has none here),
// no stated refresh, the frames' fates from the X server.
class X11Host final : public pacer::Host {
public:
    explicit X11Host(pacer::x11::PresentFeedback& feedback) : feedback_(feedback) {}
    bool set_swap_interval(int interval) override { return interval == 0; }
    double refresh_rate_hz() override { return 0; }
    bool take_presented(pacer::Presented* out) override {
        if (!feedback_.take(out)) return false;
        (out->discarded ? discarded : shown) += 1;
        return true;
    }
    const char* present_clock_name() override { return "X Present"; }
    long shown = 0, discarded = 0;

private:
    pacer::x11::PresentFeedback& feedback_;
};

}  // namespace

int main(int argc, char** argv) {
    std::string mode = "put";
    long frames = 300;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--mode") == 0) mode = argv[i + 1];
        else if (std::strcmp(argv[i], "--frames") == 0) frames = std::atol(argv[i + 1]);
    }
    if ((mode != "put" && mode != "pixmap") || frames < 1 || argc % 2 == 0) {
        std::fprintf(stderr, "usage: pacer_x11_present --mode put|pixmap [--frames N]\n");
        return 2;
    }
    xcb_connection_t* c = xcb_connect(nullptr, nullptr);
    if (xcb_connection_has_error(c) != 0) return std::fprintf(stderr, "x11_present: no X server\n"), 1;
    const xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    const xcb_window_t window = xcb_generate_id(c);
    xcb_create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, kWidth, kHeight, 0,
                      XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, 0, nullptr);
    xcb_map_window(c, window);
    const xcb_gcontext_t gc = xcb_generate_id(c);
    xcb_create_gc(c, gc, window, 0, nullptr);
    const xcb_pixmap_t pixmap = xcb_generate_id(c);
    xcb_create_pixmap(c, screen->root_depth, pixmap, window, kWidth, kHeight);
    xcb_flush(c);

    std::string why;
    std::unique_ptr<pacer::x11::PresentFeedback> feedback = pacer::x11::PresentFeedback::open(nullptr, window, &why);
    if (!feedback) return std::fprintf(stderr, "x11_present: no feedback: %s\n", why.c_str()), 1;
    X11Host host(*feedback);
    pacer::Config config;
    config.strategy = pacer::Strategy::Auto;
    config.host = &host;
    std::unique_ptr<pacer::Pacer> pacer = pacer::Pacer::create(config, &why);
    if (!pacer) return std::fprintf(stderr, "x11_present: %s\n", why.c_str()), 1;

    std::vector<uint32_t> pixels(static_cast<size_t>(kWidth) * kHeight);
    uint32_t serial = 0;
    int64_t built = -1;   // the frame drawn, awaiting its present (waiting before the present)
    for (long i = 0; i < frames; ++i) {
        const uint32_t shade = static_cast<uint32_t>(i % 256);
        const pacer::Frame frame = pacer->wait();
        feedback->request(built);
        if (mode == "put") {
            for (uint32_t& p : pixels) p = shade << 8 | (255 - shade);
            xcb_put_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, window, gc, kWidth, kHeight, 0, 0, 0, screen->root_depth,
                          static_cast<uint32_t>(pixels.size() * 4), reinterpret_cast<const uint8_t*>(pixels.data()));
        } else {
            const uint32_t value[] = {shade << 16 | 0x40};
            xcb_change_gc(c, gc, XCB_GC_FOREGROUND, value);
            const xcb_rectangle_t all{0, 0, kWidth, kHeight};
            xcb_poly_fill_rectangle(c, pixmap, gc, 1, &all);
            xcb_present_pixmap(c, window, pixmap, ++serial, XCB_NONE, XCB_NONE, 0, 0, XCB_NONE, XCB_NONE, XCB_NONE,
                               XCB_PRESENT_OPTION_NONE, 0, 0, 0, 0, nullptr);
        }
        xcb_flush(c);
        feedback->sent();
        pacer->mark_present();
        built = frame.index;
    }
    const pacer::x11::PresentFeedback::Counts counts = feedback->counts();
    std::printf("x11_present: %s; %ld frames, %ld shown, %ld discarded\n", pacer->decision().reason.c_str(), frames,
                host.shown, host.discarded);
    std::printf("x11_present: %s; by completions: %s\n", feedback->describe(),
                feedback->by_completions() ? "yes" : "no");
    std::printf("x11_present: per frame %.2f requests, %.2f events, %.2f ticks; %lld round trips in all\n",
                static_cast<double>(counts.requests) / static_cast<double>(frames),
                static_cast<double>(counts.events) / static_cast<double>(frames),
                static_cast<double>(counts.ticks) / static_cast<double>(frames),
                static_cast<long long>(counts.round_trips));
    feedback.reset();
    xcb_disconnect(c);
    return 0;
}

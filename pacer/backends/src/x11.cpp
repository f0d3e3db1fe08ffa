// x11.cpp: pacer::x11::PresentFeedback (pacer/backends/x11.h), on a
// connection of its own to the X server, through libxcb and libxcb-present
// found at run time. Which frame a tick or a completion names: x11_frames.h.
#include <pacer/backends/x11.h>
#include <pacer/units.h>

#include "x11_frames.h"

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#include <xcb/present.h>
#include <xcb/xcb.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace pacer::x11 {
namespace {

int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

// The libxcb and libxcb-present calls used, looked up once. Mesa's GL and
// Vulkan drivers for X11 load both, so a program that draws on X11 has them;
// nothing is linked, and a build without them on the target runs without
// X11's clock.
struct Xcb {
    xcb_connection_t* (*connect)(const char*, int*) = nullptr;
    void (*disconnect)(xcb_connection_t*) = nullptr;
    int (*has_error)(xcb_connection_t*) = nullptr;
    int (*flush)(xcb_connection_t*) = nullptr;
    uint32_t (*generate_id)(xcb_connection_t*) = nullptr;
    xcb_generic_event_t* (*poll_for_event)(xcb_connection_t*) = nullptr;
    const xcb_query_extension_reply_t* (*extension_data)(xcb_connection_t*, xcb_extension_t*) = nullptr;
    xcb_query_extension_cookie_t (*query_extension)(xcb_connection_t*, uint16_t, const char*) = nullptr;
    xcb_query_extension_reply_t* (*query_extension_reply)(xcb_connection_t*, xcb_query_extension_cookie_t,
                                                          xcb_generic_error_t**) = nullptr;
    xcb_generic_error_t* (*request_check)(xcb_connection_t*, xcb_void_cookie_t) = nullptr;
    xcb_extension_t* present_id = nullptr;
    xcb_present_query_version_cookie_t (*present_version)(xcb_connection_t*, uint32_t, uint32_t) = nullptr;
    xcb_present_query_version_reply_t* (*present_version_reply)(xcb_connection_t*, xcb_present_query_version_cookie_t,
                                                                xcb_generic_error_t**) = nullptr;
    xcb_void_cookie_t (*select_input_checked)(xcb_connection_t*, xcb_present_event_t, xcb_window_t,
                                              uint32_t) = nullptr;
    xcb_void_cookie_t (*notify_msc)(xcb_connection_t*, xcb_window_t, uint32_t, uint64_t, uint64_t,
                                    uint64_t) = nullptr;
};

const Xcb* load_xcb(std::string* why) {
    static const Xcb loaded = [] {
        Xcb x;
        void* xcb = dlopen("libxcb.so.1", RTLD_LAZY | RTLD_LOCAL);
        void* present = dlopen("libxcb-present.so.0", RTLD_LAZY | RTLD_LOCAL);
        if (xcb == nullptr || present == nullptr) return x;
        const auto find = [](void* library, const char* name, auto* out) {
            *out = reinterpret_cast<std::remove_pointer_t<decltype(out)>>(dlsym(library, name));
            return *out != nullptr;
        };
        const bool all =
            find(xcb, "xcb_connect", &x.connect) && find(xcb, "xcb_disconnect", &x.disconnect) &&
            find(xcb, "xcb_connection_has_error", &x.has_error) && find(xcb, "xcb_flush", &x.flush) &&
            find(xcb, "xcb_generate_id", &x.generate_id) && find(xcb, "xcb_poll_for_event", &x.poll_for_event) &&
            find(xcb, "xcb_get_extension_data", &x.extension_data) &&
            find(xcb, "xcb_query_extension", &x.query_extension) &&
            find(xcb, "xcb_query_extension_reply", &x.query_extension_reply) &&
            find(xcb, "xcb_request_check", &x.request_check) && find(present, "xcb_present_id", &x.present_id) &&
            find(present, "xcb_present_query_version", &x.present_version) &&
            find(present, "xcb_present_query_version_reply", &x.present_version_reply) &&
            find(present, "xcb_present_select_input_checked", &x.select_input_checked) &&
            find(present, "xcb_present_notify_msc", &x.notify_msc);
        if (!all) x.connect = nullptr;
        return x;
    }();
    if (loaded.connect != nullptr) return &loaded;
    *why = "libxcb.so.1 or libxcb-present.so.0 not found";
    return nullptr;
}

// Our NotifyMSC serials: the top bit set, which no XID has (29 bits: Mesa's
// DRI3 loader keeps an MSC notify whose serial is its own event id, and
// ignores the rest). 10 in the top two bits: the next tick, whatever its MSC
// (divisor 1); 11: the exact MSC in the low 30 bits, so that an answer for
// an MSC already past (the current one, dated when asked: not a tick) tells
// itself from a tick.
constexpr uint32_t kSerialTag = 0xC0000000u;
constexpr uint32_t kNextTick = 0x80000000u;
constexpr uint32_t kExact = 0xC0000000u;
constexpr uint32_t kMscBits = 0x3FFFFFFFu;
constexpr int kAhead = 8;                       // ticks asked ahead: 133 ms at 60 Hz
constexpr int64_t kSilentNs = 250'000'000;     // no tick this long: ask for the next again
constexpr uint8_t kBadWindow = 3;

// Whether the server has the extension a query_extension cookie asked for.
bool has_extension(const Xcb& xcb, xcb_connection_t* c, xcb_query_extension_cookie_t cookie) {
    xcb_query_extension_reply_t* reply = xcb.query_extension_reply(c, cookie, nullptr);
    const bool present = reply != nullptr && reply->present != 0;
    std::free(reply);
    return present;
}

}  // namespace

struct PresentFeedback::Impl {
    const Xcb* xcb = nullptr;
    xcb_connection_t* c = nullptr;
    pid_t owner = 0;            // the process whose connection it is
    xcb_window_t window = 0;
    uint8_t opcode = 0;         // Present's major opcode: its events carry it
    bool lost = false;
    bool hardware = false;
    std::string text;
    backends::detail::X11Frames frames;
    uint64_t asked_to = 0;      // the highest MSC asked for exactly (0: none yet)
    int64_t heard_ns = 0;       // when the newest tick was read
    int64_t armed_ns = 0;       // when the next tick was last asked for
    bool late = false;          // an answer came late since the newest tick: the server stalled
    bool requested = false;     // a frame has been requested (last_index is it)
    int64_t last_index = -1;    // the newest frame requested
    bool pending_flush = false;
    Counts counts;

    explicit Impl(uint32_t flags) : frames(flags) {}

    bool usable() {
        if (lost || c == nullptr || ::getpid() != owner) return false;
        if (xcb->has_error(c) != 0) lost = true;
        return !lost;
    }

    void notify(uint32_t serial, uint64_t target, uint64_t divisor) {
        xcb->notify_msc(c, window, serial, target, divisor, 0);
        ++counts.requests;
        pending_flush = true;
    }

    void arm(int64_t now) {
        notify(kNextTick, 0, 1);
        armed_ns = now;
    }

    // Keeps kAhead exact MSCs asked for past `msc`.
    void ask_ahead(uint64_t msc) {
        if (asked_to == 0 || static_cast<int64_t>(msc - asked_to) > 0) asked_to = msc;
        while (static_cast<int64_t>(msc + kAhead - asked_to) > 0) {
            ++asked_to;
            notify(kExact | (static_cast<uint32_t>(asked_to) & kMscBits), asked_to, 0);
        }
    }

    void on_complete(const xcb_present_complete_notify_event_t& e, int64_t now) {
        const int64_t ust_ns = static_cast<int64_t>(e.ust) * kNsPerUs;   // UST: microseconds
        if (e.kind == XCB_PRESENT_COMPLETE_KIND_PIXMAP) {
            frames.completed(static_cast<backends::detail::X11Frames::Mode>(e.mode), e.msc, ust_ns);
            return;
        }
        if ((e.serial & kSerialTag) == 0 || e.window != window) return;   // another client's
        const bool on_time = (e.serial & kSerialTag) == kNextTick ||
                             (e.serial & kMscBits) == (static_cast<uint32_t>(e.msc) & kMscBits);
        if (on_time) {
            ++counts.ticks;
            heard_ns = now;
            frames.tick(e.msc, ust_ns, late);
            late = false;
        } else if (static_cast<int64_t>(e.msc - frames.last_msc()) > 0) {
            late = true;   // asked for an MSC ahead, answered after it had passed
        }
        ask_ahead(e.msc);   // a late answer still says where the count is
    }

    void pump() {
        if (!usable()) return;
        const int64_t now = now_ns();
        while (xcb_generic_event_t* event = xcb->poll_for_event(c)) {
            ++counts.events;
            const uint8_t type = event->response_type & 0x7F;
            if (type == 0) {   // an error: only our requests make them
                const auto* error = reinterpret_cast<const xcb_generic_error_t*>(event);
                if (error->error_code == kBadWindow || error->major_code == opcode) lost = true;
            } else if (type == XCB_GE_GENERIC) {
                const auto* ge = reinterpret_cast<const xcb_present_complete_notify_event_t*>(event);
                if (ge->extension == opcode && ge->event_type == XCB_PRESENT_COMPLETE_NOTIFY) on_complete(*ge, now);
            }
            std::free(event);
        }
        if (!lost && now - heard_ns > kSilentNs && now - armed_ns > kSilentNs) arm(now);
        if (pending_flush && !lost) {
            xcb->flush(c);
            pending_flush = false;
        }
        if (xcb->has_error(c) != 0) lost = true;
    }

};

PresentFeedback::PresentFeedback(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PresentFeedback::~PresentFeedback() {
    if (impl_->c != nullptr && ::getpid() == impl_->owner) impl_->xcb->disconnect(impl_->c);
}

std::unique_ptr<PresentFeedback> PresentFeedback::open(const char* display_name, uint32_t window, std::string* why) {
    std::string reason;
    const auto fail = [&](std::string line) {
        if (why != nullptr) *why = std::move(line);
        return nullptr;
    };
    const Xcb* xcb = load_xcb(&reason);
    if (xcb == nullptr) return fail(reason);
    if (window == 0) return fail("no X window");
    xcb_connection_t* c = xcb->connect(display_name, nullptr);
    const std::string server = display_name != nullptr ? display_name : "$DISPLAY";
    if (xcb->has_error(c) != 0) {
        xcb->disconnect(c);
        return fail("cannot connect to the X server '" + server + "'");
    }
    const xcb_query_extension_reply_t* present = xcb->extension_data(c, xcb->present_id);
    if (present == nullptr || present->present == 0) {
        xcb->disconnect(c);
        return fail("the X server '" + server + "' has no Present extension");
    }
    // Asked together, answered in one round trip: the version, what kind of
    // server dates the ticks, and whether the window takes the selection.
    const auto version_cookie = xcb->present_version(c, 1, 2);
    const auto xwayland_cookie = xcb->query_extension(c, 8, "XWAYLAND");
    const auto dri3_cookie = xcb->query_extension(c, 4, "DRI3");
    const uint32_t eid = xcb->generate_id(c);
    const auto select_cookie =
        xcb->select_input_checked(c, eid, window, XCB_PRESENT_EVENT_MASK_COMPLETE_NOTIFY);
    xcb_present_query_version_reply_t* version = xcb->present_version_reply(c, version_cookie, nullptr);
    const uint32_t major = version != nullptr ? version->major_version : 0;
    const uint32_t minor = version != nullptr ? version->minor_version : 0;
    std::free(version);
    const bool xwayland = has_extension(*xcb, c, xwayland_cookie);
    const bool dri3 = has_extension(*xcb, c, dri3_cookie);
    if (xcb_generic_error_t* error = xcb->request_check(c, select_cookie)) {
        std::free(error);
        xcb->disconnect(c);
        char line[96];
        std::snprintf(line, sizeof line, "0x%x is no window of the X server (a GLXWindow's or a pixmap's XID?)",
                      static_cast<unsigned>(window));
        return fail(line);
    }
    // Xorg with a GPU dates its ticks at the kernel's vblank; a server
    // without DRI3 (Xvfb, Xorg on no DRM device) and Xwayland in software.
    const bool hardware = dri3 && !xwayland;
    auto impl = std::make_unique<Impl>(kPresentedVsync | (hardware ? kPresentedHwClock : 0u));
    impl->xcb = xcb;
    impl->c = c;
    impl->hardware = hardware;
    impl->owner = ::getpid();
    impl->window = window;
    impl->opcode = present->major_opcode;
    impl->counts.round_trips = 1;
    char text[160];
    std::snprintf(text, sizeof text, "X Present %u.%u%s", major, minor,
                  xwayland ? " on Xwayland: the compositor's frame clock, dated in software"
                  : dri3   ? ": the display's vblank"
                           : " without DRI3 (Xvfb, or no GPU): a software clock");
    impl->text = text;
    impl->arm(now_ns());
    impl->heard_ns = impl->armed_ns;
    impl->counts.requests = 0;   // the open's own are not a frame's
    impl->xcb->flush(c);
    impl->pending_flush = false;
    return std::unique_ptr<PresentFeedback>(new PresentFeedback(std::move(impl)));
}

void PresentFeedback::request(int64_t frame_index) {
    if (!impl_->usable()) return;
    impl_->requested = true;
    impl_->last_index = frame_index;
    impl_->frames.sent(frame_index, now_ns());
    impl_->pump();
}

void PresentFeedback::sent() {
    if (!impl_->usable() || !impl_->requested) return;
    impl_->frames.sent(impl_->last_index, now_ns());
}

bool PresentFeedback::take(Presented* out) {
    impl_->pump();
    return impl_->frames.take(out);
}

const char* PresentFeedback::describe() const { return impl_->text.c_str(); }
bool PresentFeedback::hardware_clock() const { return impl_->hardware; }
bool PresentFeedback::lost() const { return impl_->lost; }
bool PresentFeedback::by_completions() const { return impl_->frames.by_completions(); }
PresentFeedback::Counts PresentFeedback::counts() const { return impl_->counts; }

}  // namespace pacer::x11

// present_ticks.cpp: the instrument's other half (present_probe.cpp dates
// the images): a client of its own that hears the X server's refresh ticks
// of the window a program draws to, each MSC with its UST, as the server
// dates it. A frame is shown at the first tick after its image reached the
// server, so the two files together say, refresh by refresh, what the
// screen showed (tools/x11_clock.py counts them). Nothing of pacer's: it
// judges pacer.
//
//   pacer_present_ticks --window-file FILE --out FILE [--wait-s S]
//
// Waits (up to S seconds, default 30) for the probe to write the window's
// XID into --window-file, then asks PresentNotifyMSC for each MSC a few
// ahead and writes "MSC UST_NS" per tick, at once (write(2)), until SIGTERM
// or SIGINT, or until the window or the server is gone. An answer for an
// MSC already past (the server then gives the current one, dated when
// asked) is no tick and is left out. Its serials (0x20000000 and up) are no
// XID and none of pacer's (the top bit), so neither Mesa nor pacer takes
// its answers for their own. Exit 0 with the ticks written; 2 on bad
// arguments or where the window never came.
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <xcb/present.h>
#include <xcb/xcb.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>

namespace {

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

constexpr uint32_t kBase = 0x20000000u;   // >= 2^29: no XID
constexpr uint32_t kMask = 0x1FFFFFFFu;
constexpr int kAhead = 4;

uint32_t read_window(const std::string& path, double wait_s) {
    for (int waited_ms = 0; !g_stop && waited_ms < wait_s * 1000; waited_ms += 10) {
        if (FILE* f = std::fopen(path.c_str(), "r")) {
            unsigned window = 0;
            const bool got = std::fscanf(f, "%x", &window) == 1;
            std::fclose(f);
            if (got && window != 0) return window;
        }
        ::usleep(10'000);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string window_file, out_path;
    double wait_s = 30;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--window-file") == 0) window_file = argv[i + 1];
        else if (std::strcmp(argv[i], "--out") == 0) out_path = argv[i + 1];
        else if (std::strcmp(argv[i], "--wait-s") == 0) wait_s = std::atof(argv[i + 1]);
    }
    if (window_file.empty() || out_path.empty()) {
        std::fprintf(stderr, "usage: pacer_present_ticks --window-file FILE --out FILE [--wait-s S]\n");
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        std::fprintf(stderr, "present_ticks: cannot write %s: %s\n", out_path.c_str(), std::strerror(errno));
        return 2;
    }
    const uint32_t window = read_window(window_file, wait_s);
    if (window == 0) {
        std::fprintf(stderr, "present_ticks: no window in %s after %g s\n", window_file.c_str(), wait_s);
        return 2;
    }
    xcb_connection_t* c = xcb_connect(nullptr, nullptr);
    if (xcb_connection_has_error(c) != 0) {
        std::fprintf(stderr, "present_ticks: cannot connect to $DISPLAY\n");
        return 2;
    }
    const xcb_query_extension_reply_t* present = xcb_get_extension_data(c, &xcb_present_id);
    if (present == nullptr || !present->present) {
        std::fprintf(stderr, "present_ticks: the X server has no Present extension\n");
        return 2;
    }
    const uint32_t eid = xcb_generate_id(c);
    if (xcb_generic_error_t* error = xcb_request_check(
            c, xcb_present_select_input_checked(c, eid, window, XCB_PRESENT_EVENT_MASK_COMPLETE_NOTIFY))) {
        std::free(error);
        std::fprintf(stderr, "present_ticks: 0x%x is no window\n", window);
        return 2;
    }
    xcb_present_notify_msc(c, window, kBase, 0, 1, 0);   // the next tick, whatever its MSC
    xcb_flush(c);
    uint64_t asked_to = 0;
    int64_t ticks = 0;
    while (!g_stop && xcb_connection_has_error(c) == 0) {
        pollfd fd{xcb_get_file_descriptor(c), POLLIN, 0};
        if (::poll(&fd, 1, 100) < 0 && errno != EINTR) break;
        bool gone = false;
        while (xcb_generic_event_t* event = xcb_poll_for_event(c)) {
            const uint8_t type = event->response_type & 0x7F;
            if (type == 0) gone = true;   // only our requests err: the window is gone
            const auto* e = reinterpret_cast<const xcb_present_complete_notify_event_t*>(event);
            if (type == XCB_GE_GENERIC && e->extension == present->major_opcode &&
                e->event_type == XCB_PRESENT_COMPLETE_NOTIFY && e->kind == XCB_PRESENT_COMPLETE_KIND_NOTIFY_MSC &&
                (e->serial & ~kMask) == kBase) {
                const bool on_time = e->serial == kBase || (e->serial & kMask) == (e->msc & kMask);
                if (on_time) {
                    char line[64];
                    const int n = std::snprintf(line, sizeof line, "%llu %lld\n",
                                                static_cast<unsigned long long>(e->msc),
                                                static_cast<long long>(e->ust) * 1000);
                    if (n > 0) (void)!::write(out, line, static_cast<size_t>(n));
                    ++ticks;
                }
                if (asked_to < e->msc) asked_to = e->msc;
                while (asked_to < e->msc + kAhead) {
                    ++asked_to;
                    xcb_present_notify_msc(c, window, kBase | (static_cast<uint32_t>(asked_to) & kMask), asked_to, 0,
                                           0);
                }
                xcb_flush(c);
            }
            std::free(event);
        }
        if (gone) break;
    }
    ::close(out);
    std::fprintf(stderr, "present_ticks: %lld ticks of window 0x%x\n", static_cast<long long>(ticks), window);
    xcb_disconnect(c);
    return 0;
}

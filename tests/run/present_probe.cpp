// present_probe.cpp: an instrument below any limiter: an LD_PRELOAD that
// dates each image a program's GL or Vulkan driver hands to the X server,
// where Mesa's software drivers present on X11 (llvmpipe's GLX through
// XShmPutImage, or XPutImage where the server cannot attach its shared
// memory; lavapipe's WSI through xcb_put_image, or xcb_shm_put_image where
// it has MIT-SHM). pacer-run and MangoHud both wait above it, so both
// are judged by the same clock at the same point.
//
// PACER_PROBE_OUT=FILE: one line per present, CLOCK_MONOTONIC in ns,
// written at once (write(2)), so a program killed by a signal loses none.
// A put split into bands (a request longer than the server takes) counts
// once, at its first band (destination row 0).
// PACER_PROBE_WINDOW=FILE: the first drawable put to three times in a row,
// in hex, written once (by the first process that does): the window whose
// refresh ticks present_ticks.cpp counts the images against (SDL2 puts a
// pixmap or two first). PACER_PROBE_DRAWABLES=1: each line also names the
// drawable ("NS 0xXID"), for the puts to that window alone.
#include <dlfcn.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

int output_fd() {
    static const int fd = [] {
        const char* path = std::getenv("PACER_PROBE_OUT");
        return path == nullptr ? -1 : ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }();
    return fd;
}

void note_window(uint32_t drawable) {
    static bool noted = false;
    static uint32_t last = 0;
    static int in_a_row = 0;
    const char* path = std::getenv("PACER_PROBE_WINDOW");
    if (noted || path == nullptr) return;
    in_a_row = drawable == last ? in_a_row + 1 : 1;
    last = drawable;
    if (in_a_row < 3) return;
    noted = true;
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return;   // another process of the program's was first
    char line[32];
    const int n = std::snprintf(line, sizeof line, "0x%x\n", drawable);
    if (n > 0) (void)!::write(fd, line, static_cast<std::size_t>(n));
    ::close(fd);
}

void stamp(uint32_t drawable) {
    note_window(drawable);
    const int fd = output_fd();
    if (fd < 0) return;
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    static const bool with_drawable = std::getenv("PACER_PROBE_DRAWABLES") != nullptr;
    char line[48];
    const long long ns = static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
    const int n = with_drawable ? std::snprintf(line, sizeof line, "%lld 0x%x\n", ns, drawable)
                                : std::snprintf(line, sizeof line, "%lld\n", ns);
    if (n > 0) (void)!::write(fd, line, static_cast<std::size_t>(n));
}

template <class Fn>
Fn next(const char* name) {
    return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

struct Cookie {   // xcb_void_cookie_t
    unsigned int sequence;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) int XShmPutImage(void* display, unsigned long drawable, void* gc,
                                                                   void* image, int src_x, int src_y, int dst_x,
                                                                   int dst_y, unsigned width, unsigned height,
                                                                   int send_event) {
    using Fn = int (*)(void*, unsigned long, void*, void*, int, int, int, int, unsigned, unsigned, int);
    static const Fn real = next<Fn>("XShmPutImage");
    if (dst_y == 0) stamp(static_cast<uint32_t>(drawable));
    return real(display, drawable, gc, image, src_x, src_y, dst_x, dst_y, width, height, send_event);
}

// Mesa's software GLX where MIT-SHM cannot attach its segment (Xwayland as
// another user than the program) puts the image through the wire instead.
extern "C" __attribute__((visibility("default"))) int XPutImage(void* display, unsigned long drawable, void* gc,
                                                                void* image, int src_x, int src_y, int dst_x,
                                                                int dst_y, unsigned width, unsigned height) {
    using Fn = int (*)(void*, unsigned long, void*, void*, int, int, int, int, unsigned, unsigned);
    static const Fn real = next<Fn>("XPutImage");
    if (dst_y == 0) stamp(static_cast<uint32_t>(drawable));
    return real(display, drawable, gc, image, src_x, src_y, dst_x, dst_y, width, height);
}

extern "C" __attribute__((visibility("default"))) Cookie xcb_put_image(void* c, uint8_t format, uint32_t drawable,
                                                                      uint32_t gc, uint16_t width, uint16_t height,
                                                                      int16_t dst_x, int16_t dst_y, uint8_t left_pad,
                                                                      uint8_t depth, uint32_t data_len,
                                                                      const uint8_t* data) {
    using Fn = Cookie (*)(void*, uint8_t, uint32_t, uint32_t, uint16_t, uint16_t, int16_t, int16_t, uint8_t, uint8_t,
                          uint32_t, const uint8_t*);
    static const Fn real = next<Fn>("xcb_put_image");
    if (dst_y == 0) stamp(drawable);
    return real(c, format, drawable, gc, width, height, dst_x, dst_y, left_pad, depth, data_len, data);
}

extern "C" __attribute__((visibility("default"))) Cookie xcb_shm_put_image(
    void* c, uint32_t drawable, uint32_t gc, uint16_t total_width, uint16_t total_height, uint16_t src_x,
    uint16_t src_y, uint16_t src_width, uint16_t src_height, int16_t dst_x, int16_t dst_y, uint8_t depth,
    uint8_t format, uint8_t send_event, uint32_t shmseg, uint32_t offset) {
    using Fn = Cookie (*)(void*, uint32_t, uint32_t, uint16_t, uint16_t, uint16_t, uint16_t, uint16_t, uint16_t,
                          int16_t, int16_t, uint8_t, uint8_t, uint8_t, uint32_t, uint32_t);
    static const Fn real = next<Fn>("xcb_shm_put_image");
    if (dst_y == 0) stamp(drawable);
    return real(c, drawable, gc, total_width, total_height, src_x, src_y, src_width, src_height, dst_x, dst_y, depth,
                format, send_event, shmseg, offset);
}

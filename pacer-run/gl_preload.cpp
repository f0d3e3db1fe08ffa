// gl_preload.cpp: pacer-run's OpenGL half, loaded into the program with
// LD_PRELOAD. It hooks the presents, glXSwapBuffers, eglSwapBuffers and
// eglSwapBuffersWithDamage{KHR,EXT}, and hands each to the process's
// session (session.h), which finishes the frame's GL work (WindowHost's
// fence), waits, presents and marks the present.
//
// GLX 1.3's glXCreateWindow is hooked too, to know the X window of a
// GLXWindow: the X server's Present events (X11's display clock) name it.
//
// How a program reaches a present, and how each way is hooked:
//   linked against libGL or libEGL          this library's exports come first (LD_PRELOAD)
//   glXGetProcAddress[ARB], eglGetProcAddress
//                                           these are hooked and hand out the hooks
//   dlopen("libGL.so.1") and dlsym (SDL2, GLFW)
//                                           dlsym is hooked: a hooked name gets the hook
// The real function is the one the program would have got: the first address
// a lookup returned for the name (dlsym's, GetProcAddress's), else the next
// definition after this library (RTLD_NEXT).
//
// The swap interval: with a strategy that sets it (vsync, auto, display_lock)
// the pacer owns it, and the program's own requests (glXSwapInterval{EXT,
// MESA,SGI}, eglSwapInterval) are answered as done and not applied; with
// any other they pass through, so a program's vsync stays on with the timer
// on top. On Wayland, the surface of an EGL window is learned from
// wl_egl_window_create and eglCreate[Platform]WindowSurface, and the
// display from wl_display_connect: the present feedback auto and
// display_lock pace to.
#include "session.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#define PACER_EXPORT extern "C" __attribute__((visibility("default")))

namespace pacer_run {
namespace {

// The hooked names, in one table: each with its hook and the real address.
enum Hook : int {
    kGlxSwapBuffers,
    kGlxGetProcAddress,
    kGlxGetProcAddressArb,
    kGlxSwapIntervalExt,
    kGlxSwapIntervalMesa,
    kGlxSwapIntervalSgi,
    kGlxCreateWindow,
    kEglSwapBuffers,
    kEglSwapBuffersWithDamageKhr,
    kEglSwapBuffersWithDamageExt,
    kEglGetProcAddress,
    kEglSwapInterval,
    kEglCreateWindowSurface,
    kEglCreatePlatformWindowSurface,
    kEglCreatePlatformWindowSurfaceExt,
    kWlDisplayConnect,
    kWlEglWindowCreate,
    kHookCount
};
struct HookEntry {
    const char* name;
    void* hook;                   // filled in by the table below the hooks
    std::atomic<void*> real{nullptr};
};
HookEntry g_hooks[kHookCount];   // zero-initialised; names and hooks set by install_table()

using DlsymFn = void* (*)(void*, const char*);

// The real dlsym: this library's own dlsym is the hook.
DlsymFn real_dlsym() {
    static const DlsymFn real = [] {
        auto fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
        if (fn == nullptr) fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"));
        return fn;
    }();
    return real;
}

// dlsym(RTLD_NEXT, name) as the program's caller meant it: the first
// definition in an object loaded after the caller's. Passing RTLD_NEXT on
// from the hook would search after this library instead, and hand a
// preload after it (an instrument, another limiter) its own function back.
struct NextSearch {
    uintptr_t caller_base;
    const char* name;
    bool past_caller = false;
    void* found = nullptr;
};

int search_next(dl_phdr_info* object, size_t, void* data) {
    auto* search = static_cast<NextSearch*>(data);
    if (!search->past_caller) {
        search->past_caller = object->dlpi_addr == search->caller_base;
        return 0;
    }
    if (object->dlpi_name == nullptr || object->dlpi_name[0] == '\0') return 0;
    void* handle = dlopen(object->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) return 0;
    void* symbol = real_dlsym()(handle, search->name);
    dlclose(handle);
    Dl_info where{};
    // A handle's lookup also searches the object's dependencies: only a
    // definition in the object itself is the next one.
    if (symbol != nullptr && dladdr(symbol, &where) != 0 &&
        reinterpret_cast<uintptr_t>(where.dli_fbase) == object->dlpi_addr) {
        search->found = symbol;
        return 1;
    }
    return 0;
}

void* next_after(const void* caller, const char* name) {
    Dl_info where{};
    if (name == nullptr || dladdr(caller, &where) == 0) return nullptr;
    NextSearch search{reinterpret_cast<uintptr_t>(where.dli_fbase), name};
    dl_iterate_phdr(search_next, &search);
    return search.found;
}

HookEntry* find_hook(const char* name) {
    if (name == nullptr) return nullptr;
    for (HookEntry& entry : g_hooks) {
        if (entry.name != nullptr && std::strcmp(entry.name, name) == 0) return &entry;
    }
    return nullptr;
}

// A lookup found `real` for a hooked name: kept as the real one (the first
// wins), and the hook handed out in its place. A lookup that found the hook
// itself (dlsym(RTLD_DEFAULT, ...): this library comes first) keeps nothing:
// kept, the hook would call itself.
void* hand_out(HookEntry* entry, void* real) {
    if (real == nullptr || entry == nullptr || real == entry->hook) return real;
    void* none = nullptr;
    entry->real.compare_exchange_strong(none, real);
    return entry->hook;
}

template <class Fn>
Fn real_of(Hook hook) {
    HookEntry& entry = g_hooks[hook];
    void* real = entry.real.load();
    if (real == nullptr && real_dlsym() != nullptr) {
        real = real_dlsym()(RTLD_NEXT, entry.name);
        void* none = nullptr;
        if (real != nullptr && !entry.real.compare_exchange_strong(none, real)) real = none;
    }
    return reinterpret_cast<Fn>(real);
}

// --- GLX ------------------------------------------------------------------------
using GlxSwapFn = void (*)(void*, unsigned long);
using GlxProcFn = void* (*)(const unsigned char*);
using GlxIntervalExtFn = void (*)(void*, unsigned long, int);
using GlxIntervalMesaFn = int (*)(unsigned);
using GlxIntervalSgiFn = int (*)(int);
using GlxCurrentFn = void* (*)();

GlxProcFn glx_lookup() {
    if (auto fn = real_of<GlxProcFn>(kGlxGetProcAddressArb)) return fn;
    return real_of<GlxProcFn>(kGlxGetProcAddress);
}

void* glx_function(const char* name) {
    const GlxProcFn lookup = glx_lookup();
    return lookup == nullptr ? nullptr : lookup(reinterpret_cast<const unsigned char*>(name));
}

struct GlxCall {
    GlxSwapFn real;
    void* display;
    unsigned long drawable;
};

// GLX 1.3's GLXWindows (glXCreateWindow) and the X windows they draw on: a
// GLXWindow's XID is no window to the X server, whose Present events name
// the X window.
std::mutex* const g_glx_mutex = new std::mutex;
auto* const g_window_of_glx_window = new std::unordered_map<unsigned long, unsigned long>;

unsigned long x_window_of(unsigned long drawable) {
    std::lock_guard<std::mutex> lock(*g_glx_mutex);
    const auto found = g_window_of_glx_window->find(drawable);
    return found != g_window_of_glx_window->end() ? found->second : drawable;
}

// The display's refresh through RandR (libXrandr, loaded on demand: the
// program is an X11 one, libX11 is there), 0 where it says none.
double x11_refresh_hz(void* display) {
    using RootFn = unsigned long (*)(void*);
    using InfoFn = void* (*)(void*, unsigned long);
    using RateFn = short (*)(void*);
    using FreeFn = void (*)(void*);
    static void* const randr = dlopen("libXrandr.so.2", RTLD_NOW | RTLD_LOCAL);
    if (randr == nullptr || display == nullptr || real_dlsym() == nullptr) return 0;
    const auto root = reinterpret_cast<RootFn>(real_dlsym()(RTLD_DEFAULT, "XDefaultRootWindow"));
    const auto info = reinterpret_cast<InfoFn>(real_dlsym()(randr, "XRRGetScreenInfo"));
    const auto rate = reinterpret_cast<RateFn>(real_dlsym()(randr, "XRRConfigCurrentRate"));
    const auto release = reinterpret_cast<FreeFn>(real_dlsym()(randr, "XRRFreeScreenConfigInfo"));
    if (root == nullptr || info == nullptr || rate == nullptr || release == nullptr) return 0;
    void* config = info(display, root(display));
    if (config == nullptr) return 0;
    const short hz = rate(config);
    release(config);
    return hz > 0 ? hz : 0;
}

// The program's window as the X server has it: hidden (not viewable:
// minimized, or unmapped) and whether the keyboard focus is on it, an
// ancestor of it (the toplevel of a child it draws into) or a child of it.
// Asked on a connection of pacer's own, through XCB, whose replies carry an
// error rather than calling the program's Xlib error handler (which may
// end it): a drawable that is no window (a GLXWindow, a pixmap) is an
// error reply, and the window then counts as in front, as where libxcb or
// the server cannot be reached. libxcb is loaded in every Xlib program;
// nothing links against it. Focus that follows the pointer (PointerRoot,
// as on an X server with no window manager, or the root window) counts as
// focused.
class X11Window {
public:
    // true with *hidden and *focused where the server answered for window
    bool read(void* display, unsigned long window, bool* hidden, bool* focused) {
        xcb_connection_t* c = connection(display);
        if (c == nullptr) return false;
        // Both asked before either answer is read: one round trip.
        const auto attributes_cookie = xcb_.attributes(c, static_cast<xcb_window_t>(window));
        const auto focus_cookie = xcb_.focus(c);
        xcb_generic_error_t* error = nullptr;
        xcb_get_window_attributes_reply_t* attributes = xcb_.attributes_reply(c, attributes_cookie, &error);
        std::free(error);
        error = nullptr;
        xcb_get_input_focus_reply_t* focus = xcb_.focus_reply(c, focus_cookie, &error);
        std::free(error);
        const bool known = attributes != nullptr && focus != nullptr;
        if (known) {
            *hidden = attributes->map_state != XCB_MAP_STATE_VIEWABLE;
            const xcb_window_t on = focus->focus;
            *focused = on == XCB_INPUT_FOCUS_POINTER_ROOT || within(c, static_cast<xcb_window_t>(window), on) ||
                       within(c, on, static_cast<xcb_window_t>(window));
        }
        std::free(attributes);
        std::free(focus);
        return known;
    }

private:
    struct Xcb {
        xcb_connection_t* (*connect)(const char*, int*) = nullptr;
        int (*has_error)(xcb_connection_t*) = nullptr;
        xcb_get_window_attributes_cookie_t (*attributes)(xcb_connection_t*, xcb_window_t) = nullptr;
        xcb_get_window_attributes_reply_t* (*attributes_reply)(xcb_connection_t*, xcb_get_window_attributes_cookie_t,
                                                               xcb_generic_error_t**) = nullptr;
        xcb_get_input_focus_cookie_t (*focus)(xcb_connection_t*) = nullptr;
        xcb_get_input_focus_reply_t* (*focus_reply)(xcb_connection_t*, xcb_get_input_focus_cookie_t,
                                                    xcb_generic_error_t**) = nullptr;
        xcb_query_tree_cookie_t (*tree)(xcb_connection_t*, xcb_window_t) = nullptr;
        xcb_query_tree_reply_t* (*tree_reply)(xcb_connection_t*, xcb_query_tree_cookie_t,
                                              xcb_generic_error_t**) = nullptr;
    };
    static constexpr int kMaxDepth = 16;   // window managers nest a client two or three deep

    // The connection, made at the first read to the server of display (an
    // Xlib Display*, its name from XDisplayString), and again in a child
    // forked since: a connection's replies are read by one process, and the
    // one inherited is the parent's. Null where libxcb or the server fails.
    xcb_connection_t* connection(void* display) {
        std::lock_guard<std::mutex> lock(mutex_);
        const pid_t pid = ::getpid();
        if (pid == owner_) return connection_;
        owner_ = pid;
        connection_ = nullptr;   // a parent's is left alone, not closed: its socket is the parent's too
        using NameFn = const char* (*)(void*);
        const auto name = real_dlsym() != nullptr
                              ? reinterpret_cast<NameFn>(real_dlsym()(RTLD_DEFAULT, "XDisplayString"))
                              : nullptr;
        if (name == nullptr || display == nullptr || !load()) return nullptr;
        xcb_connection_t* c = xcb_.connect(name(display), nullptr);
        if (xcb_.has_error(c) == 0) connection_ = c;   // a failed one is not closed: its memory is xcb's
        return connection_;
    }

    // libxcb's calls, looked up once (the program has it loaded).
    bool load() {
        if (xcb_.connect != nullptr) return true;
        void* xcb = dlopen("libxcb.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (xcb == nullptr) return false;
        Xcb x;
        const auto find = [&](const char* symbol, auto* out) {
            *out = reinterpret_cast<std::remove_pointer_t<decltype(out)>>(real_dlsym()(xcb, symbol));
            return *out != nullptr;
        };
        const bool all = find("xcb_connect", &x.connect) && find("xcb_connection_has_error", &x.has_error) &&
                         find("xcb_get_window_attributes", &x.attributes) &&
                         find("xcb_get_window_attributes_reply", &x.attributes_reply) &&
                         find("xcb_get_input_focus", &x.focus) && find("xcb_get_input_focus_reply", &x.focus_reply) &&
                         find("xcb_query_tree", &x.tree) && find("xcb_query_tree_reply", &x.tree_reply);
        if (all) xcb_ = x;
        return all;
    }

    // Whether ancestor is window or one of its parents.
    bool within(xcb_connection_t* c, xcb_window_t window, xcb_window_t ancestor) const {
        for (int depth = 0; depth < kMaxDepth && window != XCB_NONE; ++depth) {
            if (window == ancestor) return true;
            xcb_generic_error_t* error = nullptr;
            xcb_query_tree_reply_t* tree = xcb_.tree_reply(c, xcb_.tree(c, window), &error);
            std::free(error);
            if (tree == nullptr) return false;
            const bool top = tree->parent == tree->root;
            window = tree->parent;
            std::free(tree);
            if (top) return window == ancestor;
        }
        return false;
    }

    std::mutex mutex_;
    pid_t owner_ = 0;   // the process connection_ belongs to
    Xcb xcb_;
    xcb_connection_t* connection_ = nullptr;
};

class GlxHost final : public PresentHost {
public:
    const char* api_name() const override { return "OpenGL (GLX)"; }
    bool set_swap_interval(int interval) override {
        const auto* call = static_cast<const GlxCall*>(present_context());
        if (auto ext = real_of<GlxIntervalExtFn>(kGlxSwapIntervalExt); ext != nullptr && call != nullptr) {
            ext(call->display, call->drawable, interval);   // returns nothing: cannot confirm
            return record_swap(interval, pacer::backends::SwapAnswer::Unconfirmed);
        }
        if (auto mesa = real_of<GlxIntervalMesaFn>(kGlxSwapIntervalMesa); mesa != nullptr) {
            return record_swap(interval, mesa(static_cast<unsigned>(interval < 0 ? 0 : interval)) == 0
                                             ? pacer::backends::SwapAnswer::Accepted
                                             : pacer::backends::SwapAnswer::Refused);
        }
        if (auto sgi = real_of<GlxIntervalSgiFn>(kGlxSwapIntervalSgi); sgi != nullptr && interval > 0) {
            return record_swap(interval, sgi(interval) == 0 ? pacer::backends::SwapAnswer::Accepted
                                                            : pacer::backends::SwapAnswer::Refused);
        }
        return record_swap(interval, pacer::backends::SwapAnswer::Refused);
    }
    double refresh_rate_hz() override {
        const auto* call = static_cast<const GlxCall*>(present_context());
        return call == nullptr ? 0 : x11_refresh_hz(call->display);
    }
    // The X server's Present clock and each frame's fate, for the drawable's
    // X window (a GLXWindow's own), asked on a connection of its own.
    void starting(const void* window) override {
        const auto* call = static_cast<const GlxCall*>(present_context());
        if (call != nullptr) watch_x11_window(call->display, x_window_of(reinterpret_cast<unsigned long>(window)));
    }

protected:
    // Read before each wait of the paced window (Arbiter::check_window), on
    // its drawable: see X11Window.
    WindowFlags window_flags() const override {
        const auto* call = static_cast<const GlxCall*>(present_context());
        WindowFlags flags;
        if (call == nullptr || !window_.read(call->display, call->drawable, &flags.hidden, &flags.focused)) return {};
        return flags;
    }
    bool gl_context_current() const override {
        const auto current = reinterpret_cast<GlxCurrentFn>(glx_function("glXGetCurrentContext"));
        return current != nullptr && current() != nullptr;
    }
    void* gl_function(const char* name) const override { return glx_function(name); }

private:
    mutable X11Window window_;   // window_flags() is const; the reader keeps its connection
};

GlxHost& glx_host() {
    static GlxHost* const host = new GlxHost;   // never destroyed: presents may come until the end
    return *host;
}

// --- EGL ------------------------------------------------------------------------
using EglBool = unsigned;
using EglSwapFn = EglBool (*)(void*, void*);
using EglDamageFn = EglBool (*)(void*, void*, const int32_t*, int32_t);
using EglProcFn = void* (*)(const char*);
using EglIntervalFn = EglBool (*)(void*, int32_t);
using EglCurrentFn = void* (*)();
using EglWindowSurfaceFn = void* (*)(void*, void*, uintptr_t, const int32_t*);
using EglPlatformSurfaceFn = void* (*)(void*, void*, void*, const intptr_t*);
using EglPlatformSurfaceExtFn = void* (*)(void*, void*, void*, const int32_t*);
using WlConnectFn = void* (*)(const char*);
using WlEglWindowFn = void* (*)(void*, int, int);

void* egl_function(const char* name) {
    const auto lookup = real_of<EglProcFn>(kEglGetProcAddress);
    return lookup == nullptr ? nullptr : lookup(name);
}

// Wayland: the display and each EGL window's surface.
std::mutex* const g_wayland_mutex = new std::mutex;
void* g_wl_display = nullptr;
auto* const g_surface_of_egl_window = new std::unordered_map<const void*, void*>;   // wl_egl_window -> wl_surface
auto* const g_surface_of_egl_surface = new std::unordered_map<const void*, void*>;  // EGLSurface -> wl_surface

void note_egl_surface(void* egl_surface, const void* native_window) {
    if (egl_surface == nullptr) return;
    std::lock_guard<std::mutex> lock(*g_wayland_mutex);
    const auto found = g_surface_of_egl_window->find(native_window);
    if (found != g_surface_of_egl_window->end()) (*g_surface_of_egl_surface)[egl_surface] = found->second;
}

struct EglCall {
    void* display;
    void* surface;
    EglSwapFn swap;       // one of these two
    EglDamageFn damage;
    const int32_t* rects;
    int32_t rect_count;
    EglBool result;
};

class EglHost final : public PresentHost {
public:
    const char* api_name() const override { return "OpenGL (EGL)"; }
    bool set_swap_interval(int interval) override {
        const auto* call = static_cast<const EglCall*>(present_context());
        const auto set = real_of<EglIntervalFn>(kEglSwapInterval);
        if (set == nullptr || call == nullptr) return record_swap(interval, pacer::backends::SwapAnswer::Refused);
        return record_swap(interval, set(call->display, interval) != 0 ? pacer::backends::SwapAnswer::Accepted
                                                                       : pacer::backends::SwapAnswer::Refused);
    }
    double refresh_rate_hz() override { return 0; }   // Wayland states it in each report; X11's is GLX's
    void starting(const void* window) override {
        void* display = nullptr;
        void* surface = nullptr;
        {
            std::lock_guard<std::mutex> lock(*g_wayland_mutex);
            const auto found = g_surface_of_egl_surface->find(window);
            if (found != g_surface_of_egl_surface->end()) surface = found->second;
            display = g_wl_display;
        }
        if (display != nullptr && surface != nullptr) watch_surface(display, surface);
    }

protected:
    bool gl_context_current() const override {
        const auto current = reinterpret_cast<EglCurrentFn>(egl_function("eglGetCurrentContext"));
        return current != nullptr && current() != nullptr;
    }
    void* gl_function(const char* name) const override { return egl_function(name); }
};

EglHost& egl_host() {
    static EglHost* const host = new EglHost;
    return *host;
}

void run_egl(void* context) {
    auto* call = static_cast<EglCall*>(context);
    call->result = call->swap != nullptr ? call->swap(call->display, call->surface)
                                         : call->damage(call->display, call->surface, call->rects, call->rect_count);
}

EglBool egl_present(EglCall call) {
    Session* session = process_session();
    if (session == nullptr) {
        run_egl(&call);
    } else {
        session->present(call.surface, egl_host(), run_egl, &call);
    }
    return call.result;
}

// Whether the program's own swap-interval request is applied (session.h).
bool program_sets_interval() {
    Session* session = process_session();
    return session == nullptr || !session->owns_swap_interval();
}

}  // namespace
}  // namespace pacer_run

using namespace pacer_run;

PACER_EXPORT void glXSwapBuffers(void* display, unsigned long drawable) {
    const auto real = real_of<GlxSwapFn>(kGlxSwapBuffers);
    if (real == nullptr) return;
    Session* session = process_session();
    if (session == nullptr) return real(display, drawable);
    GlxCall call{real, display, drawable};
    session->present(reinterpret_cast<const void*>(drawable), glx_host(),
                     [](void* context) {
                         const auto* c = static_cast<const GlxCall*>(context);
                         c->real(c->display, c->drawable);
                     },
                     &call);
}

PACER_EXPORT unsigned long glXCreateWindow(void* display, void* config, unsigned long window, const int* attributes) {
    using CreateFn = unsigned long (*)(void*, void*, unsigned long, const int*);
    const auto real = real_of<CreateFn>(kGlxCreateWindow);
    if (real == nullptr) return 0;
    const unsigned long drawable = real(display, config, window, attributes);
    if (drawable != 0) {
        std::lock_guard<std::mutex> lock(*g_glx_mutex);
        (*g_window_of_glx_window)[drawable] = window;
    }
    return drawable;
}

PACER_EXPORT void* glXGetProcAddressARB(const unsigned char* name) {
    const auto real = real_of<GlxProcFn>(kGlxGetProcAddressArb);
    if (real == nullptr) return nullptr;
    return hand_out(find_hook(reinterpret_cast<const char*>(name)), real(name));
}

PACER_EXPORT void* glXGetProcAddress(const unsigned char* name) {
    const auto real = real_of<GlxProcFn>(kGlxGetProcAddress);
    if (real == nullptr) return nullptr;
    return hand_out(find_hook(reinterpret_cast<const char*>(name)), real(name));
}

PACER_EXPORT void glXSwapIntervalEXT(void* display, unsigned long drawable, int interval) {
    const auto real = real_of<GlxIntervalExtFn>(kGlxSwapIntervalExt);
    if (real != nullptr && program_sets_interval()) real(display, drawable, interval);
}

PACER_EXPORT int glXSwapIntervalMESA(unsigned interval) {
    const auto real = real_of<GlxIntervalMesaFn>(kGlxSwapIntervalMesa);
    if (real == nullptr) return -1;   // GLX_BAD_CONTEXT's kin: the extension is not there
    return program_sets_interval() ? real(interval) : 0;
}

PACER_EXPORT int glXSwapIntervalSGI(int interval) {
    const auto real = real_of<GlxIntervalSgiFn>(kGlxSwapIntervalSgi);
    if (real == nullptr) return -1;
    return program_sets_interval() ? real(interval) : 0;
}

PACER_EXPORT EglBool eglSwapBuffers(void* display, void* surface) {
    const auto real = real_of<EglSwapFn>(kEglSwapBuffers);
    if (real == nullptr) return 0;
    return egl_present({display, surface, real, nullptr, nullptr, 0, 0});
}

PACER_EXPORT EglBool eglSwapBuffersWithDamageKHR(void* display, void* surface, const int32_t* rects, int32_t n) {
    const auto real = real_of<EglDamageFn>(kEglSwapBuffersWithDamageKhr);
    if (real == nullptr) return 0;
    return egl_present({display, surface, nullptr, real, rects, n, 0});
}

PACER_EXPORT EglBool eglSwapBuffersWithDamageEXT(void* display, void* surface, const int32_t* rects, int32_t n) {
    const auto real = real_of<EglDamageFn>(kEglSwapBuffersWithDamageExt);
    if (real == nullptr) return 0;
    return egl_present({display, surface, nullptr, real, rects, n, 0});
}

PACER_EXPORT void* eglGetProcAddress(const char* name) {
    const auto real = real_of<EglProcFn>(kEglGetProcAddress);
    if (real == nullptr) return nullptr;
    return hand_out(find_hook(name), real(name));
}

PACER_EXPORT EglBool eglSwapInterval(void* display, int32_t interval) {
    const auto real = real_of<EglIntervalFn>(kEglSwapInterval);
    if (real == nullptr) return 0;
    return program_sets_interval() ? real(display, interval) : 1;
}

PACER_EXPORT void* eglCreateWindowSurface(void* display, void* config, uintptr_t window, const int32_t* attributes) {
    const auto real = real_of<EglWindowSurfaceFn>(kEglCreateWindowSurface);
    if (real == nullptr) return nullptr;
    void* surface = real(display, config, window, attributes);
    note_egl_surface(surface, reinterpret_cast<const void*>(window));
    return surface;
}

PACER_EXPORT void* eglCreatePlatformWindowSurface(void* display, void* config, void* window,
                                                  const intptr_t* attributes) {
    const auto real = real_of<EglPlatformSurfaceFn>(kEglCreatePlatformWindowSurface);
    if (real == nullptr) return nullptr;
    void* surface = real(display, config, window, attributes);
    note_egl_surface(surface, window);
    return surface;
}

PACER_EXPORT void* eglCreatePlatformWindowSurfaceEXT(void* display, void* config, void* window,
                                                     const int32_t* attributes) {
    const auto real = real_of<EglPlatformSurfaceExtFn>(kEglCreatePlatformWindowSurfaceExt);
    if (real == nullptr) return nullptr;
    void* surface = real(display, config, window, attributes);
    note_egl_surface(surface, window);
    return surface;
}

PACER_EXPORT void* wl_display_connect(const char* name) {
    const auto real = real_of<WlConnectFn>(kWlDisplayConnect);
    if (real == nullptr) return nullptr;
    void* display = real(name);
    if (display != nullptr) {
        std::lock_guard<std::mutex> lock(*g_wayland_mutex);
        if (g_wl_display == nullptr) g_wl_display = display;   // the program's first: its windows'
    }
    return display;
}

PACER_EXPORT void* wl_egl_window_create(void* surface, int width, int height) {
    const auto real = real_of<WlEglWindowFn>(kWlEglWindowCreate);
    if (real == nullptr) return nullptr;
    void* window = real(surface, width, height);
    if (window != nullptr) {
        std::lock_guard<std::mutex> lock(*g_wayland_mutex);
        (*g_surface_of_egl_window)[window] = surface;
    }
    return window;
}

PACER_EXPORT void* dlsym(void* handle, const char* name) {
    const DlsymFn real = real_dlsym();
    if (real == nullptr) return nullptr;
    void* symbol = handle == RTLD_NEXT ? next_after(__builtin_return_address(0), name) : real(handle, name);
    return hand_out(find_hook(name), symbol);
}

namespace pacer_run {
namespace {

// The table, filled before main (a constructor of this library): names and
// hooks side by side, in Hook's order.
__attribute__((constructor)) void install_table() {
    const std::pair<const char*, void*> table[kHookCount] = {
        {"glXSwapBuffers", reinterpret_cast<void*>(&glXSwapBuffers)},
        {"glXGetProcAddress", reinterpret_cast<void*>(&glXGetProcAddress)},
        {"glXGetProcAddressARB", reinterpret_cast<void*>(&glXGetProcAddressARB)},
        {"glXSwapIntervalEXT", reinterpret_cast<void*>(&glXSwapIntervalEXT)},
        {"glXSwapIntervalMESA", reinterpret_cast<void*>(&glXSwapIntervalMESA)},
        {"glXSwapIntervalSGI", reinterpret_cast<void*>(&glXSwapIntervalSGI)},
        {"glXCreateWindow", reinterpret_cast<void*>(&glXCreateWindow)},
        {"eglSwapBuffers", reinterpret_cast<void*>(&eglSwapBuffers)},
        {"eglSwapBuffersWithDamageKHR", reinterpret_cast<void*>(&eglSwapBuffersWithDamageKHR)},
        {"eglSwapBuffersWithDamageEXT", reinterpret_cast<void*>(&eglSwapBuffersWithDamageEXT)},
        {"eglGetProcAddress", reinterpret_cast<void*>(&eglGetProcAddress)},
        {"eglSwapInterval", reinterpret_cast<void*>(&eglSwapInterval)},
        {"eglCreateWindowSurface", reinterpret_cast<void*>(&eglCreateWindowSurface)},
        {"eglCreatePlatformWindowSurface", reinterpret_cast<void*>(&eglCreatePlatformWindowSurface)},
        {"eglCreatePlatformWindowSurfaceEXT", reinterpret_cast<void*>(&eglCreatePlatformWindowSurfaceEXT)},
        {"wl_display_connect", reinterpret_cast<void*>(&wl_display_connect)},
        {"wl_egl_window_create", reinterpret_cast<void*>(&wl_egl_window_create)},
    };
    for (int i = 0; i < kHookCount; ++i) {
        g_hooks[i].name = table[i].first;
        g_hooks[i].hook = table[i].second;
    }
}

}  // namespace
}  // namespace pacer_run

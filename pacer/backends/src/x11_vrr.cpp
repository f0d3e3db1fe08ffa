// x11_vrr.cpp: x11_variable_refresh (x11_vrr.h).
#include "x11_vrr.h"

#include "edid.h"

#include <dlfcn.h>

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/extensions/Xrandr.h>

namespace pacer::backends::detail {
namespace {

// The Xlib and XRandR calls used, found in the libraries the window system
// loaded (GLFW and SDL open libXrandr themselves; dlopen only finds them).
struct Api {
    bool ok = false;
    Atom (*intern_atom)(Display*, const char*, Bool) = nullptr;
    int (*get_window_property)(Display*, Window, Atom, long, long, Bool, Atom, Atom*, int*, unsigned long*,
                               unsigned long*, unsigned char**) = nullptr;
    int (*free)(void*) = nullptr;
    Bool (*translate)(Display*, Window, Window, int, int, int*, int*, Window*) = nullptr;
    Window (*root)(Display*) = nullptr;
    Status (*attributes)(Display*, Window, XWindowAttributes*) = nullptr;
    XRRScreenResources* (*resources)(Display*, Window) = nullptr;
    void (*free_resources)(XRRScreenResources*) = nullptr;
    XRROutputInfo* (*output_info)(Display*, XRRScreenResources*, RROutput) = nullptr;
    void (*free_output)(XRROutputInfo*) = nullptr;
    XRRCrtcInfo* (*crtc_info)(Display*, XRRScreenResources*, RRCrtc) = nullptr;
    void (*free_crtc)(XRRCrtcInfo*) = nullptr;
    int (*output_property)(Display*, RROutput, Atom, long, long, Bool, Bool, Atom, Atom*, int*, unsigned long*,
                           unsigned long*, unsigned char**) = nullptr;
};

template <class Function>
void find(void* library, const char* name, Function* out) {
    *out = reinterpret_cast<Function>(dlsym(library, name));
}

const Api& api() {
    static const Api loaded = [] {
        Api a;
        void* x11 = dlopen("libX11.so.6", RTLD_LAZY | RTLD_NOLOAD);
        void* xrandr = dlopen("libXrandr.so.2", RTLD_LAZY | RTLD_NOLOAD);
        if (xrandr == nullptr) xrandr = dlopen("libXrandr.so.2", RTLD_LAZY);
        if (x11 == nullptr || xrandr == nullptr) return a;
        find(x11, "XInternAtom", &a.intern_atom);
        find(x11, "XGetWindowProperty", &a.get_window_property);
        find(x11, "XFree", &a.free);
        find(x11, "XTranslateCoordinates", &a.translate);
        find(x11, "XDefaultRootWindow", &a.root);
        find(x11, "XGetWindowAttributes", &a.attributes);
        find(xrandr, "XRRGetScreenResourcesCurrent", &a.resources);
        find(xrandr, "XRRFreeScreenResources", &a.free_resources);
        find(xrandr, "XRRGetOutputInfo", &a.output_info);
        find(xrandr, "XRRFreeOutputInfo", &a.free_output);
        find(xrandr, "XRRGetCrtcInfo", &a.crtc_info);
        find(xrandr, "XRRFreeCrtcInfo", &a.free_crtc);
        find(xrandr, "XRRGetOutputProperty", &a.output_property);
        a.ok = a.intern_atom && a.get_window_property && a.free && a.translate && a.root && a.attributes &&
               a.resources && a.free_resources && a.output_info && a.free_output && a.crtc_info && a.free_crtc &&
               a.output_property;
        return a;
    }();
    return loaded;
}

// A 32-bit property of the window, 0 where it has none.
long window_cardinal(const Api& x, Display* display, Window window, const char* name) {
    const Atom atom = x.intern_atom(display, name, True);
    if (atom == None) return 0;
    Atom type = None;
    int format = 0;
    unsigned long count = 0, after = 0;
    unsigned char* data = nullptr;
    long value = 0;
    if (x.get_window_property(display, window, atom, 0, 1, False, AnyPropertyType, &type, &format, &count, &after,
                              &data) == Success &&
        data != nullptr && format == 32 && count == 1)
        value = *reinterpret_cast<long*>(data);
    if (data != nullptr) x.free(data);
    return value;
}

// An output's property as bytes (EDID) or its first 32-bit value; false where it has none.
bool output_property(const Api& x, Display* display, RROutput output, const char* name, unsigned char** data,
                     unsigned long* count, int* format) {
    const Atom atom = x.intern_atom(display, name, True);
    if (atom == None) return false;
    Atom type = None;
    unsigned long after = 0;
    *data = nullptr;
    if (x.output_property(display, output, atom, 0, 256, False, False, AnyPropertyType, &type, format, count, &after,
                          data) != Success ||
        *data == nullptr || *count == 0) {
        if (*data != nullptr) x.free(*data);
        return false;
    }
    return true;
}

}  // namespace

bool x11_variable_refresh(void* display_handle, unsigned long window_handle, VrrRange* out) {
    const Api& x = api();
    auto* display = static_cast<Display*>(display_handle);
    const Window window = window_handle;
    if (!x.ok || display == nullptr || window == 0) return false;
    if (window_cardinal(x, display, window, "_VARIABLE_REFRESH") != 1) return false;   // Mesa does not flip it
    XWindowAttributes attributes{};
    Window child = 0;
    int cx = 0, cy = 0;
    if (x.attributes(display, window, &attributes) == 0 ||
        !x.translate(display, window, x.root(display), attributes.width / 2, attributes.height / 2, &cx, &cy, &child))
        return false;
    XRRScreenResources* resources = x.resources(display, x.root(display));
    if (resources == nullptr) return false;
    bool capable = false;
    EdidRange range;
    for (int i = 0; i < resources->noutput && !capable; ++i) {
        XRROutputInfo* info = x.output_info(display, resources, resources->outputs[i]);
        if (info == nullptr) continue;
        XRRCrtcInfo* crtc = info->crtc != 0 ? x.crtc_info(display, resources, info->crtc) : nullptr;
        const bool under = crtc != nullptr && cx >= crtc->x && cy >= crtc->y &&
                           cx < crtc->x + static_cast<int>(crtc->width) && cy < crtc->y + static_cast<int>(crtc->height);
        if (crtc != nullptr) x.free_crtc(crtc);
        x.free_output(info);
        if (!under) continue;
        unsigned char* data = nullptr;
        unsigned long count = 0;
        int format = 0;
        if (output_property(x, display, resources->outputs[i], "vrr_capable", &data, &count, &format)) {
            capable = format == 32 && *reinterpret_cast<long*>(data) == 1;
            x.free(data);
        }
        if (capable && output_property(x, display, resources->outputs[i], "EDID", &data, &count, &format)) {
            if (format == 8) edid_vertical_range(data, count, &range);
            x.free(data);
        }
    }
    x.free_resources(resources);
    if (!capable) return false;
    out->min_hz = range.min_hz;
    out->max_hz = range.max_hz;
    out->source = range.max_hz > 0 ? "X11: vrr_capable, EDID range limits" : "X11: vrr_capable";
    return true;
}

}  // namespace pacer::backends::detail

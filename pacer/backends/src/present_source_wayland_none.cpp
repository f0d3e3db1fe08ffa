// present_source_wayland_none.cpp: pacer built without Wayland's client
// library or protocol files: no Wayland window reports when its frames were
// shown.
#include "present_source.h"

namespace pacer::backends::detail {

std::unique_ptr<PresentSource> open_present_source(void*, void*, std::string* why) {
    *why = "pacer was built without Wayland (libwayland-dev, wayland-protocols)";
    return nullptr;
}

bool display_connection_broken(void*) { return false; }

}  // namespace pacer::backends::detail

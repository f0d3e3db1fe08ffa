// present_source_x11_none.cpp: pacer built without XCB's Present headers, or
// not for X11: no X11 window reports when its frames were shown.
#include "present_source.h"

namespace pacer::backends::detail {

std::unique_ptr<PresentSource> open_x11_present_source(void*, unsigned long, std::string* why) {
    *why = "pacer was built without X11's Present (libxcb-present-dev)";
    return nullptr;
}

}  // namespace pacer::backends::detail

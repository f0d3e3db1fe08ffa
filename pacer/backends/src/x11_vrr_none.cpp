// x11_vrr_none.cpp: x11_variable_refresh where pacer was built without
// XRandR's headers (or not for X11): never.
#include "x11_vrr.h"

namespace pacer::backends::detail {

bool x11_variable_refresh(void*, unsigned long, VrrRange*) { return false; }

}  // namespace pacer::backends::detail

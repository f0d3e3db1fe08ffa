// base/text.h: text for the library's own reports that no caller needs
// (not installed). Numbers and rates are written by pacer/units.h.
#pragma once

#include <string>

namespace pacer::detail {

// "EPERM", "EINVAL", ... or strerror's text: for refusals in reports.
std::string errno_name(int error);

}  // namespace pacer::detail

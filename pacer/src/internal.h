// internal.h: helpers shared by the portable sources (not installed).
#pragma once

#include <pacer/pacer.h>

#include <cstdint>
#include <string>

namespace pacer::detail {

inline constexpr int64_t kMillisecondNs = 1'000'000;

// "EPERM", "EINVAL", ... or strerror's text: for refusals in reports.
std::string errno_name(int error);

}  // namespace pacer::detail

// base/text.cpp: the texts of pacer/units.h and base/text.h.
#include "base/text.h"

#include <pacer/units.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cerrno>

namespace pacer {

std::string number_text(double value) {
    if (value == std::floor(value) && std::fabs(value) < 1e15) return std::to_string(static_cast<long long>(value));
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string hz_text(double hz) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%g Hz", hz);
    return buffer;
}

std::string detail::errno_name(int error) {
    switch (error) {
        case EPERM: return "EPERM";
        case EINVAL: return "EINVAL";
        case ENOSYS: return "ENOSYS";
        case E2BIG: return "E2BIG";
        case EBUSY: return "EBUSY";
        default: return std::strerror(error);
    }
}

}  // namespace pacer

// cli/echo.h: how an error line here echoes a value someone gave. Shared by
// the command lines (cli/checks.h) and the demo's settings and scenarios.
#pragma once

#include <string>
#include <string_view>

namespace pacer_cli {

// The start of the value as given: over 24 bytes it is cut there and marked
// "...", so one line stays one line however long the value.
inline std::string clipped(std::string_view value) {
    return value.size() <= 24 ? std::string(value) : std::string(value.substr(0, 24)) + "...";
}

}  // namespace pacer_cli

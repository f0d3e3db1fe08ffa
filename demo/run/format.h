// format.h: printf into a std::string, for the demo's summaries, traces and
// messages. Longer results are cut at 255 bytes, which none of theirs reach.
#pragma once

#include <cstdio>
#include <string>

namespace pacer_demo {

template <class... Args>
std::string format(const char* fmt, Args... args) {
    char text[256];
    std::snprintf(text, sizeof text, fmt, args...);
    return text;
}

}  // namespace pacer_demo

// leak_check.h: what a build with AddressSanitizer needs for LeakSanitizer's
// verdict at exit to be about the demo (demo/README.md).
#pragma once

namespace pacer_demo {

// Keeps every shared library loaded now mapped to the process's end, so that
// LeakSanitizer, which looks for pointers in each library's globals, still
// sees the globals of those that would be unloaded before it runs. Mesa's GL
// driver (swrast_dri.so here) is unloaded as the window closes while its
// globals still hold blocks: unpinned, they read as leaks (two of 56 bytes
// under SDL2, and 255 strings under GLFW), and the frames that allocated
// them cannot be named. Call once the GL context is made. Does nothing
// without AddressSanitizer, or where the C library cannot list its objects.
void keep_libraries_for_leak_check();

}  // namespace pacer_demo

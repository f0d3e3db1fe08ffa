// leak_check.cpp: LeakSanitizer's view of the demo (leak_check.h).
#include "leak_check.h"

#if defined(__SANITIZE_ADDRESS__)
#define PACER_DEMO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PACER_DEMO_ASAN 1
#endif
#endif

#if defined(PACER_DEMO_ASAN) && defined(__linux__)
#include <dlfcn.h>
#include <link.h>
#endif

namespace pacer_demo {

#if defined(PACER_DEMO_ASAN) && defined(__linux__)

void keep_libraries_for_leak_check() {
    // RTLD_NOLOAD | RTLD_NODELETE on a loaded object loads nothing; it marks
    // the object never to be unloaded. The handle's reference is kept.
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void*) {
            if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
                dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
            return 0;
        },
        nullptr);
}

#else

void keep_libraries_for_leak_check() {}

#endif

}  // namespace pacer_demo

#ifdef PACER_DEMO_ASAN
// libdbus (loaded by SDL2 for the desktop's services) keeps about a kilobyte
// to the process's end by design, which LeakSanitizer would report and end a
// clean run with exit 1 for. It reads this list at its start; nothing of the
// demo's own is suppressed.
extern "C" const char* __lsan_default_suppressions() { return "leak:libdbus-1.so\n"; }
#endif

// leak_check.cpp: linked into pacer's programs that open a window (the demo,
// the examples) when they are built with AddressSanitizer, so that
// LeakSanitizer's verdict at exit is about them (pacer_warnings.cmake).
//
// Two things of other projects' would otherwise end a clean run with its exit
// 1 (measured under Xvfb, Mesa 22.3, SDL 2.26, GLFW 3.3; demo/README.md):
// - Mesa unloads its GL driver (swrast_dri.so) as the window closes while
//   the driver's globals still hold heap blocks. LeakSanitizer looks for
//   pointers in the globals of the libraries loaded when it runs, so those
//   blocks read as leaks whose frames cannot be named. Here dlclose keeps
//   every library mapped (a definition in the program comes before the C
//   library's): nothing a program of ours does needs one unloaded.
// - libdbus, which SDL2 loads for the desktop's services, keeps about a
//   kilobyte to the process's end by design: suppressed by name, and listed
//   by LeakSanitizer as suppressed at exit.
// Nothing of pacer's own is suppressed.
extern "C" int dlclose(void*) { return 0; }

extern "C" const char* __lsan_default_suppressions() { return "leak:libdbus-1.so\n"; }

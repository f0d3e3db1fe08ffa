// noop_swap.cpp: a glXSwapBuffers that does nothing, for swap_cost.cpp: the
// "real" present behind pacer-run's hook, so that only the hook is timed.
extern "C" __attribute__((visibility("default"))) void glXSwapBuffers(void*, unsigned long) {}

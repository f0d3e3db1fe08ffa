// pacer/stats.h: deprecated since pacer 1.1.0, removed in 2.0. Its contents
// moved: Stats, Summary, Percentiles and the metrics to pacer/metrics.h;
// Decision, WaitStatus and DisplayClock to pacer/status.h. This shim keeps a
// 1.0 program compiling for one release and says what to include instead
// (CHANGELOG.md, 1.1.0, Changed).
#pragma once

#if defined(_MSC_VER)
#pragma message("pacer/stats.h is deprecated (pacer 1.1.0) and goes in 2.0: include <pacer/metrics.h> and <pacer/status.h> instead (CHANGELOG.md)")
#else
#warning "pacer/stats.h is deprecated (pacer 1.1.0) and goes in 2.0: include <pacer/metrics.h> and <pacer/status.h> instead (CHANGELOG.md)"
#endif

#include <pacer/metrics.h>
#include <pacer/status.h>

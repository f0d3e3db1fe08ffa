// version.cpp: pacer::version() (pacer/version.h).
#include <pacer/version.h>

namespace pacer {

const char* version() noexcept { return PACER_VERSION_STRING; }

}  // namespace pacer

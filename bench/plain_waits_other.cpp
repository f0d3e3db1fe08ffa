// plain_waits_other.cpp: plain_waits.h where the seed's Linux call does not
// exist (Windows, macOS): the variant reports itself as not run.
#include "plain_waits.h"

namespace bench {

bool plain_sleep_until_ns(int64_t) { return false; }
bool plain_sleep_available() { return false; }

}  // namespace bench

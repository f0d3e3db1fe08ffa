// display_server_other.cpp: display_server.h where no peer can be asked.
#include "window/display_server.h"

namespace pacer_demo {

std::string display_server_name(bool) { return ""; }

}  // namespace pacer_demo

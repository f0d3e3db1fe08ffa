// display_server_linux.cpp: display_server.h on Linux.
#include "window/display_server.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace pacer_demo {

namespace {

// The process listening on the Unix socket at path (abstract: a leading
// '@'), 0 when none answers.
pid_t peer_of(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path) return 0;
    std::memcpy(address.sun_path, path.data(), path.size());
    if (path[0] == '@') address.sun_path[0] = '\0';
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    pid_t pid = 0;
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0) {
        ucred credentials{};
        socklen_t size = sizeof credentials;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0) pid = credentials.pid;
    }
    close(fd);
    return pid;
}

std::string read_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string name_of(pid_t pid) { return pid > 0 ? read_line("/proc/" + std::to_string(pid) + "/comm") : ""; }

// The parent's PID from /proc/PID/stat (after the name, which may hold
// spaces and parentheses: the last ')' ends it).
pid_t parent_of(pid_t pid) {
    const std::string stat = read_line("/proc/" + std::to_string(pid) + "/stat");
    const std::size_t end = stat.rfind(')');
    if (end == std::string::npos) return 0;
    char state = 0;
    int parent = 0;
    return std::sscanf(stat.c_str() + end + 1, " %c %d", &state, &parent) == 2 ? parent : 0;
}

}  // namespace

std::string display_server_name(bool wayland) {
    if (wayland) {
        const char* display = std::getenv("WAYLAND_DISPLAY");
        std::string socket = display != nullptr && *display != '\0' ? display : "wayland-0";
        if (socket[0] != '/') {
            const char* runtime = std::getenv("XDG_RUNTIME_DIR");
            if (runtime == nullptr) return "";
            socket = std::string(runtime) + "/" + socket;
        }
        return name_of(peer_of(socket));
    }
    // ":N" or ":N.S" on this machine: X's socket, abstract first as Xlib tries.
    const char* display = std::getenv("DISPLAY");
    if (display == nullptr || display[0] != ':') return "";
    const std::string number(display + 1, std::strcspn(display + 1, "."));
    pid_t server = peer_of("@/tmp/.X11-unix/X" + number);
    if (server == 0) server = peer_of("/tmp/.X11-unix/X" + number);
    const std::string name = name_of(server);
    if (name.empty()) return "";
    // A Wayland compositor may hold the X sockets for the Xwayland it starts
    // (mutter does), or Xwayland holds them as its child: say which either way.
    if (name == "Xwayland") {
        const std::string parent = name_of(parent_of(server));
        return parent.empty() ? name : name + " (" + parent + ")";
    }
    return name[0] == 'X' ? name : "Xwayland (" + name + ")";
}

}  // namespace pacer_demo

// display_server_name (demo/window/display_server.h), on Linux: the program
// listening on the display's socket, found without a compositor by
// listening on a socket of the test's own.
#include "window/display_server.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace pacer_demo {
namespace {

// Listens on a Unix socket at path ('@' first: abstract) while it lives.
class Listener {
public:
    explicit Listener(const std::string& path) : fd_(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, path.data(), path.size());
        if (path[0] == '@') address.sun_path[0] = '\0';
        const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
        ok_ = fd_ >= 0 && bind(fd_, reinterpret_cast<const sockaddr*>(&address), length) == 0 && listen(fd_, 4) == 0;
        if (path[0] != '@') path_ = path;
    }
    ~Listener() {
        if (fd_ >= 0) close(fd_);
        if (!path_.empty()) unlink(path_.c_str());
    }
    bool ok() const { return ok_; }

private:
    int fd_;
    bool ok_ = false;
    std::string path_;
};

std::string own_name() {
    std::ifstream in("/proc/self/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

// Sets an environment variable for the test's span, then puts it back.
class Env {
public:
    Env(const char* key, const char* value) : key_(key) {
        if (const char* old = std::getenv(key)) old_ = old, had_ = true;
        if (value != nullptr) setenv(key, value, 1); else unsetenv(key);
    }
    ~Env() {
        if (had_) setenv(key_, old_.c_str(), 1); else unsetenv(key_);
    }

private:
    const char* key_;
    std::string old_;
    bool had_ = false;
};

TEST(DisplayServer, TheWaylandSocketsListenerIsNamed) {
    char dir[] = "/tmp/pacer-display-server-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    {
        const Listener compositor(std::string(dir) + "/wayland-7");
        ASSERT_TRUE(compositor.ok());
        const Env runtime("XDG_RUNTIME_DIR", dir);
        const Env relative("WAYLAND_DISPLAY", "wayland-7");
        EXPECT_EQ(display_server_name(true), own_name());
        const std::string absolute = std::string(dir) + "/wayland-7";
        const Env by_path("WAYLAND_DISPLAY", absolute.c_str());
        EXPECT_EQ(display_server_name(true), own_name());
        const Env nobody("WAYLAND_DISPLAY", "wayland-8");   // no one listens there
        EXPECT_EQ(display_server_name(true), "");
    }
    rmdir(dir);
}

TEST(DisplayServer, AnXSocketHeldByAnotherProgramIsItsXwayland) {
    // X's abstract socket for a display number no X server uses here.
    const Listener server("@/tmp/.X11-unix/X4711");
    ASSERT_TRUE(server.ok());
    const Env display("DISPLAY", ":4711.0");
    const std::string name = own_name();
    EXPECT_EQ(display_server_name(false), name[0] == 'X' ? name : "Xwayland (" + name + ")");
    const Env none("DISPLAY", ":4712");
    EXPECT_EQ(display_server_name(false), "");
    const Env remote("DISPLAY", "otherhost:0");
    EXPECT_EQ(display_server_name(false), "");
}

}  // namespace
}  // namespace pacer_demo

// files_posix.cpp: files.h's OS half on POSIX: inputs opened non-blocking and
// checked with fstat (a FIFO with no writer would otherwise hang the open),
// temporary outputs made by mkstemp (a name nobody else holds).
#include "run/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace pacer_demo {

namespace {

std::string kind_of_mode(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// The mode a new file gets here: 0666 less the process's umask.
mode_t new_file_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
}

}  // namespace

std::string read_input_file(const std::string& path, std::size_t max_bytes, std::string* text) {
    if (path.empty()) return "empty path";
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return path + ": cannot open: " + std::strerror(errno);
    struct stat st {};
    std::string problem;
    if (::fstat(fd, &st) != 0) {
        problem = path + ": cannot open: " + std::strerror(errno);
    } else if (!S_ISREG(st.st_mode)) {
        problem = path + ": cannot open: " + kind_of_mode(st.st_mode) + ", not a regular file";
    } else if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
        problem = path + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                  std::to_string(max_bytes >> 20) + " MiB a scenario may have";
    }
    if (!problem.empty()) {
        ::close(fd);
        return problem;
    }
    // The size can change after fstat: read at most one byte past the limit.
    std::string data;
    data.resize(static_cast<std::size_t>(st.st_size) + 1);
    std::size_t used = 0;
    for (;;) {
        if (used == data.size()) {
            if (data.size() > max_bytes) break;
            data.resize(std::min(max_bytes + 1, data.size() * 2 + 4096));
        }
        const ssize_t got = ::read(fd, &data[used], data.size() - used);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            problem = path + ": cannot read: " + std::strerror(errno);
            break;
        }
        if (got == 0) break;
        used += static_cast<std::size_t>(got);
    }
    ::close(fd);
    if (!problem.empty()) return problem;
    if (used > max_bytes)
        return path + ": more than the " + std::to_string(max_bytes >> 20) + " MiB a scenario may have";
    data.resize(used);
    *text = std::move(data);
    return {};
}

std::FILE* create_temp_beside(const std::string& target, std::string* temp_path, std::string* error) {
    // In the target's folder, so the rename is atomic, under a short name of
    // its own: the target's name may take all of the bytes a name can have.
    const std::size_t slash = target.find_last_of('/');
    const std::string pattern = (slash == std::string::npos ? "" : target.substr(0, slash + 1)) + ".pacer-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) {
        *error = std::strerror(errno);
        return nullptr;
    }
    // mkstemp makes 0600; give the file what the target has, or a new file's mode.
    struct stat st {};
    const mode_t mode = ::stat(target.c_str(), &st) == 0 ? static_cast<mode_t>(st.st_mode & 07777) : new_file_mode();
    ::fchmod(fd, mode);
    std::FILE* file = ::fdopen(fd, "wb");
    if (file == nullptr) {
        *error = std::strerror(errno);
        ::close(fd);
        ::unlink(name.data());
        return nullptr;
    }
    *temp_path = name.data();
    return file;
}

bool remove_file_now(const char* path) { return ::unlink(path) == 0; }

}  // namespace pacer_demo

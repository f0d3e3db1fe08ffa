// files_win32.cpp: files.h's OS half on Windows: a FIFO or device cannot be
// opened by a plain path there, so std::filesystem's kind check before the
// read suffices; temporary outputs are created exclusively (_O_EXCL) under
// a random name.
#include "run/files.h"

#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>

namespace pacer_demo {

namespace fs = std::filesystem;

std::string read_input_file(const std::string& path, std::size_t max_bytes, std::string* text) {
    if (path.empty()) return "empty path";
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found) return path + ": cannot open: No such file or directory";
    if (status.type() != fs::file_type::regular)
        return path + ": cannot open: " + file_kind_text(path) + ", not a regular file";
    std::ifstream file(path, std::ios::binary);
    if (!file) return path + ": cannot open: " + std::strerror(errno);
    std::string data(max_bytes + 1, '\0');
    file.read(&data[0], static_cast<std::streamsize>(data.size()));
    if (file.bad()) return path + ": cannot read";
    const auto used = static_cast<std::size_t>(file.gcount());
    if (used > max_bytes)
        return path + ": more than the " + std::to_string(max_bytes >> 20) + " MiB a scenario may have";
    data.resize(used);
    *text = std::move(data);
    return {};
}

std::FILE* create_temp_beside(const std::string& target, std::string* temp_path, std::string* error) {
    std::random_device seed;
    std::mt19937_64 random(seed());
    // In the target's folder, under a short name of its own (files_posix.cpp says why).
    const std::size_t slash = target.find_last_of("/\\");
    const std::string folder = slash == std::string::npos ? "" : target.substr(0, slash + 1);
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, ".pacer-%08llx", static_cast<unsigned long long>(random() & 0xffffffffu));
        const std::string name = folder + suffix;
        const int fd = ::_open(name.c_str(), _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY, _S_IREAD | _S_IWRITE);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) {
            *error = std::strerror(errno);
            return nullptr;
        }
        std::FILE* file = ::_fdopen(fd, "wb");
        if (file == nullptr) {
            *error = std::strerror(errno);
            ::_close(fd);
            std::remove(name.c_str());
            return nullptr;
        }
        *temp_path = name;
        return file;
    }
    *error = "no unused temporary name";
    return nullptr;
}

bool remove_file_now(const char* path) { return ::_unlink(path) == 0; }

}  // namespace pacer_demo

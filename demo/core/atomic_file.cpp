#include "core/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

namespace pacer_demo {

AtomicFile::AtomicFile(std::string path, std::string label)
    : path_(std::move(path)), temp_path_(path_ + ".tmp"), label_(std::move(label)) {
    if (path_.empty()) {
        error_ = label_ + "empty path";
        return;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path_, ec)) {
        fail("is a directory");
        return;
    }
    file_ = std::fopen(temp_path_.c_str(), "wb");
    if (file_ == nullptr) {
        fail(std::strerror(errno));
        return;
    }
    created_ = true;
}

AtomicFile::~AtomicFile() {
    if (file_ != nullptr) std::fclose(file_);
    if (created_ && !closed_) std::remove(temp_path_.c_str());
}

void AtomicFile::fail(const std::string& what) {
    if (error_.empty()) error_ = label_ + "cannot write " + path_ + ": " + what;
}

std::string AtomicFile::close() {
    if (closed_) return error_;
    if (file_ != nullptr) {
        if (std::fflush(file_) != 0 || std::ferror(file_)) fail(std::strerror(errno));
        if (std::fclose(file_) != 0) fail(std::strerror(errno));
        file_ = nullptr;
    }
    if (error_.empty()) {
        std::error_code ec;
        std::filesystem::rename(temp_path_, path_, ec);
        if (ec) fail(ec.message());
    }
    if (!error_.empty() && created_) std::remove(temp_path_.c_str());
    closed_ = true;
    return error_;
}

}  // namespace pacer_demo

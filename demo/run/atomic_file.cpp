#include "run/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "run/files.h"

namespace pacer_demo {

AtomicFile::AtomicFile(std::string path, std::string label) : path_(std::move(path)), label_(std::move(label)) {
    if (path_.empty()) {
        error_ = label_ + "empty path";
        return;
    }
    if (std::string problem = output_target(path_, &target_); !problem.empty()) {
        fail(problem);
        return;
    }
    std::string problem;
    file_ = create_temp_beside(target_, &temp_path_, &problem);
    if (file_ == nullptr) fail(problem);
}

AtomicFile::~AtomicFile() {
    if (file_ != nullptr) std::fclose(file_);
    if (!temp_path_.empty() && !closed_) std::remove(temp_path_.c_str());
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
        // The target may have changed since the start (a device or FIFO put
        // in its place): check again, right before replacing it.
        std::string target;
        if (std::string problem = output_target(path_, &target); !problem.empty()) {
            fail(problem);
        } else {
            std::error_code ec;
            std::filesystem::rename(temp_path_, target_, ec);
            if (ec) fail(ec.message());
        }
    }
    if (!error_.empty() && !temp_path_.empty()) std::remove(temp_path_.c_str());
    closed_ = true;
    return error_;
}

std::string check_writable(const std::string& path) {
    if (path.empty()) return "empty output path";
    AtomicFile probe(path, "");
    return probe.error();   // the destructor removes the probe's own temporary file
}

std::string write_file_atomically(const std::string& path, std::string_view text) {
    if (path.empty()) return check_writable(path);   // keeps its "empty output path"
    AtomicFile file(path, "");
    if (file.ok() && std::fwrite(text.data(), 1, text.size(), file.get()) != text.size())
        file.fail(std::strerror(errno));
    return file.close();
}

}  // namespace pacer_demo

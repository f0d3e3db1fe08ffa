#include "run/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "run/files.h"

namespace pacer_demo {

namespace {

// The temporaries in use, for remove_temporaries_now() in a signal handler.
// A run has at most five outputs open at once; the slots are plenty.
constexpr int kTempSlots = 16;
constexpr std::size_t kTempPathBytes = 4096;   // PATH_MAX on Linux
struct TempSlot {
    std::atomic<bool> used{false};   // set once path holds a whole name
    char path[kTempPathBytes];
};
TempSlot g_temps[kTempSlots];
static_assert(std::atomic<bool>::is_always_lock_free, "read from a signal handler");

int track_temporary(const std::string& path) {
    if (path.size() >= kTempPathBytes) return -1;
    for (int i = 0; i < kTempSlots; ++i) {
        TempSlot& slot = g_temps[i];
        if (slot.used.load()) continue;
        std::memcpy(slot.path, path.c_str(), path.size() + 1);
        slot.used.store(true);
        return i;
    }
    return -1;
}

void untrack_temporary(int* slot) {
    if (*slot >= 0) g_temps[*slot].used.store(false);
    *slot = -1;
}

}  // namespace

void remove_temporaries_now() {
    for (TempSlot& slot : g_temps) {
        if (slot.used.load()) remove_file_now(slot.path);
    }
}

AtomicFile::AtomicFile(std::string path, std::string label, std::string temp_path)
    : path_(std::move(path)), label_(std::move(label)) {
    if (path_.empty()) {
        error_ = label_ + "empty path";
        return;
    }
    if (std::string problem = output_target(path_, &target_); !problem.empty()) {
        fail(problem);
        return;
    }
    std::string problem;
    if (temp_path.empty()) {
        file_ = create_temp_beside(target_, &temp_path_, &problem);
    } else {
        file_ = std::fopen(temp_path.c_str(), "wb");
        if (file_ != nullptr) temp_path_ = std::move(temp_path);
        else problem = std::strerror(errno);
    }
    if (file_ == nullptr) fail(problem);
    else temp_slot_ = track_temporary(temp_path_);
}

AtomicFile::~AtomicFile() {
    if (file_ != nullptr) std::fclose(file_);
    if (!temp_path_.empty() && !closed_) std::remove(temp_path_.c_str());
    untrack_temporary(&temp_slot_);
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
    untrack_temporary(&temp_slot_);
    closed_ = true;
    return error_;
}

std::string AtomicFile::flush() {
    if (file_ != nullptr && (std::fflush(file_) != 0 || std::ferror(file_))) fail(std::strerror(errno));
    return error_;
}

std::string AtomicFile::leave_temp() {
    if (closed_) return error_;
    if (file_ != nullptr) {
        flush();
        if (std::fclose(file_) != 0) fail(std::strerror(errno));
        file_ = nullptr;
    }
    if (!error_.empty() && !temp_path_.empty()) std::remove(temp_path_.c_str());
    untrack_temporary(&temp_slot_);
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

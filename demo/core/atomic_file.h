// atomic_file.h: an output file that appears whole or not at all.
//
// Writes go to PATH.tmp; close() renames it to PATH. A file that failed, or
// was never closed, leaves nothing behind: the destructor removes PATH.tmp.
// Errors name the path and the cause, after the owner's label, e.g.
// "trace: cannot write t.csv: No such file or directory". The trace, the
// Chrome trace and the summary writers all write through it.
#pragma once

#include <cstdio>
#include <string>

namespace pacer_demo {

class AtomicFile {
public:
    // Opens PATH.tmp at once, so an unwritable path is reported before a run.
    AtomicFile(std::string path, std::string label);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    std::FILE* get() const { return file_; }   // nullptr when the open failed or after close()
    bool ok() const { return error_.empty() && file_ != nullptr; }
    const std::string& error() const { return error_; }
    const std::string& path() const { return path_; }
    // Records a failure (the first one wins); close() will then not rename.
    void fail(const std::string& what);
    // Flushes, closes and renames PATH.tmp to PATH. Returns error(); after a
    // failure PATH.tmp is removed. Calling it again returns the same.
    std::string close();

private:
    std::string path_;
    std::string temp_path_;
    std::string label_;
    std::FILE* file_ = nullptr;
    std::string error_;
    bool created_ = false;   // PATH.tmp is ours to remove
    bool closed_ = false;
};

}  // namespace pacer_demo

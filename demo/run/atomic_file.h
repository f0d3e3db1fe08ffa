// atomic_file.h: an output file that appears whole or not at all.
//
// The path must be a regular file or not exist yet; a symbolic link to a
// regular file is written through (files.h), and anything else (a device, a
// FIFO, a directory, a dangling link) is refused at construction. Writes go
// to a fresh temporary file beside the target, ".pacer-XXXXXX", which close()
// renames over the target: until then the old file is untouched, and a file
// that failed, or was never closed, leaves nothing behind (the destructor
// removes the temporary file, which no one else can own; a process ended by
// a second signal removes them all first, remove_temporaries_now). Only a
// kill -9 or a power cut leaves one.
// Errors name the path and the cause, after the owner's label, e.g.
// "--trace: cannot write t.csv: No such file or directory". The trace, the
// Chrome trace, the summary and the screenshot all write through it.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace pacer_demo {

class AtomicFile {
public:
    // Creates the temporary file at once, so an unwritable path is reported
    // before a run. temp_path, where given, names the temporary file instead
    // of a fresh ".pacer-XXXXXX": a name another process can find, for
    // leave_temp() (pacer-run's traces).
    AtomicFile(std::string path, std::string label, std::string temp_path = {});
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    std::FILE* get() const { return file_; }   // nullptr when the open failed or after close()
    bool ok() const { return error_.empty() && file_ != nullptr; }
    const std::string& error() const { return error_; }
    const std::string& path() const { return path_; }
    const std::string& temp_path() const { return temp_path_; }   // "" when none was made
    // Records a failure (the first one wins); close() will then not rename.
    void fail(const std::string& what);
    // Flushes, closes and renames the temporary file over the target.
    // Returns error(); after a failure the temporary file is removed.
    // Calling it again returns the same.
    std::string close();
    // Pushes what was written so far to the temporary file: a process that
    // then ends without closing leaves that much behind. Returns error().
    std::string flush();
    // Flushes and closes the temporary file and leaves it, unrenamed, for
    // another process to rename over the target (pacer-run, once the program
    // it ran has ended). Returns error(); after a failure the temporary file
    // is removed. close() afterwards returns the same and renames nothing.
    std::string leave_temp();

private:
    std::string path_;
    std::string target_;      // path_, or the regular file a link at path_ points to
    std::string temp_path_;
    std::string label_;
    std::FILE* file_ = nullptr;
    std::string error_;
    bool closed_ = false;
    int temp_slot_ = -1;      // its place among the temporaries a signal removes
};

// Removes every AtomicFile's temporary file now: async-signal-safe, for a
// process that ends by a signal without unwinding (no allocation, no lock;
// fixed slots of the paths in use).
void remove_temporaries_now();

// Whether an output can be written at path: it is a regular file or does not
// exist, and a temporary file can be made beside it (made and removed again).
// "" or "cannot write PATH: why".
std::string check_writable(const std::string& path);
// Writes text through an AtomicFile. "" or "cannot write PATH: why".
std::string write_file_atomically(const std::string& path, std::string_view text);

}  // namespace pacer_demo

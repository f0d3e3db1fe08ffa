// files.h: the demo's rules for the files it reads and writes, so that a
// hostile or mistaken path cannot hang a run, eat memory or destroy a file.
//
// INPUTS (scenario files) are regular files of at most a given size. A FIFO,
// a device, a socket or a directory is refused by name, without blocking on
// it (a FIFO is opened non-blocking, then checked), and never more than the
// limit plus one byte is read.
//
// OUTPUTS (traces, summaries, screenshots) are regular files or do not exist
// yet. A symbolic link to a regular file is written through: its target gets
// the new content and the link stays a link. A link to nothing, a device, a
// FIFO or a directory is refused. New content goes to a fresh temporary file
// with a unique name beside the target (never one that another writer may
// own), which replaces the target only once it is complete.
//
// The platform parts (opening without blocking, unique temporary files) live
// in files_posix.cpp and files_win32.cpp; the rest is std::filesystem.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace pacer_demo {

// The largest scenario file read, 16 MiB: far above any real one.
constexpr std::size_t kMaxInputBytes = std::size_t{16} << 20;

// Reads a whole regular file of at most max_bytes into *text. "" or one line
// naming the path, e.g. "x: cannot open: a FIFO, not a regular file".
std::string read_input_file(const std::string& path, std::size_t max_bytes, std::string* text);

// Where an output at path really goes: the path itself, or the regular file
// a symbolic link points to. "" or why the path cannot be an output (no
// path in it: "a character device, not a regular file").
std::string output_target(const std::string& path, std::string* target);

// Whether two paths name the same file: the same device and inode when both
// exist, else the same absolute path after resolving links.
bool same_file(const std::string& a, const std::string& b);

// Creates a new, empty file with a unique name in the directory of target
// (".pacer-XXXXXX" beside it), open for binary writing, with the mode a new
// file would get (an existing target's mode where it has one). nullptr and
// *error (the OS's reason) on failure.
std::FILE* create_temp_beside(const std::string& target, std::string* temp_path, std::string* error);
// Removes a file by the OS's own call (unlink), which a signal handler may
// make; false where it could not.
bool remove_file_now(const char* path);

// The file's kind in words for messages: "a directory", "a FIFO", ...
std::string file_kind_text(const std::string& path);

// Text safe to print on one line: bytes that are not printable ASCII or
// part of valid UTF-8 (control bytes, invalid sequences) become \xNN.
std::string printable(std::string_view text);
// Valid UTF-8: each invalid byte becomes U+FFFD (for JSON, which must be UTF-8).
std::string valid_utf8(std::string_view text);

}  // namespace pacer_demo

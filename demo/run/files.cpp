// files.cpp: the portable half of files.h (kinds of files, identity, text
// for messages and JSON). The OS half is in files_posix.cpp / files_win32.cpp.
#include "run/files.h"

#include <cstdint>
#include <filesystem>
#include <system_error>

namespace pacer_demo {

namespace fs = std::filesystem;

namespace {

std::string kind_text(fs::file_type type) {
    switch (type) {
        case fs::file_type::directory: return "a directory";
        case fs::file_type::character: return "a character device";
        case fs::file_type::block: return "a block device";
        case fs::file_type::fifo: return "a FIFO";
        case fs::file_type::socket: return "a socket";
        case fs::file_type::symlink: return "a symbolic link";
        case fs::file_type::regular: return "a regular file";
        case fs::file_type::not_found: return "missing";
        default: return "of an unknown kind";
    }
}

// The length of the valid UTF-8 sequence at text[i] (1 to 4), or 0 when the
// bytes there are not one (stray continuation, overlong form, surrogate,
// beyond U+10FFFF, cut short). *code_point gets its value.
std::size_t utf8_sequence(std::string_view text, std::size_t i, uint32_t* code_point) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
        *code_point = lead;
        return 1;
    }
    std::size_t length = 0;
    uint32_t value = 0, minimum = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2, value = lead & 0x1Fu, minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, value = lead & 0x0Fu, minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, value = lead & 0x07u, minimum = 0x10000;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        value = (value << 6) | (byte(i + k) & 0x3Fu);
    }
    if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
    *code_point = value;
    return length;
}

}  // namespace

std::string file_kind_text(const std::string& path) {
    std::error_code ec;
    return kind_text(fs::symlink_status(path, ec).type());
}

std::string output_target(const std::string& path, std::string* target) {
    if (path.empty()) return "empty path";
    std::error_code ec;
    const fs::file_status own = fs::symlink_status(path, ec);
    if (own.type() == fs::file_type::not_found) {
        *target = path;
        return {};
    }
    if (ec) return ec.message();
    if (own.type() == fs::file_type::regular) {
        *target = path;
        return {};
    }
    if (own.type() != fs::file_type::symlink) return kind_text(own.type()) + ", not a regular file";
    // A link: write through to a regular target, so the link stays a link.
    const fs::file_status pointed = fs::status(path, ec);
    if (pointed.type() == fs::file_type::not_found) return "a symbolic link to nothing (a dangling link)";
    if (ec) return ec.message();
    if (pointed.type() != fs::file_type::regular)
        return "a symbolic link to " + kind_text(pointed.type()) + ", not to a regular file";
    const fs::path resolved = fs::canonical(path, ec);
    if (ec) return ec.message();
    *target = resolved.string();
    return {};
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) {
        const bool same = fs::equivalent(a, b, ec);
        if (!ec) return same;
    }
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
    return ca.lexically_normal() == cb.lexically_normal();
}

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        uint32_t code_point = 0;
        const std::size_t length = utf8_sequence(text, i, &code_point);
        // Visible text passes; control bytes, C1 controls, the invisible
        // byte-order mark and invalid bytes are shown by value.
        const bool visible = length > 0 && code_point >= 0x20 && code_point != 0x7F &&
                             !(code_point >= 0x80 && code_point <= 0x9F) && code_point != 0xFEFF;
        if (visible) {
            out.append(text.substr(i, length));
            i += length;
            continue;
        }
        const std::size_t bytes = length > 0 ? length : 1;
        for (std::size_t k = 0; k < bytes; ++k) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[i + k])));
            out += escaped;
        }
        i += bytes;
    }
    return out;
}

std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        uint32_t code_point = 0;
        const std::size_t length = utf8_sequence(text, i, &code_point);
        if (length == 0) {
            out += "\xEF\xBF\xBD";   // U+FFFD REPLACEMENT CHARACTER
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

}  // namespace pacer_demo

#include "report.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <system_error>
#include <random>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <ostream>
#include <thread>

namespace bench {

std::string fixed(double value, int decimals, bool negative_is_unknown) {
    if (negative_is_unknown && value < 0) return "n/a";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

Table::Table(std::vector<std::string> header, std::vector<std::size_t> left_columns)
    : header_(std::move(header)), left_columns_(std::move(left_columns)) {}

void Table::add_row(std::vector<std::string> cells) {
    cells.resize(header_.size());
    rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out) const {
    // Width in characters, counting each UTF-8 sequence (µ, σ, ×) as one.
    auto width = [](const std::string& s) {
        std::size_t n = 0;
        for (unsigned char c : s) n += (c & 0xC0) != 0x80;
        return n;
    };
    std::vector<std::size_t> widths(header_.size(), 3);
    for (std::size_t c = 0; c < header_.size(); ++c) {
        widths[c] = std::max(widths[c], width(header_[c]));
        for (const auto& row : rows_) widths[c] = std::max(widths[c], width(row[c]));
    }
    auto left = [&](std::size_t c) {
        return std::find(left_columns_.begin(), left_columns_.end(), c) != left_columns_.end();
    };
    auto print_row = [&](const std::vector<std::string>& cells) {
        out << '|';
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(widths[c] - width(cells[c]), ' ');
            if (left(c)) out << ' ' << cells[c] << pad << " |";
            else out << ' ' << pad << cells[c] << " |";
        }
        out << '\n';
    };
    print_row(header_);
    out << '|';
    for (std::size_t c = 0; c < header_.size(); ++c) {
        out << ' ' << (left(c) ? std::string(widths[c], '-') : std::string(widths[c] - 1, '-') + ":")
            << " |";
    }
    out << '\n';
    for (const auto& row : rows_) print_row(row);
}

namespace {

// Where a CSV at path really goes; "" or why it cannot (files.h's rules in
// the demo, the same here).
std::string csv_target(const std::string& path, std::string* target) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status own = fs::symlink_status(path, ec);
    if (own.type() == fs::file_type::not_found || own.type() == fs::file_type::regular) {
        *target = path;
        return {};
    }
    if (ec) return path + ": " + ec.message();
    if (own.type() == fs::file_type::symlink) {
        const fs::file_status pointed = fs::status(path, ec);
        if (pointed.type() == fs::file_type::regular) {
            *target = fs::canonical(path, ec).string();
            if (ec) return path + ": " + ec.message();
            return {};
        }
        return path + ": a symbolic link to " +
               (pointed.type() == fs::file_type::not_found ? std::string("nothing") : std::string("something")) +
               " that is not a regular file";
    }
    return path + ": " + (own.type() == fs::file_type::directory ? "a directory" : "a device, FIFO or socket") +
           ", not a regular file";
}

// A name in target's folder that no file has: .pacer-<random>. Short, not
// target's own name plus a suffix: that name may take all of a name's bytes.
std::string unused_temp_name(const std::string& target) {
    static std::mt19937_64 random{std::random_device{}()};
    const std::size_t slash = target.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "" : target.substr(0, slash + 1);
    for (;;) {
        char name_part[32];
        std::snprintf(name_part, sizeof name_part, ".pacer-%012llx",
                      static_cast<unsigned long long>(random() & 0xffffffffffffULL));
        std::error_code ec;
        const std::string name = folder + name_part;
        if (!std::filesystem::exists(std::filesystem::symlink_status(name, ec))) return name;
    }
}

// Writes text to a new temporary file beside target and renames it over
// target (or, with rename false, removes it: the up-front check). "" or why.
std::string write_beside(const std::string& target, const std::string& text, bool rename) {
    const std::string temp = unused_temp_name(target);
    std::FILE* file = std::fopen(temp.c_str(), "wb");
    if (file == nullptr) return std::strerror(errno);
    std::string problem;
    if (std::fwrite(text.data(), 1, text.size(), file) != text.size()) problem = std::strerror(errno);
    if (std::fclose(file) != 0 && problem.empty()) problem = std::strerror(errno);
    if (problem.empty() && rename) {
        std::error_code ec;
        std::filesystem::rename(temp, target, ec);
        if (ec) problem = ec.message();
    }
    if (!problem.empty() || !rename) std::remove(temp.c_str());
    return problem;
}

}  // namespace

std::string CsvFile::open(const std::string& path, const std::string& header) {
    path_ = path;
    header_ = header;
    if (path.empty()) return "empty path";
    if (std::string problem = csv_target(path, &target_); !problem.empty()) return problem;
    if (std::string problem = write_beside(target_, header_ + '\n', false); !problem.empty())
        return path + ": cannot write beside it (" + problem + ")";
    open_ = true;
    return {};
}

void CsvFile::add_row(const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i) line += ',';
        line += cells[i];
    }
    lines_.push_back(std::move(line));
}

void CsvFile::copy_rows(const CsvFile& other) {
    lines_.insert(lines_.end(), other.lines_.begin(), other.lines_.end());
}

std::string CsvFile::finish() {
    if (!open_) return {};
    open_ = false;
    // The target may have been replaced by a device or FIFO since open().
    std::string target;
    if (std::string problem = csv_target(path_, &target); !problem.empty()) return problem;
    std::string text = header_ + '\n';
    for (const auto& line : lines_) text += line + '\n';
    if (std::string problem = write_beside(target_, text, true); !problem.empty())
        return path_ + ": write failed (" + problem + "); the old file, if any, is untouched";
    return {};
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm tm_utc{};
#if defined(_WIN32)
    gmtime_s(&tm_utc, &now);
#else
    gmtime_r(&now, &tm_utc);
#endif
    char buffer[64];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", &tm_utc);
    return buffer;
}

namespace {

// The first line of a text file, or "" when it is not readable.
std::string first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// The value of the first "key : value" line in /proc/cpuinfo, or "".
std::string cpuinfo_value(const std::string& key) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const auto start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? std::string() : line.substr(start);
    }
    return {};
}

const char* os_name() {
#if defined(_WIN32)
    return "Windows";
#elif defined(__APPLE__)
    return "macOS";
#elif defined(__linux__)
    return "Linux";
#else
    return "unknown OS";
#endif
}

const char* arch_name() {
#if defined(__x86_64__) || defined(_M_X64)
    return "x86_64";
#elif defined(__aarch64__) || defined(_M_ARM64)
    return "aarch64";
#elif defined(__i386__) || defined(_M_IX86)
    return "x86";
#else
    return "unknown arch";
#endif
}

}  // namespace

std::string machine_line() {
    std::string line = os_name();
    const std::string release = first_line("/proc/sys/kernel/osrelease");
    if (!release.empty()) line += " " + release;
    line += " ";
    line += arch_name();
    line += " · " + std::to_string(std::thread::hardware_concurrency()) + " logical CPUs";
    std::string model = cpuinfo_value("model name");
    if (model.empty()) model = cpuinfo_value("Hardware");   // some ARM kernels
    if (!model.empty()) line += " · " + model;
    return line;
}

std::string load_average() {
    std::istringstream in(first_line("/proc/loadavg"));
    std::string one, five, fifteen;
    if (!(in >> one >> five >> fifteen)) return "unknown";
    return one + " " + five + " " + fifteen;
}

}  // namespace bench

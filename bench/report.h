// report.h: markdown tables for stdout, CSV files, and the machine line.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace bench {

// A number with a fixed count of decimals ("12.35"); "n/a" for a negative
// value when negative_is_unknown (the library reports -1 for unknown CPU time).
std::string fixed(double value, int decimals, bool negative_is_unknown = false);

// A markdown table: a header row, then rows of cells, printed with padded
// columns so it reads in a terminal as well as rendered.
class Table {
public:
    // Columns listed in left_columns (names, notes) align left; the rest
    // (numbers) align right.
    explicit Table(std::vector<std::string> header, std::vector<std::size_t> left_columns = {0});
    void add_row(std::vector<std::string> cells);
    void print(std::ostream& out) const;

private:
    std::vector<std::string> header_;
    std::vector<std::size_t> left_columns_;
    std::vector<std::vector<std::string>> rows_;
};

// A CSV file checked before the run (so a bad path fails at once) and
// written after it. Rows are kept in memory; finish() writes them to a new
// temporary file beside the target and renames it over the target, so until
// then an existing file is untouched: a failed or killed run leaves the old
// CSV as it was. The target must be a regular file or not exist (a symbolic
// link to a regular file is written through and stays a link).
class CsvFile {
public:
    CsvFile() = default;
    // Checks the path and that a file can be created beside it (created and
    // removed). "" on success, else one line naming the path and why.
    std::string open(const std::string& path, const std::string& header);
    bool is_open() const { return open_; }
    void add_row(const std::vector<std::string>& cells);
    // Appends another file's rows (the same table written to two paths).
    void copy_rows(const CsvFile& other);
    // Writes the header and the rows, then replaces the target. "" or one
    // line naming the path and why (the target is then untouched).
    std::string finish();
    const std::string& path() const { return path_; }

private:
    bool open_ = false;
    std::string path_;
    std::string target_;   // path_, or the regular file a link at path_ points to
    std::string header_;
    std::vector<std::string> lines_;
};

// "2026-11-21 10:40:00 UTC"
std::string utc_now();
// One line naming the OS, kernel, architecture, logical CPU count and CPU
// model, from what this OS makes readable (e.g. /proc on Linux).
std::string machine_line();
// The 1, 5 and 15 minute load averages ("1.20 0.88 0.40"), or "unknown".
std::string load_average();

}  // namespace bench

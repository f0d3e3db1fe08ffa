// read.cpp: the readers of replay.h: PresentMon's three CSV layouts and the
// demo's trace, told apart by their column names (whose case differs by
// layout: msBetweenPresents, MsBetweenPresents); a file that opens with '{'
// goes to CapFrameX's reader (read_capframex.cpp).
#include "read_internal.h"
#include "replay.h"

#include <pacer/units.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>
#include <utility>

namespace pacer_replay {

namespace {

using detail::lower;
using detail::ns_of;

constexpr int64_t kMaxRows = 10'000'000;   // far above any capture (46 hours at 60 Hz): a bound on memory

// One CSV line split into fields (RFC 4180 quotes, as the demo's trace has them).
std::vector<std::string> split(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

bool is_na(const std::string& text) { return text.empty() || text == "NA" || text == "n/a"; }

// The columns a layout reads, by their lower-case names ("" none).
struct Layout {
    const char* name;
    const char* time;       // orders the chain's rows (captures interleave processes, not always in order)
    const char* cpu;        // the frame's CPU work, ms
    const char* minus;      // ... less this column, where the layout has no CPU work of its own (1.x)
    const char* gpu;        // its GPU work, ms
    const char* present;    // present-to-present, ms
    const char* display;    // display-change interval, ms
    const char* shown;      // non-NA where displayed ...
    const char* shown_one;  // ... or "1" where displayed; "0" where not (Dropped: the other way)
    bool dropped = false;   // shown_one is a Dropped column (0: displayed)
};

constexpr Layout kV2{"PresentMon --v2_metrics", "cpustartqpc", "cpubusy", "", "gpubusy", "frametime",
                     "displayedtime", "displayedtime", ""};
constexpr Layout kDefault{"PresentMon (default columns)", "timeinqpc", "mscpubusy", "", "msgpubusy",
                          "msbetweenpresents", "msbetweendisplaychange", "msuntildisplayed", ""};
constexpr Layout kV1{"PresentMon 1.x", "timeinseconds", "msbetweenpresents", "msinpresentapi", "msgpuactive",
                     "msbetweenpresents", "msbetweendisplaychange", "", "dropped", true};
constexpr Layout kDemo{"pacer-demo trace", "timeinseconds", "mscpubusy", "", "", "msbetweenpresents",
                       "msbetweendisplaychange", "", "displayedframe"};

struct Row {
    std::vector<std::string> fields;
    int64_t line = 0;
    double time = 0;
};

class Reader {
public:
    Reader(std::string path, std::vector<std::string> header) : path_(std::move(path)), header_(std::move(header)) {
        for (std::size_t i = 0; i < header_.size(); ++i) index_.emplace(lower(header_[i]), i);
    }
    bool has(const char* name) const { return name[0] != '\0' && index_.count(name) != 0; }
    const std::string& field(const Row& row, const char* name) const { return row.fields[index_.at(name)]; }
    const std::string& column(const char* name) const { return header_[index_.at(name)]; }
    // A number from a cell; "" or the one line naming where.
    std::string number(const Row& row, const char* name, double* out) const {
        const std::string& text = field(row, name);
        const char* end = text.data() + text.size();
        auto [stop, error] = std::from_chars(text.data(), end, *out);
        if (error != std::errc() || stop != end || !std::isfinite(*out))
            return where(row, name) + "'" + text.substr(0, 40) + "' is not a number";
        return {};
    }
    std::string where(const Row& row, const char* name) const {
        return path_ + ":" + std::to_string(row.line) + ": column '" + column(name) + "': ";
    }

private:
    std::string path_;
    std::vector<std::string> header_;
    std::map<std::string, std::size_t> index_;
};

}  // namespace

int64_t detail::ns_of(double ms) { return std::llround(pacer::ns_of_ms(std::clamp(ms, 0.0, 1e7))); }

std::string detail::lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// The display's refresh from the displayed frames' intervals: the shortest
// interval that many frames share (the 10th percentile's cluster, within
// 15 %), whose median is one refresh, to 0.01 Hz; a display showing some frames twice
// then still reads as its refresh, not as their mean.
double detail::fit_refresh_hz(std::vector<double> display_ms) {
    display_ms.erase(std::remove_if(display_ms.begin(), display_ms.end(), [](double v) { return !(v > 2 && v < 200); }),
                     display_ms.end());
    if (display_ms.size() < 8) return 0;
    std::sort(display_ms.begin(), display_ms.end());
    const double low = display_ms[display_ms.size() / 10];
    std::vector<double> cluster;
    for (double v : display_ms) {
        if (std::fabs(v - low) <= 0.15 * low) cluster.push_back(v);
    }
    // To 0.01 Hz: a capture's times carry 0.1 us, and its jitter more.
    const double median = cluster[cluster.size() / 2];
    return std::round(pacer::hz_of(pacer::ns_of_ms(median)) * 100) / 100;
}

namespace {

// A row's figures, as the replay keeps them.
struct Kept {
    double time = 0;
    bool has_work = false;   // its CPU work is known (not NA)
    RecordedFrame frame;
    // The demo's trace: this wake to the swap after it and to this frame on
    // screen, ms (-1 NA); the swap waited for a refresh (vsync).
    double wake_to_present_ms = -1;
    double wake_to_shown_ms = -1;
    bool swap_waited = false;
    bool before_present = true;   // its wait point
    double target_period_ms = 0;
};

// The demo's trace dates each frame: from its wake, its swap and its time on
// screen. Before present, the swap after wake i shows the frame rendered
// after wake i - 1, and this frame's work starts once it returns.
void date_frames(std::vector<Kept>& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
        Kept& row = rows[i];
        const bool before_present = row.before_present;
        RecordedFrame& frame = row.frame;
        const double wake_ms = row.time * 1e3;
        const Kept* swap_row = before_present ? (i + 1 < rows.size() ? &rows[i + 1] : nullptr) : &row;
        if (swap_row != nullptr && swap_row->wake_to_present_ms >= 0) {
            frame.swapped_at_ms = swap_row->time * 1e3 + (before_present ? 0 : swap_row->wake_to_present_ms);
            frame.swap_blocked = swap_row->swap_waited;
            if (before_present && !swap_row->swap_waited) frame.swap_ns = ns_of(swap_row->wake_to_present_ms);
        }
        if (frame.displayed && row.wake_to_shown_ms >= 0) {
            frame.shown_at_ms = wake_ms + row.wake_to_shown_ms;
            const double start_ms = before_present ? std::max(row.wake_to_present_ms, 0.0) : 0.0;
            frame.latency_ms = row.wake_to_shown_ms - start_ms;
        }
    }
}

// The demo's trace writes a frame's work on the row after it: row i's
// MsCPUBusy (pacer::Frame::work_ns of wait i) is the turn from wake i - 1 to
// wait i, which rendered frame i - 1, while the row's display columns are
// frame i's. Each frame takes its work from the row after; the last frame's
// work was never written (the run ended at the next wait) and it is left
// out. (Taken from its own row, every frame replayed the work of the one
// before: the demo's 50 ms first frame fell a turn late, and a replay of a
// replay moved it one more.)
void own_work(std::vector<Kept>& rows) {
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
        rows[i].has_work = rows[i + 1].has_work;
        rows[i].frame.cpu_work_ns = rows[i + 1].frame.cpu_work_ns;
        rows[i].frame.gpu_work_ns = rows[i + 1].frame.gpu_work_ns;
    }
    if (!rows.empty()) rows.pop_back();
}

// The demo's MsCPUBusy runs from the previous wake to this wait: waiting
// before present, the swap right after that wake (MsWakeToPresent of the row
// before) is in it, and under vsync it blocks for a refresh: no work.
struct SwapInWork {
    bool applies = false;
    double before_ms = 0;   // the previous row's MsWakeToPresent
};

const Layout* layout_of(const Reader& reader) {
    if (reader.has("cpubusy") && reader.has("frametime")) return &kV2;
    if (reader.has("mscpubusy") && reader.has("msbetweensimulationstart") && reader.has("frame")) return &kDemo;
    if (reader.has("mscpubusy") && reader.has("timeinqpc")) return &kDefault;
    if (reader.has("msbetweenpresents") && reader.has("dropped") && reader.has("timeinseconds")) return &kV1;
    return nullptr;
}

// One row's figures; "" or the one line naming the cell.
std::string read_row(const Reader& reader, const Layout& layout, const Row& row, SwapInWork* swap, Kept* kept) {
    if (std::string error = reader.number(row, layout.time, &kept->time); !error.empty()) return error;
    double swap_ms = 0;
    if (swap->applies) {
        swap_ms = reader.field(row, "waitpoint") == "before_present" ? swap->before_ms : 0;
        swap->before_ms = 0;
        if (!is_na(reader.field(row, "mswaketopresent"))) (void)reader.number(row, "mswaketopresent", &swap->before_ms);
    }
    if (is_na(reader.field(row, layout.cpu))) return {};
    double cpu = 0, minus = 0, gpu = 0;
    if (std::string error = reader.number(row, layout.cpu, &cpu); !error.empty()) return error;
    if (layout.minus[0] != '\0' && !is_na(reader.field(row, layout.minus))) {
        if (std::string error = reader.number(row, layout.minus, &minus); !error.empty()) return error;
    }
    if (reader.has(layout.gpu) && !is_na(reader.field(row, layout.gpu))) {
        if (std::string error = reader.number(row, layout.gpu, &gpu); !error.empty()) return error;
    }
    if (cpu < 0 || gpu < 0) return reader.where(row, cpu < 0 ? layout.cpu : layout.gpu) + "negative";
    RecordedFrame& frame = kept->frame;
    kept->has_work = true;
    frame.cpu_work_ns = ns_of(cpu - minus - swap_ms);
    frame.gpu_work_ns = ns_of(gpu);
    if (layout.shown[0] != '\0') {
        frame.displayed = !is_na(reader.field(row, layout.shown));
    } else if (reader.has(layout.shown_one)) {
        const std::string& cell = reader.field(row, layout.shown_one);
        frame.displayed = layout.dropped ? cell == "0" : cell == "1";
    }
    double value = 0;
    if (!is_na(reader.field(row, layout.present)) && reader.number(row, layout.present, &value).empty())
        frame.present_ms = value;
    if (&layout == &kDemo) {
        for (auto [name, out] : {std::pair{"mswaketopresent", &kept->wake_to_present_ms},
                                 std::pair{"msdisplaylatency", &kept->wake_to_shown_ms},
                                 std::pair{"mstargetperiod", &kept->target_period_ms}}) {
            if (reader.has(name) && !is_na(reader.field(row, name))) {
                if (std::string error = reader.number(row, name, out); !error.empty()) return error;
            }
        }
        kept->swap_waited = reader.has("strategy") && reader.field(row, "strategy") == "vsync";
        kept->before_present = !reader.has("waitpoint") || reader.field(row, "waitpoint") != "frame_start";
        frame.decided = reader.has("decision") && !reader.field(row, "decision").empty();
    }
    if (reader.has(layout.display) && !is_na(reader.field(row, layout.display)) &&
        reader.number(row, layout.display, &value).empty())
        frame.display_ms = value;
    return {};
}

}  // namespace

std::string read_recording(const std::string& path, const Selection& selection, Recording* out) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return path + ": cannot open: " + std::strerror(errno);
    std::string line;
    if (!std::getline(file, line) || line.empty()) return path + ": empty file (no header line)";
    if (line.find('\0') != std::string::npos) return path + ":1: binary, not a CSV (a NUL byte)";
    if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);   // a byte order mark is no column
    if (const auto first = line.find_first_not_of(" \t\r"); first != std::string::npos && line[first] == '{')
        return detail::read_capframex(path, selection, out);
    const std::vector<std::string> header = split(line);
    Reader reader(path, header);
    const Layout* layout = layout_of(reader);
    if (layout == nullptr)
        return path + ":1: not a PresentMon capture or a pacer-demo trace (no MsCPUBusy, CPUBusy or "
                      "msBetweenPresents with Dropped among its columns)";
    for (const char* name : {layout->time, layout->cpu, layout->minus, layout->present, layout->shown}) {
        if (name[0] != '\0' && !reader.has(name))
            return path + ":1: missing column '" + name + "' (" + layout->name + ")";
    }

    // Each row, read as it comes and kept as the few figures the replay
    // takes, by swap chain: memory grows by a few dozen bytes a frame.
    const bool has_chain = reader.has("application") && reader.has("processid") && reader.has("swapchainaddress");
    SwapInWork swap{layout == &kDemo && reader.has("waitpoint") && reader.has("mswaketopresent"), 0};
    std::map<std::string, std::vector<Kept>> chains;
    int64_t number = 1;
    while (std::getline(file, line)) {
        ++number;
        if (line.empty() || line == "\r") continue;
        if (number > kMaxRows) return path + ": more than " + std::to_string(kMaxRows) + " rows";
        if (line.find('\0') != std::string::npos)
            return path + ":" + std::to_string(number) + ": binary, not a CSV (a NUL byte)";
        const Row row{split(line), number, 0};
        if (row.fields.size() != header.size())
            return path + ":" + std::to_string(number) + ": " + std::to_string(row.fields.size()) +
                   " fields, the header has " + std::to_string(header.size()) + " (a truncated file?)";
        std::string key = "the trace";
        if (has_chain) {
            const std::string& app = reader.field(row, "application");
            const std::string& pid = reader.field(row, "processid");
            const std::string& chain = reader.field(row, "swapchainaddress");
            if ((!selection.application.empty() && app != selection.application) ||
                (!selection.process_id.empty() && pid != selection.process_id) ||
                (!selection.swap_chain.empty() && lower(chain) != lower(selection.swap_chain)))
                continue;
            key = app + " pid " + pid + " swap chain " + chain;
        }
        Kept kept;
        if (std::string error = read_row(reader, *layout, row, &swap, &kept); !error.empty()) return error;
        chains[key].push_back(kept);
    }
    if (chains.empty())
        return path + (number == 1 ? ": no data rows" : ": no swap chain matches the --app, --pid and --swap-chain given");
    auto chosen = std::max_element(chains.begin(), chains.end(),
                                   [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    std::vector<Kept>& rows = chosen->second;
    std::stable_sort(rows.begin(), rows.end(), [](const Kept& a, const Kept& b) { return a.time < b.time; });

    Recording recording;
    recording.path = path;
    recording.layout = layout->name;
    recording.chain = chosen->first;
    recording.chains = static_cast<int>(chains.size());
    if (layout == &kDemo && reader.has("mswaketopresent") && reader.has("msdisplaylatency")) date_frames(rows);
    if (layout == &kDemo) own_work(rows);
    std::vector<double> display_ms, target_ms;
    int decisions = 0;
    for (const Kept& row : rows) {
        if (row.target_period_ms > 0) target_ms.push_back(row.target_period_ms);
        decisions += row.frame.decided ? 1 : 0;
        recording.shown_times = recording.shown_times || row.frame.shown_at_ms >= 0;
        if (!row.has_work) {
            ++recording.rows_without_work;
            continue;
        }
        if (row.frame.displayed && row.frame.display_ms > 0) display_ms.push_back(row.frame.display_ms);
        recording.frames.push_back(row.frame);
    }
    const int64_t all = static_cast<int64_t>(rows.size());
    if (recording.rows_without_work * 2 > all)
        return path + ": column '" + reader.column(layout->cpu) + "' is NA in " +
               std::to_string(recording.rows_without_work) + " of " + std::to_string(all) + " rows of " +
               recording.chain + ": too little to replay";
    if (recording.frames.size() < 2) return path + ": fewer than 2 frames in " + recording.chain;
    recording.refresh_hz = detail::fit_refresh_hz(std::move(display_ms));
    if (layout == &kDemo && reader.has("decision")) recording.decisions = decisions;
    if (!target_ms.empty()) {
        std::nth_element(target_ms.begin(), target_ms.begin() + static_cast<std::ptrdiff_t>(target_ms.size() / 2),
                         target_ms.end());
        recording.target_period_ms = target_ms[target_ms.size() / 2];
    }
    *out = std::move(recording);
    return {};
}

}  // namespace pacer_replay

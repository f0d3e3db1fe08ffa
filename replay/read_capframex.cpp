// read_capframex.cpp: CapFrameX's JSON capture, as replay.h reads it.
//
// CapFrameX (a PresentMon front end) saves a session as one JSON object:
// "Info" (ProcessName, GameName, ...) and "Runs", each with "CaptureData", a
// column of numbers per PresentMon figure, one value a frame in time order:
// TimeInSeconds, MsBetweenPresents, MsInPresentAPI, MsBetweenDisplayChange,
// MsUntilDisplayed, Dropped (true/false, or 0/1), and since PresentMon 2
// CpuActive and GpuActive (its MsCPUBusy and MsGPUBusy). A cell PresentMon
// wrote as NA is saved as 0. The replay takes one run: a frame's CPU work is
// CpuActive where the run has it, else MsBetweenPresents less MsInPresentAPI
// (as for PresentMon 1.x).
#include "read_internal.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace pacer_replay::detail {

namespace {

using Json = nlohmann::json;

// One column of CaptureData: absent (empty), or n numbers (true/false as 1/0).
// "" or the one line naming the field.
std::string column(const Json& data, const std::string& where, const char* name, std::size_t n,
                   std::vector<double>* out) {
    out->clear();
    const auto it = data.find(name);
    if (it == data.end() || it->is_null()) return {};
    const std::string field = where + "." + name;
    if (!it->is_array()) return field + ": not an array";
    if (it->size() != n)
        return field + ": " + std::to_string(it->size()) + " values, MsBetweenPresents has " + std::to_string(n);
    out->reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Json& cell = (*it)[i];
        double value = 0;
        if (cell.is_boolean()) {
            value = cell.get<bool>() ? 1 : 0;
        } else if (cell.is_number()) {
            value = cell.get<double>();
        } else {
            return field + "[" + std::to_string(i) + "]: not a number";
        }
        if (!std::isfinite(value)) return field + "[" + std::to_string(i) + "]: not a finite number";
        out->push_back(value);
    }
    return {};
}

// A run's frame count (its MsBetweenPresents), 0 when it has none.
std::size_t frames_of(const Json& run) {
    if (!run.is_object()) return 0;
    const auto data = run.find("CaptureData");
    if (data == run.end() || !data->is_object()) return 0;
    const auto times = data->find("MsBetweenPresents");
    return times != data->end() && times->is_array() ? times->size() : 0;
}

}  // namespace

std::string read_capframex(const std::string& path, const Selection& selection, Recording* out) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return path + ": cannot open: " + std::strerror(errno);
    Json doc;
    try {
        doc = Json::parse(file);
    } catch (const Json::parse_error& error) {
        return path + ": not a CapFrameX capture: not JSON at byte " + std::to_string(error.byte);
    }
    const auto runs = doc.is_object() ? doc.find("Runs") : doc.end();
    if (!doc.is_object() || runs == doc.end() || !runs->is_array() || runs->empty())
        return path + ": not a CapFrameX capture (no \"Runs\" array)";
    if (!selection.process_id.empty() || !selection.swap_chain.empty())
        return path + ": --pid and --swap-chain: a CapFrameX capture names no process id or swap chain "
                      "(--app and --run choose)";

    std::string process = "the process";
    if (const auto info = doc.find("Info"); info != doc.end() && info->is_object()) {
        if (const auto name = info->find("ProcessName"); name != info->end() && name->is_string())
            process = name->get<std::string>();
    }
    if (!selection.application.empty() && lower(selection.application) != lower(process))
        return path + ": no swap chain matches the --app given (its process is " + process + ")";

    const int count = static_cast<int>(runs->size());
    if (selection.run > count)
        return path + ": --run " + std::to_string(selection.run) + ": the capture has " + std::to_string(count) +
               " run" + (count == 1 ? "" : "s");
    int chosen = selection.run - 1;
    if (chosen < 0) {
        chosen = 0;
        for (int k = 1; k < count; ++k) {
            if (frames_of((*runs)[static_cast<std::size_t>(k)]) > frames_of((*runs)[static_cast<std::size_t>(chosen)]))
                chosen = k;
        }
    }
    const Json& run = (*runs)[static_cast<std::size_t>(chosen)];
    const std::string where = path + ": Runs[" + std::to_string(chosen) + "].CaptureData";
    if (!run.is_object() || !run.contains("CaptureData") || !run["CaptureData"].is_object())
        return path + ": Runs[" + std::to_string(chosen) + "]: no \"CaptureData\" object";
    const Json& data = run["CaptureData"];
    const auto presents_at = data.find("MsBetweenPresents");
    if (presents_at == data.end() || !presents_at->is_array()) return where + ": no \"MsBetweenPresents\" array";
    const std::size_t n = presents_at->size();

    std::vector<double> presents, in_present, display, until_displayed, dropped, cpu, gpu;
    for (auto [name, values] : {std::pair{"MsBetweenPresents", &presents}, std::pair{"MsInPresentAPI", &in_present},
                                std::pair{"MsBetweenDisplayChange", &display},
                                std::pair{"MsUntilDisplayed", &until_displayed}, std::pair{"Dropped", &dropped},
                                std::pair{"CpuActive", &cpu}, std::pair{"GpuActive", &gpu}}) {
        if (std::string error = column(data, where, name, n, values); !error.empty()) return error;
        if (const auto at = std::find_if(values->begin(), values->end(), [](double v) { return v < 0; });
            at != values->end())
            return where + "." + name + "[" + std::to_string(at - values->begin()) + "]: negative";
    }
    // CpuActive is all 0 in a capture from before PresentMon 2 (the field
    // is there, nothing filled it): then the 1.x rule.
    const bool cpu_active = std::any_of(cpu.begin(), cpu.end(), [](double v) { return v > 0; });
    if (!cpu_active && in_present.empty())
        return where + ": neither CpuActive nor MsInPresentAPI: no CPU work to replay";

    Recording recording;
    recording.path = path;
    recording.layout = "CapFrameX JSON";
    recording.chain = process + " run " + std::to_string(chosen + 1);
    recording.chains = count;
    std::vector<double> display_ms;
    const std::vector<double>& busy = cpu_active ? cpu : presents;
    for (std::size_t i = 0; i < n; ++i) {
        if (busy[i] == 0) {   // NA, as CapFrameX saves it
            ++recording.rows_without_work;
            continue;
        }
        RecordedFrame frame;
        frame.cpu_work_ns = ns_of(cpu_active ? cpu[i] : presents[i] - in_present[i]);
        frame.gpu_work_ns = gpu.empty() ? 0 : ns_of(gpu[i]);
        frame.displayed = !dropped.empty() ? dropped[i] == 0 : (!until_displayed.empty() && until_displayed[i] > 0);
        frame.present_ms = presents[i];
        frame.display_ms = !display.empty() && frame.displayed ? display[i] : 0;
        if (frame.display_ms > 0) display_ms.push_back(frame.display_ms);
        recording.frames.push_back(frame);
    }
    if (recording.rows_without_work * 2 > static_cast<int64_t>(n))
        return where + ": " + (cpu_active ? "CpuActive" : "MsBetweenPresents") + " is 0 (NA) in " +
               std::to_string(recording.rows_without_work) + " of " + std::to_string(n) + " frames: too little to replay";
    if (recording.frames.size() < 2) return where + ": fewer than 2 frames";
    recording.refresh_hz = fit_refresh_hz(std::move(display_ms));
    *out = std::move(recording);
    return {};
}

}  // namespace pacer_replay::detail

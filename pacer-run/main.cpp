// main.cpp: pacer-run, a frame limiter for programs nobody rebuilt.
//
//   pacer-run [--hz HZ] [--strategy NAME] [--wait POINT] [--background-hz HZ] [--hidden-hz HZ]
//             [--trace FILE] [--summary] [--] PROGRAM [ARGS...]
//
// It starts PROGRAM with pacer in it: its GL preload (gl_preload.cpp) in
// LD_PRELOAD, its Vulkan layer (vk_layer.cpp) enabled, and the settings in
// PACER_RUN (settings.h; the flags override what PACER_RUN already says).
// pacer-run itself is never paced: only the program's environment has them.
//
// Exit: the program's own status; a program ended by SIGINT, SIGTERM, SIGHUP
// or SIGKILL ends pacer-run by the same signal, one that crashed (any other
// signal) gives 128 + its number, as a shell reports it. 127: the program
// cannot be found, 126: it cannot be run (as env(1)); 2: no program, or a
// flag pacer-run does not know. A bad value (--hz abc, a bad PACER_RUN) is
// one line on stderr, and the program runs unpaced; a trace that cannot be
// written is one line, and the program runs paced without it.
// SIGINT and SIGTERM sent to pacer-run go to the program (one from the
// terminal reaches both already and is not sent again).
//
// The trace: each process that presents writes FILE.PID.part in chunks
// (session.h); once the program has ended, whatever ended it, pacer-run
// renames the part of the process that presented the most frames to FILE,
// and each other one to FILE's name with .PID before its extension.
// The summary: each process prints its own when it exits; one ended by a
// signal, by _exit or by a crash cannot, and pacer-run prints it instead,
// as the process last wrote it (every 64 frames, into a folder of
// pacer-run's own: PACER_RUN_SUMMARY_DIR), saying how the process ended.
#include "settings.h"

#include "run/atomic_file.h"
#include "run/files.h"

#include <pacer/version.h>

#include <CLI/CLI.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr const char* kLibrary = "libpacer-run.so";
constexpr const char* kLayer = "VK_LAYER_PACER_frame_pacing";

pid_t g_child = -1;

// SIGINT and SIGTERM to the program. A terminal's (si_code SI_KERNEL) went
// to the whole foreground process group, the program included, already.
void forward(int signal, siginfo_t* info, void*) {
    if (g_child > 0 && (info == nullptr || info->si_code != SI_KERNEL)) ::kill(g_child, signal);
}

std::string directory_of_executable() {
    char path[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return ".";
    std::string text(path, static_cast<std::size_t>(n));
    return text.substr(0, text.find_last_of('/'));
}

// The preload and the layer's manifest: beside pacer-run in a build tree,
// under the library folder in an install.
std::string library_directory() {
    const std::string here = directory_of_executable();
    for (const std::string& dir : {here, here + "/" + PACER_RUN_LIBRARY_RELATIVE}) {
        if (::access((dir + "/" + kLibrary).c_str(), R_OK) == 0) return dir;
    }
    return {};
}

// NAME=value, with value put before what the variable already holds
// (separator between), into env.
void prepend(std::vector<std::string>* env, const char* name, const std::string& value, char separator) {
    const char* old = std::getenv(name);
    env->push_back(std::string(name) + "=" + value + (old != nullptr && *old ? separator + std::string(old) : ""));
}

// The program's environment: pacer-run's own, with pacer added; unpaced
// (lib_dir ""), pacer-run's own as it is. summary_dir: where its processes
// leave their summaries ("" none).
std::vector<std::string> program_environment(const std::string& lib_dir, const std::string& settings,
                                             const std::string& summary_dir) {
    std::vector<std::string> env;
    if (lib_dir.empty()) {
        for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
        return env;
    }
    const char* replaced[] = {"LD_PRELOAD",       "VK_ADD_LAYER_PATH",           "VK_INSTANCE_LAYERS",
                              pacer_run::kSettingsVariable, pacer_run::kHandoverVariable, pacer_run::kSummaryDirVariable};
    for (char** entry = environ; *entry != nullptr; ++entry) {
        bool keep = true;
        for (const char* name : replaced) {
            const std::size_t n = std::strlen(name);
            if (std::strncmp(*entry, name, n) == 0 && (*entry)[n] == '=') keep = false;
        }
        if (keep) env.emplace_back(*entry);
    }
    prepend(&env, "LD_PRELOAD", lib_dir + "/" + kLibrary, ':');
    prepend(&env, "VK_ADD_LAYER_PATH", lib_dir, ':');
    prepend(&env, "VK_INSTANCE_LAYERS", kLayer, ':');
    env.push_back(std::string(pacer_run::kSettingsVariable) + "=" + settings);
    env.push_back(std::string(pacer_run::kHandoverVariable) + "=1");
    if (!summary_dir.empty()) env.push_back(std::string(pacer_run::kSummaryDirVariable) + "=" + summary_dir);
    return env;
}

// How the program ended, for a summary it could not print itself.
std::string how_it_ended(int status) {
    if (WIFSIGNALED(status)) {
        const char* name = sigabbrev_np(WTERMSIG(status));
        return std::string("by SIG") + (name != nullptr ? name : std::to_string(WTERMSIG(status)));
    }
    if (WIFEXITED(status)) return "with status " + std::to_string(WEXITSTATUS(status)) + " without exit()";
    return "abnormally";
}

// The summaries the program's processes left and did not print (an ended
// one removes its own once printed): each printed, then the folder removed.
void print_left_summaries(const std::string& dir, const std::string& program, int status) {
    DIR* folder = ::opendir(dir.c_str());
    if (folder == nullptr) return;
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(folder)) {
        const std::string name = entry->d_name;
        if (name.size() > 8 && name.compare(name.size() - 8, 8, ".summary") == 0) names.push_back(name);
    }
    ::closedir(folder);
    for (const std::string& name : names) {
        const std::string path = dir + "/" + name;
        std::string text;
        if (!pacer_demo::read_input_file(path, pacer_demo::kMaxInputBytes, &text).empty()) continue;
        const std::string pid = name.substr(0, name.size() - 8);
        std::fprintf(stderr, "pacer-run: %s (pid %s) ended %s before printing its summary; as of its last %lld "
                             "frames or fewer:\n%s", program.c_str(), pid.c_str(), how_it_ended(status).c_str(),
                     static_cast<long long>(pacer_run::kSummaryEveryFrames), text.c_str());
        std::remove(path.c_str());
    }
    ::rmdir(dir.c_str());
}

// The trace's parts (FILE.PID.part beside FILE), by pid.
std::vector<std::pair<long, std::string>> trace_parts(const std::string& trace) {
    const std::size_t slash = trace.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : trace.substr(0, slash == 0 ? 1 : slash);
    const std::string base = slash == std::string::npos ? trace : trace.substr(slash + 1);
    std::vector<std::pair<long, std::string>> parts;
    DIR* folder = ::opendir(dir.c_str());
    if (folder == nullptr) return parts;
    while (const dirent* entry = ::readdir(folder)) {
        const std::string name = entry->d_name;
        if (name.size() <= base.size() + 6 || name.compare(0, base.size() + 1, base + ".") != 0 ||
            name.compare(name.size() - 5, 5, ".part") != 0)
            continue;
        const std::string pid = name.substr(base.size() + 1, name.size() - base.size() - 6);
        if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
        parts.emplace_back(std::stol(pid), pacer_run::trace_part_path(trace, std::stol(pid)));
    }
    ::closedir(folder);
    return parts;
}

// The part's whole rows: a process ended between two of its writes leaves
// a row cut short, which goes (the file is truncated after its last line).
long whole_rows(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return 0;
    long lines = 0, bytes = 0, whole_bytes = 0;
    for (int c; (c = std::fgetc(file)) != EOF;) {
        ++bytes;
        if (c == '\n') ++lines, whole_bytes = bytes;
    }
    std::fclose(file);
    if (whole_bytes < bytes) (void)!::truncate(path.c_str(), whole_bytes);
    return lines;
}

// FILE with ".PID" before its extension: run.csv -> run.1234.csv.
std::string with_pid(const std::string& trace, long pid) {
    const std::size_t slash = trace.find_last_of('/');
    const std::size_t dot = trace.find_last_of('.');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    const std::string id = "." + std::to_string(pid);
    return has_ext ? trace.substr(0, dot) + id + trace.substr(dot) : trace + id;
}

// The parts renamed once the program has ended (see the top of this file).
void finish_trace(const std::string& trace) {
    std::vector<std::pair<long, std::string>> parts = trace_parts(trace);
    if (parts.empty()) {
        std::fprintf(stderr, "pacer-run: --trace: %s: no frame was presented, no trace written\n", trace.c_str());
        return;
    }
    std::size_t main = 0;
    long most = -1;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const long lines = whole_rows(parts[i].second);
        if (lines > most) most = lines, main = i;
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string target = i == main ? trace : with_pid(trace, parts[i].first);
        if (std::rename(parts[i].second.c_str(), target.c_str()) != 0) {
            std::fprintf(stderr, "pacer-run: --trace: cannot rename %s to %s: %s\n", parts[i].second.c_str(),
                         target.c_str(), std::strerror(errno));
        } else if (parts.size() > 1) {
            std::fprintf(stderr, "pacer-run: --trace: process %ld's frames in %s\n", parts[i].first, target.c_str());
        }
    }
}

// What the program's status becomes pacer-run's (the top of this file).
int exit_like(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (!WIFSIGNALED(status)) return 1;
    const int signal = WTERMSIG(status);
    if (signal == SIGINT || signal == SIGTERM || signal == SIGHUP || signal == SIGKILL) {
        std::fflush(nullptr);
        ::signal(signal, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, signal);
        ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
        ::raise(signal);
    }
    return 128 + signal;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"pacer-run: starts PROGRAM with pacer in it (its GL preload and Vulkan layer), paced to a "
                 "steady cadence. The flags override the PACER_RUN environment variable's keys."};
    app.prefix_command();   // the first word that is no flag is the program; the rest are its
    std::string hz, strategy, wait_point, background_hz, hidden_hz, trace;
    bool summary = false, version = false;
    app.add_option("--hz", hz, "target rate in Hz (PACER_RUN's hz); default: the display's refresh, else 60");
    app.add_option("--strategy", strategy,
                   "timer (default), sleep, spin, precise_sleep, robust_sleep, vsync, auto, display_lock, "
                   "or off (every present passed through)");
    app.add_option("--wait", wait_point, "before_present (default) or frame_start");
    app.add_option("--background-hz", background_hz,
                   "the rate while another window has the focus (GLX windows); 0: off; default 30");
    app.add_option("--hidden-hz", hidden_hz, "the rate while the window is minimized (GLX windows); 0: off; default 10");
    app.add_option("--trace", trace, "per-frame trace CSV (the demo's PresentMon columns)");
    app.add_flag("--summary", summary,
                 "the demo's summary on stderr when the program ends, however it ends (a signal, a crash)");
    app.add_flag("--version", version, "print the version and exit");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    if (version) return std::printf("pacer-run %s\n", pacer::version()), 0;
    std::vector<std::string> command = app.remaining();
    if (!command.empty() && command.front() == "--") command.erase(command.begin());
    if (command.empty()) {
        std::fprintf(stderr, "pacer-run: no program given (pacer-run [OPTIONS] -- PROGRAM [ARGS...])\n");
        return 2;
    }
    const std::string program = command.front();

    // The settings: PACER_RUN, then each flag over it.
    pacer_run::RunSettings settings;
    std::string problem;
    if (const char* text = std::getenv(pacer_run::kSettingsVariable))
        problem = pacer_run::parse_settings(text, &settings);
    const struct {
        const char* key;
        const char* flag;
        const std::string* value;
    } flags[] = {{"hz", "--hz", &hz},
                 {"strategy", "--strategy", &strategy},
                 {"wait", "--wait", &wait_point},
                 {"background_hz", "--background-hz", &background_hz},
                 {"hidden_hz", "--hidden-hz", &hidden_hz}};
    for (const auto& f : flags) {
        if (problem.empty() && app.count(f.flag) > 0)
            problem = pacer_run::parse_settings(std::string(f.key) + "=" + *f.value, &settings, true);
    }
    if (summary) settings.summary = true;
    if (problem.empty() && app.count("--trace") > 0) {
        // Absolute: a program that changes its folder before its first
        // present would put a relative trace where pacer-run never looks.
        char cwd[PATH_MAX];
        const std::string path = trace.empty() || trace.front() == '/' || ::getcwd(cwd, sizeof cwd) == nullptr
                                     ? trace
                                     : std::string(cwd) + "/" + trace;
        std::string trace_problem;
        if (path.find(',') != std::string::npos) {
            trace_problem = "--trace: " + path + ": a path with a comma cannot go through PACER_RUN";
        } else if (trace_problem = pacer_demo::check_writable(path); !trace_problem.empty()) {
            trace_problem = "--trace: " + trace_problem;
        }
        if (trace_problem.empty()) {
            settings.trace = path;
        } else {
            std::fprintf(stderr, "pacer-run: %s; %s runs paced, without a trace\n", trace_problem.c_str(),
                         program.c_str());
        }
    }
    std::string lib_dir;
    if (problem.empty()) {
        lib_dir = library_directory();
        if (lib_dir.empty()) problem = std::string(kLibrary) + " is not beside pacer-run nor installed with it";
    }
    if (!problem.empty()) std::fprintf(stderr, "pacer-run: %s; %s runs unpaced\n", problem.c_str(), program.c_str());
    if (!settings.trace.empty()) {   // a part left by an earlier run of the same trace is not this run's
        for (const auto& part : trace_parts(settings.trace)) std::remove(part.second.c_str());
    }

    // A folder of pacer-run's own for the summaries the processes leave.
    std::string summary_dir;
    if (settings.summary && !lib_dir.empty()) {
        char folder[] = "/tmp/pacer-run-XXXXXX";
        if (::mkdtemp(folder) != nullptr) summary_dir = folder;
    }
    std::vector<std::string> env_text =
        program_environment(lib_dir, pacer_run::format_settings(settings), summary_dir);
    std::vector<char*> env, args;
    for (std::string& entry : env_text) env.push_back(entry.data());
    env.push_back(nullptr);
    for (std::string& word : command) args.push_back(word.data());
    args.push_back(nullptr);

    // A pipe that closes on a successful exec, and carries errno on a failed one.
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "pacer-run: pipe: %s\n", std::strerror(errno));
        return 1;
    }
    struct sigaction action {};
    action.sa_sigaction = forward;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    g_child = ::fork();
    if (g_child < 0) {
        std::fprintf(stderr, "pacer-run: fork: %s\n", std::strerror(errno));
        return 1;
    }
    if (g_child == 0) {
        ::close(report[0]);
        struct sigaction plain {};
        plain.sa_handler = SIG_DFL;
        ::sigaction(SIGINT, &plain, nullptr);
        ::sigaction(SIGTERM, &plain, nullptr);
        ::execvpe(args[0], args.data(), env.data());
        const int error = errno;
        (void)!::write(report[1], &error, sizeof error);
        ::_exit(error == ENOENT ? 127 : 126);
    }
    ::close(report[1]);
    int exec_error = 0;
    ssize_t got;
    do {
        got = ::read(report[0], &exec_error, sizeof exec_error);
    } while (got < 0 && errno == EINTR);
    ::close(report[0]);
    int status = 0;
    while (::waitpid(g_child, &status, 0) < 0 && errno == EINTR) {
    }
    if (got == static_cast<ssize_t>(sizeof exec_error)) {
        std::fprintf(stderr, "pacer-run: %s: %s\n", program.c_str(), std::strerror(exec_error));
        return exec_error == ENOENT ? 127 : 126;
    }
    if (!settings.trace.empty() && !lib_dir.empty()) finish_trace(settings.trace);
    if (!summary_dir.empty()) print_left_summaries(summary_dir, program, status);
    return exit_like(status);
}

// examples/glfw_opengl3: pacer in a GLFW + OpenGL program, whole: a window, a
// pacer on auto through the GLFW backend (pacer::glfw::Host), and a bar moving
// at a steady speed, which jumps where frames come unevenly.
//   glfw_opengl3 [--hz N] [--frames N] [--no-pacer]
// --no-pacer leaves the pacer out (swap interval 0, as fast as it renders):
// the same program for pacer-run to pace from outside, beside this one
// pacing itself (docs/bench/pace-any-program.md).
// At the end (the window closed, or N frames) it prints what auto chose and why,
// how steady the presents were, the median frame interval, and the frames the compositor reported shown
// (weston), or that none are (X11). The backend's five lines are marked "pacer".
#include <GLFW/glfw3.h>   // with GL/gl.h: glClear and glScissor are all it draws with

#include <pacer/backends/glfw.h>
#include <pacer/metrics.h>
#include <pacer/pacer.h>
#include <pacer/status.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Options {
    double hz = 60;    // the target rate
    long frames = 0;   // 0: until the window closes
    bool pacer = true;   // false: --no-pacer
};

// "--hz 144 --frames 300 --no-pacer"; false (and a line on stderr) for anything else.
bool parse(int argc, char** argv, Options* options) {
    for (int i = 1; i < argc; i += 2) {
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        char* end = nullptr;
        bool ok = false;
        if (std::strcmp(argv[i], "--no-pacer") == 0) {
            options->pacer = false;
            ok = true;
            --i;   // a flag without a value
        } else if (value != nullptr && std::strcmp(argv[i], "--hz") == 0) {
            options->hz = std::strtod(value, &end);
            ok = *end == '\0' && options->hz >= 1 && options->hz <= 1000;
        } else if (value != nullptr && std::strcmp(argv[i], "--frames") == 0) {
            options->frames = std::strtol(value, &end, 10);
            ok = *end == '\0' && options->frames >= 1 && options->frames <= 1'000'000;
        }
        if (!ok) {
            std::fprintf(stderr, "usage: %s [--hz 1..1000] [--frames 1..1000000] [--no-pacer]\n", argv[0]);
            return false;
        }
    }
    return true;
}

// A white bar crossing a dark window at 400 px/s, at the game's time.
void draw(GLFWwindow* window, int64_t game_ns) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.08f, 0.09f, 0.12f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    const int bar = 40, travel = width > bar ? width - bar : 1;
    const int x = static_cast<int>(std::fmod(static_cast<double>(game_ns) * 4e-7, travel));
    glEnable(GL_SCISSOR_TEST);
    glScissor(x, 0, bar, height);
    glClearColor(0.95f, 0.95f, 0.95f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
}

// The gaps between the frames shown, the display's real cadence, and each
// shown frame's latency: from the wake it was built after to its showing.
struct Shown {
    int64_t last_ns = -1;
    std::vector<double> gaps_ms;
    std::vector<double> latency_ms;
    int64_t wakes_ns[64] = {};   // by Frame::index % 64: the recent wakes
    int64_t wake_index[64] = {};
    void woke(const pacer::Frame& frame) {
        wakes_ns[frame.index % 64] = frame.wake_ns;
        wake_index[frame.index % 64] = frame.index;
    }
};

double median_of(std::vector<double>& values) {
    auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

void note_shown(const pacer::Presented& presented, void* user) {
    Shown& shown = *static_cast<Shown*>(user);
    if (presented.discarded || presented.displayed_ns < 0) return;
    if (shown.last_ns >= 0 && shown.gaps_ms.size() < 1'000'000)
        shown.gaps_ms.push_back(pacer::ms_of(static_cast<double>(presented.displayed_ns - shown.last_ns)));
    shown.last_ns = presented.displayed_ns;
    const int64_t i = presented.frame_index;
    if (i >= 0 && shown.wake_index[i % 64] == i && shown.latency_ms.size() < 1'000'000)
        shown.latency_ms.push_back(pacer::ms_of(static_cast<double>(presented.displayed_ns - shown.wakes_ns[i % 64])));
}

// The loop, with the pacer and the window's Host: both go before the window
// (the Host holds the window's feedback objects, the pacer puts the swap
// interval back on its context).
int paced_loop(GLFWwindow* window, const Options& options) {
    pacer::glfw::Host host(window);                  // pacer: the window's Host
    pacer::Config config;
    config.strategy = pacer::Strategy::Auto;
    config.target_hz = options.hz;
    config.host = &host;                             // pacer: auto hears the window
    std::string error;
    std::unique_ptr<pacer::Pacer> pacer = pacer::Pacer::create(config, &error);
    if (!pacer) {
        std::fprintf(stderr, "glfw_opengl3: %s\n", error.c_str());
        return 2;
    }
    Shown shown;
    host.on_presented(note_shown, &shown);

    int64_t game_ns = 0;   // the game's time: the sum of the pacer's steady steps
    int32_t decision_seq = 0;
    for (long i = 0; !glfwWindowShouldClose(window) && (options.frames == 0 || i < options.frames); ++i) {
        glfwPollEvents();
        draw(window, game_ns);                       // input, simulate, render
        const pacer::Frame frame = pacer->wait();   // pacer: its GL work done, then the deadline
        shown.woke(frame);
        host.present(*pacer, frame);                 // pacer: the swap, and when it is shown
        game_ns += frame.dt_ns;                      // the next frame's steady step
        if (frame.decision_seq != decision_seq) {    // auto chose, or changed its mind: say why
            decision_seq = frame.decision_seq;
            std::printf("frame %lld (%.1f ms after the one before): %s\n", static_cast<long long>(frame.index),
                        static_cast<double>(frame.interval_ns) * 1e-6, pacer->decision().reason.c_str());
        }
    }

    const pacer::Summary summary = pacer->stats().summarize();
    const pacer::DisplayClock display = pacer->display();
    const pacer::Decision decision = pacer->decision();
    std::printf("decision #%d: %s\n", decision.seq, decision.reason.c_str());   // #1: it never changed its mind
    const pacer::WaitStatus status = pacer->status();
    if (status.display_judged > 0) {   // display_lock paced: how its frames landed
        std::printf("display_lock: %lld of %lld frames late or discarded\n", static_cast<long long>(status.display_missed),
                    static_cast<long long>(status.display_judged));
    }
    if (status.display_refreshes_counted > 0) {   // the display reported shown frames
        std::printf("display: %.2f hitches per 1000 refreshes (%lld of %lld)\n", status.display_hitches_per_1000,
                    static_cast<long long>(status.display_hitches),
                    static_cast<long long>(status.display_refreshes_counted));
    }
    std::printf("presents: %.2f %% off by > 0.5 ms, p99 %.3f ms\n", summary.presents.off_pct,
                pacer::ms_of(summary.presents.p99_us * pacer::kNsPerUs));
    std::printf("frames: %lld, median interval %.3f ms, target %.3f ms\n", static_cast<long long>(summary.frames),
                pacer::ms_of(summary.interval.p50_us * pacer::kNsPerUs),
                pacer::ms_of(summary.target_period_us * pacer::kNsPerUs));
    std::printf("present feedback: %s\n", host.present_feedback());
    if (shown.gaps_ms.empty()) {
        std::printf("shown frames: none reported (no present feedback here)\n");
    } else {
        std::printf("shown frames: %zu reported, every %.3f ms (median); display clock %s, period %.3f ms, "
                    "stated %.3g Hz\n", shown.gaps_ms.size() + 1, median_of(shown.gaps_ms),
                    display.locked ? "locked" : "not locked now", pacer::ms_of(static_cast<double>(display.period_ns)),
                    display.stated_hz);
        if (!shown.latency_ms.empty())
            std::printf("latency: %.3f ms (median, from the wake a frame was built after to its showing)\n",
                        median_of(shown.latency_ms));
    }
    if (host.display_connection_lost()) {   // the compositor went away: the run did not end as asked
        std::fprintf(stderr, "glfw_opengl3: the display server went away after %lld frames; the figures stop there\n",
                     static_cast<long long>(summary.frames));
        return 1;
    }
    return 0;
}

// The same frames with no pacer: as fast as the machine renders them, for
// an outside limiter (pacer-run) to pace.
int unpaced_loop(GLFWwindow* window, const Options& options) {
    glfwSwapInterval(0);
    int64_t game_ns = 0;
    double last_s = glfwGetTime();
    long i = 0;
    for (; !glfwWindowShouldClose(window) && (options.frames == 0 || i < options.frames); ++i) {
        glfwPollEvents();
        draw(window, game_ns);
        glfwSwapBuffers(window);
        const double now_s = glfwGetTime();
        game_ns += static_cast<int64_t>((now_s - last_s) * 1e9);   // the measured step: nothing steadies it
        last_s = now_s;
    }
    std::printf("frames: %ld, no pacer (--no-pacer)\n", i);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, &options)) return 2;
    if (glfwInit() != GLFW_TRUE) {
        std::fprintf(stderr, "glfw_opengl3: glfwInit failed (no display?)\n");
        return 1;
    }
    GLFWwindow* window = glfwCreateWindow(640, 360, "pacer: glfw_opengl3", nullptr, nullptr);
    if (window == nullptr) {
        std::fprintf(stderr, "glfw_opengl3: glfwCreateWindow failed\n");
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    // Then the window goes.
    const int code = options.pacer ? paced_loop(window, options) : unpaced_loop(window, options);
    glfwDestroyWindow(window);
    glfwTerminate();
    return code;
}

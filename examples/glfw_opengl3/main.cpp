// examples/glfw_opengl3: pacer in a GLFW + OpenGL program, whole. A window, a
// pacer on auto through the GLFW backend (pacer::glfw::Host: vsync, the
// monitor's refresh, and on Wayland the frames shown), and a loop that draws
// a bar moving at a steady speed: where frames come unevenly, the bar jumps.
//
//   glfw_opengl3 [--hz N] [--frames N]
//
// It ends when the window closes, or after N frames, and then prints what
// the pacer did: the strategy auto chose and why, the median frame interval,
// and the shown frames the compositor reported (weston) or that none exist
// (X11, sway). The five lines the backend adds to a loop are marked "pacer".
#include <GLFW/glfw3.h>   // with GL/gl.h: glClear and glScissor are all it draws with

#include <pacer/backends/glfw.h>
#include <pacer/pacer.h>
#include <pacer/stats.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

struct Options {
    double hz = 60;
    long frames = 0;   // 0: until the window closes
};

// "--hz 144 --frames 300"; false (and a line on stderr) for anything else.
bool parse(int argc, char** argv, Options* options) {
    for (int i = 1; i < argc; i += 2) {
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        char* end = nullptr;
        bool ok = false;
        if (value != nullptr && std::strcmp(argv[i], "--hz") == 0) {
            options->hz = std::strtod(value, &end);
            ok = *end == '\0' && options->hz >= 1 && options->hz <= 1000;
        } else if (value != nullptr && std::strcmp(argv[i], "--frames") == 0) {
            options->frames = std::strtol(value, &end, 10);
            ok = *end == '\0' && options->frames >= 1 && options->frames <= 1'000'000;
        }
        if (!ok) {
            std::fprintf(stderr, "usage: %s [--hz 1..1000] [--frames 1..1000000]\n", argv[0]);
            return false;
        }
    }
    return true;
}

// A white bar crossing a dark window at 400 px/s, from the frame's wake time.
void draw(GLFWwindow* window, int64_t wake_ns) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.08f, 0.09f, 0.12f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    const int bar = 40, travel = width > bar ? width - bar : 1;
    const int x = static_cast<int>(std::fmod(static_cast<double>(wake_ns) * 4e-7, travel));
    glEnable(GL_SCISSOR_TEST);
    glScissor(x, 0, bar, height);
    glClearColor(0.95f, 0.95f, 0.95f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
}

void count_shown(const pacer::Presented& presented, void* shown) {
    if (!presented.discarded) ++*static_cast<long*>(shown);
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
    long shown = 0;
    host.on_presented(count_shown, &shown);

    for (long i = 0; !glfwWindowShouldClose(window) && (options.frames == 0 || i < options.frames); ++i) {
        const pacer::Frame frame = pacer->wait();   // pacer: to this frame's deadline
        glfwPollEvents();
        draw(window, frame.wake_ns);
        host.before_swap(frame.index);               // pacer: ask when it is shown
        glfwSwapBuffers(window);
        pacer->mark_present();                       // pacer: the swap returned
    }

    const pacer::Summary summary = pacer->stats().summarize();
    const pacer::DisplayClock display = pacer->display();
    std::printf("decision: %s\n", pacer->decision().reason.c_str());
    std::printf("frames: %lld, median interval %.3f ms, target %.3f ms\n", static_cast<long long>(summary.frames),
                summary.interval.p50_us / 1e3, summary.target_period_us / 1e3);
    std::printf("present feedback: %s\n", host.present_feedback());
    if (display.locked)
        std::printf("shown frames: %ld reported; display period %.3f ms (fitted), stated %.3g Hz\n", shown,
                    static_cast<double>(display.period_ns) / 1e6, display.stated_hz);
    else
        std::printf("shown frames: %ld reported; no display clock (no present feedback here)\n", shown);
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

    const int code = paced_loop(window, options);
    glfwDestroyWindow(window);
    glfwTerminate();
    return code;
}

// readme_1_0.cpp: the engine loop of pacer 1.0.0's README (commit 71fcbe2),
// as a program written then has it: it includes pacer/stats.h, which 1.1.0
// split into metrics.h and status.h, and calls host.before_swap and
// mark_present where today's README calls host.present. tests/consumer
// builds it against the new release, where it must compile, warn that
// stats.h is deprecated and name what to include (CHANGELOG.md), and run.
// Not edited to today's API: that is the point.
#include <GLFW/glfw3.h>
#include <pacer/backends/glfw.h>   // pacer::glfw::Host
#include <pacer/pacer.h>
#include <pacer/stats.h>

#include <cstdio>
#include <memory>
#include <string>

// The frame, from the game's time: here a bar that crosses the window.
static void render(GLFWwindow* window, double game_time_s) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.1f, 0.1f, 0.12f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    glScissor(static_cast<int>(game_time_s * 400) % (width > 40 ? width - 40 : 1), 0, 40, height);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
}

int main() {
    if (glfwInit() != GLFW_TRUE) return 1;
    GLFWwindow* window = glfwCreateWindow(1280, 720, "game", nullptr, nullptr);
    if (window == nullptr) return glfwTerminate(), 1;
    glfwMakeContextCurrent(window);
    glfwSwapInterval(0);   // the pacer paces; the timer does not touch the swap interval
    {   // the Host and the Pacer go before the window: the Host holds its feedback objects
        pacer::glfw::Host host(window);   // finishes each frame's GL work before the wait
        pacer::Config config;             // the timer, waiting before the present
        config.target_hz = 60;
        config.host = &host;
        std::string error;
        std::unique_ptr<pacer::Pacer> pacer = pacer::Pacer::create(config, &error);
        if (!pacer) return std::fprintf(stderr, "game: %s\n", error.c_str()), 1;

        double game_time_s = 0;
        for (int i = 0; i < 660 && !glfwWindowShouldClose(window); ++i) {   // 11 s; a game runs on
            glfwPollEvents();
            render(window, game_time_s);            // input, simulate, render
            pacer::Frame frame = pacer->wait();     // the GL work done, then to the deadline
            host.before_swap(frame.index);          // Wayland: asks when it is shown
            glfwSwapBuffers(window);                // at once: a steady present
            pacer->mark_present();                  // when the swap returned
            game_time_s += frame.dt_ns * 1e-9;      // the next frame's steady step
        }
        const pacer::Summary s = pacer->stats().summarize();
        std::printf("presents: %.2f %% off by > 0.5 ms (p99 %.3f ms); wakes: %.2f %%\n",
                    s.presents.off_pct, s.presents.p99_us * 1e-3, s.off_pct);
    }
    glfwDestroyWindow(window);
    glfwTerminate();
}

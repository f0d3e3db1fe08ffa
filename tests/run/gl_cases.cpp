// gl_cases.cpp: a GLFW program with the habits real programs bring to a
// limiter, one per --case, for tests/run/check_run.py to run under pacer-run.
// GLFW loads libGL with dlopen and finds the swap with dlsym, as SDL2 does:
// the preload's dlsym path.
//
//   gl_cases --case NAME [--frames N] [--status K]
//   single       one window, swapped every frame
//   two-windows  two windows, both swapped every frame
//   thread       the window's context current on a second thread, which renders and swaps
//   fork-exec    forks; the child runs this program again (--case single), both render
//   interval     sets its own swap interval (glfwSwapInterval(1)) and renders
//   gles         OpenGL ES 2 through EGL
//   exit-thread  after N frames another thread calls exit(K) while this one renders and swaps
//   _exit        after N frames, _exit(K): no atexit handler, no destructor
//   crash        after N frames, SIGSEGV
//   glx-window   no GLFW: Xlib and GLX 1.3, swapping a GLXWindow (glXCreateWindow),
//                an XID that is no X window
//   new-window   N frames in one window, which it then destroys, and N more in a second
//                made 400 ms later
//   msc-wait     no GLFW: Xlib and GLX, each frame waiting for the window's next MSC
//                as Mesa's DRI3 GLX waits for it (X Present on a connection of its
//                own), then swapping; prints "gl_cases: msc advanced A in N waits, E before
//                the MSC asked, S past it; F other notifies"
// Prints "gl_cases: N frames" at a normal end; exits K (--status, default 0).
#include <GL/glx.h>
#include <GLFW/glfw3.h>
#include <xcb/present.h>
#include <xcb/xcb.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

struct Options {
    std::string name = "single";
    long frames = 120;
    int status = 0;
};

void draw(long frame) {
    const float shade = static_cast<float>(frame % 60) / 60.0f;
    glClearColor(shade, 0.2f, 1.0f - shade, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
}

GLFWwindow* open_window(const char* title, bool gles) {
    if (gles) {
        glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 2);
    }
    return glfwCreateWindow(320, 240, title, nullptr, nullptr);
}

// Renders and swaps window for frames frames on the calling thread.
void render(GLFWwindow* window, long frames) {
    glfwMakeContextCurrent(window);
    for (long i = 0; i < frames; ++i) {
        draw(i);
        glfwSwapBuffers(window);
    }
    glfwMakeContextCurrent(nullptr);
}

// A 320x240 X window of the visual, mapped (no GLFW: the Xlib cases).
Window open_x_window(Display* display, const XVisualInfo* visual, const char* title) {
    const Window root = RootWindow(display, visual->screen);
    XSetWindowAttributes set{};
    set.colormap = XCreateColormap(display, root, visual->visual, AllocNone);
    const Window window = XCreateWindow(display, root, 0, 0, 320, 240, 0, visual->depth, InputOutput,
                                        visual->visual, CWColormap, &set);
    XStoreName(display, window, title);
    XMapWindow(display, window);
    return window;
}

// The glx-window case: an X window with an FBConfig's visual, a GLXWindow
// on it, and a GL context current on that.
int run_glx_window(const Options& o) {
    Display* display = XOpenDisplay(nullptr);
    if (display == nullptr) return std::fprintf(stderr, "gl_cases: no X display\n"), 1;
    const int attributes[] = {GLX_DRAWABLE_TYPE, GLX_WINDOW_BIT, GLX_RENDER_TYPE, GLX_RGBA_BIT, GLX_DOUBLEBUFFER, True,
                              None};
    int count = 0;
    GLXFBConfig* configs = glXChooseFBConfig(display, DefaultScreen(display), attributes, &count);
    if (configs == nullptr || count == 0) return std::fprintf(stderr, "gl_cases: no FBConfig\n"), 1;
    const GLXFBConfig config = configs[0];
    XFree(configs);
    XVisualInfo* visual = glXGetVisualFromFBConfig(display, config);
    if (visual == nullptr) return std::fprintf(stderr, "gl_cases: no visual\n"), 1;
    const Window window = open_x_window(display, visual, "gl_cases glx-window");
    XFree(visual);
    const GLXWindow drawable = glXCreateWindow(display, config, window, nullptr);
    const GLXContext context = glXCreateNewContext(display, config, GLX_RGBA_TYPE, nullptr, True);
    if (context == nullptr || !glXMakeContextCurrent(display, drawable, drawable, context))
        return std::fprintf(stderr, "gl_cases: no GLX context\n"), 1;
    for (long i = 0; i < o.frames; ++i) {
        draw(i);
        glXSwapBuffers(display, drawable);
    }
    std::printf("gl_cases: %ld frames\n", o.frames);
    std::fflush(stdout);
    glXMakeContextCurrent(display, None, None, nullptr);
    glXDestroyContext(display, context);
    glXDestroyWindow(display, drawable);
    XDestroyWindow(display, window);
    XCloseDisplay(display);
    return o.status;
}

// The msc-wait case: the window's MSC waited for as Mesa's DRI3 loader
// waits for it (glXWaitForMscOML on a GPU; Mesa's software GLX has none): on
// an XCB connection of the program's own, CompleteNotify selected on the
// window with an event id, each wait a PresentNotifyMSC for the MSC after
// the last one seen with that id as its serial, and only a notify carrying
// it taken as the answer. The server sends every client's notifies for the
// window to every selection on it, so under pacer-run the program's queue
// holds the Present source's too (their serials have the top bit set, no
// XID's): none of its waits may end before the MSC it asked for, as without
// pacer-run (one may end past it, where the frame took longer than a
// refresh: the pacer's wait is in the swap).
int run_msc_wait(const Options& o) {
    Display* display = XOpenDisplay(nullptr);
    if (display == nullptr) return std::fprintf(stderr, "gl_cases: no X display\n"), 1;
    int attributes[] = {GLX_RGBA, GLX_DOUBLEBUFFER, None};
    XVisualInfo* visual = glXChooseVisual(display, DefaultScreen(display), attributes);
    if (visual == nullptr) return std::fprintf(stderr, "gl_cases: no visual\n"), 1;
    const Window window = open_x_window(display, visual, "gl_cases msc-wait");
    const GLXContext context = glXCreateContext(display, visual, nullptr, True);
    XFree(visual);
    if (context == nullptr || !glXMakeCurrent(display, window, context))
        return std::fprintf(stderr, "gl_cases: no GLX context\n"), 1;
    xcb_connection_t* c = xcb_connect(DisplayString(display), nullptr);
    if (xcb_connection_has_error(c) != 0) return std::fprintf(stderr, "gl_cases: no XCB connection\n"), 1;
    const uint32_t eid = xcb_generate_id(c);
    xcb_special_event_t* queue = xcb_register_for_special_xge(c, &xcb_present_id, eid, nullptr);
    xcb_present_select_input(c, eid, static_cast<xcb_window_t>(window), XCB_PRESENT_EVENT_MASK_COMPLETE_NOTIFY);
    uint64_t first = 0, last = 0;
    long waits = 0, early = 0, skipped = 0, foreign = 0;
    for (long i = 0; i < o.frames; ++i) {
        xcb_present_notify_msc(c, static_cast<xcb_window_t>(window), eid, waits == 0 ? 0 : last + 1, 0, 0);
        xcb_flush(c);
        for (;;) {   // until our own answer
            xcb_generic_event_t* event = xcb_wait_for_special_event(c, queue);
            if (event == nullptr) return std::fprintf(stderr, "gl_cases: the X connection failed\n"), 1;
            const auto* e = reinterpret_cast<const xcb_present_complete_notify_event_t*>(event);
            const bool ours = e->event_type == XCB_PRESENT_COMPLETE_NOTIFY &&
                              e->kind == XCB_PRESENT_COMPLETE_KIND_NOTIFY_MSC && e->serial == eid;
            const uint64_t msc = e->msc;
            foreign += e->event_type == XCB_PRESENT_COMPLETE_NOTIFY && !ours;
            std::free(event);
            if (!ours) continue;
            if (waits == 0) first = msc;
            if (waits > 0 && msc < last + 1) ++early;     // an answer before the MSC asked: not ours
            if (waits > 0 && msc > last + 1) ++skipped;   // asked once that MSC had passed (a slow frame)
            last = msc;
            ++waits;
            break;
        }
        draw(i);
        glXSwapBuffers(display, window);
    }
    std::printf("gl_cases: msc advanced %llu in %ld waits, %ld before the MSC asked, %ld past it; "
                "%ld other notifies\n", static_cast<unsigned long long>(last - first), waits, early, skipped, foreign);
    std::printf("gl_cases: %ld frames\n", o.frames);
    std::fflush(stdout);
    xcb_unregister_for_special_event(c, queue);
    xcb_disconnect(c);
    glXMakeCurrent(display, None, nullptr);
    glXDestroyContext(display, context);
    XDestroyWindow(display, window);
    XCloseDisplay(display);
    return o.status;
}

int run(const Options& o, const char* self) {
    if (o.name == "glx-window") return run_glx_window(o);
    if (o.name == "msc-wait") return run_msc_wait(o);
    if (glfwInit() != GLFW_TRUE) return std::fprintf(stderr, "gl_cases: glfwInit failed\n"), 1;
    const bool gles = o.name == "gles";
    GLFWwindow* window = open_window("gl_cases", gles);
    if (window == nullptr) return std::fprintf(stderr, "gl_cases: no window\n"), 1;
    glfwMakeContextCurrent(window);
    glfwSwapInterval(o.name == "interval" ? 1 : 0);
    if (o.name == "two-windows") {
        GLFWwindow* second = glfwCreateWindow(320, 240, "gl_cases 2", nullptr, nullptr);
        if (second == nullptr) return std::fprintf(stderr, "gl_cases: no second window\n"), 1;
        for (long i = 0; i < o.frames; ++i) {
            glfwPollEvents();
            glfwMakeContextCurrent(window);
            draw(i);
            glfwSwapBuffers(window);
            glfwMakeContextCurrent(second);
            draw(i + 30);
            glfwSwapBuffers(second);
        }
        glfwDestroyWindow(second);
    } else if (o.name == "new-window") {
        render(window, o.frames);
        glfwDestroyWindow(window);   // the window paced so far is gone ...
        std::this_thread::sleep_for(std::chrono::milliseconds(400));   // the next level loads
        window = glfwCreateWindow(320, 240, "gl_cases 2", nullptr, nullptr);
        if (window == nullptr) return std::fprintf(stderr, "gl_cases: no second window\n"), 1;
        glfwMakeContextCurrent(window);
        glfwSwapInterval(0);
        render(window, o.frames);   // ... and another takes over
    } else if (o.name == "thread") {
        glfwMakeContextCurrent(nullptr);
        std::thread renderer(render, window, o.frames);
        renderer.join();
    } else if (o.name == "fork-exec") {
        const pid_t child = fork();
        if (child == 0) {
            const std::string frames = std::to_string(o.frames);
            execl(self, self, "--case", "single", "--frames", frames.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        render(window, o.frames);
        int status = 0;
        waitpid(child, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::fprintf(stderr, "gl_cases: child failed\n"), 1;
    } else if (o.name == "exit-thread") {
        std::atomic<long> done{0};
        std::thread quitter([&] {
            while (done.load() < o.frames) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            std::exit(o.status);   // while the main thread is inside a frame
        });
        quitter.detach();
        for (long i = 0;; ++i) {
            draw(i);
            glfwSwapBuffers(window);
            done.store(i + 1);
        }
    } else {
        render(window, o.frames);
        if (o.name == "_exit") _exit(o.status);
        if (o.name == "crash") raise(SIGSEGV);
    }
    std::printf("gl_cases: %ld frames\n", o.frames);
    std::fflush(stdout);
    glfwDestroyWindow(window);
    glfwTerminate();
    return o.status;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--case") == 0) o.name = argv[i + 1];
        else if (std::strcmp(argv[i], "--frames") == 0) o.frames = std::atol(argv[i + 1]);
        else if (std::strcmp(argv[i], "--status") == 0) o.status = std::atoi(argv[i + 1]);
    }
    const char* names[] = {"single", "two-windows", "thread", "fork-exec", "interval", "gles", "exit-thread",
                           "_exit", "crash", "glx-window", "new-window", "msc-wait"};
    bool known = false;
    for (const char* name : names) known = known || o.name == name;
    if (!known || o.frames < 1 || argc % 2 == 0) {
        std::fprintf(stderr, "usage: gl_cases --case NAME [--frames N] [--status K]\n");
        return 2;
    }
    return run(o, argv[0]);
}

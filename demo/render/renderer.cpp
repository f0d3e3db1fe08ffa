// renderer.cpp: OpenGL 3.3 core, one program, one instanced draw.
#include "render/renderer.h"

#include <cstddef>
#include <cstdio>
#include <cstring>

#include <glad/gl.h>

#include "demo_shaders.h"   // generated from shaders/ by demo/cmake/embed_text.cmake

namespace pacer_demo {
namespace {

// glad wants a plain function; the window's lookup travels in user_ptr.
struct Loader {
    Renderer::ProcAddress proc_address;
    void* user;
};

GLADapiproc load_gl(void* user_ptr, const char* name) {
    auto* loader = static_cast<Loader*>(user_ptr);
    return reinterpret_cast<GLADapiproc>(loader->proc_address(loader->user, name));
}

bool compile(GLenum type, const char* source, const char* name, GLuint* out, std::string* error) {
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[1024] = {};
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        *error = std::string("shader ") + name + ": " + log;
        glDeleteShader(shader);
        return false;
    }
    *out = shader;
    return true;
}

std::string gl_string(GLenum name) {
    const GLubyte* text = glGetString(name);
    return text != nullptr ? reinterpret_cast<const char*>(text) : "?";
}

}  // namespace

Renderer::~Renderer() {
    if (program_ == 0) return;   // init never got a context
    glDeleteBuffers(1, &instance_buffer_);
    glDeleteVertexArrays(1, &vao_);
    glDeleteProgram(program_);
}

bool Renderer::init(ProcAddress proc_address, void* user, std::string* error) {
    Loader loader{proc_address, user};
    int version = gladLoadGLUserPtr(load_gl, &loader);
    if (version == 0) {
        *error = "OpenGL: glad could not load the GL functions";
        return false;
    }
    if (GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 33) {
        *error = "OpenGL 3.3 core needed, the context is " + gl_string(GL_VERSION);
        return false;
    }
    gl_renderer_ = gl_string(GL_RENDERER);
    gl_version_ = gl_string(GL_VERSION);

    GLuint vertex = 0, fragment = 0;
    if (!compile(GL_VERTEX_SHADER, shaders::rect_vert, "shaders/rect.vert", &vertex, error)) return false;
    if (!compile(GL_FRAGMENT_SHADER, shaders::rect_frag, "shaders/rect.frag", &fragment, error)) {
        glDeleteShader(vertex);
        return false;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    glLinkProgram(program);
    glDeleteShader(vertex);
    glDeleteShader(fragment);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[1024] = {};
        glGetProgramInfoLog(program, sizeof log, nullptr, log);
        *error = std::string("shader link: ") + log;
        glDeleteProgram(program);
        return false;
    }
    program_ = program;
    framebuffer_px_uniform_ = glGetUniformLocation(program_, "u_framebuffer_px");

    glGenVertexArrays(1, &vao_);
    glGenBuffers(1, &instance_buffer_);
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, instance_buffer_);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(Rect),
                          reinterpret_cast<const void*>(offsetof(Rect, x)));
    glVertexAttribDivisor(0, 1);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Rect),
                          reinterpret_cast<const void*>(offsetof(Rect, r)));
    glVertexAttribDivisor(1, 1);
    glBindVertexArray(0);
    return true;
}

void Renderer::begin_frame(int framebuffer_width, int framebuffer_height) {
    width_ = framebuffer_width;
    height_ = framebuffer_height;
    glViewport(0, 0, width_, height_);
    glClearColor(0.05f, 0.05f, 0.06f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
}

void Renderer::draw(const std::vector<Rect>& rects) {
    if (rects.empty() || width_ <= 0 || height_ <= 0) return;
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_SCISSOR_TEST);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(program_);
    glUniform2f(framebuffer_px_uniform_, static_cast<float>(width_), static_cast<float>(height_));
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, instance_buffer_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(rects.size() * sizeof(Rect)),
                 rects.data(), GL_STREAM_DRAW);
    // Runs of opaque rectangles are drawn with blending off: with a software
    // rasteriser (llvmpipe under Xvfb) blending the large ones costs
    // milliseconds a frame. Order is kept, so the picture is the same.
    std::size_t first = 0;
    while (first < rects.size()) {
        const bool opaque = rects[first].a >= 1;
        std::size_t end = first + 1;
        while (end < rects.size() && (rects[end].a >= 1) == opaque) ++end;
        if (opaque) glDisable(GL_BLEND); else glEnable(GL_BLEND);
        const std::size_t offset = first * sizeof(Rect);
        glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(Rect),
                              reinterpret_cast<const void*>(offset + offsetof(Rect, x)));
        glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Rect),
                              reinterpret_cast<const void*>(offset + offsetof(Rect, r)));
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(end - first));
        first = end;
    }
    glBindVertexArray(0);
    glUseProgram(0);
}

}  // namespace pacer_demo

// renderer.h: the demo's OpenGL 3.3 core renderer. It owns the GL loader
// (glad, generated at build time), the shaders (shaders/*.vert, *.frag,
// embedded in the binary at build time) and the screenshot.
//
// Everything the scene draws is a list of rectangles (scene.h), drawn in one
// instanced call; Dear ImGui's own OpenGL3 renderer draws the overlay on top.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/scene.h"

namespace pacer_demo {

class Renderer {
public:
    using ProcAddress = void* (*)(void* user, const char* name);

    Renderer() = default;
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    // Loads OpenGL through proc_address (the window's) and builds the
    // shaders. Returns false with one line in *error.
    bool init(ProcAddress proc_address, void* user, std::string* error);

    // Sets the viewport to the framebuffer and clears it.
    void begin_frame(int framebuffer_width, int framebuffer_height);
    void draw(const std::vector<Rect>& rects);

    // A frame's pixels, top row first, RGB.
    struct Image {
        int width = 0, height = 0;
        std::vector<unsigned char> rgb;
    };
    // Reads the back buffer (call after everything is drawn, before the
    // swap): a few ms of the frame; the PNG is encoded later (write_png), so
    // a screenshot costs a measured run no 100-300 ms hitch.
    bool capture(Image* image, std::string* error) const;
    // Writes an image as a PNG: to a temporary file first, then renamed, so a
    // failed write leaves nothing behind. Returns false with one line in *error.
    static bool write_png(const Image& image, const std::string& path, std::string* error);

    const std::string& gl_renderer() const { return gl_renderer_; }   // e.g. "llvmpipe (LLVM 15...)"
    const std::string& gl_version() const { return gl_version_; }

private:
    unsigned program_ = 0, vao_ = 0, instance_buffer_ = 0;
    int framebuffer_px_uniform_ = -1;
    int width_ = 0, height_ = 0;
    std::string gl_renderer_, gl_version_;
};

}  // namespace pacer_demo

// screenshot.cpp: Renderer::screenshot, and the one stb_image_write
// implementation in the demo (static, so it cannot clash with the copy in
// Debian's libstb that Dear ImGui pulls in).
#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <glad/gl.h>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include "run/atomic_file.h"
#include "render/renderer.h"

namespace pacer_demo {
namespace {

void append_bytes(void* context, void* data, int size) {
    auto* out = static_cast<std::vector<unsigned char>*>(context);
    auto* bytes = static_cast<unsigned char*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

}  // namespace

bool Renderer::capture(Image* image, std::string* error) const {
    if (width_ <= 0 || height_ <= 0) {
        *error = "--screenshot: no frame drawn yet";
        return false;
    }
    const int channels = 3;
    const size_t row_bytes = static_cast<size_t>(width_) * channels;
    std::vector<unsigned char> pixels(row_bytes * static_cast<size_t>(height_));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width_, height_, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());

    // OpenGL's rows go bottom-up, PNG's top-down.
    image->width = width_;
    image->height = height_;
    image->rgb.resize(pixels.size());
    for (int y = 0; y < height_; ++y) {
        std::copy_n(&pixels[static_cast<size_t>(height_ - 1 - y) * row_bytes], row_bytes,
                    &image->rgb[static_cast<size_t>(y) * row_bytes]);
    }
    return true;
}

bool Renderer::write_png(const Image& image, const std::string& path, std::string* error) {
    const int channels = 3;
    std::vector<unsigned char> png;
    if (stbi_write_png_to_func(append_bytes, &png, image.width, image.height, channels, image.rgb.data(),
                               image.width * channels) == 0) {
        *error = "--screenshot: " + path + ": PNG encoding failed";
        return false;
    }

    // Written whole or not at all, through the same rules as every output
    // (run/atomic_file.h): a regular file, replaced only once complete.
    const std::string problem = write_file_atomically(
        path, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
    if (!problem.empty()) {
        *error = "--screenshot: " + problem;
        return false;
    }
    return true;
}

}  // namespace pacer_demo

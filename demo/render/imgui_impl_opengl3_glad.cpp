// imgui_impl_opengl3_glad.cpp: Dear ImGui's OpenGL3 renderer backend, compiled
// from Debian's source (PACER_IMGUI_OPENGL3_SOURCE, set by demo/CMakeLists.txt)
// against our glad loader instead of its bundled one.
//
// Why: the loader bundled with Debian's imgui 1.86 (imgui_impl_opengl3_loader.h)
// fills a 53-entry function table from a 54-name list, writing one pointer past
// its end (UBSan: "index 53 out of bounds"). With IMGUI_IMPL_OPENGL_LOADER_CUSTOM
// the backend calls the GL functions glad declares, which Renderer::init loads
// before the ImGui layer is made.
#include <glad/gl.h>

#define IMGUI_IMPL_OPENGL_LOADER_CUSTOM
#include PACER_IMGUI_OPENGL3_SOURCE

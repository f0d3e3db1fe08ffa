// overlay.cpp: the ImGui panel: its layer, and the two halves composed.
#include "ui/overlay.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>
#include <imgui_impl_opengl3.h>

namespace pacer_demo {

ImGuiLayer::ImGuiLayer(Window& window) : window_(window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;   // no imgui.ini in the working directory
    ImGui::StyleColorsDark();
    window_.imgui_init();
    ImGui_ImplOpenGL3_Init("#version 330 core");
}

ImGuiLayer::~ImGuiLayer() {
    ImGui_ImplOpenGL3_Shutdown();
    window_.imgui_shutdown();
    ImGui::DestroyContext();
}

void ImGuiLayer::begin_frame() {
    ImGui_ImplOpenGL3_NewFrame();
    window_.imgui_new_frame();
    ImGui::NewFrame();
}

void ImGuiLayer::end_frame() {
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

float Overlay::panel_width_px(float window_width_px) {
    return std::clamp(std::round(window_width_px * 0.35f), 280.0f, 440.0f);
}

void Overlay::draw(Controls& controls, const View& view) {
    ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(view.stage.x, io.DisplaySize.y), ImGuiCond_Always);   // stage_for's panel
    ImGui::SetNextWindowBgAlpha(1.0f);   // opaque: cheaper for a software rasteriser
    ImGui::Begin("pacer", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    ImGui::PushTextWrapPos(0);   // every line wraps: the panel is 280 px wide in a small window
    frames_.draw_status(controls, view, last_error_);
    if (ImGui::CollapsingHeader("Frame times", ImGuiTreeNodeFlags_DefaultOpen)) frames_.draw_graph(view);
    if (ImGui::CollapsingHeader("Histogram of intervals", ImGuiTreeNodeFlags_DefaultOpen)) frames_.draw_histogram(view);
    bool reset = false;
    if (ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen)) reset = frames_.draw_stats(view);
    if (ImGui::CollapsingHeader("Pacing", ImGuiTreeNodeFlags_DefaultOpen))
        settings_.draw_pacing(controls, *view.pacer, *view.window);
    if (ImGui::CollapsingHeader("Scheduler", ImGuiTreeNodeFlags_DefaultOpen)) settings_.draw_scheduler(controls);
    if (ImGui::CollapsingHeader("Synthetic load", ImGuiTreeNodeFlags_DefaultOpen)) settings_.draw_load(controls);
    ImGui::PopTextWrapPos();
    ImGui::End();
    frames_.draw_scene_labels(view);
    // The frame's one change, after the whole panel has read the settings.
    if (reset) view.pacer->reset_stats();
    if (const Settings change = settings_.take_change(); !change.empty()) last_error_ = (*view.change)(change, "ui");
}

}  // namespace pacer_demo

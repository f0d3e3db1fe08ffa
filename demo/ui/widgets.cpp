// widgets.cpp: the settings panel's controls (widgets.h).
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>

#include "run/settings.h"

namespace pacer_demo {

bool slider_released(const char* label, double* value, double min, double max, const char* format,
                     ImGuiSliderFlags flags) {
    ImGui::SliderScalar(label, ImGuiDataType_Double, value, &min, &max, format, flags);
    return ImGui::IsItemDeactivatedAfterEdit();
}

void setting_tip(const char* key) {
    const SettingInfo* info = find_setting(key);
    if (info == nullptr || !ImGui::IsItemHovered()) return;
    ImGui::SetTooltip("%s\n%s, %s=", info->help, flag_of(*info).c_str(), info->key);
}

bool optional_duration(const char* label, int64_t current_ns, int64_t on_ns, double unit_ns, double min, double max,
                       const char* tooltip, int64_t* changed_ns) {
    ImGui::PushID(label);
    const bool was_on = current_ns > 0;
    bool on = was_on;
    bool changed = false;
    const float width = ImGui::CalcItemWidth();
    if (ImGui::Checkbox("##on", &on)) {
        *changed_ns = on ? on_ns : -1;
        changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
    const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SameLine(0, spacing);
    ImGui::SetNextItemWidth(std::max(width - ImGui::GetFrameHeight() - spacing, 40.0f));
    ImGui::BeginDisabled(!was_on);
    double value = static_cast<double>(was_on ? current_ns : on_ns) / unit_ns;
    if (slider_released(label, &value, min, max, was_on ? "%.0f" : "the thread's own", ImGuiSliderFlags_Logarithmic) &&
        was_on && !changed) {
        *changed_ns = std::max<int64_t>(std::llround(value * unit_ns), 1);
        changed = true;
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tooltip);
    ImGui::PopID();
    return changed;
}

}  // namespace pacer_demo

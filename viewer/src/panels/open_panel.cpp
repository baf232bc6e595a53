#include "panels/open_panel.h"

#include <imgui_stdlib.h>

namespace reel::viewer {

void OpenPanel::draw(ViewerState& state, const PanelLayout& bar, const PanelLayout& center) {
  if (shownPath_ != state.path) {
    pathInput_ = state.path;
    shownPath_ = state.path;
  }
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoScrollbar |
                                 ImGuiWindowFlags_NoSavedSettings;
  if (beginPanel("Trace", bar, state, flags)) {
    ImGui::TextUnformatted("trace");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(200.0f, ImGui::GetContentRegionAvail().x - 420.0f));
    bool open = ImGui::InputTextWithHint("##path", "path to a .reel trace", &pathInput_,
                                         ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    open |= ImGui::Button("Open");
    if (open && !pathInput_.empty()) state.openTrace(pathInput_);
    ImGui::SameLine();
    if (state.doc) {
      ImGui::TextDisabled("%s frames, %zu chunks%s", formatCount(state.doc->frameCount()).c_str(),
                          state.doc->reader().chunks().size(),
                          state.doc->warnings().empty() ? "" : ", with warnings");
    } else if (!state.openError.empty()) {
      ImGui::TextColored(ImVec4(1.0f, 0.42f, 0.38f, 1.0f), "cannot open the trace");
    } else {
      ImGui::TextDisabled("no trace open");
    }
  }
  ImGui::End();

  if (!state.doc && !state.openError.empty()) {
    if (beginPanel("Cannot open the trace", center, state, ImGuiWindowFlags_NoCollapse)) {
      ImGui::TextUnformatted(state.path.c_str());
      ImGui::Separator();
      errorText(state.openError);
    }
    ImGui::End();
  }
}

}  // namespace reel::viewer

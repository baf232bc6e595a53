#include "panels/frames_panel.h"

#include <cinttypes>

namespace reel::viewer {

void FramesPanel::draw(ViewerState& state, const PanelLayout& layout) {
  if (!beginPanel("Frames", layout, state) || !state.doc) {
    if (!state.doc) ImGui::TextDisabled("no trace open");
    ImGui::End();
    return;
  }
  const trace::TraceHeader& header = state.doc->header();
  ImGui::Text("%s", header.appName.empty() ? "(app unnamed)" : header.appName.c_str());
  if (ImGui::IsItemHovered() && !header.appArgs.empty()) {
    std::string args;
    for (const std::string& a : header.appArgs) args += a + " ";
    ImGui::SetTooltip("%s", args.c_str());
  }
  ImGui::TextDisabled("captured on %s (%s)", header.device.name.c_str(), header.device.type.c_str());
  ImGui::TextDisabled("format %u.%u, reel %s, %s frames from %" PRIu64, header.formatMajor,
                      header.formatMinor, header.reelVersion.c_str(),
                      formatCount(state.doc->frameCount()).c_str(), header.firstFrame);
  for (const std::string& w : state.doc->warnings()) errorText(w);
  if (state.scanner && !state.scanner->done()) {
    ImGui::TextDisabled("scanning frames: %zu of %zu", state.scanner->scanned(), state.scanner->frameCount());
  } else if (state.scanner && !state.scanner->error().empty()) {
    errorText(state.scanner->error());
  }
  if (!state.frameError.empty()) errorText(state.frameError);
  ImGui::SetNextItemWidth(90);
  if (ImGui::InputInt("go to frame", &goTo_, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue)) {
    const auto index = goTo_ >= 0 ? state.doc->findFrame(static_cast<uint64_t>(goTo_)) : std::nullopt;
    goToError_ = index ? "" : "no frame " + std::to_string(goTo_) + " in the trace";
    if (index) state.selectFrame(*index);
  }
  if (!goToError_.empty()) errorText(goToError_);

  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersV |
                                ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("frames", 5, flags)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("frame");
    ImGui::TableSetupColumn("packets");
    ImGui::TableSetupColumn("bytes");
    ImGui::TableSetupColumn("message");
    ImGui::TableSetupColumn("chunk");
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(state.summaries.size()));
    const size_t current = state.frame() ? state.frame()->index : SIZE_MAX;
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const FrameSummary& s = state.summaries[static_cast<size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const std::string label = std::to_string(s.number) + "##f" + std::to_string(i);
        if (ImGui::Selectable(label.c_str(), static_cast<size_t>(i) == current,
                              ImGuiSelectableFlags_SpanAllColumns)) {
          state.selectFrame(static_cast<size_t>(i));
        }
        ImGui::TableNextColumn();
        if (!s.error.empty()) {
          ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "unreadable");
          if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.error.c_str());
        } else if (s.scanned) {
          ImGui::TextUnformatted(formatCount(s.packets).c_str());
          if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s keys, %s buckets, %s resource requests", formatCount(s.keys).c_str(),
                              formatCount(s.buckets).c_str(), formatCount(s.requests).c_str());
          }
        } else {
          ImGui::TextDisabled("...");
        }
        ImGui::TableNextColumn();
        if (s.scanned && s.error.empty()) {
          ImGui::TextUnformatted(formatBytes(s.payloadBytes + s.auxBytes).c_str());
          if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("payloads %s, aux data %s", formatBytes(s.payloadBytes).c_str(),
                              formatBytes(s.auxBytes).c_str());
          }
        }
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", formatBytes(s.messageBytes).c_str());
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%u", s.chunk);
      }
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace reel::viewer

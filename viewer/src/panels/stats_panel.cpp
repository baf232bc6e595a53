#include "panels/stats_panel.h"

#include <algorithm>
#include <cinttypes>

namespace reel::viewer {

void StatsPanel::draw(ViewerState& state, const PanelLayout& layout) {
  if (!beginPanel("Stats", layout, state) || !state.frame()) {
    if (!state.frame()) ImGui::TextDisabled("no frame loaded");
    ImGui::End();
    return;
  }
  drawFrameChart(state);
  const FrameStats& s = state.stats();
  ImGui::Text("frame %" PRIu64 ": %s packets, %s keys, %s payload + %s aux", state.frameNumber(),
              formatCount(s.packets).c_str(), formatCount(s.keys).c_str(),
              formatBytes(s.payloadBytes).c_str(), formatBytes(s.auxBytes).c_str());
  if (s.sharedLinks)
    ImGui::TextDisabled("%s links reference shared packets", formatCount(s.sharedLinks).c_str());
  if (s.materialKeys) {
    ImGui::Text("material changes: %s sorted, %s in submission order (%s keys with a material)",
                formatCount(s.materialChangesSorted).c_str(),
                formatCount(s.materialChangesSubmission).c_str(), formatCount(s.materialKeys).c_str());
  }
  report_ = Report{};
  if (ImGui::BeginTabBar("stats")) {
    if (ImGui::BeginTabItem("per type", nullptr, tabFlags(state, "per type"))) {
      report_.tab = "per type";
      const ImGuiTableFlags flags =
          ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
      if (ImGui::BeginTable("types", 4, flags)) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("type");
        ImGui::TableSetupColumn("count");
        ImGui::TableSetupColumn("payload");
        ImGui::TableSetupColumn("aux");
        ImGui::TableHeadersRow();
        for (const TypeStats& t : s.types) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(t.name.c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(formatCount(t.count).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(formatBytes(t.payloadBytes).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(formatBytes(t.auxBytes).c_str());
        }
        ImGui::EndTable();
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("state changes", nullptr, tabFlags(state, "state changes"))) {
      report_.tab = "state changes";
      ImGui::TextDisabled("a change: payload differs from the last of its type and slot this frame");
      const ImGuiTableFlags flags =
          ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
      if (ImGui::BeginTable("states", 4, flags)) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("command");
        ImGui::TableSetupColumn("packets");
        ImGui::TableSetupColumn("changes sorted");
        ImGui::TableSetupColumn("unsorted");
        ImGui::TableHeadersRow();
        for (const StateStats& st : s.states) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(st.name.c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(formatCount(st.packets).c_str());
          ImGui::TableNextColumn();
          ImGui::Text("%s (%s redundant)", formatCount(st.changesSorted).c_str(),
                      formatCount(st.packets - st.changesSorted).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(formatCount(st.changesSubmission).c_str());
        }
        ImGui::EndTable();
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("passes", nullptr, tabFlags(state, "passes"))) {
      report_.tab = "passes";
      drawPasses(state);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
    tabApplied_ = true;
  }
  ImGui::End();
}

int StatsPanel::tabFlags(const ViewerState& state, const char* name) const {
  return !tabApplied_ && state.options().statsTab == name ? ImGuiTabItemFlags_SetSelected : 0;
}

// The passes on their queue, in the order they run, with an arrow from each pass to every later one that
// depends on it (the render graph: reads after writes, writes after reads or writes). One queue today.
void StatsPanel::drawSyncDiagram(const std::vector<PassRow>& passes) {
  const float lane = 26.0f, gap = 6.0f, arcs = 34.0f;
  const float width = ImGui::GetContentRegionAvail().x;
  const float label = ImGui::CalcTextSize("graphics").x + 8.0f;
  const float box = std::max(16.0f, (width - label) / static_cast<float>(passes.size()) - gap);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, lane + arcs));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddText(ImVec2(origin.x, origin.y + 5.0f), IM_COL32(170, 170, 170, 255), "graphics");
  const float left = origin.x + label;
  auto centre = [&](size_t p) { return left + static_cast<float>(p) * (box + gap) + box * 0.5f; };
  long long arrows = 0;
  for (size_t p = 0; p < passes.size(); ++p) {
    const float x0 = left + static_cast<float>(p) * (box + gap);
    const ImU32 fill =
        passes[p].desc.target.isNull() ? IM_COL32(70, 110, 70, 255) : IM_COL32(60, 90, 140, 255);
    draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x0 + box, origin.y + lane), fill, 3.0f);
    const std::string label = std::to_string(p);
    draw->AddText(ImVec2(x0 + 4.0f, origin.y + 5.0f), IM_COL32(235, 235, 235, 255), label.c_str());
    if (ImGui::IsMouseHoveringRect(ImVec2(x0, origin.y), ImVec2(x0 + box, origin.y + lane)))
      ImGui::SetTooltip("%zu: %s", p, passes[p].name.c_str());
    for (const uint32_t before : passes[p].graph.dependsOn) {
      const float a = centre(before), b = centre(p), y = origin.y + lane;
      const float depth = std::min(arcs - 4.0f, 8.0f + 3.0f * static_cast<float>(p - before));
      draw->AddBezierCubic(ImVec2(a, y), ImVec2(a, y + depth), ImVec2(b, y + depth), ImVec2(b, y),
                           IM_COL32(230, 170, 60, 200), 1.5f);
      draw->AddTriangleFilled(ImVec2(b, y), ImVec2(b - 4.0f, y + 6.0f), ImVec2(b + 4.0f, y + 6.0f),
                              IM_COL32(230, 170, 60, 230));
      ++arrows;
    }
  }
  report_.dependencies = arrows;
}

void StatsPanel::drawPasses(ViewerState& state) {
  const std::vector<PassRow>* passes = state.passes();
  if (!passes) {
    ImGui::TextDisabled("reading the frames up to this one (the passes' targets)");
    return;
  }
  if (passes->empty()) {
    ImGui::TextDisabled("the frame declares no pass (its passes, if any, are packets)");
    return;
  }
  size_t edges = 0;
  for (const PassRow& p : *passes) edges += p.graph.dependsOn.size();
  ImGui::TextDisabled("%zu passes in the order they run, on one queue (graphics); %zu dependencies",
                      passes->size(), edges);
  report_.passes = static_cast<long long>(passes->size());
  drawSyncDiagram(*passes);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("passes", 8, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("#");
  ImGui::TableSetupColumn("pass");
  ImGui::TableSetupColumn("target");
  ImGui::TableSetupColumn("prefers");
  ImGui::TableSetupColumn("packets");
  ImGui::TableSetupColumn("reads");
  ImGui::TableSetupColumn("writes");
  ImGui::TableSetupColumn("after");
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < passes->size(); ++i) {
    const PassRow& p = (*passes)[i];
    ImGui::PushID(static_cast<int>(i));
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%zu", i);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.name.c_str());
    ImGui::TableNextColumn();
    if (p.desc.target.isNull()) {
      ImGui::TextDisabled("none");
    } else {
      resourceLink(state, ResourceKind::RenderTarget, p.desc.target.value);
    }
    ImGui::TableNextColumn();
    const auto queues = enumNames(QueueClass{});
    const auto queue = static_cast<size_t>(p.desc.queue);
    ImGui::TextUnformatted(queue < queues.size() ? queues[queue] : "?");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatCount(p.graph.packets).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%zu", p.graph.reads.size());
    ImGui::TableNextColumn();
    ImGui::Text("%zu", p.graph.writes.size());
    ImGui::TableNextColumn();
    std::string after;
    for (const uint32_t d : p.graph.dependsOn) after += (after.empty() ? "" : ", ") + std::to_string(d);
    ImGui::TextUnformatted(after.empty() ? "-" : after.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
}

void StatsPanel::drawFrameChart(ViewerState& state) {
  const auto& frames = state.summaries;
  if (frames.empty()) return;
  uint64_t most = 1;
  for (const FrameSummary& f : frames) most = std::max(most, f.packets);
  const float height = 56.0f;
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("frame chart", ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(30, 30, 34, 255));
  // One bar per frame while they fit; beyond that a bar covers several frames and shows their largest.
  const size_t bars = std::min(frames.size(), static_cast<size_t>(std::max(1.0f, width / 2.0f)));
  const float barWidth = width / static_cast<float>(bars);
  const size_t current = state.frame() ? state.frame()->index : SIZE_MAX;
  std::optional<size_t> hoveredBar;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t b = 0; b < bars; ++b) {
    const size_t first = b * frames.size() / bars, last = std::max(first + 1, (b + 1) * frames.size() / bars);
    uint64_t value = 0;
    bool scanned = false, holdsCurrent = false;
    for (size_t i = first; i < last; ++i) {
      value = std::max(value, frames[i].packets);
      scanned |= frames[i].scanned;
      holdsCurrent |= i == current;
    }
    const float x0 = origin.x + static_cast<float>(b) * barWidth, x1 = x0 + std::max(1.0f, barWidth - 1.0f);
    const float h = scanned ? height * static_cast<float>(value) / static_cast<float>(most) : 0.0f;
    const ImU32 colour = holdsCurrent ? IM_COL32(255, 190, 60, 255) : IM_COL32(90, 140, 220, 255);
    draw->AddRectFilled(ImVec2(x0, origin.y + height - std::max(h, 1.0f)), ImVec2(x1, origin.y + height),
                        colour);
    if (hovered && mouse.x >= x0 && mouse.x < x0 + barWidth) hoveredBar = first;
  }
  if (hoveredBar) {
    const FrameSummary& f = frames[*hoveredBar];
    ImGui::SetTooltip("frame %" PRIu64 ": %s packets, %s", f.number,
                      f.scanned ? formatCount(f.packets).c_str() : "?",
                      f.scanned ? formatBytes(f.payloadBytes + f.auxBytes).c_str() : "not scanned yet");
    if (clicked) state.selectFrame(*hoveredBar);
  }
}

}  // namespace reel::viewer

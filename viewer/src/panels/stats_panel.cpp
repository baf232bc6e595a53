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

namespace {
// The pass columns the sync diagram and the aliasing map share, so that a pass sits at the same x in
// both: a label column wide enough for any queue's name, then one column per pass.
struct PassColumns {
  float left = 0, column = 0;
  static constexpr float kGap = 6.0f;
  PassColumns(float originX, float width, size_t passes) {
    const float label = ImGui::CalcTextSize("async_compute").x + 8.0f;
    left = originX + label;
    column = std::max(16.0f, (width - label) / static_cast<float>(passes) - kGap);
  }
  float begin(size_t pass) const { return left + static_cast<float>(pass) * (column + kGap); }
  float end(size_t pass) const { return begin(pass) + column; }
  float centre(size_t pass) const { return begin(pass) + column * 0.5f; }
};
}  // namespace

// The passes on the queues they run on (passQueue: on a device with a compute and a transfer queue; one
// lane per queue the frame uses), in the order they run, with an arrow from each pass to every later one
// that depends on it (the render graph: reads after writes, writes after reads or writes): below the
// lane, a barrier on one queue; across lanes, a semaphore wait between queues.
void StatsPanel::drawSyncDiagram(const std::vector<PassRow>& passes) {
  const auto queueNames = enumNames(QueueClass{});
  std::vector<QueueClass> queueOf(passes.size());
  bool used[3] = {true, false, false};  // graphics always: the frame ends there
  for (size_t p = 0; p < passes.size(); ++p) {
    queueOf[p] = passQueue(passes[p].desc, passes[p].graph);
    used[static_cast<size_t>(queueOf[p])] = true;
  }
  int laneOf[3] = {};
  int lanes = 0;
  for (size_t q = 0; q < 3; ++q) laneOf[q] = used[q] ? lanes++ : -1;

  const float laneHeight = 26.0f, laneGap = 10.0f, arcs = 34.0f;
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const PassColumns columns(origin.x, width, passes.size());
  ImGui::Dummy(ImVec2(width, static_cast<float>(lanes) * (laneHeight + laneGap) + arcs));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  auto laneTop = [&](size_t p) {
    return origin.y + static_cast<float>(laneOf[static_cast<size_t>(queueOf[p])]) * (laneHeight + laneGap);
  };
  for (size_t q = 0; q < 3; ++q) {
    if (laneOf[q] < 0) continue;
    const float y = origin.y + static_cast<float>(laneOf[q]) * (laneHeight + laneGap);
    draw->AddText(ImVec2(origin.x, y + 5.0f), IM_COL32(170, 170, 170, 255), queueNames[q]);
  }
  long long arrows = 0, semaphores = 0;
  for (size_t p = 0; p < passes.size(); ++p) {
    const float x0 = columns.begin(p), x1 = columns.end(p), top = laneTop(p);
    const ImU32 fill =
        passes[p].desc.target.isNull() ? IM_COL32(70, 110, 70, 255) : IM_COL32(60, 90, 140, 255);
    draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, top + laneHeight), fill, 3.0f);
    const std::string number = std::to_string(p);
    draw->AddText(ImVec2(x0 + 4.0f, top + 5.0f), IM_COL32(235, 235, 235, 255), number.c_str());
    if (ImGui::IsMouseHoveringRect(ImVec2(x0, top), ImVec2(x1, top + laneHeight)))
      ImGui::SetTooltip("%zu: %s", p, passes[p].name.c_str());
    for (const uint32_t before : passes[p].graph.dependsOn) {
      const float a = columns.centre(before), b = columns.centre(p);
      if (queueOf[before] == queueOf[p]) {
        const float y = top + laneHeight;
        const float depth = std::min(arcs - 4.0f, 8.0f + 3.0f * static_cast<float>(p - before));
        draw->AddBezierCubic(ImVec2(a, y), ImVec2(a, y + depth), ImVec2(b, y + depth), ImVec2(b, y),
                             IM_COL32(230, 170, 60, 200), 1.5f);
        draw->AddTriangleFilled(ImVec2(b, y), ImVec2(b - 4.0f, y + 6.0f), ImVec2(b + 4.0f, y + 6.0f),
                                IM_COL32(230, 170, 60, 230));
      } else {
        // From the producer's lane to the consumer's: the consumer's submission waits on the producer's
        // queue's timeline.
        const float from = laneTop(before), to = top;
        const bool down = to > from;
        const float y0 = down ? from + laneHeight : from, y1 = down ? to : to + laneHeight;
        draw->AddLine(ImVec2(a, y0), ImVec2(b, y1), IM_COL32(200, 110, 220, 230), 2.0f);
        const float tip = down ? -6.0f : 6.0f;
        draw->AddTriangleFilled(ImVec2(b, y1), ImVec2(b - 4.0f, y1 + tip), ImVec2(b + 4.0f, y1 + tip),
                                IM_COL32(200, 110, 220, 240));
        ++semaphores;
      }
      ++arrows;
    }
  }
  report_.dependencies = arrows;
  report_.queues = lanes;
  report_.semaphores = semaphores;
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
  ImGui::TextDisabled(
      "%zu passes in the order they run, on the queues a device with compute and transfer queues runs them "
      "on (one queue where it has none); %zu dependencies",
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
  drawTransients(state);
}

// The aliasing map: each transient texture's passes as a bar over the pass columns, in the row of the
// memory it shares (one row per group; a texture that keeps its memory has a row of its own).
void StatsPanel::drawTransients(ViewerState& state) {
  const TransientMap* map = state.transients();
  const std::vector<PassRow>* passes = state.passes();
  if (!map || !passes || map->textures.empty()) {
    report_.transients = map ? 0 : -1;
    return;
  }
  report_.transients = static_cast<long long>(map->textures.size());
  report_.aliasedBytesSaved = static_cast<long long>(map->saved);
  report_.storesDiscarded = std::count_if(map->textures.begin(), map->textures.end(),
                                          [](const TransientRow& t) { return t.discarded; });
  ImGui::Separator();
  ImGui::TextDisabled(
      "%zu transient textures, %s; sharing memory where their passes do not overlap saves %s "
      "(one queue; sizes estimated from their descriptions)",
      map->textures.size(), formatBytes(map->bytes).c_str(), formatBytes(map->saved).c_str());
  std::vector<std::vector<size_t>> rows;
  for (const AliasGroup& g : map->groups) rows.push_back(g.items);
  for (size_t t = 0; t < map->textures.size(); ++t) {
    if (map->textures[t].group < 0) rows.push_back({t});
  }
  const float rowHeight = 20.0f;
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const PassColumns columns(origin.x, width, passes->size());
  ImGui::Dummy(ImVec2(width, static_cast<float>(rows.size()) * (rowHeight + 4.0f)));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (size_t r = 0; r < rows.size(); ++r) {
    const float top = origin.y + static_cast<float>(r) * (rowHeight + 4.0f);
    const bool shared = rows[r].size() > 1;
    const std::string label = shared ? "memory " + std::to_string(r) : "own";
    draw->AddText(ImVec2(origin.x, top + 3.0f), IM_COL32(170, 170, 170, 255), label.c_str());
    for (const size_t t : rows[r]) {
      const TransientRow& row = map->textures[t];
      // The columns are the diagram's: a texture the keys after the passes touch runs to the last one.
      const size_t lastColumn = passes->size() - 1;
      const float x0 = columns.begin(std::min<size_t>(row.life.first, lastColumn));
      const float x1 = columns.end(std::min<size_t>(row.life.last, lastColumn));
      const ImU32 fill = shared ? IM_COL32(150, 100, 60, 255) : IM_COL32(90, 90, 90, 255);
      draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, top + rowHeight), fill, 3.0f);
      const std::string name = formatHandle(TextureHandle{row.life.texture});
      draw->AddText(ImVec2(x0 + 4.0f, top + 3.0f), IM_COL32(235, 235, 235, 255), name.c_str());
      // Stored DONT_CARE at its last pass: the bar's end is cut off with a light edge.
      if (row.discarded)
        draw->AddRectFilled(ImVec2(x1 - 4.0f, top), ImVec2(x1, top + rowHeight),
                            IM_COL32(230, 200, 120, 255));
      if (ImGui::IsMouseHoveringRect(ImVec2(x0, top), ImVec2(x1, top + rowHeight))) {
        ImGui::SetTooltip(
            "%s: passes %u-%u, %s%s%s", name.c_str(), row.life.first, row.life.last,
            formatBytes(row.bytes).c_str(),
            row.life.discardable ? "" : " (its first pass reads it: keeps its memory)",
            row.discarded ? "; stored DONT_CARE at its last pass (nothing reads it after)" : "");
      }
    }
  }
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

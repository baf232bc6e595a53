#include "panels/commands_panel.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "model/packet_fields.h"
#include "reel/trace/declared_passes.h"

namespace reel::viewer {
namespace {

std::string summaryOf(const trace::TraceHeader& header, const trace::PacketRecord& p) {
  std::string text = header.formatPacket(p.type, p.payload);
  // formatPacket starts with the command's name, which has a column of its own.
  const size_t space = text.find(' ');
  text = space == std::string::npos ? std::string() : text.substr(space + 1);
  if (!p.aux.empty()) text += " +" + formatBytes(p.aux.size()) + " aux";
  if (p.shared) text += " (shared)";
  return text;
}

}  // namespace

void CommandsPanel::draw(ViewerState& state, const PanelLayout& layout) {
  const LoadedFrame* frame = state.frame();
  std::string title =
      frame ? "Commands: frame " + std::to_string(frame->record.number) : std::string("Commands");
  title += "###Commands";
  if (beginPanel(title.c_str(), layout, state) && frame) {
    drawToolbar(state);
    handleKeys(state);
    drawTable(state);
  } else if (!frame) {
    ImGui::TextDisabled("%s", state.doc ? "no frame loaded" : "no trace open");
  }
  ImGui::End();
}

void CommandsPanel::drawToolbar(ViewerState& state) {
  const LoadedFrame* frame = state.frame();
  const trace::TraceHeader& header = state.doc->header();
  bool sorted = state.sorted;
  if (ImGui::Checkbox("sorted order", &sorted)) state.setSorted(sorted);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the order the render thread dispatched (S)");
  ImGui::SameLine();

  // Type filter: a popup of checkboxes over the types this frame uses.
  RowFilter filter = state.filter;
  bool changed = false;
  size_t shownTypes = 0;
  for (uint8_t t : filter.types) shownTypes += t;
  const std::string typeLabel = filter.types.empty() ? "types: all" : "types: " + std::to_string(shownTypes);
  if (ImGui::Button(typeLabel.c_str())) {
    ImGui::OpenPopup("type filter");
    if (countsFor_ != state.frameGeneration) {
      // Counts per type for the list: once per frame, when first asked for (a pass over every row).
      typeCounts_.assign(header.commands.size(), 0);
      for (const Row& row : frame->table.rows()) {
        const uint16_t type = packetOf(frame->record, row).type;
        if (type < typeCounts_.size()) ++typeCounts_[type];
      }
      countsFor_ = state.frameGeneration;
    }
  }
  if (ImGui::BeginPopup("type filter")) {
    if (ImGui::SmallButton("all")) filter.types.clear(), changed = true;
    ImGui::SameLine();
    if (ImGui::SmallButton("none")) filter.types.assign(header.commands.size(), 0), changed = true;
    for (size_t id = 0; id < typeCounts_.size(); ++id) {
      if (!typeCounts_[id]) continue;
      bool on = filter.types.empty() || (id < filter.types.size() && filter.types[id]);
      const std::string label =
          std::string(header.commands[id].name) + " (" + formatCount(typeCounts_[id]) + ")";
      if (ImGui::Checkbox(label.c_str(), &on)) {
        if (filter.types.empty()) filter.types.assign(header.commands.size(), 1);
        filter.types[id] = on;
        changed = true;
      }
    }
    ImGui::EndPopup();
  }
  ImGui::SameLine();
  const std::string bucketLabel = filter.buckets.empty() ? "buckets: all" : "buckets: some";
  if (ImGui::Button(bucketLabel.c_str())) ImGui::OpenPopup("bucket filter");
  if (ImGui::BeginPopup("bucket filter")) {
    if (ImGui::SmallButton("all")) filter.buckets.clear(), changed = true;
    for (size_t b = 0; b < frame->record.buckets.size(); ++b) {
      const trace::BucketRecord& bucket = frame->record.buckets[b];
      bool on = filter.buckets.empty() || (b < filter.buckets.size() && filter.buckets[b]);
      const std::string label = std::string(bucket.name) + " (" + std::string(bucket.keyType) + ", " +
                                formatCount(bucket.linkCount()) + ")##" + std::to_string(b);
      if (ImGui::Checkbox(label.c_str(), &on)) {
        if (filter.buckets.empty()) filter.buckets.assign(frame->record.buckets.size(), 1);
        filter.buckets[b] = on;
        changed = true;
      }
    }
    ImGui::EndPopup();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(140);
  if (ImGui::InputTextWithHint("##tag", "tag text", &tagText_)) {
    filter.tagText = tagText_;
    changed = true;
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(220);
  if (ImGui::InputTextWithHint("##key", "key: material=3 layer<2", &keyText_)) {
    auto conditions = parseKeyConditions(keyText_);
    if (conditions) {
      filter.key = std::move(conditions.value());
      state.filterError.clear();
      changed = true;
    } else {
      state.filterError = conditions.error().message;
    }
  }
  if (changed) state.setFilter(std::move(filter));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  // Go to a position of the order shown (a million rows are a long scroll).
  if (ImGui::InputInt("##goto", &goTo_, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue) && frame->table.size()) {
    goTo_ = std::clamp(goTo_, 0, static_cast<int>(frame->table.size()) - 1);
    state.selectRow(frame->table.rowAt(state.sorted, static_cast<uint32_t>(goTo_)), true);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("go to position (Enter)");
  const auto& rows = state.visibleRows();
  ImGui::SameLine();
  if (state.filter.active()) {
    ImGui::Text("%s of %s", formatCount(rows.size()).c_str(), formatCount(frame->table.size()).c_str());
  } else {
    ImGui::Text("%s packets, %s keys", formatCount(frame->table.size()).c_str(),
                formatCount(frame->table.keyCount()).c_str());
  }
  if (!state.filterError.empty()) errorText("key filter: " + state.filterError);
  if (frame->table.sortedOrderHash() != frame->record.sortedOrderHash) {
    errorText("the sorted order rebuilt here differs from the one the render thread recorded (hash " +
              std::to_string(frame->table.sortedOrderHash()) + " vs " +
              std::to_string(frame->record.sortedOrderHash) + ")");
  }
}

void CommandsPanel::handleKeys(ViewerState& state) {
  if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) || ImGui::GetIO().WantTextInput) return;
  const int page = 20;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) state.stepSelection(1);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) state.stepSelection(-1);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown))) state.stepSelection(page);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp))) state.stepSelection(-page);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) state.stepSelection(INT32_MIN);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End))) state.stepSelection(INT32_MAX);
  if (ImGui::IsKeyPressed(GLFW_KEY_S, false)) state.setSorted(!state.sorted);
}

void CommandsPanel::drawTable(ViewerState& state) {
  const LoadedFrame* frame = state.frame();
  const trace::TraceHeader& header = state.doc->header();
  const auto& rows = state.visibleRows();
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersV | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("commands", 8, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn(state.sorted ? "sorted" : "submit", ImGuiTableColumnFlags_WidthFixed, 62);
  ImGui::TableSetupColumn(state.sorted ? "submit" : "sorted", ImGuiTableColumnFlags_WidthFixed, 62);
  ImGui::TableSetupColumn("bucket", ImGuiTableColumnFlags_WidthFixed, 70);
  ImGui::TableSetupColumn("type", ImGuiTableColumnFlags_WidthFixed, 150);
  ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed, 130);
  ImGui::TableSetupColumn("key fields", ImGuiTableColumnFlags_WidthFixed, 330);
  ImGui::TableSetupColumn("tag", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("summary", ImGuiTableColumnFlags_WidthFixed, 520);
  ImGui::TableHeadersRow();

  std::optional<size_t> focus;
  if (state.scrollToSelection) focus = state.selectedVisiblePosition();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()));
  if (focus) clipper.ForceDisplayRangeByIndices(static_cast<int>(*focus), static_cast<int>(*focus) + 1);
  if (scrollTo_) {
    clipper.ForceDisplayRangeByIndices(static_cast<int>(*scrollTo_), static_cast<int>(*scrollTo_) + 1);
  }
  char buf[64];
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint32_t id = rows[static_cast<size_t>(i)];
      const Row& row = frame->table.row(id);
      const trace::BucketRecord& bucket = frame->record.buckets[row.bucket];
      const trace::PacketRecord packet = bucket.packet(row.key, row.link);
      const uint64_t key = bucket.key(row.key);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const bool isSelected = state.selected && *state.selected == id;
      std::snprintf(buf, sizeof buf, "%u##r%u", frame->table.positionOf(state.sorted, id), id);
      if (ImGui::Selectable(buf, isSelected,
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
        state.selectRow(id, false);
      }
      if (focus && static_cast<size_t>(i) == *focus) {
        ImGui::SetScrollHereY(0.5f);
        state.scrollToSelection = false;
      }
      if (scrollTo_ && static_cast<size_t>(i) == *scrollTo_) {
        ImGui::SetScrollHereY(0.0f);
        scrollTo_.reset();
      }
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%u", frame->table.positionOf(!state.sorted, id));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(bucket.name.data(), bucket.name.data() + bucket.name.size());
      ImGui::TableNextColumn();
      const trace::CommandDesc* desc = header.command(packet.type);
      const std::string type = desc ? std::string(desc->name) : "command " + std::to_string(packet.type);
      if (row.link == 0) {
        ImGui::TextUnformatted(type.c_str());
      } else {
        ImGui::Text("  + %s", type.c_str());
      }
      ImGui::TableNextColumn();
      std::snprintf(buf, sizeof buf, "%016" PRIx64, key);
      if (row.link == 0) {
        ImGui::TextUnformatted(buf);
      } else {
        ImGui::TextDisabled("%s", buf);  // a later link of the same key's chain
      }
      ImGui::TableNextColumn();
      const std::string fields = trace::formatRecordedKey(header, bucket, row.key);
      ImGui::TextUnformatted(fields.c_str());
      ImGui::TableNextColumn();
      if (packet.tag) {
        ImGui::TextUnformatted(packet.tag->message.data(),
                               packet.tag->message.data() + packet.tag->message.size());
        if (ImGui::IsItemHovered()) {
          ImGui::SetTooltip("%.*s:%u %.*s", static_cast<int>(packet.tag->file.size()),
                            packet.tag->file.data(), packet.tag->line,
                            static_cast<int>(packet.tag->function.size()), packet.tag->function.data());
        }
      }
      ImGui::TableNextColumn();
      const std::string summary = summaryOf(header, packet);
      ImGui::TextUnformatted(summary.c_str());
    }
  }
  if (state.scrollToSelection && !focus)
    state.scrollToSelection = false;  // filtered out: nothing to scroll to
  ImGui::EndTable();
}

}  // namespace reel::viewer

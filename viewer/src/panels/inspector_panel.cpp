#include "panels/inspector_panel.h"

#include <cinttypes>

#include "model/key_fields.h"
#include "model/packet_fields.h"

namespace reel::viewer {
namespace {

// One tab of drawBytes: `count` lines, each made by line(bytes, i), only the visible ones formatted.
template <typename Line>
void drawLinesTab(const char* id, float height, size_t count, std::span<const std::byte> bytes, Line line) {
  if (!ImGui::BeginTabItem(id)) return;
  ImGui::BeginChild(id, ImVec2(0, height), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(count));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      ImGui::TextUnformatted(line(bytes, static_cast<size_t>(i)).c_str());
    }
  }
  ImGui::EndChild();
  ImGui::EndTabItem();
}

void drawBytes(const char* id, std::span<const std::byte> bytes) {
  if (!ImGui::BeginTabBar(id)) return;
  const float height = ImGui::GetTextLineHeightWithSpacing() * 8;
  drawLinesTab("hex", height, hexLineCount(bytes.size()), bytes, hexLine);
  drawLinesTab("floats", height, floatLineCount(bytes.size()), bytes, floatLine);
  ImGui::EndTabBar();
}

}  // namespace

void InspectorPanel::draw(ViewerState& state, const PanelLayout& layout) {
  const bool open = beginPanel("Inspector", layout, state);
  const LoadedFrame* frame = state.frame();
  if (!open || !frame) {
    ImGui::End();
    return;
  }
  if (!state.selected || *state.selected >= frame->table.size()) {
    ImGui::TextDisabled("select a command");
    ImGui::End();
    return;
  }
  const trace::TraceHeader& header = state.doc->header();
  const uint32_t id = *state.selected;
  const Row& row = frame->table.row(id);
  const trace::BucketRecord& bucket = frame->record.buckets[row.bucket];
  const trace::PacketRecord packet = bucket.packet(row.key, row.link);
  const uint64_t key = bucket.key(row.key);
  const trace::CommandDesc* desc = header.command(packet.type);

  ImGui::Text("%s",
              desc ? std::string(desc->name).c_str() : ("command " + std::to_string(packet.type)).c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("sorted #%u  submission #%u  frame %" PRIu64, frame->table.sortedPosition(id), id,
                      frame->record.number);
  ImGui::Text(
      "bucket '%.*s' (%.*s), key %zu of %zu, chain link %u of %zu%s", static_cast<int>(bucket.name.size()),
      bucket.name.data(), static_cast<int>(bucket.keyType.size()), bucket.keyType.data(), size_t{row.key} + 1,
      bucket.keyCount(), row.link + 1, bucket.chainLength(row.key), packet.shared ? ", shared packet" : "");

  if (ImGui::CollapsingHeader("key", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Text("0x%016" PRIx64, key);
    if (const trace::KeyLayoutDesc* keyLayout = header.keyLayout(bucket.keyType)) {
      std::vector<KeyField> fields;
      decodeKey(key, keyLayout->fields, fields);
      if (ImGui::BeginTable("keyfields", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
        for (const KeyField& f : fields) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(f.name.data(), f.name.data() + f.name.size());
          ImGui::TableNextColumn();
          if (f.name == "translucency" && f.value < 4) {
            ImGui::Text("%s (%" PRIu64 ")", translucencyName(static_cast<Translucency>(f.value)), f.value);
          } else {
            ImGui::Text("%" PRIu64, f.value);
          }
        }
        ImGui::EndTable();
      }
    } else {
      ImGui::TextDisabled("the trace has no layout for key type %.*s",
                          static_cast<int>(bucket.keyType.size()), bucket.keyType.data());
    }
  }

  if (packet.tag && ImGui::CollapsingHeader("tag", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::TextWrapped("%.*s", static_cast<int>(packet.tag->message.size()), packet.tag->message.data());
    ImGui::TextDisabled("%.*s:%u  %.*s", static_cast<int>(packet.tag->file.size()), packet.tag->file.data(),
                        packet.tag->line, static_cast<int>(packet.tag->function.size()),
                        packet.tag->function.data());
  }

  if (ImGui::CollapsingHeader("fields", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (!desc) {
      ImGui::TextDisabled("command id %u is not in the trace's command table: raw bytes", packet.type);
      drawBytes("payload", packet.payload);
    } else if (desc->fields.empty()) {
      ImGui::TextDisabled("no fields");
    } else {
      fieldTable("fields", state, desc->fields, packet.payload);
    }
  }

  if (desc) {
    const auto refs = handleRefs(desc->fields, packet.payload);
    if (ImGui::CollapsingHeader("resources", ImGuiTreeNodeFlags_DefaultOpen)) {
      if (refs.empty()) ImGui::TextDisabled("names no resource");
      for (const HandleRef& ref : refs) {
        resourceLink(state, ref.kind, ref.handle);
        ImGui::SameLine();
        ImGui::TextDisabled("(%s)", ref.field.c_str());
      }
    }
  }

  std::string auxTitle = "aux data: " + formatBytes(packet.aux.size()) + "###aux";
  if (ImGui::CollapsingHeader(auxTitle.c_str(), packet.aux.empty() ? 0 : ImGuiTreeNodeFlags_DefaultOpen)) {
    if (packet.aux.empty()) {
      ImGui::TextDisabled("none");
    } else {
      drawBytes("auxbytes", packet.aux);
    }
  }
  ImGui::End();
}

}  // namespace reel::viewer

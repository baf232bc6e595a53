#include "panels/widgets.h"

#include <cstdio>
#include <cstring>

#include "model/packet_fields.h"

namespace reel::viewer {

bool beginPanel(const char* name, const PanelLayout& layout, ViewerState& state, ImGuiWindowFlags flags) {
  if (layout.apply) {
    ImGui::SetNextWindowPos(layout.pos, ImGuiCond_Always);
    ImGui::SetNextWindowSize(layout.size, ImGuiCond_Always);
  }
  const bool open = ImGui::Begin(name, nullptr, flags | ImGuiWindowFlags_NoCollapse);
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  // "Commands: frame 3###Commands" is recorded by its id, "Commands".
  const char* id = std::strstr(name, "###");
  state.panelRects.push_back({id ? id + 3 : name, pos.x, pos.y, size.x, size.y});
  return open;
}

void fieldTable(const char* id, ViewerState& state, std::span<const FieldInfo> fields,
                std::span<const std::byte> bytes) {
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
  for (const FieldRow& f : flattenFields(fields, bytes)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    // Indent(0) would indent by the default spacing: nested fields only.
    if (f.depth > 0) ImGui::Indent(static_cast<float>(f.depth) * 12.0f);
    ImGui::TextUnformatted(f.name.c_str());
    if (f.depth > 0) ImGui::Unindent(static_cast<float>(f.depth) * 12.0f);
    ImGui::TableNextColumn();
    if (f.handleKind != ResourceKind::Count) {
      resourceLink(state, f.handleKind, f.handle);
    } else if (!f.isStruct) {
      ImGui::TextUnformatted(f.value.c_str());
    }
  }
  ImGui::EndTable();
}

void resourceLink(ViewerState& state, ResourceKind kind, uint32_t handle) {
  const std::string label = handleName(kind, handle);
  if (handle == 0) {
    ImGui::TextDisabled("null");
    return;
  }
  ImGui::PushID(static_cast<int>(kind));
  ImGui::PushID(static_cast<int>(handle));
  if (ImGui::SmallButton(label.c_str())) state.showResource({kind, handle});
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("show %s in Resources", label.c_str());
  ImGui::PopID();
  ImGui::PopID();
}

std::string formatBytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < (1ull << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else if (bytes < (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return buf;
}

std::string formatCount(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void errorText(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.42f, 0.38f, 1.0f));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace reel::viewer

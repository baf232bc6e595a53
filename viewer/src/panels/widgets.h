#pragma once
// Small pieces the panels share: a panel window placed by the app's layout (and recorded for
// screenshots), a resource link that shows the resource in the Resources panel, and number formats.

#include <imgui.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "app/viewer_state.h"
#include "reel/runtime/fields.h"

namespace reel::viewer {

struct PanelLayout {
  ImVec2 pos;
  ImVec2 size;
  bool apply = false;  // place the window there this frame (first frame, or the main window resized)
};

// ImGui::Begin at the layout's place; records the window's rect in state.panelRects. Call ImGui::End
// whatever it returns.
bool beginPanel(const char* name, const PanelLayout& layout, ViewerState& state, ImGuiWindowFlags flags = 0);

// A small button named after the handle ("texture#3.1") that selects it in the Resources panel.
void resourceLink(ViewerState& state, ResourceKind kind, uint32_t handle);

// A two-column table of a packet's or descriptor's fields by name (nested structs indented), handles as
// resource links.
void fieldTable(const char* id, ViewerState& state, std::span<const FieldInfo> fields,
                std::span<const std::byte> bytes);

// "1.5 KiB", "12 B"
std::string formatBytes(uint64_t bytes);
// "1,000,000"
std::string formatCount(uint64_t n);

// Text in the theme's error colour, wrapped.
void errorText(const std::string& text);

}  // namespace reel::viewer

#pragma once
// Commands: the frame's packets as a table, in submission or sorted order, with each one's position in
// the other order, bucket, key (hex and decoded fields), type, tag and a one-line summary. Filters by
// type, bucket, tag text and key field values. Only the visible rows are formatted (ImGuiListClipper),
// so a frame of a million packets scrolls as smoothly as one of ten.
//
// Keys (when the panel has focus): Up/Down, PageUp/PageDown, Home/End move the selection; S toggles
// the order.

#include <optional>
#include <string>
#include <vector>

#include "panels/widgets.h"

namespace reel::viewer {

class CommandsPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);
  // Scrolls so that row `position` of the order shown is at the top (benchmarks drive scrolling so).
  void scrollToPosition(size_t position) { scrollTo_ = position; }

 private:
  void drawToolbar(ViewerState& state);
  void drawTable(ViewerState& state);
  void handleKeys(ViewerState& state);

  std::string tagText_;
  std::string keyText_;
  int goTo_ = 0;  // the position typed into "go to"
  std::optional<size_t> scrollTo_;
  std::vector<uint64_t> typeCounts_;  // per command id in the loaded frame, for the type filter
  uint64_t countsFor_ = UINT64_MAX;   // ViewerState::frameGeneration the counts are of
};

}  // namespace reel::viewer

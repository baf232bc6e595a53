#pragma once
// Stats: per-type counts and bytes of the frame, the state changes its sorted order implies (against
// its submission order), and a bar chart of packets per frame over the trace (click a bar to go there).

#include "panels/widgets.h"

namespace reel::viewer {

class StatsPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);

 private:
  void drawFrameChart(ViewerState& state);
};

}  // namespace reel::viewer

#pragma once
// Stats: per-type counts and bytes of the frame, the state changes its sorted order implies (against
// its submission order), the frame's declared passes with the passes each runs after (its render graph),
// and a bar chart of packets per frame over the trace (click a bar to go there).

#include "panels/widgets.h"

namespace reel::viewer {

class StatsPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);

 private:
  void drawFrameChart(ViewerState& state);
  void drawPasses(ViewerState& state);
};

}  // namespace reel::viewer

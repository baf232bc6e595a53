#pragma once
// Stats: per-type counts and bytes of the frame, the state changes its sorted order implies (against
// its submission order), the frame's declared passes with the passes each runs after (its render graph),
// and a bar chart of packets per frame over the trace (click a bar to go there).

#include <string>
#include <vector>

#include "panels/widgets.h"

namespace reel::viewer {

class StatsPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);

  // What the last draw showed, for screenshots' info.
  struct Report {
    std::string tab;              // the tab shown
    long long passes = -1;        // the passes tab: its rows (-1: not drawn or not known yet)
    long long dependencies = -1;  // and the dependency arrows of its diagram
    long long queues = -1;        // its queue lanes
    long long semaphores = -1;    // the arrows between lanes
    long long transients = -1;    // the aliasing map: transient textures
    long long aliasedBytesSaved = -1;
    long long storesDiscarded = -1;  // its textures stored DONT_CARE at their last pass
  };
  const Report& report() const { return report_; }

 private:
  // ImGui's flags for tab `name`: selected on the first draw when the options ask for it.
  int tabFlags(const ViewerState& state, const char* name) const;
  void drawSyncDiagram(const std::vector<PassRow>& passes);
  Report report_;
  bool tabApplied_ = false;

  void drawFrameChart(ViewerState& state);
  void drawPasses(ViewerState& state);
  void drawTransients(ViewerState& state);
};

}  // namespace reel::viewer

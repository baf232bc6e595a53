#pragma once
// Frames: what the trace is (app, capture device, format, warnings) and its frames with packet counts
// and sizes; clicking a frame shows it. Counts come from the background scan (frame_scan.h); until a
// frame is scanned only its message size (from the index) is known.

#include <string>

#include "panels/widgets.h"

namespace reel::viewer {

class FramesPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);

 private:
  int goTo_ = 0;  // a frame number typed in
  std::string goToError_;
};

}  // namespace reel::viewer

#pragma once
// The bar at the top: the trace's path (type another and press Enter or Open), and what went wrong
// opening it. A trace that cannot be read shows the reader's own message, in the bar and in a window in
// the middle of the screen, instead of the panels: never a crash.

#include <string>

#include "panels/widgets.h"

namespace reel::viewer {

class OpenPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& bar, const PanelLayout& center);

 private:
  std::string pathInput_;
  std::string shownPath_;
};

}  // namespace reel::viewer

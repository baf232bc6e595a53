#pragma once
// Inspector: the selected packet field by field (names from the trace's own field table), its key
// decoded, its tag, the resources it names (click through to Resources) and its auxiliary data as hex
// and as floats.

#include "panels/widgets.h"

namespace reel::viewer {

class InspectorPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);
};

}  // namespace reel::viewer

#pragma once
// The viewer: its state, its panels and their layout, one ImGui frame at a time. The window and the
// frame loop belong to the caller (main.cpp, the benchmark), so that the same app runs interactively,
// for a screenshot, or under a benchmark that drives scrolling.
//
// Layout (recomputed when the window's size changes; panels can be moved in between):
//   +--------------------------------- trace bar ---------------------------------+
//   | Frames      | Commands                               | Image after command  |
//   |             |                                        |                      |
//   |-------------|----------------------------------------|----------------------|
//   | Stats       | Inspector                              | Resources            |
//   +-------------+----------------------------------------+----------------------+

#include <memory>

#include "app/options.h"
#include "app/screenshot.h"
#include "app/viewer_state.h"
#include "panels/commands_panel.h"
#include "panels/frames_panel.h"
#include "panels/image_panel.h"
#include "panels/inspector_panel.h"
#include "panels/open_panel.h"
#include "panels/resources_panel.h"
#include "panels/stats_panel.h"

namespace reel::viewer {

class ViewerApp {
 public:
  explicit ViewerApp(const ViewerOptions& options);

  // Opens the command line's trace and applies --frame, --sorted, --select, --target, --attachment.
  void start();
  // Builds one ImGui frame (between ImGui::NewFrame and ImGui::Render) for a window of this size.
  void drawFrame(float width, float height);

  // Everything a screenshot must show is there: the trace scanned, the replay of the selection done
  // and its image uploaded (or an error to show instead).
  bool settled() const;
  // Where things are, for --screenshot-info.
  ScreenshotInfo screenshotInfo(int width, int height) const;

  ViewerState& state() { return state_; }
  CommandsPanel& commands() { return commands_; }

 private:
  void applyCommandLine();
  void postReplay();

  ViewerOptions options_;
  ViewerState state_;
  OpenPanel open_;
  FramesPanel frames_;
  CommandsPanel commands_;
  InspectorPanel inspector_;
  ImagePanel image_;
  ResourcesPanel resources_;
  StatsPanel stats_;
  float layoutWidth_ = 0, layoutHeight_ = 0;
  bool drewTrace_ = false;  // a frame of the open trace was drawn without its background work
};

}  // namespace reel::viewer

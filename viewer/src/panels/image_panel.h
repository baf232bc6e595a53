#pragma once
// Image after command: the chosen render target as the replay leaves it after the selected command
// (sorted order: a replay with stopAfterPackets = its sorted position + 1), or after the whole frame
// when nothing is selected. By default the target is the one the selected command renders into (the
// last BeginRenderPass before it); any target of the frame, any color attachment or the depth
// attachment can be chosen. Stepping (arrow keys in Commands, or the buttons here) replays again;
// the previous image stays up, marked, until the new one arrives.
//
// The image is drawn at an integer zoom with its top-left corner on a whole pixel and nearest
// filtering, so each screen pixel is exactly one replayed pixel (screenshot tests rely on it).

#include <optional>
#include <string>

#include "app/gl_texture.h"
#include "panels/widgets.h"

namespace reel::viewer {

class ImagePanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);

  // What to read back for this panel in the replay of the current selection.
  std::optional<ImageSource> wantedSource(ViewerState& state);
  static uint64_t stopAfterPackets(const ViewerState& state);

  // Set from the command line (before the first draw).
  void setTargetSpec(std::string spec) { targetSpec_ = std::move(spec); }
  void setAttachmentSpec(const std::string& spec);

  // Where the image was drawn in the last frame, for --screenshot-info.
  struct Report {
    bool shown = false;
    float x = 0, y = 0;
    int width = 0, height = 0;  // image pixels
    int zoom = 1;
    std::string source;
    std::string error;
    uint64_t stopAfterPackets = UINT64_MAX;
    bool current = false;  // the image answers the newest request
  };
  const Report& report() const { return report_; }

 private:
  void drawControls(ViewerState& state);
  void drawImage(ViewerState& state);

  std::string targetSpec_;  // --target, resolved against the frame's targets on use
  int targetChoice_ = -1;   // index into the frame's targets; -1: the selected command's target
  int attachment_ = 0;      // color attachment; -1: depth
  int zoomChoice_ = 0;      // 0: fit, else the zoom
  uint64_t uploadedGeneration_ = UINT64_MAX;
  std::optional<ImageSource> uploadedSource_;
  GlTexture texture_;
  image::Image image_;
  std::string imageError_;   // of the image shown
  std::string targetError_;  // why there is no image to show
  Report report_;
};

}  // namespace reel::viewer

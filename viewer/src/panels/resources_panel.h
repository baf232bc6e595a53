#pragma once
// Resources: the buffers, textures, samplers, shaders, pipelines and render targets alive in the frame
// (from the resource timeline the background scan builds), each with its descriptor field by field and
// where it came from (alive at the capture start, created or destroyed in which frame). Textures and
// render-target attachments are shown as images, and buffers as hex, as the replay leaves them after
// the selected command (the same replay as the image panel).

#include <optional>
#include <vector>

#include "app/gl_texture.h"
#include "panels/widgets.h"

namespace reel::viewer {

class ResourcesPanel {
 public:
  void draw(ViewerState& state, const PanelLayout& layout);

  // What to read back for the selected resource in the replay of the current selection.
  std::vector<ImageSource> wantedImages(ViewerState& state);
  std::vector<uint32_t> wantedBuffers(ViewerState& state);

  // What the details showed in the last frame, for --screenshot-info.
  struct Report {
    std::string resource;  // the selected resource's name, or empty
    std::string error;     // --resource names nothing alive in the frame
    struct Image {
      std::string source;
      float x = 0, y = 0;
      int width = 0, height = 0;  // image pixels
      int zoom = 0;               // screen pixels per image pixel; 0: scaled down to fit
      bool current = false;
    };
    std::vector<Image> images;
  };
  const Report& report() const { return report_; }
  // Resolved (once the scan reached the frame) and waiting for the replay that shows it.
  bool settled(const ViewerState& state) const;

 private:
  // Refreshes alive_ from the scanner: pointers into it (selectedInfo) do not survive it.
  void refresh(ViewerState& state);
  std::vector<ImageSource> imagesOf(const ViewerState& state, const ResourceInfo& resource) const;
  void drawList(ViewerState& state);
  void drawDetails(ViewerState& state);
  void drawReadback(ViewerState& state, const ImageSource& source, size_t slot);
  const ResourceInfo* selectedInfo(const ViewerState& state) const;

  int kindFilter_ = -1;  // a ResourceKind, or -1 for every kind
  std::vector<ResourceInfo> alive_;
  uint64_t aliveFrame_ = UINT64_MAX;
  size_t aliveScanned_ = SIZE_MAX;
  struct Shown {
    std::optional<ImageSource> source;
    uint64_t generation = UINT64_MAX;
    GlTexture texture;
    std::string error;
  };
  std::vector<Shown> shown_;  // one per image slot of the details
  Report report_;
  std::string resourceError_;  // --resource named nothing
};

}  // namespace reel::viewer

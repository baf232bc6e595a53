#pragma once
// What the panels share: the open trace, the frame looked at, the selected command and resource, the
// filter, and the replay's newest result; and the actions that change them (a panel never changes
// another's data behind its back, it calls these). No GL here.
//
// Threading: the UI thread. The scanner and the replay worker run on threads of their own and are
// only reached through their thread-safe methods.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/options.h"
#include "model/filter.h"
#include "model/frame_passes.h"
#include "model/frame_scan.h"
#include "model/frame_stats.h"
#include "model/render_targets.h"
#include "model/replay_worker.h"
#include "model/trace_document.h"

namespace reel::viewer {

struct ResourceRef {
  ResourceKind kind = ResourceKind::Count;
  uint32_t handle = 0;
  friend bool operator==(const ResourceRef&, const ResourceRef&) = default;
};

class ViewerState {
 public:
  explicit ViewerState(const ViewerOptions& options) : sorted(options.sorted), options_(options) {}

  const ViewerOptions& options() const { return options_; }

  // ---- the trace ----
  // Opens a trace (the previous one is closed). A failure keeps the reader's message in openError.
  bool openTrace(const std::string& path);
  std::string path;
  std::string openError;
  std::unique_ptr<TraceDocument> doc;
  std::unique_ptr<FrameScanner> scanner;
  std::unique_ptr<ReplayWorker> replay;
  std::vector<FrameSummary> summaries;  // refreshed from the scanner as it goes
  size_t summariesScanned = 0;
  void refreshSummaries();
  // Starts the scan and the replay device: after the first frame is on screen, so that on a small
  // machine they do not delay the window becoming usable.
  void startBackgroundWork();

  // ---- the frame ----
  bool selectFrame(size_t index);
  const LoadedFrame* frame() const { return doc ? doc->loaded() : nullptr; }
  uint64_t frameNumber() const { return frame() ? frame()->record.number : 0; }
  std::string frameError;
  PassTargets passTargets;
  uint64_t frameGeneration = 0;  // bumped whenever another frame (or trace) is loaded

  // ---- commands: order, selection, filter ----
  bool sorted = false;
  std::optional<uint32_t> selected;  // row id (submission position)
  bool scrollToSelection = false;
  void selectRow(std::optional<uint32_t> row, bool scroll);
  void setSorted(bool on);
  // Moves the selection by `delta` rows of the order shown (filtered), keeping within it.
  void stepSelection(int64_t delta);
  RowFilter filter;
  std::string keyFilterText;
  std::string filterError;
  void setFilter(RowFilter f);
  const std::vector<uint32_t>& visibleRows();  // rebuilt when order, filter or frame changed
  // Where the selected row is in visibleRows(), if it is shown.
  std::optional<size_t> selectedVisiblePosition();

  const FrameStats& stats();  // computed for the frame on first use
  // The frame's declared passes and render graph, once the background scan has read the resources up to
  // this frame (the graph needs the render targets' attachments); null until then.
  const std::vector<PassRow>* passes();
  // Its transient textures and the memory they would share (null: as passes()).
  const TransientMap* transients();

  // ---- resources ----
  std::optional<ResourceRef> selectedResource;
  bool revealResource = false;  // the Resources panel scrolls to it and comes to the front
  std::string
      resourceSpec;  // --resource, resolved by the Resources panel once the frame's resources are known
  void showResource(ResourceRef ref);

  // ---- replay ----
  std::optional<ReplayResult> lastReplay;
  uint64_t replayGeneration = 0;  // bumped whenever lastReplay changes
  // What the device reported (validation messages included) in every replay polled since the trace
  // opened: --screenshot fails on them, as a test under REEL_VALIDATE=1 must.
  std::vector<std::string> deviceErrors;
  std::optional<ReplayRequest> requested;
  void pollReplay();
  // Posts `request` unless it is the one posted last.
  void requestReplay(const ReplayRequest& request);
  // The replayed image for `source` in the newest result; `current` says whether that result answers
  // the newest request (otherwise it is the previous step's, shown while the new one replays).
  const ImageReadback* readbackFor(const ImageSource& source, bool* current = nullptr) const;
  const BufferReadback* bufferReadbackFor(uint32_t buffer, bool* current = nullptr) const;
  // The newest request is answered and nothing is pending (screenshots wait for this).
  bool replaySettled() const;

  // ---- layout, for screenshots: where each panel was drawn this frame ----
  struct PanelRect {
    std::string name;
    float x = 0, y = 0, width = 0, height = 0;
  };
  std::vector<PanelRect> panelRects;

 private:
  ViewerOptions options_;
  std::vector<uint32_t> visible_;
  bool visibleDirty_ = true;
  std::optional<FrameStats> stats_;
  std::optional<FramePasses> passes_;
  std::optional<TransientMap> transients_;
};

}  // namespace reel::viewer

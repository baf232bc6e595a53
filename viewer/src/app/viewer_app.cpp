#include "app/viewer_app.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>

namespace reel::viewer {

ViewerApp::ViewerApp(const ViewerOptions& options) : options_(options), state_(options) {}

void ViewerApp::start() {
  image_.setTargetSpec(options_.target);
  image_.setAttachmentSpec(options_.attachment);
  if (options_.trace.empty()) return;
  if (state_.openTrace(options_.trace)) applyCommandLine();
}

void ViewerApp::applyCommandLine() {
  if (options_.frame) {
    const auto index = state_.doc->findFrame(*options_.frame);
    if (!index) {
      state_.frameError = "--frame " + std::to_string(*options_.frame) + ": the trace has no such frame";
      if (state_.doc->frameCount()) {
        state_.frameError += " (frames " + std::to_string(state_.doc->frameNumber(0)) + ".." +
                             std::to_string(state_.doc->frameNumber(state_.doc->frameCount() - 1)) + ")";
      }
      return;
    }
    state_.selectFrame(*index);
  }
  state_.setSorted(options_.sorted);
  state_.resourceSpec = options_.resource;
  if (options_.select) {
    const LoadedFrame* frame = state_.frame();
    if (!frame) return;
    if (*options_.select >= frame->table.size()) {
      state_.frameError = "--select " + std::to_string(*options_.select) + ": frame " +
                          std::to_string(frame->record.number) + " has " +
                          std::to_string(frame->table.size()) + " packets";
      return;
    }
    state_.selectRow(frame->table.rowAt(state_.sorted, static_cast<uint32_t>(*options_.select)), true);
  }
}

void ViewerApp::postReplay() {
  const LoadedFrame* frame = state_.frame();
  if (!frame || !state_.replay) return;
  ReplayRequest request;
  request.frameIndex = frame->index;
  request.stopAfterPackets = ImagePanel::stopAfterPackets(state_);
  if (const auto source = image_.wantedSource(state_)) request.images.push_back(*source);
  for (const ImageSource& s : resources_.wantedImages(state_)) {
    if (std::find(request.images.begin(), request.images.end(), s) == request.images.end())
      request.images.push_back(s);
  }
  request.buffers = resources_.wantedBuffers(state_);
  state_.requestReplay(request);
}

void ViewerApp::drawFrame(float width, float height) {
  // The trace's first frame is drawn before the scan and the replay device start (viewer_state.h).
  if (state_.doc && !state_.scanner && drewTrace_) state_.startBackgroundWork();
  drewTrace_ = state_.doc != nullptr && !state_.scanner;
  state_.panelRects.clear();
  state_.refreshSummaries();
  state_.pollReplay();

  const bool apply = width != layoutWidth_ || height != layoutHeight_;
  layoutWidth_ = width;
  layoutHeight_ = height;
  const float bar = 36.0f;
  const float left = std::round(std::clamp(width * 0.17f, 180.0f, 300.0f));
  const float right = std::round(std::clamp(width * 0.30f, 260.0f, 640.0f));
  const float middle = width - left - right;
  const float top = std::round((height - bar) * 0.56f);
  const float bottom = height - bar - top;
  auto at = [apply](float x, float y, float w, float h) {
    return PanelLayout{ImVec2(x, y), ImVec2(w, h), apply};
  };

  open_.draw(state_, at(0, 0, width, bar), at(width * 0.2f, height * 0.3f, width * 0.6f, height * 0.3f));
  if (state_.doc) {
    frames_.draw(state_, at(0, bar, left, top));
    stats_.draw(state_, at(0, bar + top, left, bottom));
    commands_.draw(state_, at(left, bar, middle, top));
    inspector_.draw(state_, at(left, bar + top, middle, bottom));
    image_.draw(state_, at(left + middle, bar, right, top));
    resources_.draw(state_, at(left + middle, bar + top, right, bottom));
    postReplay();
  }
}

bool ViewerApp::settled() const {
  if (!state_.doc) return true;
  if (!state_.scanner || !state_.scanner->done()) return false;
  if (!state_.frame()) return true;
  if (!state_.replaySettled()) return false;
  if (!resources_.settled(state_)) return false;
  // The image panel drew the newest replay (or has no image to draw).
  const ImagePanel::Report& r = image_.report();
  return r.current || !r.error.empty() || (state_.replay && !state_.replay->status().error.empty()) ||
         (state_.lastReplay && !state_.lastReplay->outcome);
}

ScreenshotInfo ViewerApp::screenshotInfo(int width, int height) const {
  ScreenshotInfo info;
  info.width = width;
  info.height = height;
  info.trace = state_.path;
  info.openError = state_.openError;
  info.deviceErrors = state_.deviceErrors;
  for (const auto& p : state_.panelRects) {
    info.panels.push_back(
        {p.name, Rect{static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)),
                      static_cast<int>(std::lround(p.width)), static_cast<int>(std::lround(p.height))}});
  }
  const ImagePanel::Report& r = image_.report();
  info.imageShown = r.shown;
  info.image = Rect{static_cast<int>(r.x), static_cast<int>(r.y), r.width * r.zoom, r.height * r.zoom};
  info.zoom = r.zoom;
  info.imageWidth = r.width;
  info.imageHeight = r.height;
  info.imageSource = r.source;
  info.imageError = r.error;
  if (state_.lastReplay && !state_.lastReplay->outcome)
    info.imageError = state_.lastReplay->outcome.error().message;
  info.stopAfterPackets = r.stopAfterPackets == UINT64_MAX ? -1 : static_cast<long long>(r.stopAfterPackets);
  if (const LoadedFrame* f = state_.frame()) {
    info.frame = static_cast<long long>(f->record.number);
    if (state_.selected) {
      info.selectedRow = *state_.selected;
      info.selectedSorted = f->table.sortedPosition(*state_.selected);
    }
  }
  if (state_.replay) info.device = state_.replay->status().device;
  const ResourcesPanel::Report& resources = resources_.report();
  info.resource = resources.resource;
  info.resourceError = resources.error;
  for (const auto& image : resources.images) {
    info.resourceImages.push_back(
        {image.source,
         Rect{static_cast<int>(image.x), static_cast<int>(image.y), image.zoom ? image.width * image.zoom : 0,
              image.zoom ? image.height * image.zoom : 0},
         image.zoom, image.width, image.height});
  }
  const StatsPanel::Report& stats = stats_.report();
  info.statsTab = stats.tab;
  info.statsPasses = stats.passes;
  info.statsDependencies = stats.dependencies;
  info.statsQueues = stats.queues;
  info.statsSemaphores = stats.semaphores;
  info.statsTransients = stats.transients;
  info.statsAliasedBytesSaved = stats.aliasedBytesSaved;
  info.statsStoresDiscarded = stats.storesDiscarded;
  return info;
}

}  // namespace reel::viewer

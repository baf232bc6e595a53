#include "app/viewer_state.h"

#include <algorithm>

namespace reel::viewer {

bool ViewerState::openTrace(const std::string& tracePath) {
  // Close what is open first: its threads hold their own readers of the old file.
  replay.reset();
  scanner.reset();
  doc.reset();
  summaries.clear();
  summariesScanned = 0;
  selected.reset();
  selectedResource.reset();
  lastReplay.reset();
  deviceErrors.clear();
  requested.reset();
  frameError.clear();
  passTargets = {};
  filter = {};
  keyFilterText.clear();
  filterError.clear();
  stats_.reset();
  passes_.reset();
  transients_.reset();
  visibleDirty_ = true;
  path = tracePath;
  openError.clear();
  auto opened = TraceDocument::open(tracePath);
  if (!opened) {
    openError = opened.error().message;
    return false;
  }
  doc = std::move(opened.value());
  summaries = doc->indexSummaries();
  if (doc->frameCount() == 0) {
    frameError = "the trace holds no readable frame";
    return true;
  }
  selectFrame(0);
  return true;
}

void ViewerState::startBackgroundWork() {
  if (!doc || scanner) return;
  scanner = std::make_unique<FrameScanner>(path, summaries);
  replay = std::make_unique<ReplayWorker>(path, DeviceChoice{options_.device, options_.validate});
}

void ViewerState::refreshSummaries() {
  if (!scanner) return;
  const size_t scanned = scanner->scanned();
  if (scanned == summariesScanned && !(scanner->done() && summariesScanned < summaries.size())) return;
  summaries = scanner->summaries();
  summariesScanned = scanned;
}

bool ViewerState::selectFrame(size_t index) {
  if (!doc || index >= doc->frameCount()) return false;
  if (frame() && frame()->index == index) return true;
  selected.reset();
  stats_.reset();
  passes_.reset();
  transients_.reset();
  visibleDirty_ = true;
  passTargets = {};
  auto loaded = doc->load(index);
  if (!loaded) {
    frameError = loaded.error().message;
    return false;
  }
  frameError.clear();
  ++frameGeneration;
  passTargets = PassTargets(loaded.value()->record, loaded.value()->table, doc->header());
  return true;
}

void ViewerState::selectRow(std::optional<uint32_t> row, bool scroll) {
  selected = row;
  scrollToSelection = scroll && row.has_value();
}

void ViewerState::setSorted(bool on) {
  if (sorted == on) return;
  sorted = on;
  visibleDirty_ = true;
  scrollToSelection = selected.has_value();
}

void ViewerState::setFilter(RowFilter f) {
  filter = std::move(f);
  visibleDirty_ = true;
}

const std::vector<uint32_t>& ViewerState::visibleRows() {
  if (visibleDirty_) {
    visible_.clear();
    if (const LoadedFrame* f = frame())
      visible_ = applyFilter(filter, f->record, f->table, doc->header(), sorted);
    visibleDirty_ = false;
  }
  return visible_;
}

std::optional<size_t> ViewerState::selectedVisiblePosition() {
  const LoadedFrame* f = frame();
  if (!selected || !f) return std::nullopt;
  const auto& rows = visibleRows();
  if (!filter.active()) return f->table.positionOf(sorted, *selected);
  // The filtered rows keep the order shown: find the selection by its position in that order.
  const uint32_t target = f->table.positionOf(sorted, *selected);
  const auto it = std::lower_bound(rows.begin(), rows.end(), target, [&](uint32_t id, uint32_t pos) {
    return f->table.positionOf(sorted, id) < pos;
  });
  if (it == rows.end() || *it != *selected) return std::nullopt;
  return static_cast<size_t>(it - rows.begin());
}

void ViewerState::stepSelection(int64_t delta) {
  const auto& rows = visibleRows();
  if (rows.empty()) return;
  int64_t position = 0;
  if (const auto p = selectedVisiblePosition()) {
    position = static_cast<int64_t>(*p) + delta;
  } else if (delta < 0) {
    position = static_cast<int64_t>(rows.size()) - 1;
  }
  position = std::clamp<int64_t>(position, 0, static_cast<int64_t>(rows.size()) - 1);
  selectRow(rows[static_cast<size_t>(position)], true);
}

const FrameStats& ViewerState::stats() {
  if (!stats_) {
    if (const LoadedFrame* f = frame()) {
      stats_ = computeStats(f->record, f->table, doc->header());
    } else {
      stats_ = FrameStats{};
    }
  }
  return *stats_;
}

const std::vector<PassRow>* ViewerState::passes() {
  if (passes_) return &passes_->rows;
  const LoadedFrame* f = frame();
  if (!f || !scanner || (!scanner->done() && scanner->scanned() <= f->index)) return nullptr;
  passes_ = framePasses(f->record, doc->header(), scannedTargets(*scanner, doc->header(), f->record.number));
  return &passes_->rows;
}

const TransientMap* ViewerState::transients() {
  if (transients_) return &*transients_;
  if (!passes()) return nullptr;
  transients_ = transientMap(*passes_, scannedTextures(*scanner, doc->header(), frame()->record.number));
  return &*transients_;
}

void ViewerState::showResource(ResourceRef ref) {
  selectedResource = ref;
  revealResource = true;
}

void ViewerState::pollReplay() {
  if (!replay) return;
  if (auto result = replay->poll()) {
    if (result->outcome) {
      const std::vector<std::string>& errors = result->outcome.value().deviceErrors;
      deviceErrors.insert(deviceErrors.end(), errors.begin(), errors.end());
    }
    lastReplay = std::move(result);
    ++replayGeneration;
  }
}

void ViewerState::requestReplay(const ReplayRequest& request) {
  if (!replay || (requested && *requested == request)) return;
  requested = request;
  replay->request(request);
}

const ImageReadback* ViewerState::readbackFor(const ImageSource& source, bool* current) const {
  if (current) *current = false;
  if (!lastReplay || !lastReplay->outcome) return nullptr;
  for (const ImageReadback& r : lastReplay->outcome.value().images) {
    if (!(r.source == source)) continue;
    if (current) *current = requested && lastReplay->request == *requested;
    return &r;
  }
  return nullptr;
}

const BufferReadback* ViewerState::bufferReadbackFor(uint32_t buffer, bool* current) const {
  if (current) *current = false;
  if (!lastReplay || !lastReplay->outcome) return nullptr;
  for (const BufferReadback& b : lastReplay->outcome.value().buffers) {
    if (b.buffer != buffer) continue;
    if (current) *current = requested && lastReplay->request == *requested;
    return &b;
  }
  return nullptr;
}

bool ViewerState::replaySettled() const {
  if (!replay) return true;
  const ReplayWorker::Status status = replay->status();
  if (!status.error.empty()) return true;  // it will never answer; the panel shows why
  if (replay->busy()) return false;
  return !requested || (lastReplay && lastReplay->request == *requested);
}

}  // namespace reel::viewer

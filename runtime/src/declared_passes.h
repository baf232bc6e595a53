#pragma once
// The render thread's declared passes (ResourceContext::declarePass, docs/passes-and-graph.md): the table
// a frame's DeclarePass requests build, where each pass's keys begin in sorted order, and the cursor with
// which translation begins and ends them.
//
// Passes sort by id (bucket_order.h), so pass p's keys are the sorted range [start(p), start(p + 1)); a
// pass no key names has an empty range and still begins and ends there (a clear). Keys that name no pass
// come after start(count()). A pass with a target begins as a BeginRenderPass (and the SetViewport /
// SetScissor its PassDesc asks for) and ends as an EndRenderPass, dispatched to the device like recorded
// packets but never in a bucket: observers, captures and packet counts (stopAfterPackets) see the frame
// as recorded. A pass without a target groups its keys and begins nothing.
//
// Wide translation: a job translates the keys [first, end) and dispatches the pass events at the
// positions first..end-1 (and at end when it ends the frame), except the end of a pass that ends at
// first: the job before ended it (Device::endJob closes an open pass). A pass open across first is begun
// again on the job's replayed state (PassCursor::resumed), before the replayed packets recorded inside it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/device.h"
#include "reel/runtime/sort_entry.h"

namespace reel {

class SortPrefixes;

class DeclaredPasses {
 public:
  static constexpr size_t kNone = SIZE_MAX;

  void clear();
  // Request order. Returns an error message (and ignores the request) for an id out of sequence.
  std::string declare(const cmd::DeclarePass& packet);
  size_t count() const { return passes_.size(); }
  std::span<const PassDesc> descs() const { return passes_; }

  // After the sort. Returns how many keys name a pass the frame did not declare (they run after the
  // declared passes, outside any).
  size_t locate(std::span<const SortEntry> sorted, const SortPrefixes& prefixes);
  size_t start(size_t pass) const { return starts_[pass]; }
  // start() of every pass, then where the keys that name none begin.
  std::span<const size_t> starts() const { return starts_; }

  // What the pass reads and does not write, handed to Device::prepareReads before it begins (empty: none).
  void setPrologue(size_t pass, std::vector<GraphResource> reads) { prologues_[pass] = std::move(reads); }
  // Its attachments that nothing needs after it, handed to Device::discardAtPassEnd when a begin runs the
  // pass to its end (empty: none).
  void setDiscards(size_t pass, std::vector<GraphResource> attachments) {
    discards_[pass] = std::move(attachments);
  }

  // Whether begin() hands the device each pass's preferred queue (Device::preferQueue): frames translated
  // on the render thread only.
  void setQueues(bool on) { queues_ = on; }
  // The queue the frame's graph puts the pass on (passQueue), when the graph was built: it overrides the
  // pass's own preference, so that a pass runs whole on one queue.
  void setQueue(size_t pass, QueueClass queue) {
    if (runsOn_.size() < passes_.size()) runsOn_.resize(passes_.size(), kUnplaced);
    runsOn_[pass] = queue;
  }

  QueueClass queueOf(size_t pass) const;
  // `toItsEnd`: the thread that begins the pass also ends it (its whole remainder is this thread's).
  void begin(Device& device, size_t pass, bool toItsEnd) const;
  void end(Device& device, size_t pass) const;

 private:
  std::vector<PassDesc> passes_;
  std::vector<size_t> starts_;                         // count() + 1 entries once located
  std::vector<std::vector<GraphResource>> prologues_;  // by pass (capacity kept between frames)
  std::vector<std::vector<GraphResource>> discards_;   // likewise
  bool queues_ = false;
  static constexpr auto kUnplaced = static_cast<QueueClass>(0xFF);
  std::vector<QueueClass> runsOn_;  // by pass, this frame (kUnplaced: no graph)
};

// One translating thread's walk over the pass boundaries of its keys.
class PassCursor {
 public:
  // The thread translates the keys [first, end).
  PassCursor(const DeclaredPasses& passes, Device& device, size_t first, size_t end);
  // The pass open across `first`, begun by an earlier job: kNone when the range starts outside one.
  size_t resumed() const { return open_; }
  // The next key position at which a pass begins or ends; kNone when none follows.
  size_t nextEvent() const { return next_; }
  // Dispatches the events at `position` (ends, then empty passes, then a begin), in pass order.
  void at(size_t position);
  // Whether this thread ends `pass`: its keys end by `end` (a pass open at a job's end is ended there,
  // Device::endJob, and the next job does not begin it again when none of its keys are left).
  bool ends(size_t pass) const;

 private:
  void findNext();

  const DeclaredPasses& passes_;
  Device& device_;
  size_t end_;
  size_t open_ = DeclaredPasses::kNone;
  size_t toBegin_ = 0;  // the first pass not begun yet
  size_t next_ = DeclaredPasses::kNone;
};

}  // namespace reel

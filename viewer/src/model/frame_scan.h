#pragma once
// Reads every frame of a trace on a thread of its own (with its own reader), for what needs all of
// them: packet counts and sizes per frame (Frames panel, Stats bar chart) and the resource timeline
// (Resources panel). The UI takes snapshots; nothing it shows waits for the scan except those figures.
//
// Threading: the scan thread writes, any thread reads through the methods (one mutex).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "model/resource_timeline.h"
#include "reel/runtime/result.h"

namespace reel::viewer {

struct FrameSummary {
  uint64_t number = 0;
  uint32_t chunk = 0;
  uint64_t messageBytes = 0;  // the frame's message, decompressed (from the index)
  bool scanned = false;
  std::string error;     // the frame could not be read
  uint64_t packets = 0;  // chain links
  uint64_t keys = 0;
  uint64_t requests = 0;
  uint64_t buckets = 0;
  uint64_t payloadBytes = 0;  // packet payloads, shared ones counted per link
  uint64_t auxBytes = 0;
};

class FrameScanner {
 public:
  FrameScanner(std::string path, std::vector<FrameSummary> frames);
  ~FrameScanner();  // stops the scan and joins
  FrameScanner(const FrameScanner&) = delete;
  FrameScanner& operator=(const FrameScanner&) = delete;

  bool done() const { return done_.load(std::memory_order_acquire); }
  size_t scanned() const { return scanned_.load(std::memory_order_acquire); }
  size_t frameCount() const { return total_; }
  std::vector<FrameSummary> summaries() const;
  std::vector<ResourceInfo> aliveAt(uint64_t frameNumber) const;
  std::optional<ResourceInfo> findResource(ResourceKind kind, uint32_t handle, uint64_t frameNumber) const;
  std::string error() const;
  // Blocks until the scan is done (screenshots and benchmarks, which must show complete figures).
  void wait();

 private:
  void run(std::string path);

  size_t total_ = 0;
  mutable std::mutex mutex_;
  std::vector<FrameSummary> frames_;
  ResourceTimeline timeline_;
  std::string error_;
  std::atomic<size_t> scanned_{0};
  std::atomic<bool> done_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace reel::viewer

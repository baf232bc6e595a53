#pragma once
// Test support shared by tests/capture and tests/trace:
//  - Witness: a FrameObserver, registered beside the capture, that copies what the runtime showed of
//    each frame through its own public API (FrameView::forEachInChain, the merged order, the sorted
//    entries). What a trace reader reads back must equal this.
//  - expectFrameEquals: compares a frame read from a trace with the witnessed one.
//  - replayTrace: a minimal replay through a fresh Renderer (the runtime's replay entry points: adopted
//    handles, packets as bytes), to show that a trace carries everything its frames need.

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "reel/runtime/frame.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"
#include "reel/trace/reader.h"

namespace reel::testing {

struct WitnessPacket {
  uint16_t type = 0;
  std::vector<std::byte> payload;
  std::vector<std::byte> aux;
  bool tagged = false;
  std::string file, function, message;
  uint32_t line = 0;
  const void* identity = nullptr;  // the payload's address: equal for links that share a packet
};

struct WitnessBucket {
  std::string name;
  std::string keyType;
  std::vector<uint64_t> keys;
  std::vector<uint16_t> passes;  // per key
  std::vector<std::vector<WitnessPacket>> chains;
};

struct WitnessRequest {
  uint16_t type = 0;
  std::vector<std::byte> payload;
  std::vector<std::byte> aux;
};

struct WitnessFrame {
  uint64_t number = 0;
  uint64_t sortedOrderHash = 0;
  std::vector<WitnessRequest> requests;
  std::vector<WitnessBucket> buckets;
};

// The contents of a live resource as the device held them at a frame's start.
struct WitnessResource {
  CommandType createType = CommandType::Count;
  std::vector<std::byte> create;
  std::vector<std::byte> code;
  std::vector<std::vector<std::byte>> contents;  // buffer bytes, or each mip
};

class Witness final : public FrameObserver {
 public:
  // Also read back every live resource at the start of this frame.
  void snapshotAt(uint64_t frame) { snapshotFrame_ = frame; }

  void onFrameStart(const FrameStart& start) override;
  void onFrame(const FrameView& view) override;

  // Read after Renderer::flushAndWait.
  const std::map<uint64_t, WitnessFrame>& frames() const { return frames_; }
  const std::vector<WitnessResource>& snapshot() const { return snapshot_; }

 private:
  uint64_t snapshotFrame_ = UINT64_MAX;
  std::map<uint64_t, WitnessFrame> frames_;
  std::vector<WitnessResource> snapshot_;
};

// Adds gtest failures for every difference.
void expectFrameEquals(const WitnessFrame& expected, const trace::FrameRecord& actual);
// Same for two frames read from traces (a full trace and a damaged copy of it).
void expectFrameEquals(const trace::FrameRecord& expected, const trace::FrameRecord& actual);

// Replays every frame of `reader` through `renderer` (on its own fresh device): frame 0 of the replay
// creates the resources alive at the capture start with their contents, replay frame i + 1 is trace
// frame i. Stops at the first error.
Result<void> replayTrace(trace::TraceReader& reader, Renderer& renderer);

// The sorted commands (and resource requests) a NullDevice executed in one frame.
std::vector<const NullDevice::Call*> commandsOfFrame(const NullDevice& device, uint64_t frame);

// A scratch directory under the test's temp dir, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

std::vector<std::byte> readFile(const std::string& path);
void writeFile(const std::string& path, const std::vector<std::byte>& bytes);

}  // namespace reel::testing

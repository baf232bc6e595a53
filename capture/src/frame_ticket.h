#pragma once
// What the render thread hands the writer thread: a frame whose streams it retained (no copy), and,
// once, the resources alive at the capture start (copied, since LiveResources keeps changing).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/device.h"
#include "reel/runtime/frame.h"
#include "reel/runtime/resource_context.h"
#include "reel/trace/writer.h"

namespace reel::capture::detail {

// What the writer's encoder reads in place: a bucket's stream as the render thread left it.
using BucketTicket = trace::BucketSource;

struct FrameTicket {
  FrameLease lease;  // keeps requests and every bucket's stream as the render thread left them
  uint64_t frame = 0;
  uint64_t sortedOrderHash = 0;
  const RequestStream* requests = nullptr;  // held by the lease
  std::vector<BucketTicket> buckets;        // capacity kept between frames: no allocation per frame
  std::vector<std::string> markers;         // made while the frame was recorded
};

// A frame dropped from the capture (WhenBehind::DropFrames): no lease, its requests copied.
struct DroppedFrame {
  uint64_t frame = 0;
  uint64_t sortedOrderHash = 0;
  std::unique_ptr<RequestStream> requests;  // null: the frame had none
  std::vector<std::string> markers;
};

// The resources alive at the capture start, copied on the render thread for the writer.
using Snapshot = trace::ResourceSnapshot;
using SnapshotResource = trace::ResourceSnapshot::Resource;

}  // namespace reel::capture::detail

#pragma once
// What the render thread hands the writer thread: a frame whose streams it retained (no copy), and,
// once, the resources alive at the capture start (copied, since LiveResources keeps changing).

#include <cstdint>
#include <string>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/device.h"
#include "reel/runtime/frame.h"
#include "reel/runtime/resource_context.h"

namespace reel::capture::detail {

struct BucketTicket {
  const CommandBucketBase* bucket = nullptr;
  const BucketStream* stream = nullptr;  // held by the ticket's lease until the writer is done
  uint64_t epoch = 0;                    // the stream's epoch: unchanged across frames = retained bucket
  uint16_t index = 0;                    // position among the renderer's buckets
};

struct FrameTicket {
  FrameLease lease;  // keeps requests and every bucket's stream as the render thread left them
  uint64_t frame = 0;
  uint64_t sortedOrderHash = 0;
  const RequestStream* requests = nullptr;  // held by the lease
  std::vector<BucketTicket> buckets;        // capacity kept between frames: no allocation per frame
  std::vector<std::string> markers;         // made while the frame was recorded
};

struct SnapshotResource {
  CommandType createType = CommandType::Count;
  std::vector<std::byte> create;  // the create packet
  std::vector<std::byte> code;    // a shader's code
  struct Contents {
    uint32_t mip = 0;
    std::vector<std::byte> bytes;
  };
  std::vector<Contents> contents;
  std::string readbackError;
};

struct Snapshot {
  uint64_t frame = 0;
  DeviceInfo device;
  std::vector<SnapshotResource> resources;
};

}  // namespace reel::capture::detail

#pragma once
// MessageEncoder's state (reel/trace/writer.h): one FlatBufferBuilder and the frames' columns, reused
// message after message, so that a steady stream of frames allocates nothing.

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reel/trace/frame_encoding.h"
#include "reel/trace/writer.h"

namespace reel::trace {

// Resources messages are split so that none exceeds this (far below FlatBuffers' 2 GiB limit).
inline constexpr uint64_t kMaxResourcesMessageBytes = 64ull << 20;

struct MessageEncoder::Impl {
  Impl();
  std::span<const uint8_t> header(const HeaderInfo& info);
  std::span<const uint8_t> keyLayouts(std::span<const CommandBucketBase* const> keyTypes);
  std::span<const uint8_t> resources(const ResourceSnapshot& snapshot, size_t& next,
                                     MessageKind kind = MessageKind::Resources);
  Result<std::span<const uint8_t>> frame(const FrameSource& source, FrameCounts& counts);
  std::span<const uint8_t> marker(uint64_t frame, std::string_view text);
  std::span<const uint8_t> captureEnd(const CaptureEndInfo& info);

  std::span<const uint8_t> finish(MessageKind kind, flatbuffers::Offset<void> body);

  flatbuffers::FlatBufferBuilder fbb;
  // frame(), one frame after another: the gather and the encoding of frame_encoding.h, with the two
  // frames before kept to predict from, turning frame by frame.
  FrameGatherer gatherer;
  FrameEncoder encoder;
  GatheredFrame frames[3];
  uint32_t newest = 2;              // frames[newest] is the last frame gathered
  uint32_t run = 0;                 // frames gathered since the last that could not predict (at most 2)
  std::vector<uint64_t> lastEpoch;  // per bucket index: the epoch of its stream in the previous frame
};

}  // namespace reel::trace

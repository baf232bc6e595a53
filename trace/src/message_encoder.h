#pragma once
// MessageEncoder's state (reel/trace/writer.h): one FlatBufferBuilder and one bucket's columns, reused
// message after message, so that a steady stream of frames allocates nothing.

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reel/runtime/tags.h"
#include "reel/schema/shuffle.h"
#include "reel/trace/writer.h"

namespace reel::trace {

// Resources messages are split so that none exceeds this (far below FlatBuffers' 2 GiB limit).
inline constexpr uint64_t kMaxResourcesMessageBytes = 64ull << 20;

struct MessageEncoder::Impl {
  // One bucket's columns (trace.fbs, table Bucket), reused frame after frame.
  struct Columns {
    std::vector<uint64_t> keys;
    std::vector<uint32_t> chainLengths, linkBody, linkTag, bodyAuxSize, sharedBodies;
    std::vector<uint16_t> bodyType;
    std::vector<uint32_t> payloadOffset, auxOffset;  // per body: where its bytes are in the stream's arena
    schema::ColumnGroups payloadGroups, auxGroups;
    std::vector<uint8_t> shuffledKeys, shuffledPayload, shuffledAux;  // what the message holds
    std::vector<uint32_t> tags;  // 4 uint32 per tag: file, function, line, message
    std::vector<std::string_view> strings;
    std::unordered_map<uint32_t, uint32_t> sharedBody;        // stream offset of a shared packet -> body
    std::unordered_map<const char*, uint32_t> literalString;  // __FILE__ / __func__ pointer -> string
    std::unordered_map<std::string_view, uint32_t> messageString;
    struct TagKey {
      uint32_t file, function, line, message;
      bool operator==(const TagKey&) const = default;
    };
    struct TagKeyHash {
      size_t operator()(const TagKey& k) const;
    };
    std::unordered_map<TagKey, uint32_t, TagKeyHash> tagIndex;
    void clear();
  };

  Impl();
  std::span<const uint8_t> header(const HeaderInfo& info);
  std::span<const uint8_t> keyLayouts(std::span<const CommandBucketBase* const> keyTypes);
  std::span<const uint8_t> resources(const ResourceSnapshot& snapshot, size_t& next,
                                     MessageKind kind = MessageKind::Resources);
  Result<std::span<const uint8_t>> frame(const FrameSource& source, FrameCounts& counts);
  std::span<const uint8_t> marker(uint64_t frame, std::string_view text);
  std::span<const uint8_t> captureEnd(const CaptureEndInfo& info);

  flatbuffers::Offset<void> bucket(const BucketSource& source, FrameCounts& counts);
  uint32_t body(const BucketStream& stream, uint32_t packet);
  uint32_t tag(const TagRecord& record);
  uint32_t string(std::string_view text);
  std::span<const uint8_t> finish(MessageKind kind, flatbuffers::Offset<void> body);

  // Predicted columns (trace.fbs, Bucket.predictors): a bucket's columns unshuffled, this frame's and
  // the two before, turning frame by frame.
  struct ColumnHistory {
    struct Slot {
      std::vector<uint8_t> keys, payload, aux;
      uint64_t serial = 0;  // the frame() call they came from (0: none)
      uint64_t layout = 0;  // a hash of the bucket's body types and aux sizes
    };
    Slot slots[3];  // [0] the frame being encoded, [1] the previous one, [2] the one before
  };
  // Builds the shuffled columns (residuals where the frames before allow) and returns the predictors.
  uint8_t predictedColumns(const BucketSource& source, const uint8_t* base);

  flatbuffers::FlatBufferBuilder fbb;
  Columns columns;
  std::vector<ColumnHistory> history;  // per bucket index
  std::vector<uint8_t> residual;
  uint64_t serial_ = 0;             // frame() calls so far
  uint64_t predictFrom_ = 0;        // the first frame() of the run that may predict (the chunk's first)
  std::vector<uint64_t> lastEpoch;  // per bucket index: the epoch of its stream in the previous frame
};

}  // namespace reel::trace

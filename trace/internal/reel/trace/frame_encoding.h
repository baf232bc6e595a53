#pragma once
// A frame message built in two steps, so that frames can be encoded on several threads at once
// (reel::capture) while the renderer gets its streams back early:
//  - FrameGatherer::gather copies what a frame recorded out of its streams into a GatheredFrame (the
//    columns trace.fbs stores, payload and aux unshuffled): the only step that reads the streams.
//  - FrameEncoder::encode builds the Frame message from a GatheredFrame and, for predicted columns
//    (format 1.3), the one or two GatheredFrames just before it in its chunk: nothing else, so frames
//    whose gathers are done encode in any order, on any thread, and give the bytes a sequential
//    MessageEncoder::frame gives for the same frames and chunks.
// markRetained is the one step that must run in frame order (each bucket's epoch against the frame before).
//
// Threading: each object is used by one thread at a time; a GatheredFrame is read by several encoders
// at once only while none writes it.

#include <flatbuffers/flatbuffers.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/result.h"
#include "reel/runtime/tags.h"
#include "reel/schema/column.h"
#include "reel/schema/shuffle.h"
#include "reel/trace/writer.h"

namespace reel::trace {

using schema::Column;

// One bucket of a frame, owning every byte it needs.
struct GatheredBucket {
  const CommandBucketBase* bucket = nullptr;  // lives as long as the renderer (name, key layout)
  uint16_t index = 0;
  BucketOrder order = BucketOrder::Scene;
  uint64_t epoch = 0;
  bool retained = false;  // markRetained
  uint64_t layout = 0;    // a hash of body types, aux sizes and key count: what prediction requires equal
  Column<uint64_t> keys;
  Column<uint16_t> passes;  // per key (PassId::value); empty when no key names a pass
  Column<uint32_t> chainLengths, linkBody, linkTag, bodyAuxSize, sharedBodies;
  Column<uint16_t> bodyType;
  schema::ColumnGroups payloadGroups, auxGroups;
  Column<uint8_t> payload, aux;  // grouped (payloadGroups, auxGroups), each group in body order; unshuffled
  std::vector<uint32_t> tags;    // 4 uint32 per tag: file, function, line, message
  std::vector<std::string> strings;
};

struct GatheredRequest {
  uint16_t type = 0;
  uint32_t payloadOffset = 0, payloadSize = 0, auxOffset = 0, auxSize = 0;  // in GatheredFrame::requestBytes
};

struct GatheredFrame {
  uint64_t frame = 0;
  uint64_t sortedOrderHash = 0;
  bool dropped = false;
  std::vector<GatheredBucket> buckets;  // [0, bucketCount): elements beyond are kept for their capacity
  size_t bucketCount = 0;
  std::vector<std::byte> requestBytes;
  std::vector<GatheredRequest> requests;
  FrameCounts counts;
  uint64_t gatheredBytes = 0;  // what the columns hold: the memory this frame takes

  std::span<const GatheredBucket> activeBuckets() const { return {buckets.data(), bucketCount}; }
  std::span<GatheredBucket> activeBuckets() { return {buckets.data(), bucketCount}; }
  // This frame's bucket `index`, or null.
  const GatheredBucket* find(uint16_t index) const;
  // At least the size of the message FrameEncoder::encode builds from it (residual or plain columns
  // take the same bytes): what a chunk plan counts before the message exists.
  uint64_t messageBytesBound() const;
};

// Reads a frame's streams (held by the caller, FrameLease) into `out`, reusing its buffers. Fails for a
// frame too large for one message.
class FrameGatherer {
 public:
  Result<void> gather(const FrameSource& source, GatheredFrame& out);

 private:
  void bucket(const BucketSource& source, GatheredBucket& out);
  uint32_t tag(GatheredBucket& out, const TagRecord& record);
  uint32_t string(GatheredBucket& out, std::string_view text);

  struct TagKey {
    uint32_t file, function, line, message;
    bool operator==(const TagKey&) const = default;
  };
  struct TagKeyHash {
    size_t operator()(const TagKey& k) const;
  };
  // A column's bodies, each copied into its group's buffer as the walk over the streams finds it (the
  // streams are read once), then laid out group after group (ColumnGroups::finish) in the column.
  class GroupStaging {
   public:
    void reset() { cursors_.clear(); }
    inline void append(uint32_t group, const uint8_t* from, uint32_t size);
    void layOut(const schema::ColumnGroups& groups, uint8_t* column) const;

   private:
    void open(uint32_t group);
    void grow(uint32_t group, uint32_t size);
    struct Cursor {
      uint8_t *begin, *next, *end;
    };
    std::vector<Cursor> cursors_;           // per group of the bucket being gathered
    std::vector<Column<uint8_t>> buffers_;  // per group, kept from bucket to bucket for their capacity
  };

  std::vector<uint32_t> commandSize_;  // by command id
  GroupStaging payloadStaging_, auxStaging_;
  std::unordered_map<uint32_t, uint32_t> sharedBody_;  // stream offset of a shared packet -> body
  // In front of sharedBody_: the last shared packets seen, by their offset's low bits. A bucket shares a
  // few packets (a pipeline bind per recording thread and pipeline) across every chain, so nearly every
  // link finds its packet here instead of hashing (100k links a frame in stress). Entries hold offset + 1
  // (0: empty).
  struct SharedSlot {
    uint32_t offsetPlusOne = 0, body = 0;
  };
  std::array<SharedSlot, 16> recentShared_{};
  std::unordered_map<const char*, uint32_t> literalString_;       // __FILE__ / __func__ pointer -> string
  std::unordered_map<std::string_view, uint32_t> messageString_;  // views into the stream being read
  std::unordered_map<TagKey, uint32_t, TagKeyHash> tagIndex_;
};

// A frame's buckets (FrameView::buckets, FrameLease::buckets) as the gatherer takes them, into `out`
// (cleared first, its capacity kept): each at its position among the frame's buckets.
void bucketSources(std::span<const FrameBucketView> buckets, std::vector<BucketSource>& out);

// Each bucket's `retained` (its stream's epoch unchanged since the last frame that had the bucket);
// `lastEpoch` is per bucket index, carried from frame to frame in frame order.
void markRetained(GatheredFrame& frame, std::vector<uint64_t>& lastEpoch);

class FrameEncoder {
 public:
  FrameEncoder();
  // The Frame message (size-prefixed, valid until the next call). `previous` and `beforePrevious` are
  // the frames just before this one in its chunk, as far as the chunk goes back (null: not in it); a
  // bucket predicts from them only where they have it with the same layout.
  std::span<const uint8_t> encode(const GatheredFrame& frame, const GatheredFrame* previous,
                                  const GatheredFrame* beforePrevious);
  // How many of the frames given to the last encode() its columns used (0, 1 or 2): the chunk must reach
  // that far back for the message to decode.
  uint32_t depthUsed() const { return depthUsed_; }
  std::span<const uint8_t> message() const { return {fbb_.GetBufferPointer(), fbb_.GetSize()}; }

 private:
  // A column in the message (0: empty) and, where it is a residual one, its segment mask (format 1.7).
  struct Column {
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> bytes;
    flatbuffers::Offset<flatbuffers::Vector<uint64_t>> segments;
  };
  // A bucket's keys, payload and aux columns, and how each was predicted.
  struct Columns {
    Column keys, payload, aux;
    uint8_t predictors = 0;
  };
  flatbuffers::Offset<void> bucket(const GatheredBucket& b, const GatheredBucket* a, const GatheredBucket* p);
  Columns predictedColumns(const GatheredBucket& b, const GatheredBucket* a, const GatheredBucket* p);

  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<uint8_t> residual_;  // a whole column's residuals, where blocks cannot be used
  std::vector<uint8_t> block_;     // one block of them (ColumnGroups::shuffleGroupsFrom)
  std::vector<uint8_t> shuffled_;  // a column's shuffled residuals, before only their segments go in
  std::vector<uint64_t> segmentMask_;
  uint32_t depthUsed_ = 0;
};

}  // namespace reel::trace

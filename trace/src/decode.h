#pragma once
// From verified FlatBuffers messages to checked records. The verifier guarantees that every offset and
// vector of a message lies inside it; what it cannot know, these functions check: that the columns of
// a bucket agree with each other and with the trace's command table, that field tables describe fields
// inside their packets, that indices stay in range. Errors carry no location: the caller prefixes the
// file, byte offset and message.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "reel/runtime/result.h"
#include "reel/schema/messages.h"
#include "reel/schema/shuffle.h"
#include "reel/trace/header.h"
#include "reel/trace/records.h"

namespace reel::trace {

// One size-prefixed message at `data` (8-byte aligned) with `available` bytes after it: identifier,
// size prefix and the FlatBuffers verifier. Sets `size` to the message's bytes, prefix included.
Result<const fb::Message*> verifyMessage(const std::byte* data, uint64_t available, uint32_t& size);

Result<TraceHeader> decodeHeader(const fb::Header& header);
Result<void> addKeyLayouts(TraceHeader& header, const fb::KeyLayouts& layouts);

// Decodes frames into records it is handed, reusing their buffers: a reader keeps one Decoder (its
// grouping scratch keeps its capacity too), a replay keeps one FrameRecord. On failure `out` holds
// whatever was decoded so far and must not be used.
//
// Predicted columns (format 1.3, trace.fbs Bucket.predictors) restore from the frames decoded just
// before, which the decoder keeps: `place` says where a frame is (its position among the trace's frames
// and its chunk), and a predicted bucket needs the frame at position - 1 (and - 2) of the same chunk to
// have been decoded last. follows() tells the reader whether to decode those first.
struct FramePlace {
  uint64_t position = UINT64_MAX;  // UINT64_MAX: unknown (nothing predicts from it, it predicts from nothing)
  uint32_t chunk = UINT32_MAX;
};
struct Decoder {
  Result<void> frame(const fb::Frame& frame, const TraceHeader& header, std::shared_ptr<const void> keepAlive,
                     FrameRecord& out, FramePlace place = {});
  // `keepAlive` owns the message's bytes: a later frame that repeats this bucket's structure
  // (same_structure, format 1.6) reads it there.
  Result<void> bucket(const fb::Bucket& bucket, const TraceHeader& header, BucketRecord& out,
                      FramePlace place = {}, const std::shared_ptr<const void>& keepAlive = {});
  // Whether the frame message needs frames before it (a bucket with a predicted column or a repeated
  // structure), and whether the last frame decoded is the one just before `place`.
  static bool predicted(const fb::Frame& frame);
  bool follows(FramePlace place) const;
  void forgetHistory() {
    history.clear();
    last = {};
  }

  // Scratch kept from bucket to bucket: bodies per command id, ids in order of first body, next offset.
  std::vector<uint32_t> typeBodies;
  std::vector<uint16_t> typeOrder;
  std::vector<uint64_t> typeCursor;
  schema::ColumnGroups auxGroups;
  // Residual columns stored as segments (format 1.7), put back whole, and the mask being read.
  std::vector<uint8_t> unpackedKeys, unpackedPayload, unpackedAux;
  std::vector<uint64_t> segmentMask;

  // A bucket's structure (what format 1.6's same_structure repeats): views into the message that
  // carried it, which `owner` keeps.
  struct Structure {
    std::span<const uint16_t> passes, bodyType;
    std::span<const uint32_t> chainLengths, linkBody, linkTag, bodyAuxSize, sharedBodies;
    std::vector<TagView> tags;
    std::shared_ptr<const void> owner;
  };
  // Per bucket index: its columns, restored, and its structure, in the last two frames decoded that had it.
  struct HistorySlot {
    std::vector<uint8_t> keys, payload, aux;
    FramePlace place;
    Structure structure;
  };
  struct BucketHistory {
    HistorySlot slots[2];  // [0] the latest
  };
  std::vector<BucketHistory> history;
  FramePlace last;  // of the last frame decoded whole
};
Result<ResourcesRecord> decodeResources(const fb::Resources& resources, const TraceHeader& header,
                                        std::shared_ptr<const void> keepAlive);

// The frame a message belongs to, when its body says (Frame, Resources, Marker).
bool messageFrame(const fb::Message& message, uint64_t& frame);

}  // namespace reel::trace

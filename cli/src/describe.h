#pragma once
// The packet at a sorted position of a frame, described for people: what bisect and the golden tests
// name when they find the first command whose output differs.

#include <cinttypes>
#include <cstdio>
#include <string>

#include "reel/json/json.h"
#include "reel/trace/declared_passes.h"
#include "reel/trace/frame_order.h"
#include "reel/trace/reader.h"

namespace reel::cli {

struct PacketDescription {
  uint64_t position = 0;  // 0-based sorted position; `--stop-at position + 1` stops right after it
  std::string bucket, keyHex, keyFields, packet, tag;

  std::string text() const {
    std::string out = "sorted " + std::to_string(position) + " (stop-at " + std::to_string(position + 1) +
                      ") in bucket '" + bucket + "'\n  key    " + keyHex + " [" + keyFields + "]\n  packet " +
                      packet;
    if (!tag.empty()) out += "\n  tag    " + tag;
    return out;
  }
  std::string json() const {
    return JsonObject()
        .add("sorted_position", position)
        .add("stop_at", position + 1)
        .add("bucket", bucket)
        .add("key", keyHex)
        .add("key_fields", keyFields)
        .add("packet", packet)
        .add("tag", tag)
        .str();
  }
};

inline std::optional<PacketDescription> describeSortedPacket(const trace::TraceHeader& h,
                                                             const trace::FrameRecord& frame,
                                                             uint64_t position) {
  const trace::FrameOrder order = trace::orderFrame(frame);
  for (const trace::OrderedKey& k : order.sorted) {
    const trace::BucketRecord& bucket = frame.buckets[k.bucket];
    if (position < k.firstPacket || position >= k.firstPacket + bucket.chainLength(k.key)) continue;
    const trace::PacketRecord p = bucket.packet(k.key, position - k.firstPacket);
    PacketDescription d;
    d.position = position;
    d.bucket = std::string(bucket.name);
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%016" PRIx64, bucket.key(k.key));
    d.keyHex = hex;
    d.keyFields = trace::formatRecordedKey(h, bucket, k.key);
    d.packet = h.formatPacket(p.type, p.payload);
    if (p.tag)
      d.tag = std::string(p.tag->message) + " (" + std::string(p.tag->file) + ":" +
              std::to_string(p.tag->line) + ")";
    return d;
  }
  return std::nullopt;
}

}  // namespace reel::cli

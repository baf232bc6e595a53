#pragma once
// What both fuzz targets do with a trace the reader accepted: read every record and touch every byte
// a record points at, the way `reel dump` would, so that an out-of-bounds span or a bad field table
// shows up under ASan.

#include <cstdint>
#include <string>

#include "reel/trace/reader.h"

namespace reel::fuzz {

inline trace::ReaderOptions fuzzOptions() {
  trace::ReaderOptions options;
  options.maxChunkBytes = 16u << 20;  // a hostile size must not make the fuzzer run out of memory
  return options;
}

inline void readEverything(trace::TraceReader& reader) {
  const trace::TraceHeader& header = reader.header();
  uint64_t sum = 0;
  for (size_t i = 0; i < reader.frameCount(); ++i) {
    auto frame = reader.readFrame(i);
    if (!frame) continue;
    for (const trace::RequestRecord& r : frame->requests)
      sum += header.formatPacket(r.type, r.payload).size() + r.aux.size();
    for (const trace::BucketRecord& b : frame->buckets) {
      for (size_t k = 0; k < b.keyCount(); ++k) {
        sum += header.formatKey(b.keyType, b.key(k)).size();
        b.forEachInChain(k, [&](const trace::PacketRecord& p) {
          sum += header.formatPacket(p.type, p.payload).size();
          for (std::byte x : p.aux) sum += static_cast<uint8_t>(x);
          if (p.tag) sum += p.tag->file.size() + p.tag->function.size() + p.tag->message.size() + p.tag->line;
        });
      }
    }
  }
  if (auto resources = reader.readResources()) {
    for (const auto& snapshot : resources.value()) {
      for (const auto& r : snapshot.resources) {
        sum += header.formatPacket(r.createType, r.create).size() + r.code.size() + r.readbackError.size();
        for (const auto& c : r.contents) {
          for (std::byte x : c.bytes) sum += static_cast<uint8_t>(x);
        }
      }
    }
  }
  if (auto markers = reader.readMarkers()) {
    for (const auto& m : markers.value()) sum += m.text.size();
  }
  if (auto end = reader.readCaptureEnd(); end && end->has_value()) sum += end->value().reason.size();
  for (const std::string& w : reader.warnings()) sum += w.size();
  volatile uint64_t sink = sum;
  (void)sink;
}

}  // namespace reel::fuzz

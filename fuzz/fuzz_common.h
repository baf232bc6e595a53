#pragma once
// What both fuzz targets do with a trace the reader accepted: read every record and touch every byte
// a record points at, the way `reel dump` would, so that an out-of-bounds span or a bad field table
// shows up under ASan; and check what the reader promises whatever the input (every message names the
// file, a frame read is the frame its position names), aborting when it does not, so that libFuzzer
// and the corpus run (corpus_main.cpp) both report it as a crash.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "reel/trace/reader.h"

namespace reel::fuzz {

inline trace::ReaderOptions fuzzOptions() {
  trace::ReaderOptions options;
  options.maxChunkBytes = 16u << 20;  // a hostile size must not make the fuzzer run out of memory
  return options;
}

inline constexpr const char* kFuzzName = "fuzz.reel";

inline void require(bool ok, const char* promise, const std::string& detail) {
  if (ok) return;
  std::fprintf(stderr, "reader broke its promise: %s: %s\n", promise, detail.c_str());
  std::abort();
}

// Errors and warnings start with the file's name: "fuzz.reel: ...".
inline void requireNamed(const std::string& message) {
  require(message.rfind(std::string(kFuzzName) + ": ", 0) == 0, "every message names the file", message);
}

template <typename T>
bool readOrNamed(const Result<T>& result) {
  if (!result) requireNamed(result.error().message);
  return bool(result);
}

inline void readEverything(trace::TraceReader& reader) {
  const trace::TraceHeader& header = reader.header();
  uint64_t sum = 0;
  for (size_t i = 0; i < reader.frameCount(); ++i) {
    auto frame = reader.readFrame(i);
    if (!readOrNamed(frame)) continue;
    // (Read first: a read that finds the index wrong rebuilds it, and positions then count the rebuilt
    // list.)
    require(i < reader.frameCount() && frame->number == reader.frameNumber(i) &&
                reader.findFrame(frame->number) == i,
            "a frame read is the frame its position names", "frame " + std::to_string(i));
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
  if (auto resources = reader.readResources(); readOrNamed(resources)) {
    for (const auto& snapshot : resources.value()) {
      for (const auto& r : snapshot.resources) {
        sum += header.formatPacket(r.createType, r.create).size() + r.code.size() + r.readbackError.size();
        for (const auto& c : r.contents) {
          for (std::byte x : c.bytes) sum += static_cast<uint8_t>(x);
        }
      }
    }
  }
  if (auto markers = reader.readMarkers(); readOrNamed(markers)) {
    for (const auto& m : markers.value()) sum += m.text.size();
  }
  if (auto end = reader.readCaptureEnd(); readOrNamed(end) && end->has_value())
    sum += end->value().reason.size();
  for (const std::string& w : reader.warnings()) {
    requireNamed(w);
    sum += w.size();
  }
  volatile uint64_t sink = sum;
  (void)sink;
}

}  // namespace reel::fuzz

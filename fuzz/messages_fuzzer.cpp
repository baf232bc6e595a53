// libFuzzer target: the decompressed messages of a trace (what `zstd -dc trace.reel` prints). The
// first message becomes the header frame and the rest one chunk, both compressed here with valid
// checksums (the writer's own compressor), so that every mutation reaches the FlatBuffers verifier and
// the record checks behind it.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.h"
#include "reel/schema/compression.h"
#include "reel/schema/container.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Level 1 and no long-distance window: compression is not what is fuzzed, and must stay cheap.
  static reel::schema::ChunkCompressor compressor = std::move(
      reel::schema::ChunkCompressor::create({.level = 1, .longDistanceMatching = false, .windowLog = 0})
          .value());
  // The header message's extent comes from its size prefix, clamped to the input.
  size_t headerBytes = size;
  if (size >= 4) {
    const uint64_t prefixed = reel::schema::alignMessage(uint64_t{reel::schema::loadLE32(data)} + 4);
    if (prefixed < size) headerBytes = static_cast<size_t>(prefixed);
  }
  std::vector<uint8_t> file;
  if (!compressor.compressFrame(data, headerBytes, file)) return 0;
  if (headerBytes < size && !compressor.compressFrame(data + headerBytes, size - headerBytes, file)) return 0;
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(file.data()),
                               reinterpret_cast<const std::byte*>(file.data() + file.size()));
  auto reader =
      reel::trace::TraceReader::fromBytes(std::move(bytes), reel::fuzz::kFuzzName, reel::fuzz::fuzzOptions());
  if (reel::fuzz::readOrNamed(reader)) reel::fuzz::readEverything(reader.value());
  return 0;
}

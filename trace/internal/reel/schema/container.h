#pragma once
// The .reel container: how messages (trace/schema/trace.fbs) are framed in a file. The writer
// (TraceFileWriter) and the reader (TraceReader) share these constants and the chunk compression
// (compression.h), and nothing else of each other.
//
//   +---------------------------+  zstd frame, content checksum on: the Header message alone
//   | header frame              |
//   +---------------------------+  zstd frame, content checksum on: whole messages, 8-byte aligned,
//   | chunk 0                   |  zero padding between them: Resources, KeyLayouts, Marker, Frame,
//   +---------------------------+  ... and, in the last chunk, CaptureEnd. A frame never spans chunks.
//   | chunk 1 ...               |
//   +---------------------------+  zstd skippable frame (magic kIndexFrameMagic): the Index message,
//   | index frame               |  then the 16-byte footer below, last in the file
//   +---------------------------+
//
// The whole file is a valid zstd stream: `zstd -dc trace.reel` prints the messages back to back.
// Each chunk decompresses on its own (no dictionary, no prefix), so any frame is one chunk away. A file
// whose writer died has no index: a reader finds the chunks by walking the zstd frames from the start,
// up to the last whole one.
//
// All integers on disk are little-endian.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace reel::schema {

// Format version: a reader reads every minor of its major, and refuses a newer major.
//   1.0  the first release
//   1.1  the footer's reserved word became the index checksum (below). A 1.0 reader never read that
//        word, so it reads 1.1 traces as it reads its own: a minor change.
//   1.2  Bucket.order (trace.fbs): the bucket's BucketOrder. Older traces read Scene for every bucket.
//   1.3  Bucket.predictors and the residual columns: a frame encodes its buckets against the frames
//        before it in its chunk (chunks still decode on their own, and reading a frame decodes the
//        frames before it in its chunk first). Frame.dropped: a frame the capture left out. A 1.2
//        reader refuses a predicted frame (its plain columns are absent), with its error for a column
//        too short; older traces have neither and read as before.
//   1.4  the KeyFrame message (trace.fbs): the live resources again at later frames. A 1.3 reader skips
//        the unknown kind (with its warning for a newer minor) and replays from the capture start.
//   1.5  Bucket.passes and the DeclarePass request: declared passes. A 1.4 reader ignores the column,
//        so a frame with declared passes sorts differently there, which its order-hash check reports.
//   1.6  Bucket.same_structure: a bucket whose chains, bodies and tags equal those of the frame before
//        it in its chunk leaves them out. A 1.5 reader refuses such a frame (its keys have no chain
//        lengths); older traces read as before.
//   1.7  Bucket.*_residual_segments: a residual column keeps only its 64-byte segments that are not
//        all zero. A 1.6 reader refuses such a frame (the column is shorter than the one it restores
//        against); older traces read as before.
inline constexpr uint16_t kFormatMajor = 1;
inline constexpr uint16_t kFormatMinor = 7;

inline constexpr char kFileIdentifier[] = "REEL";

// Messages start at multiples of this within a chunk's decompressed bytes, so that a reader can use
// them in place (FlatBuffers aligns scalars to at most 8 bytes).
inline constexpr uint32_t kMessageAlignment = 8;
inline constexpr uint32_t kSizePrefixBytes = 4;

inline constexpr uint32_t kZstdFrameMagic = 0xFD2FB528u;
inline constexpr uint32_t kSkippableMagicBase = 0x184D2A50u;  // 0x184D2A50..5F: zstd skippable frames
inline constexpr uint32_t kSkippableMagicMask = 0xFFFFFFF0u;
inline constexpr uint32_t kIndexFrameMagic = kSkippableMagicBase + 0xE;
inline constexpr uint32_t kSkippableHeaderBytes = 8;  // magic + content size

// The last 16 bytes of a finished trace, inside the index frame: where the Index message starts.
//   indexBytes: bytes of the Index message (size prefix and padding included) before this footer
//   checksum:   CRC-32 (checksum.h) of those indexBytes bytes; format 1.0 wrote 0 here, unchecked
//   magic:      kFooterMagic
// A reader that finds the checksum wrong (format 1.1 on) does not use the index: it rebuilds it by
// walking the chunks, as for a file without one. A zstd skippable frame carries no checksum of its own.
// The index frame therefore starts at fileSize - kFooterBytes - indexBytes - kSkippableHeaderBytes, and
// its content size is indexBytes + kFooterBytes.
inline constexpr uint32_t kFooterBytes = 16;
inline constexpr uint64_t kFooterMagic = 0x315844494C454552ull;  // "REELIDX1"

inline constexpr uint32_t alignMessage(uint32_t offset) {
  return (offset + kMessageAlignment - 1) & ~(kMessageAlignment - 1);
}
inline constexpr uint64_t alignMessage(uint64_t offset) {
  return (offset + kMessageAlignment - 1) & ~uint64_t{kMessageAlignment - 1};
}

inline uint32_t loadLE32(const void* p) {
  uint8_t b[4];
  std::memcpy(b, p, 4);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}
inline uint64_t loadLE64(const void* p) {
  const auto* b = static_cast<const uint8_t*>(p);
  return uint64_t{loadLE32(b)} | uint64_t{loadLE32(b + 4)} << 32;
}
inline void storeLE32(void* p, uint32_t v) {
  const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  std::memcpy(p, b, 4);
}
inline void storeLE64(void* p, uint64_t v) {
  storeLE32(p, uint32_t(v));
  storeLE32(static_cast<uint8_t*>(p) + 4, uint32_t(v >> 32));
}

}  // namespace reel::schema

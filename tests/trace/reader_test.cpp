// The reader against damaged and hostile files: cut short at every chunk boundary and at random,
// bytes flipped in every region, not a trace at all, a newer format, messages that fail verification.
// Whatever it reads must equal what was written; whatever it cannot read must say so, with the file,
// the byte offset and what is wrong, and never crash.

#include "reel/trace/reader.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_isSkippableFrame, ZSTD_decompressBound
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <random>
#include <regex>
#include <tuple>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/schema/checksum.h"
#include "reel/schema/messages.h"
#include "reel/schema/predict.h"
#include "reel/schema/shuffle.h"
#include "rewrite.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

using Bytes = std::vector<std::byte>;
using trace::FrameRecord;
using trace::TraceReader;

constexpr uint64_t kFrames = 10;

Bytes zstdFrame(const void* data, size_t size) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  Bytes out(ZSTD_compressBound(size));
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), data, size);
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

Bytes concat(std::initializer_list<std::span<const std::byte>> parts) {
  Bytes out;
  for (auto part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

Result<TraceReader> openBytes(Bytes bytes, const trace::ReaderOptions& options = {}) {
  return TraceReader::fromBytes(std::move(bytes), "t.reel", options);
}

// "t.reel: byte N: ..." (or "t.reel: no frame ...") : every error names the file and the offset.
void expectLocated(const std::string& message) {
  static const std::regex located("^t\\.reel: byte [0-9]+: .+");
  EXPECT_TRUE(std::regex_match(message, located)) << message;
}

// A header message built here, not by the writer, so that its versions and tables can be anything.
flatbuffers::Offset<fb::Field> field(flatbuffers::FlatBufferBuilder& fbb, const FieldInfo& f) {
  std::vector<flatbuffers::Offset<fb::Field>> children;
  for (const FieldInfo& child : f.children) children.push_back(field(fbb, child));
  std::vector<flatbuffers::Offset<flatbuffers::String>> names;
  for (const char* name : f.enumNames) names.push_back(fbb.CreateString(name));
  return fb::CreateField(fbb, fbb.CreateString(f.name), f.offset, f.size, f.count,
                         static_cast<fb::FieldType>(f.type), static_cast<uint8_t>(f.handleKind),
                         names.empty() ? 0 : fbb.CreateVector(names),
                         children.empty() ? 0 : fbb.CreateVector(children));
}

struct HeaderSpec {
  uint16_t major = schema::kFormatMajor;
  uint16_t minor = schema::kFormatMinor;
  uint32_t handleFieldSize = 4;  // of BindPipeline.pipeline
  uint32_t drawFieldOffset = 0;  // of Draw.vertexCount
  uint16_t drawId = static_cast<uint16_t>(CommandType::Draw);
};

Bytes headerFrame(const HeaderSpec& spec) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Command>> commands;
  for (const CommandInfo& c : commandTable()) {
    std::vector<FieldInfo> fields(c.fields.begin(), c.fields.end());
    uint16_t id = static_cast<uint16_t>(c.type);
    if (c.type == CommandType::BindPipeline) fields[0].size = spec.handleFieldSize;
    if (c.type == CommandType::Draw) {
      fields[0].offset = spec.drawFieldOffset;
      id = spec.drawId;
    }
    std::vector<flatbuffers::Offset<fb::Field>> out;
    for (const FieldInfo& f : fields) out.push_back(field(fbb, f));
    commands.push_back(fb::CreateCommand(fbb, id, fbb.CreateString(c.name), static_cast<uint8_t>(c.queue),
                                         c.size, c.layoutHash, fbb.CreateVector(out)));
  }
  const auto header =
      fb::CreateHeader(fbb, spec.major, spec.minor, fbb.CreateString("test"), fbb.CreateString("app"), 0, 0,
                       0, 0, 0, 0, 0, true, 0, fbb.CreateVector(commands));
  fb::MessageBuilder message(fbb);
  message.add_body_type(fb::Body::Header);
  message.add_body(header.Union());
  fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());
  Bytes raw(reinterpret_cast<const std::byte*>(fbb.GetBufferPointer()),
            reinterpret_cast<const std::byte*>(fbb.GetBufferPointer() + fbb.GetSize()));
  raw.resize(schema::alignMessage(static_cast<uint64_t>(raw.size())));
  return zstdFrame(raw.data(), raw.size());
}

// An index frame (Index message, footer) built here, so that its entries can say anything. `checksum`:
// the footer's CRC-32 as format 1.1 writes it; else 0, as format 1.0 wrote.
Bytes indexFrame(const std::vector<trace::ChunkInfo>& chunks, const std::vector<trace::MessageInfo>& messages,
                 bool checksum) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<fb::ChunkEntry> chunkEntries;
  for (const auto& c : chunks) chunkEntries.emplace_back(c.offset, c.compressedSize, c.rawSize);
  std::vector<fb::MessageEntry> messageEntries;
  for (const auto& m : messages) messageEntries.emplace_back(m.frame, m.chunk, m.offset, m.size, m.kind);
  const auto index = fb::CreateIndex(fbb, fbb.CreateVectorOfStructs(chunkEntries),
                                     fbb.CreateVectorOfStructs(messageEntries));
  fb::MessageBuilder message(fbb);
  message.add_body_type(fb::Body::Index);
  message.add_body(index.Union());
  fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());
  const uint32_t indexBytes = schema::alignMessage(static_cast<uint32_t>(fbb.GetSize()));
  Bytes frame(schema::kSkippableHeaderBytes + indexBytes + schema::kFooterBytes);
  schema::storeLE32(frame.data(), schema::kIndexFrameMagic);
  schema::storeLE32(frame.data() + 4, indexBytes + schema::kFooterBytes);
  std::memcpy(frame.data() + 8, fbb.GetBufferPointer(), fbb.GetSize());
  schema::storeLE32(frame.data() + 8 + indexBytes, indexBytes);
  schema::storeLE32(frame.data() + 8 + indexBytes + 4,
                    checksum ? schema::crc32(frame.data() + 8, indexBytes) : 0);
  schema::storeLE64(frame.data() + 8 + indexBytes + 8, schema::kFooterMagic);
  return frame;
}

// One trace shared by the tests: 10 frames of the test scene, two per chunk.
class ReaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    path_ = dir_->path("reference.reel");
    NullDevice device(false);
    Renderer renderer(device);
    Scene scene(renderer);
    capture::CaptureOptions options;
    options.path = path_;
    options.compression.maxFramesPerChunk = 2;
    // Chunks by frame count alone: the tests name chunks by the frames they hold, and a slow run (a
    // sanitizer, a loaded machine) would otherwise close one by the 250 ms limit after a single frame.
    options.compression.chunkMillis = 0;
    options.handleSignals = false;
    auto capture = capture::Capture::start(renderer, options);
    ASSERT_TRUE(capture) << capture.error().message;
    for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
    capture.value().reset();
    bytes_ = new Bytes(readFile(path_));
    auto reader = TraceReader::open(path_);
    ASSERT_TRUE(reader) << reader.error().message;
    ASSERT_EQ(reader->frameCount(), kFrames);
    frames_ = new std::vector<FrameRecord>;
    for (size_t i = 0; i < kFrames; ++i) {
      auto frame = reader->readFrame(i);
      ASSERT_TRUE(frame) << frame.error().message;
      frames_->push_back(std::move(frame.value()));
    }
    chunks_ = new std::vector<trace::ChunkInfo>(reader->chunks().begin(), reader->chunks().end());
    messages_ = new std::vector<trace::MessageInfo>(reader->messages().begin(), reader->messages().end());
  }
  static void TearDownTestSuite() {
    delete frames_;
    delete chunks_;
    delete messages_;
    delete bytes_;
    delete dir_;
  }

  static uint64_t headerEnd() { return chunks_->front().offset; }
  static uint64_t indexStart() { return chunks_->back().offset + chunks_->back().compressedSize; }
  // Frames whose chunk ends at or before `end`.
  static size_t framesBefore(uint64_t end) {
    size_t n = 0;
    for (const auto& m : *messages_) {
      const auto& c = (*chunks_)[m.chunk];
      if (m.kind == static_cast<uint8_t>(fb::Body::Frame) && c.offset + c.compressedSize <= end) ++n;
    }
    return n;
  }
  static std::vector<size_t> framesOfChunk(uint32_t chunk) {
    std::vector<size_t> out;
    for (size_t i = 0, f = 0; i < messages_->size(); ++i) {
      if ((*messages_)[i].kind != static_cast<uint8_t>(fb::Body::Frame)) continue;
      if ((*messages_)[i].chunk == chunk) out.push_back(f);
      ++f;
    }
    return out;
  }

  // The error reading the one frame of a trace made of the reference header and a chunk holding a
  // message of one frame with `bucket`, built in `fbb`.
  std::string frameError(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<fb::Bucket> bucket) {
    std::vector<flatbuffers::Offset<fb::Bucket>> buckets{bucket};
    const auto frame = fb::CreateFrame(fbb, 0, 0, 0, fbb.CreateVector(buckets));
    fb::MessageBuilder message(fbb);
    message.add_body_type(fb::Body::Frame);
    message.add_body(frame.Union());
    fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());
    Bytes raw(reinterpret_cast<const std::byte*>(fbb.GetBufferPointer()),
              reinterpret_cast<const std::byte*>(fbb.GetBufferPointer() + fbb.GetSize()));
    raw.resize(schema::alignMessage(static_cast<uint64_t>(raw.size())));
    auto reader =
        openBytes(concat({std::span(*bytes_).first(headerEnd()), zstdFrame(raw.data(), raw.size())}));
    if (!reader) return "open: " + reader.error().message;
    if (reader->frameCount() != 1) return "frames: " + std::to_string(reader->frameCount());
    auto read = reader->readFrame(0);
    return read ? "read" : read.error().message;
  }

  // Every frame the reader returns equals the original frame of that number; returns how many read.
  static size_t expectReadableFramesIntact(TraceReader& reader) {
    size_t read = 0;
    for (size_t i = 0; i < reader.frameCount(); ++i) {
      auto frame = reader.readFrame(i);
      if (!frame) {
        expectLocated(frame.error().message);
        continue;
      }
      EXPECT_LT(frame->number, kFrames);
      if (frame->number < kFrames) expectFrameEquals((*frames_)[frame->number], frame.value());
      ++read;
    }
    return read;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string path_;
  static inline Bytes* bytes_ = nullptr;
  static inline std::vector<FrameRecord>* frames_ = nullptr;
  static inline std::vector<trace::ChunkInfo>* chunks_ = nullptr;
  static inline std::vector<trace::MessageInfo>* messages_ = nullptr;
};

// The reader's unshuffle (tiled, vectorised) against the writer's shuffle: every element width a column
// can have, counts around the 16-element tiles.
TEST(ShuffleTest, UnshuffleUndoesShuffleForEveryWidthAndCount) {
  for (size_t size = 1; size <= 72; ++size) {
    for (size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100}) {
      std::vector<uint8_t> in(n * size), shuffled(n * size), out(n * size, 0xAB);
      for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 131 + size);
      schema::shuffleBytes(in.data(), n, size, shuffled.data());
      schema::unshuffleBytes(shuffled.data(), n, size, out.data());
      ASSERT_EQ(in, out) << size << "-byte elements, " << n << " of them";
    }
  }
}

// The writer's shuffle (tiled, vectorised) lays the planes out as the format defines them: plane b holds
// byte b of every element, in element order; traces written before it was vectorised read the same.
TEST(ShuffleTest, ShuffleLaysOutThePlanesTheFormatDefines) {
  for (size_t size = 1; size <= 72; ++size) {
    for (size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100}) {
      std::vector<uint8_t> in(n * size), shuffled(n * size, 0xAB);
      for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 131 + size);
      schema::shuffleBytes(in.data(), n, size, shuffled.data());
      for (size_t b = 0; b < size; ++b) {
        for (size_t e = 0; e < n; ++e) {
          ASSERT_EQ(shuffled[b * n + e], in[e * size + b])
              << size << "-byte elements, " << n << " of them: byte " << b << " of element " << e;
        }
      }
    }
  }
}

// A predicted column is shuffled a block of residuals at a time (ColumnGroups::shuffleGroupsFrom): the
// message must hold exactly what the residuals of the whole column, then shuffled, are. Groups of several
// sizes, more elements than a block, both predictors; a layout off the word grid is refused untouched.
TEST(ShuffleTest, BlocksOfResidualsShuffleAsTheWholeColumnDoes) {
  using schema::Predictor;
  const uint32_t block = schema::kShuffleBlockElements;
  // (command id, size, count): sizes that are multiples of 4, counts around the block size.
  const std::vector<std::tuple<uint64_t, uint32_t, uint32_t>> layout = {
      {3, 56, block * 2 + 17}, {7, 16, 1}, {9, 4, block}, {11, 72, block + 1}, {12, 8, 5}};
  schema::ColumnGroups groups;
  for (const auto& [key, size, count] : layout) {
    for (uint32_t i = 0; i < count; ++i) groups.add(key, size);
  }
  groups.finish();
  const size_t bytes = groups.totalBytes();
  std::mt19937 rng(7);
  std::vector<uint8_t> x(bytes), a(bytes), b(bytes);
  for (size_t i = 0; i < bytes; ++i) {
    b[i] = static_cast<uint8_t>(rng());
    a[i] = static_cast<uint8_t>(b[i] + (rng() % 3));
    x[i] = static_cast<uint8_t>(a[i] + (rng() % 5));
  }
  for (const Predictor p : {Predictor::Delta, Predictor::Linear}) {
    std::vector<uint8_t> residuals(bytes), whole(bytes), blocked(bytes, 0xAB);
    schema::residuals(p, x.data(), a.data(), b.data(), bytes, 4, residuals.data());
    groups.shuffleGroups(residuals.data(), whole.data());
    std::vector<uint8_t> scratch(size_t{block} * groups.largestElement());
    size_t filled = 0;
    const bool done = groups.shuffleGroupsFrom(
        [&](uint64_t offset, uint64_t n, uint8_t* out) {
          schema::residuals(p, x.data() + offset, a.data() + offset, b.data() + offset, n, 4, out);
          filled += n;
        },
        4, scratch.data(), blocked.data());
    ASSERT_TRUE(done);
    EXPECT_EQ(filled, bytes);
    EXPECT_EQ(blocked, whole) << (p == Predictor::Linear ? "linear" : "delta");
  }

  schema::ColumnGroups odd;  // 6-byte aux bodies then 4-byte ones: the second group starts off the grid
  for (int i = 0; i < 3; ++i) odd.add(1, 6);
  for (int i = 0; i < 3; ++i) odd.add(2, 4);
  odd.finish();
  std::vector<uint8_t> scratch(size_t{block} * 6), column(odd.totalBytes(), 0xAB);
  bool called = false;
  EXPECT_FALSE(odd.shuffleGroupsFrom([&](uint64_t, uint64_t, uint8_t*) { called = true; }, 4, scratch.data(),
                                     column.data()));
  EXPECT_FALSE(called);
  EXPECT_EQ(column, std::vector<uint8_t>(odd.totalBytes(), 0xAB));
}

// shuffleRows writes n elements' planes into a longer column's planes, `stride` apart.
TEST(ShuffleTest, RowsLandInTheirPlacesOfALongerColumn) {
  for (size_t size : {1, 4, 8, 12, 56}) {
    const size_t n = 37, stride = 100, at = 21;
    std::vector<uint8_t> in(n * size), column(stride * size, 0xAB);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 29 + 1);
    schema::shuffleRows(in.data(), n, size, column.data() + at, stride);
    for (size_t p = 0; p < size; ++p) {
      for (size_t e = 0; e < stride; ++e) {
        const uint8_t expected = e >= at && e < at + n ? in[(e - at) * size + p] : 0xAB;
        ASSERT_EQ(column[p * stride + e], expected) << size << "-byte elements: plane " << p << ", " << e;
      }
    }
  }
}

// shuffleMostlyZeroRows (residuals) writes the bytes shuffleRows writes, whatever lanes are zero: zero
// lanes' planes written as zeros over what the column held, the other lanes transposed, elements of
// sizes off the 8-byte grid and larger than the lanes it tracks included.
TEST(ShuffleTest, MostlyZeroRowsShuffleAsAnyRowsDo) {
  for (size_t size : {4, 8, 12, 20, 48, 56, 264}) {
    for (size_t n : {1, 15, 16, 37, 256}) {
      const size_t stride = n + 9, at = 5;
      std::vector<uint8_t> in(n * size, 0);
      // Bytes in lane 0 and in the element's last byte only (the others stay zero), and one element
      // with a byte in lane 2 where there is one.
      for (size_t i = 0; i < n; ++i) {
        in[i * size] = static_cast<uint8_t>(i * 29 + 1);
        in[i * size + size - 1] = static_cast<uint8_t>(i * 7 + 3);
      }
      if (size >= 24) in[(n / 2) * size + 17] = 0x5A;
      std::vector<uint8_t> expected(stride * size, 0xAB), column(stride * size, 0xAB);
      schema::shuffleRows(in.data(), n, size, expected.data() + at, stride);
      schema::shuffleMostlyZeroRows(in.data(), n, size, column.data() + at, stride);
      ASSERT_EQ(column, expected) << size << "-byte elements, " << n << " of them";
    }
  }
}

// A replay decodes every frame into one record (its buffers reused, chunks recycled): each frame, read in
// any order after any other, must equal the frame read into a fresh record.
TEST_F(ReaderTest, AReusedRecordReadsEveryFrameAsAFreshOneDoes) {
  auto reader = TraceReader::open(path_);
  ASSERT_TRUE(reader);
  FrameRecord reused;
  for (const size_t i : {0, 1, 2, 9, 3, 3, 8, 0, 5, 4, 7, 6, 1}) {
    ASSERT_TRUE(reader->readFrame(i, reused));
    expectFrameEquals((*frames_)[i], reused);
  }
  // A record another frame keeps alive holds its chunk: reading on must not write into it.
  auto kept = reader->readFrame(0);
  ASSERT_TRUE(kept);
  for (size_t i = 2; i < kFrames; ++i) ASSERT_TRUE(reader->readFrame(i, reused));
  expectFrameEquals((*frames_)[0], kept.value());
}

TEST_F(ReaderTest, TheReferenceTraceReadsCleanly) {
  auto reader = TraceReader::open(path_);
  ASSERT_TRUE(reader);
  EXPECT_TRUE(reader->hasIndex());
  EXPECT_TRUE(reader->complete());
  EXPECT_EQ(reader->warnings(), std::vector<std::string>{});
  EXPECT_EQ(reader->chunks().size(), kFrames / 2 + 1) << "two frames per chunk, and the end";
  EXPECT_EQ(reader->findFrame(7), std::optional<size_t>(7));
  EXPECT_EQ(reader->findFrame(kFrames), std::nullopt);
  auto missing = reader->readFrame(kFrames);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no frame 10"), std::string::npos);
}

TEST_F(ReaderTest, ZstdCommandLineDecompressesTheWholeTrace) {
  // What `zstd -dc` must print: every zstd frame's content, in order, the skippable index left out.
  Bytes expected;
  for (uint64_t at = 0; at < bytes_->size();) {
    const size_t size = ZSTD_findFrameCompressedSize(bytes_->data() + at, bytes_->size() - at);
    ASSERT_FALSE(ZSTD_isError(size)) << ZSTD_getErrorName(size);
    if (!ZSTD_isSkippableFrame(bytes_->data() + at, size)) {
      Bytes raw(ZSTD_decompressBound(bytes_->data() + at, size));
      const size_t n = ZSTD_decompress(raw.data(), raw.size(), bytes_->data() + at, size);
      ASSERT_FALSE(ZSTD_isError(n));
      expected.insert(expected.end(), raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(n));
    }
    at += size;
  }
  const std::string command = std::string(REEL_ZSTD_EXECUTABLE) + " -dcq '" + path_ + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  Bytes printed;
  std::byte buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    printed.insert(printed.end(), buffer, buffer + n);
  EXPECT_EQ(::pclose(pipe), 0) << command;
  EXPECT_EQ(printed.size(), expected.size());
  EXPECT_TRUE(printed == expected);
  // And zstd's own integrity test (content checksums included) passes.
  EXPECT_EQ(std::system((std::string(REEL_ZSTD_EXECUTABLE) + " -tq '" + path_ + "'").c_str()), 0);
  // The messages are all there, back to back: the header and every message the index lists.
  size_t messages = 0;
  for (uint64_t at = 0; at + 8 <= printed.size();) {
    const uint32_t size = schema::loadLE32(printed.data() + at);
    if (size == 0) break;
    ++messages;
    at = schema::alignMessage(at + 4 + size);
  }
  EXPECT_EQ(messages, messages_->size() + 1);
}

TEST_F(ReaderTest, WithoutItsIndexTheReaderRebuildsTheSameOne) {
  auto reader =
      openBytes(Bytes(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>(indexStart())));
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(reader->hasIndex());
  EXPECT_TRUE(reader->complete()) << "the CaptureEnd message is there, only the index is not";
  ASSERT_EQ(reader->warnings().size(), 1u);
  EXPECT_NE(reader->warnings()[0].find("no index"), std::string::npos) << reader->warnings()[0];
  ASSERT_EQ(reader->messages().size(), messages_->size());
  for (size_t i = 0; i < messages_->size(); ++i) {
    const auto& a = reader->messages()[i];
    const auto& e = (*messages_)[i];
    EXPECT_EQ(a.kind, e.kind) << i;
    EXPECT_EQ(a.frame, e.frame) << i << " " << trace::messageKindName(e.kind);
    EXPECT_EQ(a.chunk, e.chunk) << i;
    EXPECT_EQ(a.offset, e.offset) << i;
    EXPECT_EQ(a.size, e.size) << i;
  }
  for (size_t c = 0; c < chunks_->size(); ++c) {
    EXPECT_EQ(reader->chunks()[c].offset, (*chunks_)[c].offset);
    EXPECT_EQ(reader->chunks()[c].rawSize, (*chunks_)[c].rawSize);
  }
  EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames);
}

void ReaderCutAt(uint64_t cut, const Bytes& bytes, uint64_t headerEnd, size_t expectedFrames,
                 size_t (*check)(TraceReader&)) {
  SCOPED_TRACE("cut at byte " + std::to_string(cut) + " of " + std::to_string(bytes.size()));
  auto reader = openBytes(Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
  if (cut < headerEnd) {
    ASSERT_FALSE(reader);
    expectLocated(reader.error().message);
    if (cut == 0) {
      EXPECT_NE(reader.error().message.find("empty"), std::string::npos) << reader.error().message;
    } else if (cut >= 4) {
      EXPECT_NE(reader.error().message.find("header frame"), std::string::npos) << reader.error().message;
    }
    return;
  }
  ASSERT_TRUE(reader) << reader.error().message;
  if (cut < bytes.size()) {
    EXPECT_FALSE(reader->warnings().empty());
    EXPECT_FALSE(reader->hasIndex());
  }
  EXPECT_EQ(reader->frameCount(), expectedFrames);
  EXPECT_EQ(check(reader.value()), expectedFrames);
}

TEST_F(ReaderTest, CutAtEveryChunkBoundaryAndAByteEitherSide) {
  std::vector<uint64_t> boundaries = {0, headerEnd()};
  for (const auto& c : *chunks_) boundaries.push_back(c.offset + c.compressedSize);
  boundaries.push_back(bytes_->size());
  for (const uint64_t b : boundaries) {
    for (const int d : {-1, 0, 1}) {
      if ((b == 0 && d < 0) || b + d > bytes_->size()) continue;
      const uint64_t cut = b + d;
      ReaderCutAt(cut, *bytes_, headerEnd(), framesBefore(cut), expectReadableFramesIntact);
    }
  }
  // Cut inside chunk 2: the warning says where, and what is still readable.
  const uint64_t inside = (*chunks_)[2].offset + (*chunks_)[2].compressedSize / 2;
  auto reader = openBytes(Bytes(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>(inside)));
  ASSERT_TRUE(reader);
  ASSERT_EQ(reader->warnings().size(), 2u);
  EXPECT_NE(reader->warnings()[1].find("t.reel: byte " + std::to_string((*chunks_)[2].offset) +
                                       ": truncated in chunk 2"),
            std::string::npos)
      << reader->warnings()[1];
  EXPECT_NE(reader->warnings()[1].find("chunks 0..1 (frames 0..3) are readable"), std::string::npos)
      << reader->warnings()[1];
}

TEST_F(ReaderTest, CutAtRandomOffsets) {
  std::mt19937_64 random(42);
  for (int i = 0; i < 200; ++i) {
    const uint64_t cut = random() % (bytes_->size() + 1);
    ReaderCutAt(cut, *bytes_, headerEnd(), framesBefore(cut), expectReadableFramesIntact);
  }
}

// Any byte of the file flipped: the reader may refuse the file or a frame, but what it returns is
// always exactly what was written.
TEST_F(ReaderTest, AFlippedByteAnywhereNeverGivesWrongData) {
  std::mt19937_64 random(7);
  const size_t stride = std::max<size_t>(1, bytes_->size() / 1500);
  size_t refused = 0, frameErrors = 0;
  for (size_t at = 0; at < bytes_->size(); at += stride) {
    Bytes damaged = *bytes_;
    damaged[at] ^= static_cast<std::byte>(1 + random() % 255);
    SCOPED_TRACE("byte " + std::to_string(at));
    auto reader = openBytes(std::move(damaged));
    if (!reader) {
      expectLocated(reader.error().message);
      ++refused;
      continue;
    }
    for (const std::string& w : reader->warnings()) EXPECT_EQ(w.rfind("t.reel: ", 0), 0u) << w;
    frameErrors += reader->frameCount() - expectReadableFramesIntact(reader.value());
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(frameErrors, 0u);
}

TEST_F(ReaderTest, AFlippedByteInTheHeaderFrameRefusesTheFile) {
  for (const uint64_t at : {uint64_t{headerEnd() / 2}, headerEnd() - 1}) {
    Bytes damaged = *bytes_;
    damaged[at] ^= std::byte{0x40};
    auto reader = openBytes(std::move(damaged));
    ASSERT_FALSE(reader) << at;
    expectLocated(reader.error().message);
    EXPECT_NE(reader.error().message.find("header frame"), std::string::npos) << reader.error().message;
  }
}

TEST_F(ReaderTest, AChecksumMismatchNamesTheChunkAndOnlyItsFramesAreLost) {
  const auto& chunk = (*chunks_)[2];
  Bytes damaged = *bytes_;
  damaged[chunk.offset + chunk.compressedSize - 2] ^= std::byte{0x01};  // in the content checksum
  auto reader = openBytes(std::move(damaged));
  ASSERT_TRUE(reader) << reader.error().message;
  const std::vector<size_t> lost = framesOfChunk(2);
  ASSERT_EQ(lost, (std::vector<size_t>{4, 5}));
  for (size_t i = 0; i < kFrames; ++i) {
    auto frame = reader->readFrame(i);
    if (std::ranges::find(lost, i) != lost.end()) {
      ASSERT_FALSE(frame) << i;
      EXPECT_EQ(frame.error().message, "t.reel: byte " + std::to_string(chunk.offset) +
                                           ": chunk 2 (frames 4..5): checksum mismatch");
    } else {
      ASSERT_TRUE(frame) << frame.error().message;
      expectFrameEquals((*frames_)[i], frame.value());
    }
  }
  // The chunk itself is damaged, not the index: it stays in use, and nothing was rebuilt.
  EXPECT_TRUE(reader->hasIndex());
  EXPECT_EQ(reader->warnings(), std::vector<std::string>{});
}

TEST_F(ReaderTest, ACorruptChunkIsSkippedWhenTheIndexIsRebuilt) {
  Bytes damaged(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>(indexStart()));
  const auto& chunk = (*chunks_)[1];
  damaged[chunk.offset + chunk.compressedSize - 1] ^= std::byte{0x80};
  auto reader = openBytes(std::move(damaged));
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_EQ(reader->warnings().size(), 2u);
  EXPECT_EQ(reader->warnings()[1], "t.reel: byte " + std::to_string(chunk.offset) +
                                       ": chunk 1: checksum mismatch: its frames are skipped");
  EXPECT_EQ(reader->frameCount(), kFrames - 2);
  EXPECT_EQ(reader->findFrame(2), std::nullopt);
  EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames - 2);
}

// Without an index (a writer killed), a chunk whose frame header is damaged is found by walking on to
// the next whole zstd frame: only its own frames are lost, not every chunk after it.
TEST_F(ReaderTest, WithoutTheIndexADamagedChunkHeaderCostsOnlyItsFrames) {
  const auto& chunk = (*chunks_)[1];
  // The frame's magic, its header descriptor, its first block header.
  for (const uint64_t at : {chunk.offset, chunk.offset + 1, chunk.offset + 4, chunk.offset + 6}) {
    SCOPED_TRACE("byte " + std::to_string(at));
    Bytes damaged(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>(indexStart()));
    damaged[at] ^= std::byte{0x41};
    auto reader = openBytes(std::move(damaged));
    ASSERT_TRUE(reader) << reader.error().message;
    EXPECT_EQ(reader->frameCount(), kFrames - 2);
    EXPECT_EQ(reader->findFrame(2), std::nullopt);
    EXPECT_EQ(reader->findFrame(3), std::nullopt);
    EXPECT_NE(reader->findFrame(4), std::nullopt);
    EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames - 2);
    EXPECT_TRUE(reader->complete());
    ASSERT_GE(reader->warnings().size(), 2u);
    EXPECT_NE(reader->warnings()[1].find("t.reel: byte "), std::string::npos) << reader->warnings()[1];
  }
}

TEST_F(ReaderTest, ADamagedIndexIsNotTrustedButRebuilt) {
  const uint64_t indexMessage = indexStart() + schema::kSkippableHeaderBytes;
  // The skippable frame's magic and size, the message's root offset and a field, the footer's index size
  // and magic.
  for (const uint64_t at :
       {indexStart(), indexStart() + 4, indexMessage + 1, indexMessage + 20, uint64_t{bytes_->size() - 16},
        uint64_t{bytes_->size() - 8}, uint64_t{bytes_->size() - 1}}) {
    SCOPED_TRACE("byte " + std::to_string(at));
    Bytes damaged = *bytes_;
    damaged[at] ^= std::byte{0x5A};
    auto reader = openBytes(std::move(damaged));
    ASSERT_TRUE(reader) << reader.error().message;
    EXPECT_FALSE(reader->hasIndex());
    ASSERT_FALSE(reader->warnings().empty());
    EXPECT_TRUE(reader->warnings()[0].find("index is invalid") != std::string::npos ||
                reader->warnings()[0].find("no index") != std::string::npos)
        << reader->warnings()[0];
    EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames);
  }
}

// Issue 17: a flipped byte of an index that still passed the structural checks lost intact frames.
// With the index's checksum, no byte of it (message, padding, footer, frame header) can change
// unnoticed: each flip costs a scan of the chunks, never a frame.
TEST_F(ReaderTest, EveryByteOfTheIndexFlippedLosesNoFrame) {
  auto original = TraceReader::open(path_);
  ASSERT_TRUE(original);
  auto resources = original->readResources();
  ASSERT_TRUE(resources);
  ASSERT_FALSE(resources->empty());
  std::mt19937_64 random(17);
  for (uint64_t at = indexStart(); at < bytes_->size(); ++at) {
    for (const int mask : {0x01, 0x80, 1 + static_cast<int>(random() % 255)}) {
      SCOPED_TRACE("byte " + std::to_string(at) + " of " + std::to_string(bytes_->size()) + " ^ " +
                   std::to_string(mask));
      Bytes damaged = *bytes_;
      damaged[at] ^= static_cast<std::byte>(mask);
      auto reader = openBytes(std::move(damaged));
      ASSERT_TRUE(reader) << reader.error().message;
      EXPECT_FALSE(reader->hasIndex());
      ASSERT_EQ(reader->warnings().size(), 1u);
      EXPECT_TRUE(reader->warnings()[0].find("index is invalid") != std::string::npos ||
                  reader->warnings()[0].find("no index") != std::string::npos)
          << reader->warnings()[0];
      ASSERT_EQ(reader->frameCount(), kFrames);
      for (size_t i = 0; i < kFrames; ++i) {
        auto frame = reader->readFrame(i);
        ASSERT_TRUE(frame) << frame.error().message;
        expectFrameEquals((*frames_)[i], frame.value());
      }
      auto read = reader->readResources();
      ASSERT_TRUE(read) << read.error().message;
      EXPECT_EQ(read->size(), resources->size());
      EXPECT_TRUE(reader->complete());
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(ReaderTest, AnIndexWithAWrongChecksumIsNotUsed) {
  Bytes damaged = *bytes_;
  damaged[bytes_->size() - 12] ^= std::byte{0x01};  // the footer's checksum
  auto reader = openBytes(std::move(damaged));
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(reader->hasIndex());
  EXPECT_EQ(reader->warnings(),
            std::vector<std::string>{"t.reel: byte " + std::to_string(bytes_->size() - 12) +
                                     ": index is invalid (checksum mismatch): rebuilt by "
                                     "reading the chunks"});
  EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames);
}

// An index whose entries are wrong, but whose checksum passes or that has none, in two forms:
//  - format 1.0, which wrote no checksum: each chunk is compared with the index when the trace opens;
//  - format 1.1, its checksum right (as a writer bug would leave it): checked for what the writer always
//    does (messages back to back, filling their chunks, frames in order), and each chunk that does not
//    read through the index is compared with it.
// Either way a wrong entry costs a scan of the chunks, with one warning, and no frame.
TEST_F(ReaderTest, AnIndexThatDisagreesWithAChunkIsRebuilt) {
  const auto frameMessage = [](size_t n) {
    size_t seen = 0;
    for (size_t i = 0; i < messages_->size(); ++i) {
      if ((*messages_)[i].kind == static_cast<uint8_t>(fb::Body::Frame) && seen++ == n) return i;
    }
    ADD_FAILURE() << "no frame " << n;
    return size_t{0};
  };
  const auto resourcesMessage = [] {
    for (size_t i = 0; i < messages_->size(); ++i) {
      if ((*messages_)[i].kind == static_cast<uint8_t>(fb::Body::Resources)) return i;
    }
    ADD_FAILURE() << "no resources";
    return size_t{0};
  };
  using Edit = std::function<void(std::vector<trace::ChunkInfo>&, std::vector<trace::MessageInfo>&)>;
  struct Case {
    const char* what;
    Edit edit;
    std::vector<std::string> warning;  // parts of the one warning
    bool withChecksum;                 // also as format 1.1 (what reading can see)
  };
  const Case cases[] = {
      {"the last frame's number",
       [&](auto&, auto& m) { m[frameMessage(kFrames - 1)].frame = 56834; },
       {"the index disagrees with chunk 4 (its message ", " is of frame 9, the index says frame 56834)"},
       true},
      {"a middle frame's number",
       [&](auto&, auto& m) { m[frameMessage(4)].frame = 56834; },
       {"index is invalid (message ", ": frame 5 after frame 56834)"},
       true},
      {"the resources' frame",
       [&](auto&, auto& m) { m[resourcesMessage()].frame += 1; },
       {"the index disagrees with chunk 0 (its message ", "the index says frame 1)"},
       true},
      {"a chunk's raw size", [](auto& c, auto&) { c[2].rawSize += 8; }, {"index is invalid (message "}, true},
      {"a chunk's raw size, and its last message's size with it",
       [&](auto& c, auto& m) {
         c[2].rawSize += 8;
         m[frameMessage(5)].size += 8;
       },
       {"the index disagrees with chunk 2 (it decompresses to "},
       true},
      {"a message's offset",
       [&](auto&, auto& m) { m[frameMessage(3)].offset += 8; },
       {"index is invalid (message "},
       true},
      {"a message's size",
       [&](auto&, auto& m) { m[frameMessage(2)].size -= 8; },
       {"index is invalid (message "},
       true},
      {"a frame's kind",
       [&](auto&, auto& m) { m[frameMessage(6)].kind = static_cast<uint8_t>(fb::Body::Marker); },
       {"the index disagrees with chunk 3 (its message ", " is a Frame, the index says Marker)"},
       false},
  };
  const Bytes header10 = headerFrame({.minor = 0});
  const std::span<const std::byte> header11 = std::span(*bytes_).first(headerEnd());
  const std::span<const std::byte> chunkBytes =
      std::span(*bytes_).subspan(headerEnd(), indexStart() - headerEnd());
  for (const bool withChecksum : {false, true}) {
    for (const Case& c : cases) {
      if (withChecksum && !c.withChecksum) continue;
      SCOPED_TRACE(std::string(c.what) + (withChecksum ? ", format 1.1" : ", format 1.0"));
      std::vector<trace::ChunkInfo> chunks = *chunks_;
      std::vector<trace::MessageInfo> messages = *messages_;
      if (!withChecksum) {
        for (auto& chunk : chunks) chunk.offset = chunk.offset - headerEnd() + header10.size();
      }
      c.edit(chunks, messages);
      const Bytes trace = withChecksum ? concat({header11, chunkBytes, indexFrame(chunks, messages, true)})
                                       : concat({header10, chunkBytes, indexFrame(chunks, messages, false)});
      // The resources, then every frame, the last frame's chunk first.
      auto reader = openBytes(trace);
      ASSERT_TRUE(reader) << reader.error().message;
      auto resources = reader->readResources();
      ASSERT_TRUE(resources) << resources.error().message;
      EXPECT_EQ(resources->size(), 1u);
      for (size_t n = 0; n < kFrames; ++n) {
        const size_t i = kFrames - 1 - n;
        auto frame = reader->readFrame(i);
        ASSERT_TRUE(frame) << i << ": " << frame.error().message;
        expectFrameEquals((*frames_)[i], frame.value());
      }
      EXPECT_EQ(reader->frameCount(), kFrames);
      EXPECT_FALSE(reader->hasIndex());
      EXPECT_TRUE(reader->complete());
      ASSERT_EQ(reader->warnings().size(), 1u);
      for (const std::string& part : c.warning)
        EXPECT_NE(reader->warnings()[0].find(part), std::string::npos) << reader->warnings()[0];
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Unedited, the same index is used as it is, in both forms.
  for (const bool withChecksum : {false, true}) {
    std::vector<trace::ChunkInfo> chunks = *chunks_;
    if (!withChecksum) {
      for (auto& chunk : chunks) chunk.offset = chunk.offset - headerEnd() + header10.size();
    }
    auto reader =
        openBytes(withChecksum ? concat({header11, chunkBytes, indexFrame(chunks, *messages_, true)})
                               : concat({header10, chunkBytes, indexFrame(chunks, *messages_, false)}));
    ASSERT_TRUE(reader);
    EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames);
    EXPECT_TRUE(reader->hasIndex());
    EXPECT_EQ(reader->warnings(), std::vector<std::string>{});
  }
}

TEST_F(ReaderTest, AnIndexPointingOutsideTheFileIsRefused) {
  // A well-formed index, its checksum right, whose chunk claims more bytes than there are.
  std::vector<trace::ChunkInfo> chunks = *chunks_;
  chunks.back().compressedSize = uint64_t{1} << 40;
  const Bytes frame = indexFrame(chunks, {}, true);
  auto reader = openBytes(concat({std::span(*bytes_).first(indexStart()), frame}));
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_FALSE(reader->warnings().empty());
  EXPECT_NE(reader->warnings()[0].find("index is invalid (chunk 5"), std::string::npos)
      << reader->warnings()[0];
  EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames);
}

TEST_F(ReaderTest, RandomAccessReadsWhatSequentialReadingReads) {
  auto reader = TraceReader::open(path_);
  ASSERT_TRUE(reader);
  std::vector<size_t> order(kFrames);
  for (size_t i = 0; i < kFrames; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  for (const size_t i : order) {
    auto frame = reader->readFrame(i);
    ASSERT_TRUE(frame) << frame.error().message;
    expectFrameEquals((*frames_)[i], frame.value());
  }
}

TEST(Reader, AnEmptyFileIsNotATrace) {
  auto reader = openBytes({});
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().message, "t.reel: byte 0: not a reel trace: the file is empty");
}

TEST(Reader, AFileThatIsNotZstdIsNotATrace) {
  const std::string text = "P6\n4 4\n255\nthis is a picture, not a trace";
  auto reader = openBytes(Bytes(reinterpret_cast<const std::byte*>(text.data()),
                                reinterpret_cast<const std::byte*>(text.data() + text.size())));
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().message, "t.reel: byte 0: not a reel trace: it does not start with a zstd frame");
}

TEST(Reader, AForeignZstdFileIsNotATrace) {
  const std::string text(1000, 'x');
  auto reader = openBytes(zstdFrame(text.data(), text.size()));
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().message,
            "t.reel: byte 0: not a reel trace: its first zstd frame holds no REEL message");
}

TEST(Reader, AMissingFileSaysSo) {
  auto reader = TraceReader::open("/nonexistent/trace.reel");
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().message, "/nonexistent/trace.reel: cannot open: No such file or directory");
}

// Opens `path` on another thread; fails the test (and ends the process, whose opening thread cannot be
// stopped) if that takes more than a few seconds, instead of hanging the suite.
Result<TraceReader> openWithin5s(const std::string& path) {
  auto opening = std::async(std::launch::async, [path] { return TraceReader::open(path); });
  if (opening.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "TraceReader::open(" << path << ") did not return within 5 s";
    std::fflush(stdout);
    std::_Exit(1);
  }
  return opening.get();
}

// Issue 17: a FIFO given as the trace blocked every subcommand for ever.
TEST(Reader, SpecialFilesAreRefusedAtOnceWithTheirName) {
  TempDir dir;
  const std::string fifo = dir.path("fifo.reel");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const struct {
    std::string path;
    std::string error;
  } cases[] = {
      {fifo,
       fifo + ": not a regular file (a FIFO): a trace is read from a file (save a piped trace to one first)"},
      {"/dev/zero",
       "/dev/zero: not a regular file (a character device): a trace is read from a file (save a "
       "piped trace to one first)"},
      {"/dev/null",
       "/dev/null: not a regular file (a character device): a trace is read from a file (save a "
       "piped trace to one first)"},
      {dir.dir(), dir.dir() + ": is a directory, not a trace"},
  };
  for (const auto& c : cases) {
    auto reader = openWithin5s(c.path);
    ASSERT_FALSE(reader) << c.path;
    EXPECT_EQ(reader.error().message, c.error);
  }
}

TEST_F(ReaderTest, ANewerMajorVersionIsRefused) {
  const Bytes header = headerFrame({.major = schema::kFormatMajor + 1, .minor = 3});
  auto reader = openBytes(concat({header, std::span(*bytes_).subspan(headerEnd())}));
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().message,
            "t.reel: byte 0: written in trace format " + std::to_string(schema::kFormatMajor + 1) +
                ".3, newer than this reader (format " + std::to_string(schema::kFormatMajor) + "." +
                std::to_string(schema::kFormatMinor) + "): read it with a newer reel");
}

TEST_F(ReaderTest, ANewerMinorVersionIsReadWithAWarning) {
  const Bytes header = headerFrame({.minor = schema::kFormatMinor + 1});
  auto reader = openBytes(concat({header, std::span(*bytes_).subspan(headerEnd())}));
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_FALSE(reader->warnings().empty());
  EXPECT_NE(reader->warnings()[0].find("newer than this reader"), std::string::npos) << reader->warnings()[0];
  EXPECT_EQ(reader->header().formatMinor, schema::kFormatMinor + 1);
  EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames);
}

// A newer writer of the same major version may add message kinds: the reader lists them, warns once
// about the version, and reads everything it knows, through the index or without it.
TEST_F(ReaderTest, ANewerMinorVersionWithUnknownMessageKindsIsRead) {
  const std::string newer = dir_->path("newer.reel");
  ASSERT_TRUE(rewriteTrace(path_, newer, {.formatMinor = schema::kFormatMinor + 1, .unknownKind = 200}));
  const Bytes bytes = readFile(newer);
  for (const bool withIndex : {true, false}) {
    SCOPED_TRACE(withIndex ? "with its index" : "without its index");
    auto whole = openBytes(bytes);
    ASSERT_TRUE(whole) << whole.error().message;
    const trace::ChunkInfo& last = whole->chunks().back();
    auto reader =
        withIndex ? std::move(whole)
                  : openBytes(Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(
                                                                       last.offset + last.compressedSize)));
    ASSERT_TRUE(reader) << reader.error().message;
    EXPECT_EQ(reader->hasIndex(), withIndex);
    ASSERT_EQ(reader->warnings().size(), withIndex ? 1u : 2u);
    EXPECT_NE(
        reader->warnings()[0].find("t.reel: written in trace format 1." +
                                   std::to_string(schema::kFormatMinor + 1) + ", newer than this reader"),
        std::string::npos)
        << reader->warnings()[0];
    const size_t unknown = static_cast<size_t>(
        std::ranges::count_if(reader->messages(), [](const trace::MessageInfo& m) { return m.kind == 200; }));
    EXPECT_EQ(unknown, kFrames);
    EXPECT_EQ(trace::messageKindName(200), "unknown message kind 200");
    EXPECT_EQ(expectReadableFramesIntact(reader.value()), kFrames);
    auto resources = reader->readResources();
    ASSERT_TRUE(resources) << resources.error().message;
    EXPECT_EQ(resources->size(), 1u);
    auto markers = reader->readMarkers();
    ASSERT_TRUE(markers) << markers.error().message;
    auto end = reader->readCaptureEnd();
    ASSERT_TRUE(end) << end.error().message;
    ASSERT_TRUE(end->has_value());
    EXPECT_EQ(end->value().frames, kFrames);
  }
}

TEST_F(ReaderTest, AHeaderWhoseFieldTablesLieIsRefused) {
  struct Case {
    HeaderSpec spec;
    const char* error;
  };
  static_assert(static_cast<int>(CommandType::Draw) == 25, "the expected messages below name Draw's id");
  const Case cases[] = {
      {{.handleFieldSize = 1}, "header: command 'BindPipeline': field 'pipeline' of type handle is 1 bytes"},
      {{.drawFieldOffset = 1000},
       "header: command 'Draw': field 'vertexCount' (offset 1000, 4 x 1 bytes) lies outside its 8-byte "
       "packet"},
      {{.drawId = 3}, "header: command table entry 25 ('Draw') has id 3"},
  };
  for (const Case& c : cases) {
    auto reader = openBytes(concat({headerFrame(c.spec), std::span(*bytes_).subspan(headerEnd())}));
    ASSERT_FALSE(reader);
    EXPECT_EQ(reader.error().message, std::string("t.reel: byte 0: ") + c.error);
  }
}

TEST_F(ReaderTest, AMessageThatFailsVerificationIsNamed) {
  // A chunk whose one message has the REEL identifier and a plausible size, and garbage inside.
  Bytes garbage(64, std::byte{0xEE});
  schema::storeLE32(garbage.data(), 60);
  schema::storeLE32(garbage.data() + 4, 0x7FFFFFF0u);  // root offset far outside
  std::memcpy(garbage.data() + 8, "REEL", 4);
  const Bytes chunk = zstdFrame(garbage.data(), garbage.size());
  auto reader = openBytes(concat({std::span(*bytes_).first(headerEnd()), chunk}));
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->frameCount(), 0u);
  ASSERT_EQ(reader->warnings().size(), 2u);
  EXPECT_EQ(reader->warnings()[1],
            "t.reel: byte " + std::to_string(headerEnd()) +
                ": chunk 0: message at offset 0: message fails FlatBuffers verification: the "
                "rest of the chunk is skipped");
}

TEST_F(ReaderTest, AFrameWhoseColumnsDisagreeIsRefusedWithItsLocation) {
  // A verified message whose bucket has more chain lengths than keys: the verifier cannot see that.
  flatbuffers::FlatBufferBuilder fbb;
  const uint8_t keys[16] = {1, 2};  // two keys, shuffled
  const uint32_t lengths[] = {1, 1, 1};
  const auto bucket = fb::CreateBucket(fbb, 0, fbb.CreateString("b"), fbb.CreateString("u64"), false,
                                       fbb.CreateVector(keys, 16), fbb.CreateVector(lengths, 3));
  EXPECT_EQ(frameError(fbb, bucket),
            "t.reel: byte " + std::to_string(headerEnd()) +
                ": chunk 0: message at offset 0: frame 0: bucket 0: 2 keys but 3 chain lengths");
}

TEST_F(ReaderTest, APassColumnOfAnotherLengthThanTheKeysIsRefused) {
  // Format 1.5's pass column names one pass per key: a column of another length is refused, not read past.
  flatbuffers::FlatBufferBuilder fbb;
  const uint8_t keys[16] = {1, 2};  // two keys, shuffled
  const uint32_t lengths[] = {0, 0};
  const uint16_t passes[] = {0, 1, 2};
  const auto name = fbb.CreateString("b");
  const auto keyType = fbb.CreateString("u64");
  const auto keyColumn = fbb.CreateVector(keys, 16);
  const auto lengthColumn = fbb.CreateVector(lengths, 2);
  const auto passColumn = fbb.CreateVector(passes, 3);
  const auto bucket = fb::CreateBucket(fbb, 0, name, keyType, false, keyColumn, lengthColumn, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 128, 0, 0, 0, 0, passColumn);
  EXPECT_EQ(frameError(fbb, bucket),
            "t.reel: byte " + std::to_string(headerEnd()) +
                ": chunk 0: message at offset 0: frame 0: bucket 0: 2 keys but 3 passes");
}

// Residual segments (format 1.7) whose mask does not fit the bytes stored: each predicted frame is
// refused with the column named, never read past or restored wrong; the frames stored whole still read.
TEST_F(ReaderTest, ResidualSegmentsThatDoNotMakeTheColumnAreRefused) {
  TempDir dir;
  const std::string lying = dir.path("lying.reel");
  ASSERT_TRUE(rewriteTrace(path_, lying, {.markEverySegment = true}));
  auto reader = TraceReader::open(lying);
  ASSERT_TRUE(reader) << reader.error().message;
  size_t refused = 0, whole = 0;
  for (size_t i = 0; i < kFrames; ++i) {
    auto frame = reader->readFrame(i);
    if (!frame) {
      EXPECT_NE(frame.error().message.find("payload column's residual segments"), std::string::npos)
          << frame.error().message;
      ++refused;
      continue;
    }
    expectFrameEquals((*frames_)[i], frame.value());
    ++whole;
  }
  EXPECT_GT(refused, 0u) << "no predicted frame had its segments changed";
  EXPECT_GT(whole, 0u);
}

TEST_F(ReaderTest, AChunkLargerThanAllowedIsRefused) {
  trace::ReaderOptions options;
  options.maxChunkBytes = 1024;  // smaller than the chunks of the reference trace
  auto reader = openBytes(*bytes_, options);
  ASSERT_TRUE(reader);
  ASSERT_FALSE(reader->warnings().empty());
  EXPECT_NE(reader->warnings()[0].find("claims"), std::string::npos) << reader->warnings()[0];
}

// Seeds for the fuzzers (fuzz/): with REEL_FUZZ_CORPUS_DIR set, writes this trace and damaged copies
// of it, and its decompressed messages, there.
TEST_F(ReaderTest, WritesTheFuzzCorpusWhenAsked) {
  const char* dir = std::getenv("REEL_FUZZ_CORPUS_DIR");
  if (!dir) GTEST_SKIP() << "REEL_FUZZ_CORPUS_DIR is not set";
  const std::string base = dir;
  writeFile(base + "/trace/complete.reel", *bytes_);
  writeFile(base + "/trace/no-index.reel",
            Bytes(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>(indexStart())));
  writeFile(base + "/trace/cut.reel",
            Bytes(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>((*chunks_)[1].offset + 9)));
  Bytes raw;
  for (uint64_t at = 0; at < indexStart();) {
    const size_t size = ZSTD_findFrameCompressedSize(bytes_->data() + at, bytes_->size() - at);
    Bytes out(ZSTD_decompressBound(bytes_->data() + at, size));
    out.resize(ZSTD_decompress(out.data(), out.size(), bytes_->data() + at, size));
    raw.insert(raw.end(), out.begin(), out.end());
    at += size;
  }
  writeFile(base + "/messages/decompressed.bin", raw);

  // And small traces (the fuzzers go faster on small inputs): three frames of one draw, a chunk each,
  // and four frames of 40 draws in one chunk, each after the first predicted from the frames before it
  // (residual columns kept as segments, structures repeated).
  TempDir small;
  auto captureSmall = [&](const std::string& name, uint32_t frames, uint32_t draws, uint32_t framesPerChunk) {
    NullDevice device(false);
    Renderer renderer(device);
    Scene scene(renderer, {.draws = draws, .auxBytes = 8});
    capture::CaptureOptions options;
    options.path = small.path(name);
    options.compression.maxFramesPerChunk = framesPerChunk;
    options.handleSignals = false;
    auto capture = capture::Capture::start(renderer, options);
    ASSERT_TRUE(capture);
    for (uint32_t f = 0; f < frames; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
  };
  captureSmall("small.reel", 3, 1, 1);
  captureSmall("small-predicted.reel", 4, 40, 4);
  const Bytes smallTrace = readFile(small.path("small.reel"));
  writeFile(base + "/trace/small.reel", smallTrace);
  writeFile(base + "/trace/small-predicted.reel", readFile(small.path("small-predicted.reel")));
  // What the reader must survive without losing a frame: a damaged index, and a newer minor version
  // with a message kind it does not know.
  Bytes badIndex = smallTrace;
  badIndex[badIndex.size() - 40] ^= std::byte{0x10};
  writeFile(base + "/trace/small-bad-index.reel", badIndex);
  ASSERT_TRUE(rewriteTrace(small.path("small.reel"), base + "/trace/small-newer-minor.reel",
                           {.formatMinor = schema::kFormatMinor + 1, .unknownKind = 200}));
  // And the same trace as format 1.0 wrote it (no index checksum): its index is checked chunk by chunk.
  {
    auto reader = TraceReader::open(small.path("small.reel"));
    ASSERT_TRUE(reader);
    std::vector<trace::ChunkInfo> chunks(reader->chunks().begin(), reader->chunks().end());
    const std::vector<trace::MessageInfo> messages(reader->messages().begin(), reader->messages().end());
    const Bytes header = headerFrame({.minor = 0});
    const uint64_t start = chunks.front().offset, end = chunks.back().offset + chunks.back().compressedSize;
    for (auto& chunk : chunks) chunk.offset = chunk.offset - start + header.size();
    writeFile(base + "/trace/small-format-1.0.reel",
              concat({header, std::span(smallTrace).subspan(start, end - start),
                      indexFrame(chunks, messages, false)}));
  }
  raw.clear();
  for (uint64_t at = 0; at < smallTrace.size();) {
    const size_t size = ZSTD_findFrameCompressedSize(smallTrace.data() + at, smallTrace.size() - at);
    if (ZSTD_isError(size) || ZSTD_isSkippableFrame(smallTrace.data() + at, size)) break;
    Bytes out(ZSTD_decompressBound(smallTrace.data() + at, size));
    out.resize(ZSTD_decompress(out.data(), out.size(), smallTrace.data() + at, size));
    raw.insert(raw.end(), out.begin(), out.end());
    at += size;
  }
  writeFile(base + "/messages/small.bin", raw);
}

}  // namespace
}  // namespace reel::testing

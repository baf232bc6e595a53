// The trace writer's throughput and ratio on a real trace (scripts/capture-benchmarks.sh runs it):
//
//   reel_writer_bench throughput TRACE   the trace's messages appended again to a TraceFileWriter, as the
//                                        capture's writer thread appends them: raw MB/s at 1, 2, 4 and 8
//                                        compression threads (chunks in parallel) and at 1, 2, 4 and 8 of
//                                        zstd's own workers inside one chunk at a time; medians of 3
//   reel_writer_bench ratio TRACE        the trace replayed on the null device and captured again, with
//                                        and without frame prediction and at 1..16 frames a chunk (what a
//                                        time limit on chunks costs: 0.25 s holds 15 frames at 60 frames/s)
//
// One JSON object a line. The encoder (MessageEncoder) is not in the throughput: the messages come
// built; its cost is the capture's writer thread (CaptureStats::writerCpuNs), in the ratio lines.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "reel/capture/capture.h"
#include "reel/replay/session.h"
#include "reel/schema/compression.h"
#include "reel/trace/reader.h"
#include "reel/trace/writer.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Message {
  std::vector<uint8_t> bytes;
  reel::trace::MessageKind kind;
  uint64_t frame;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "reel_writer_bench: %s\n", message.c_str());
  return 2;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int throughput(const std::string& path) {
  auto reader = reel::trace::TraceReader::open(path);
  if (!reader) return fail(reader.error().message);
  std::vector<std::byte> file;
  {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return fail("cannot read " + path);
    std::fseek(f, 0, SEEK_END);
    file.resize(static_cast<size_t>(std::ftell(f)));
    std::fseek(f, 0, SEEK_SET);
    if (std::fread(file.data(), 1, file.size(), f) != file.size()) return fail("cannot read " + path);
    std::fclose(f);
  }
  // The messages as the writer thread had them, chunk by chunk.
  std::vector<Message> messages;
  uint64_t rawBytes = 0;
  reel::schema::ChunkDecompressor decompressor;
  uint32_t loaded = UINT32_MAX;
  std::vector<std::byte> chunk;
  for (const reel::trace::MessageInfo& m : reader->messages()) {
    if (m.chunk != loaded) {
      const reel::trace::ChunkInfo& c = reader->chunks()[m.chunk];
      chunk.resize(c.rawSize);
      auto n = decompressor.decompress(file.data() + c.offset, c.compressedSize, chunk.data(), chunk.size());
      if (!n) return fail(n.error().message);
      loaded = m.chunk;
    }
    const auto* at = reinterpret_cast<const uint8_t*>(chunk.data() + m.offset);
    messages.push_back(
        {std::vector<uint8_t>(at, at + m.size), static_cast<reel::trace::MessageKind>(m.kind), m.frame});
    rawBytes += m.size;
  }
  const std::string out = path + ".rewritten";
  auto run = [&](const char* mode, uint32_t threads, int zstdWorkers) -> int {
    std::vector<double> seconds;
    uint64_t fileBytes = 0;
    for (int repeat = 0; repeat < 3; ++repeat) {
      reel::trace::CompressionSettings settings;
      settings.threads = threads;
      settings.zstdWorkers = zstdWorkers;
      auto writer = reel::trace::TraceFileWriter::create(out, settings);
      if (!writer) return fail(writer.error().message);
      const auto start = Clock::now();
      // No header frame: the file is only measured, never read.
      for (const Message& m : messages) {
        if (auto ok = writer->append(m.bytes, m.kind, m.frame); !ok) return fail(ok.error().message);
        if (m.kind == reel::trace::MessageKind::Frame) {
          if (auto ok = writer->frameDone(); !ok) return fail(ok.error().message);
        }
      }
      if (auto ok = writer->finish(); !ok) return fail(ok.error().message);
      seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
      fileBytes = writer->fileBytes();
    }
    const double s = median(seconds);
    std::printf(
        "{\"bench\":\"writer_throughput\",\"trace\":\"%s\",\"mode\":\"%s\",\"threads\":%u,\"raw_MB\":%.3f,"
        "\"seconds_median_of_3\":%.4f,\"raw_MBps\":%.1f,\"file_MB\":%.3f,\"ratio\":%.2f}\n",
        path.c_str(), mode, threads ? threads : static_cast<uint32_t>(zstdWorkers), double(rawBytes) / 1e6, s,
        double(rawBytes) / 1e6 / s, double(fileBytes) / 1e6, double(rawBytes) / double(fileBytes));
    std::fflush(stdout);
    return 0;
  };
  if (int r = run("inline", 0, 0)) return r;
  for (const uint32_t t : {1u, 2u, 4u, 8u}) {
    if (int r = run("chunks_in_parallel", t, 0)) return r;
  }
  for (const int w : {1, 2, 4, 8}) {
    if (int r = run("zstd_workers", 0, w)) return r;
  }
  std::remove(out.c_str());
  return 0;
}

int ratio(const std::string& path) {
  auto source = reel::trace::TraceReader::open(path);
  if (!source) return fail(source.error().message);
  uint64_t draws = 0;
  for (size_t i = 0; i < source->frameCount(); ++i) {
    auto frame = source->readFrame(i);
    if (!frame) return fail(frame.error().message);
    for (const auto& b : frame->buckets) {
      for (size_t k = 0; k < b.keyCount(); ++k) {
        b.forEachInChain(k, [&](const reel::trace::PacketRecord& p) {
          const std::string_view name = source->header().commands[p.type].name;
          draws += name.starts_with("Draw") || name.starts_with("Dispatch");
        });
      }
    }
  }
  const std::string out = path + ".recaptured";
  auto run = [&](bool predict, uint32_t framesPerChunk) -> int {
    auto session = reel::replay::ReplaySession::open(path, {.device = "null"});
    if (!session) return fail(session.error().message);
    reel::capture::CaptureOptions options;
    options.path = out;
    options.handleSignals = false;
    options.compression.predictFrames = predict;
    options.compression.maxFramesPerChunk = framesPerChunk;
    options.compression.chunkMillis = 0;  // chunks by frame count alone: the same file on every machine
    options.keyFrames.everyMillis = 0;    // nor key frames by time: the frames' own encoding alone
    auto capture = reel::capture::Capture::start((*session)->renderer(), options);
    if (!capture) return fail(capture.error().message);
    for (size_t i = 0; i < (*session)->reader().frameCount(); ++i) {
      if (auto ok = (*session)->replayFrame(i); !ok) return fail(ok.error().message);
    }
    if (auto ok = (*capture)->finish(); !ok) return fail(ok.error().message);
    const reel::capture::CaptureStats stats = (*capture)->stats();
    std::printf(
        "{\"bench\":\"ratio\",\"trace\":\"%s\",\"predict\":%s,\"frames_per_chunk\":%u,\"frames\":%llu,"
        "\"draws\":%llu,\"message_bytes\":%llu,\"file_bytes\":%llu,\"ratio\":%.2f,\"bytes_per_draw\":%.2f,"
        "\"writer_cpu_ms\":%.1f}\n",
        path.c_str(), predict ? "true" : "false", framesPerChunk,
        static_cast<unsigned long long>(stats.framesWritten), static_cast<unsigned long long>(draws),
        static_cast<unsigned long long>(stats.messageBytes), static_cast<unsigned long long>(stats.fileBytes),
        double(stats.messageBytes) / double(stats.fileBytes),
        draws ? double(stats.fileBytes) / double(draws) : 0.0, double(stats.writerCpuNs) / 1e6);
    std::fflush(stdout);
    return 0;
  };
  for (const uint32_t n : {1u, 2u, 4u, 8u, 16u}) {
    if (int r = run(true, n)) return r;
  }
  if (int r = run(false, 8)) return r;
  if (int r = run(false, 16)) return r;
  std::remove(out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s throughput|ratio TRACE\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "throughput") return throughput(argv[2]);
  if (mode == "ratio") return ratio(argv[2]);
  return fail("unknown mode '" + mode + "'");
}

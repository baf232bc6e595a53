// The trace writer's throughput and ratio on a real trace (scripts/capture-benchmarks.sh runs it):
//
//   reel_writer_bench throughput TRACE   the trace's messages appended again to a TraceFileWriter, as the
//                                        capture's writer thread appends them: raw MB/s at 1, 2, 4 and 8
//                                        compression threads (chunks in parallel) and at 1, 2, 4 and 8 of
//                                        zstd's own workers inside one chunk at a time; medians of 3
//   reel_writer_bench codec TRACE        the same messages on one thread at several zstd levels with and
//                                        without long-distance matching: raw MB/s and ratio, medians of 3
//   reel_writer_bench ratio TRACE        the trace replayed on the null device and captured again, with
//                                        and without frame prediction and at 1..16 frames a chunk (what a
//                                        time limit on chunks costs: 0.25 s holds 15 frames at 60 frames/s)
//   reel_writer_bench breakdown TRACE    where a capture's time goes, per frame, the trace replayed on the
//                                        null device: on one thread, the writer's stages (gathering the
//                                        frame's columns out of its streams, encoding the message, appending
//                                        it to the open chunk, compressing the chunks); then the capture
//                                        itself, encoding on the writer thread and on encode threads: the
//                                        render thread's CPU in its calls, its waits and wakes, the
//                                        threads' CPU (thread CPU time; medians of 3 passes)
//   reel_writer_bench chunks TRACE       the writer's stages on one thread at chunk sizes of 32 to 256 MiB:
//                                        frames a chunk, message and file MB a frame, the stages' CPU
//
// One JSON object a line. The encoder (MessageEncoder) is not in the throughput: the messages come
// built; its cost is the capture's writer thread (CaptureStats::writerCpuNs), in the ratio lines.

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "reel/capture/capture.h"
#include "reel/replay/session.h"
#include "reel/runtime/frame.h"
#include "reel/runtime/result.h"
#include "reel/schema/compression.h"
#include "reel/trace/frame_encoding.h"
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

int throughput(const std::string& path, bool codecs) {
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
  auto run = [&](const char* mode, uint32_t threads, int zstdWorkers,
                 const reel::trace::CompressionSettings& base = {}) -> int {
    std::vector<double> seconds;
    uint64_t fileBytes = 0;
    for (int repeat = 0; repeat < 3; ++repeat) {
      reel::trace::CompressionSettings settings = base;
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
  if (codecs) {
    // The codec's settings on the frames as written (predicted, format 1.3), on one thread: what each
    // costs in speed and ratio now that prediction already removes what repeats from frame to frame.
    struct Codec {
      const char* name;
      int level;
      bool ldm;
      int hashLog = 0;  // 0: the level's own
    };
    for (const Codec& c :
         {Codec{"level1_auto", 1, false, reel::trace::CompressionSettings::kAutoHashLog},
          Codec{"level1_ldm", 1, true}, Codec{"level1", 1, false}, Codec{"level1_hash16", 1, false, 16},
          Codec{"level1_hash17", 1, false, 17}, Codec{"level1_hash18", 1, false, 18},
          Codec{"level2", 2, false}, Codec{"level3", 3, false}, Codec{"level-1", -1, false},
          Codec{"level-3", -3, false}}) {
      reel::trace::CompressionSettings settings;
      settings.level = c.level;
      settings.longDistanceMatching = c.ldm;
      settings.hashLog = c.hashLog;
      if (int r = run(c.name, 0, 0, settings)) return r;
    }
    std::remove(out.c_str());
    return 0;
  }
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

uint64_t threadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(t.tv_nsec);
}

// The writer's stages, each timed on the render thread inside the observer call (so that the frame's
// streams are read while the render thread holds them, as a lease lets the encoders): gathering the
// frame's columns out of its streams (what must happen while the frame is leased), encoding the message
// from them and the two frames before (what several threads can do at once), appending it to the open
// chunk, and frameDone, which compresses and writes a chunk when it closes (no compression threads: on
// this thread, so its time counts here).
struct StageTimer final : reel::FrameObserver {
  reel::trace::FrameGatherer gatherer;
  reel::trace::FrameEncoder encoder;
  reel::trace::GatheredFrame frames[3];
  uint32_t newest = 2, run = 0;
  std::vector<uint64_t> lastEpoch;
  std::optional<reel::trace::TraceFileWriter> file;
  std::vector<reel::trace::BucketSource> buckets;
  uint64_t frameCount = 0, gatherNs = 0, encodeNs = 0, appendNs = 0, compressNs = 0, messageBytes = 0,
           packetBytes = 0;
  std::string error;

  void onFrame(const reel::FrameView& view) override {
    if (!error.empty()) return;
    reel::trace::bucketSources(view.buckets, buckets);
    const reel::trace::FrameSource source{view.frame, view.sortedOrderHash, view.requests, buckets};
    // As MessageEncoder::frame does: predicted from the frames before it in its chunk.
    const uint32_t slot = (newest + 1) % 3;
    const uint64_t t0 = threadCpuNs();
    if (auto ok = gatherer.gather(source, frames[slot]); !ok) {
      error = ok.error().message;
      return;
    }
    reel::trace::markRetained(frames[slot], lastEpoch);
    const uint64_t t1 = threadCpuNs();
    run = file->chunkFrames() > 0 ? std::min<uint32_t>(run + 1, 2) : 0;
    const auto message = encoder.encode(frames[slot], run >= 1 ? &frames[newest] : nullptr,
                                        run >= 2 ? &frames[(newest + 2) % 3] : nullptr);
    newest = slot;
    const uint64_t t2 = threadCpuNs();
    auto appended = file->append(message, reel::trace::MessageKind::Frame, view.frame);
    const uint64_t t3 = threadCpuNs();
    if (appended) appended = file->frameDone();
    const uint64_t t4 = threadCpuNs();
    if (!appended) error = appended.error().message;
    gatherNs += t1 - t0;
    encodeNs += t2 - t1;
    appendNs += t3 - t2;
    compressNs += t4 - t3;
    messageBytes += message.size();
    packetBytes += frames[slot].counts.packetBytes;
    ++frameCount;
  }
};

// The capture's own calls on the render thread: opening() is added before the capture and closing()
// after it, and a frame calls its observers in the order they were added.
struct ObserverClock {
  struct Mark final : reel::FrameObserver {
    Mark(ObserverClock& c, bool close) : clock(c), closing(close) {}
    void onFrameStart(const reel::FrameStart&) override { at(); }
    void onFrame(const reel::FrameView&) override { at(); }
    void at() {
      if (!closing) {
        clock.cpuMark = threadCpuNs();
        clock.wallMark = Clock::now();
        return;
      }
      clock.cpuNs += threadCpuNs() - clock.cpuMark;
      clock.wallNs += static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - clock.wallMark).count());
    }
    ObserverClock& clock;
    bool closing;
  };
  Mark opening{*this, false}, closing{*this, true};
  uint64_t cpuMark = 0, cpuNs = 0, wallNs = 0;
  Clock::time_point wallMark{};
};

// The writer's stages on one thread for `settings` (time limit off: the same chunks every pass), medians of
// 3 passes.
struct Stages {
  double gatherMs = 0, encodeMs = 0, appendMs = 0, compressMs = 0;  // per frame
  double messageMB = 0, packetMB = 0, fileMB = 0;                   // per frame
  double framesPerChunk = 0;
};

reel::Result<Stages> stages(const std::string& path, reel::trace::CompressionSettings settings) {
  const std::string out = path + ".stages";
  settings.threads = 0;      // compression on the thread that closes the chunk: timed in frameDone
  settings.chunkMillis = 0;  // chunks by size and frame count: the same chunks every pass
  std::vector<double> gather, encode, append, compress;
  Stages result;
  for (int pass = 0; pass < 3; ++pass) {
    auto session = reel::replay::ReplaySession::open(path, {.device = "null"});
    if (!session) return session.error();
    auto file = reel::trace::TraceFileWriter::create(out, settings);
    if (!file) return file.error();
    StageTimer timer;
    timer.file.emplace(std::move(file.value()));
    const reel::ObserverRegistration registration = (*session)->renderer().addObserver(timer);
    for (size_t i = 0; i < (*session)->reader().frameCount(); ++i) {
      if (auto ok = (*session)->replayFrame(i); !ok) return ok.error();
    }
    (*session)->renderer().flushAndWait();
    if (!timer.error.empty()) return reel::Error{timer.error};
    const uint64_t before = threadCpuNs();
    if (auto ok = timer.file->finish(); !ok) return ok.error();
    timer.compressNs += threadCpuNs() - before;  // the last chunk
    const double n = double(timer.frameCount);
    gather.push_back(double(timer.gatherNs) / 1e6 / n);
    encode.push_back(double(timer.encodeNs) / 1e6 / n);
    append.push_back(double(timer.appendNs) / 1e6 / n);
    compress.push_back(double(timer.compressNs) / 1e6 / n);
    result.messageMB = double(timer.messageBytes) / 1e6 / n;
    result.packetMB = double(timer.packetBytes) / 1e6 / n;
    result.fileMB = double(timer.file->fileBytes()) / 1e6 / n;
    result.framesPerChunk = n / double(timer.file->chunks());
  }
  std::remove(out.c_str());
  result.gatherMs = median(gather);
  result.encodeMs = median(encode);
  result.appendMs = median(append);
  result.compressMs = median(compress);
  return result;
}

// What a chunk's size costs and saves: a chunk's first frame is written whole (nothing before it in
// its chunk to predict from), and a frame written whole is the most costly one to compress and to store.
int chunks(const std::string& path) {
  for (const uint64_t mib : {32ull, 64ull, 128ull, 256ull}) {
    reel::trace::CompressionSettings settings;
    settings.chunkBytes = mib << 20;
    auto s = stages(path, settings);
    if (!s) return fail(s.error().message);
    std::printf(
        "{\"bench\":\"chunk_size\",\"trace\":\"%s\",\"chunk_MiB\":%llu,\"frames_per_chunk\":%.2f,"
        "\"message_MB_per_frame\":%.3f,\"file_MB_per_frame\":%.3f,\"encode_ms\":%.3f,\"append_ms\":%.3f,"
        "\"compress_ms_one_thread\":%.3f}\n",
        path.c_str(), static_cast<unsigned long long>(mib), s->framesPerChunk, s->messageMB, s->fileMB,
        s->encodeMs, s->appendMs, s->compressMs);
    std::fflush(stdout);
  }
  return 0;
}

int breakdown(const std::string& path) {
  auto source = reel::trace::TraceReader::open(path);
  if (!source) return fail(source.error().message);
  const size_t frameCount = source->frameCount();
  const std::string out = path + ".breakdown";
  auto s = stages(path, {});
  if (!s) return fail(s.error().message);
  std::printf(
      "{\"bench\":\"breakdown_stages\",\"trace\":\"%s\",\"frames\":%zu,\"packet_MB_per_frame\":%.3f,"
      "\"message_MB_per_frame\":%.3f,\"gather_ms\":%.3f,\"encode_ms\":%.3f,\"append_ms\":%.3f,"
      "\"compress_ms_one_thread\":%.3f}\n",
      path.c_str(), frameCount, s->packetMB, s->messageMB, s->gatherMs, s->encodeMs, s->appendMs,
      s->compressMs);
  std::fflush(stdout);
  // The capture itself, frames replayed as fast as the null device takes them (so the capture is the
  // bottleneck, if anything is): the render thread's calls into it, its waits and wakes, and the CPU of
  // the writer and encode threads; encoding on the writer thread (0) and on the default encode threads.
  for (const uint32_t threads : {0u, reel::capture::kAutoEncodeThreads}) {
    std::vector<double> observerCpu, waitMs, writerCpu, encodeCpu, framesPerS;
    std::vector<uint64_t> waits, wakes;
    uint32_t threadsUsed = 0;
    for (int pass = 0; pass < 3; ++pass) {
      auto session = reel::replay::ReplaySession::open(path, {.device = "null"});
      if (!session) return fail(session.error().message);
      ObserverClock clock;
      reel::ObserverRegistration opening = (*session)->renderer().addObserver(clock.opening);
      reel::capture::CaptureOptions options;
      options.path = out;
      options.handleSignals = false;
      options.keyFrames.everyMillis = 0;
      options.encodeThreads = threads;
      auto capture = reel::capture::Capture::start((*session)->renderer(), options);
      if (!capture) return fail(capture.error().message);
      reel::ObserverRegistration closing = (*session)->renderer().addObserver(clock.closing);
      const auto start = Clock::now();
      for (size_t i = 0; i < frameCount; ++i) {
        if (auto ok = (*session)->replayFrame(i); !ok) return fail(ok.error().message);
      }
      (*session)->renderer().flushAndWait();
      closing.reset();
      opening.reset();
      if (auto ok = (*capture)->finish(); !ok) return fail(ok.error().message);
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      const reel::capture::CaptureStats stats = (*capture)->stats();
      const double n = double(stats.framesWritten);
      observerCpu.push_back(double(clock.cpuNs) / 1e3 / n);
      waitMs.push_back(double(stats.renderWaitNs) / 1e6 / n);
      writerCpu.push_back(double(stats.writerCpuNs) / 1e6 / n);
      encodeCpu.push_back(double(stats.encodeCpuNs) / 1e6 / n);
      framesPerS.push_back(n / seconds);
      waits.push_back(stats.renderWaits);
      wakes.push_back(stats.renderWakes);
      threadsUsed = stats.encodeThreads;
    }
    std::sort(waits.begin(), waits.end());
    std::sort(wakes.begin(), wakes.end());
    std::printf(
        "{\"bench\":\"breakdown_capture\",\"trace\":\"%s\",\"frames\":%zu,\"encode_threads\":%u,"
        "\"observer_cpu_us\":%.2f,\"render_wait_ms_per_frame\":%.3f,\"render_waits\":%llu,"
        "\"render_wakes\":%llu,\"writer_thread_cpu_ms\":%.3f,\"encode_cpu_ms\":%.3f,\"frames_per_s\":%.1f}\n",
        path.c_str(), frameCount, threadsUsed, median(observerCpu), median(waitMs),
        static_cast<unsigned long long>(waits[1]), static_cast<unsigned long long>(wakes[1]),
        median(writerCpu), median(encodeCpu), median(framesPerS));
    std::fflush(stdout);
  }
  std::remove(out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s throughput|codec|ratio|breakdown|chunks TRACE\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "throughput") return throughput(argv[2], false);
  if (mode == "codec") return throughput(argv[2], true);
  if (mode == "ratio") return ratio(argv[2]);
  if (mode == "breakdown") return breakdown(argv[2]);
  if (mode == "chunks") return chunks(argv[2]);
  return fail("unknown mode '" + mode + "'");
}

// The container side of the writer (reel/schema/container.h): the header frame, chunks compressed on
// worker threads and written in file order, and the index frame with its footer.
//
// The thread that appends (the capture's writer thread) copies each message into the open chunk's
// buffer. A closed chunk becomes a job: the first idle compression thread compresses it whole (one zstd
// frame, content size in its header) and whichever thread finishes the oldest job writes every finished
// job at the front of the queue, so chunks reach the file in order, each in one write. The index needs
// only a chunk's position in the file order, which is its sequence number.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "reel/runtime/cpu_time.h"
#include "reel/schema/checksum.h"
#include "reel/schema/compression.h"
#include "reel/schema/messages.h"
#include "reel/trace/writer.h"

namespace reel::trace {
namespace {

// A chunk's decompressed bytes are indexed with 32-bit offsets: close a chunk before a message would
// take it past this, whatever chunkBytes says.
constexpr uint64_t kMaxChunkRawBytes = 1ull << 31;
constexpr uint8_t kZeros[schema::kMessageAlignment] = {};
// The most the open chunk reserves ahead (a setting of chunkBytes may be far larger, as good as none).
constexpr uint64_t kMaxReservedChunkBytes = 256ull << 20;

uint32_t threadCount(uint32_t asked) {
  if (asked != CompressionSettings::kAutoThreads) return asked;
  return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

// The file on disk. A file system that cannot sync (EINVAL: a pipe, some FUSE mounts) is not an error.
class PosixFileSink final : public FileSink {
 public:
  explicit PosixFileSink(int fd) : fd_(fd) {}
  ~PosixFileSink() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Written write(const void* data, size_t size) override {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) return {0, errno};
    return {static_cast<size_t>(n), 0};
  }
  int sync() override { return ::fdatasync(fd_) == 0 || errno == EINVAL ? 0 : errno; }
  int close() override {
    const int fd = std::exchange(fd_, -1);
    return fd < 0 || ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

}  // namespace

Result<std::unique_ptr<FileSink>> createFileSink(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot create trace ", path, ": ", std::strerror(errno));
  return std::unique_ptr<FileSink>(std::make_unique<PosixFileSink>(fd));
}

struct TraceFileWriter::Impl {
  struct ChunkEntry {
    uint64_t offset, compressedSize, rawSize;
  };
  struct MessageEntry {
    uint64_t frame;
    uint32_t chunk, offset, size;
    uint8_t kind;
  };
  struct Job {
    std::vector<uint8_t> raw;
    std::vector<uint8_t> compressed;
    uint64_t frames = 0;  // frame messages in it
    bool taken = false;   // a compression thread has it
    bool done = false;    // compressed (or failed: `error`)
    std::string error;
  };

  Impl(std::unique_ptr<FileSink> file, std::string filePath, const CompressionSettings& s,
       schema::ChunkCompressor headerCompressor)
      : sink(std::move(file)),
        path(std::move(filePath)),
        settings(s),
        compressor(std::move(headerCompressor)),
        compressionThreads(s.threadPriority) {}
  ~Impl() {
    stopWorkers();
    if (sink) sink->close();
  }

  Result<void> closeChunk();
  Result<void> writeAll(const void* data, size_t size);
  Error ioError(const char* what, int code) const {
    return fail(path, ": ", what, " at byte ", fileOffset.load(), ": ", std::strerror(code));
  }
  template <typename T>
  Result<T> located(Result<T> r) const {
    if (r) return r;
    return fail(path, ": ", r.error().message);
  }
  bool chunkDue(std::chrono::steady_clock::time_point now) const {
    return chunkOpen && settings.chunkMillis > 0 &&
           now >= chunkOpenedAt + std::chrono::milliseconds(settings.chunkMillis);
  }

  // Raw buffers kept for the next chunks: as many as can be in use at once (the chunks pending at
  // maxPendingBytes, besides the open one), so that the memory kept is what a capture reaches anyway.
  size_t maxSpareBuffers() const {
    const uint64_t pending = settings.maxPendingBytes / std::max<uint64_t>(settings.chunkBytes, 1);
    return static_cast<size_t>(std::clamp<uint64_t>(pending, 1, workers.size() + 2));
  }

  // ---- compression threads ----
  void startWorkers(std::vector<schema::ChunkCompressor> compressors);
  void stopWorkers();
  void workerLoop(schema::ChunkCompressor& own);
  static void compress(schema::ChunkCompressor& c, Job& job);
  // Writes every finished job at the front of the queue, in order; one thread at a time. `lock` holds
  // `mutex`, and is released around each write.
  void writeFinished(std::unique_lock<std::mutex>& lock);
  // The first error of a compression or a write, as the caller's Result.
  Result<void> asyncError() {
    std::lock_guard lock(mutex);
    if (error.empty()) return {};
    return Error{error};
  }

  std::unique_ptr<FileSink> sink;  // null once finish() closed it
  std::string path;
  CompressionSettings settings;
  schema::ChunkCompressor compressor;  // the header's, and every chunk's when there are no workers
  bool headerWritten = false;

  // The appending thread's.
  bool chunkOpen = false;
  std::vector<uint8_t> raw;  // the open chunk
  uint32_t chunkFrames = 0;
  std::chrono::steady_clock::time_point chunkOpenedAt;
  std::vector<MessageEntry> messages;
  uint32_t chunksClosed = 0;
  std::atomic<uint64_t> rawBytes{0};

  std::mutex mutex;
  std::condition_variable workAvailable;              // a job was queued, or the workers are to stop
  std::condition_variable progress;                   // a job was written (pending bytes went down)
  std::deque<std::unique_ptr<Job>> jobs;              // oldest first: the next to write is at the front
  std::vector<std::vector<uint8_t>> spareBuffers;     // raw buffers of written chunks, for the next ones
  std::vector<std::vector<uint8_t>> spareCompressed;  // and their compressed ones
  uint64_t pendingRaw = 0;                            // raw bytes of queued jobs
  bool writing = false;
  bool stopping = false;
  std::string error;
  std::vector<ChunkEntry> chunks;  // written, in file order
  std::vector<std::thread> workers;
  ThreadPriorityGroup compressionThreads;  // the workers, at settings.threadPriority or what it became
  std::atomic<uint64_t> fileOffset{0};
  std::atomic<uint64_t> chunksWritten{0};
  std::atomic<uint64_t> framesWritten{0};
  std::atomic<uint64_t> waits{0};
  std::atomic<uint64_t> waitNs{0};
  std::atomic<uint64_t> workerCpuNs{0};  // the compression threads', in compress()
};

Result<TraceFileWriter> TraceFileWriter::create(const std::string& path, const CompressionSettings& settings,
                                                const FileSinkFactory& createFile) {
  auto compressor = schema::ChunkCompressor::create(settings);
  if (!compressor) return fail(path, ": ", compressor.error().message);
  const uint32_t threads = threadCount(settings.threads);
  std::vector<schema::ChunkCompressor> own;
  for (uint32_t t = 0; t < threads; ++t) {
    auto c = schema::ChunkCompressor::create(settings);
    if (!c) return fail(path, ": ", c.error().message);
    own.push_back(std::move(c.value()));
  }
  auto file = createFile ? createFile(path) : createFileSink(path);
  if (!file) return file.error();
  auto impl = std::make_unique<Impl>(std::move(file.value()), path, settings, std::move(compressor.value()));
  impl->startWorkers(std::move(own));
  return TraceFileWriter(std::move(impl));
}

TraceFileWriter::TraceFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceFileWriter::TraceFileWriter(TraceFileWriter&&) noexcept = default;
TraceFileWriter& TraceFileWriter::operator=(TraceFileWriter&&) noexcept = default;
TraceFileWriter::~TraceFileWriter() = default;

bool TraceFileWriter::headerWritten() const {
  return impl_->headerWritten;
}
uint64_t TraceFileWriter::fileBytes() const {
  return impl_->fileOffset.load();
}
uint64_t TraceFileWriter::chunks() const {
  return impl_->chunksWritten.load();
}
uint64_t TraceFileWriter::framesOnDisk() const {
  return impl_->framesWritten.load();
}
uint64_t TraceFileWriter::compressionThreadsCpuNs() const {
  return impl_->workerCpuNs.load();
}
uint64_t TraceFileWriter::messageBytes() const {
  return impl_->rawBytes.load();
}
uint64_t TraceFileWriter::compressWaits() const {
  return impl_->waits.load();
}
uint64_t TraceFileWriter::compressWaitNs() const {
  return impl_->waitNs.load();
}

Result<void> TraceFileWriter::setThreadPriority(ThreadPriority priority) {
  return impl_->compressionThreads.setPriority(priority);
}

// ---- compression threads ----

void TraceFileWriter::Impl::startWorkers(std::vector<schema::ChunkCompressor> compressors) {
  // Each thread owns its compressor: the vector's elements do not move once the threads run.
  static_assert(std::is_nothrow_move_constructible_v<schema::ChunkCompressor>);
  auto owned = std::make_shared<std::vector<schema::ChunkCompressor>>(std::move(compressors));
  for (size_t t = 0; t < owned->size(); ++t) {
    workers.emplace_back([this, owned, t] {
      nameThisThread("reel-compress");
      // Best effort: a system that refuses only costs the app the share the threads then take.
      (void)compressionThreads.enter();
      workerLoop((*owned)[t]);
      compressionThreads.leave();
    });
  }
}

void TraceFileWriter::Impl::stopWorkers() {
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  workAvailable.notify_all();
  for (std::thread& t : workers) t.join();
  workers.clear();
}

void TraceFileWriter::Impl::compress(schema::ChunkCompressor& c, Job& job) {
  job.compressed.clear();
  if (auto r = c.compressFrame(job.raw.data(), job.raw.size(), job.compressed, job.frames); !r)
    job.error = r.error().message;
}

void TraceFileWriter::Impl::workerLoop(schema::ChunkCompressor& own) {
  std::unique_lock lock(mutex);
  for (;;) {
    Job* job = nullptr;
    workAvailable.wait(lock, [&] {
      for (auto& j : jobs) {
        if (!j->taken) return (job = j.get()), true;
      }
      return stopping;
    });
    if (!job) return;  // stopping, and every queued job is taken
    job->taken = true;
    if (!spareCompressed.empty()) {
      job->compressed = std::move(spareCompressed.back());
      spareCompressed.pop_back();
    }
    lock.unlock();
    const std::chrono::nanoseconds cpu0 = threadCpuTime();
    compress(own, *job);
    workerCpuNs += static_cast<uint64_t>((threadCpuTime() - cpu0).count());
    lock.lock();
    job->done = true;
    writeFinished(lock);
  }
}

void TraceFileWriter::Impl::writeFinished(std::unique_lock<std::mutex>& lock) {
  if (writing) return;  // the thread writing now takes this job too when it is next
  writing = true;
  while (!jobs.empty() && jobs.front()->done) {
    std::unique_ptr<Job> job = std::move(jobs.front());
    jobs.pop_front();
    lock.unlock();
    // After a failure nothing more is written: a chunk after a missing one would sit at the wrong place
    // in the file order the index gives.
    std::string failure;
    {
      std::lock_guard check(mutex);
      failure = error;
    }
    ChunkEntry entry{fileOffset.load(), job->compressed.size(), job->raw.size()};
    if (failure.empty()) {
      if (!job->error.empty()) {
        failure = fail(path, ": ", job->error).message;
      } else if (auto r = writeAll(job->compressed.data(), job->compressed.size()); !r) {
        failure = r.error().message;
      }
    }
    lock.lock();
    if (error.empty() && !failure.empty()) error = failure;
    pendingRaw -= job->raw.size();
    if (error.empty()) {
      chunks.push_back(entry);
      framesWritten += job->frames;
      ++chunksWritten;
    }
    if (spareBuffers.size() < maxSpareBuffers()) {
      job->raw.clear();
      spareBuffers.push_back(std::move(job->raw));
    }
    if (spareCompressed.size() < workers.size()) spareCompressed.push_back(std::move(job->compressed));
    progress.notify_all();
  }
  writing = false;
  progress.notify_all();  // finish() waits for the queue to be empty and no write in progress
}

// ---- the appending thread ----

Result<void> TraceFileWriter::Impl::writeAll(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const FileSink::Written w = sink->write(p, size);
    if (w.error == EINTR) continue;
    if (w.error != 0) return ioError("write failed", w.error);
    // Nothing taken and no error: a sink that would loop here forever. Stop, as a full disk does.
    if (w.bytes == 0) return ioError("write failed", ENOSPC);
    p += w.bytes;
    size -= w.bytes;
    fileOffset += w.bytes;
  }
  return {};
}

Result<void> TraceFileWriter::writeHeader(std::span<const uint8_t> message) {
  Impl& s = *impl_;
  std::vector<uint8_t> padded(message.begin(), message.end());
  padded.resize(schema::alignMessage(static_cast<uint64_t>(padded.size())));
  std::vector<uint8_t> compressed;
  if (auto r = s.located(s.compressor.compressFrame(padded.data(), padded.size(), compressed)); !r) return r;
  // No chunk is queued before the header: the file is this thread's alone here.
  if (auto r = s.writeAll(compressed.data(), compressed.size()); !r) return r;
  s.headerWritten = true;
  return {};
}

Result<void> TraceFileWriter::append(std::span<const uint8_t> message, MessageKind kind, uint64_t frame) {
  Impl& s = *impl_;
  if (auto r = s.asyncError(); !r) return r;
  if (s.chunkOpen && s.raw.size() + message.size() + schema::kMessageAlignment > kMaxChunkRawBytes) {
    if (auto r = s.closeChunk(); !r) return r;
  }
  if (!s.chunkOpen) {
    s.chunkOpen = true;
    s.chunkFrames = 0;
    s.chunkOpenedAt = std::chrono::steady_clock::now();
    s.raw.clear();
    // A chunk's size up front: growing it a doubling at a time copies it each time. Pages untouched
    // cost nothing, and a chunk closed by its time limit touches only what it holds.
    s.raw.reserve(std::min(s.settings.chunkBytes, kMaxReservedChunkBytes));
  }
  s.messages.push_back(Impl::MessageEntry{frame, s.chunksClosed, static_cast<uint32_t>(s.raw.size()),
                                          static_cast<uint32_t>(message.size()), static_cast<uint8_t>(kind)});
  const uint64_t padding = schema::alignMessage(uint64_t{message.size()}) - message.size();
  s.raw.insert(s.raw.end(), message.begin(), message.end());
  s.raw.insert(s.raw.end(), kZeros, kZeros + padding);
  s.rawBytes += message.size() + padding;
  if (kind == MessageKind::Frame) ++s.chunkFrames;
  return {};
}

bool TraceFileWriter::chunkOpen() const {
  return impl_->chunkOpen;
}

bool TraceFileWriter::continuesChunk(uint64_t messageBytes) const {
  const Impl& s = *impl_;
  return s.chunkOpen && s.raw.size() + messageBytes + schema::kMessageAlignment <= kMaxChunkRawBytes;
}

uint32_t TraceFileWriter::chunkFrames() const {
  return impl_->chunkOpen ? impl_->chunkFrames : 0;
}

Result<void> TraceFileWriter::closeChunk() {
  return impl_->closeChunk();
}

Result<void> TraceFileWriter::frameDone() {
  Impl& s = *impl_;
  if (s.chunkOpen &&
      (s.raw.size() >= s.settings.chunkBytes || s.chunkFrames >= s.settings.maxFramesPerChunk)) {
    return s.closeChunk();
  }
  return s.asyncError();
}

Result<void> TraceFileWriter::tick() {
  Impl& s = *impl_;
  if (s.chunkDue(std::chrono::steady_clock::now())) return s.closeChunk();
  return s.asyncError();
}

std::optional<std::chrono::steady_clock::time_point> TraceFileWriter::chunkDeadline() const {
  const Impl& s = *impl_;
  if (!s.chunkOpen || s.settings.chunkMillis == 0) return std::nullopt;
  return s.chunkOpenedAt + std::chrono::milliseconds(s.settings.chunkMillis);
}

Result<void> TraceFileWriter::Impl::closeChunk() {
  if (!chunkOpen) return {};
  chunkOpen = false;
  ++chunksClosed;
  auto job = std::make_unique<Job>();
  job->frames = chunkFrames;
  std::unique_lock lock(mutex);
  // Bounded memory: a chunk waits here while those before it hold maxPendingBytes (the first always
  // goes, whatever its size).
  if (pendingRaw > 0 && pendingRaw + raw.size() > settings.maxPendingBytes && error.empty()) {
    const auto began = std::chrono::steady_clock::now();
    progress.wait(lock, [&] {
      return pendingRaw == 0 || pendingRaw + raw.size() <= settings.maxPendingBytes || !error.empty();
    });
    ++waits;
    waitNs += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - began)
            .count());
  }
  if (!error.empty()) return Error{error};
  job->raw = std::move(raw);
  raw = std::vector<uint8_t>();
  if (!spareBuffers.empty()) {
    raw = std::move(spareBuffers.back());
    spareBuffers.pop_back();
  }
  pendingRaw += job->raw.size();
  Job& queued = *jobs.emplace_back(std::move(job));
  if (!workers.empty()) {
    lock.unlock();
    workAvailable.notify_one();
    return {};
  }
  // No compression threads: this thread compresses and writes the chunk now.
  queued.taken = true;
  lock.unlock();
  compress(compressor, queued);
  lock.lock();
  queued.done = true;
  writeFinished(lock);
  if (!error.empty()) return Error{error};
  return {};
}

Result<void> TraceFileWriter::finish() {
  Impl& s = *impl_;
  if (auto r = s.closeChunk(); !r) return r;
  {
    std::unique_lock lock(s.mutex);
    s.progress.wait(lock, [&] { return (s.jobs.empty() && !s.writing) || !s.error.empty(); });
    if (!s.error.empty()) return Error{s.error};
  }
  // Every chunk is written and no job is queued: the file is this thread's alone again.
  flatbuffers::FlatBufferBuilder fbb(1024 + s.messages.size() * sizeof(fb::MessageEntry));
  std::vector<fb::ChunkEntry> chunks;
  chunks.reserve(s.chunks.size());
  for (const Impl::ChunkEntry& c : s.chunks) chunks.emplace_back(c.offset, c.compressedSize, c.rawSize);
  std::vector<fb::MessageEntry> messages;
  messages.reserve(s.messages.size());
  for (const Impl::MessageEntry& m : s.messages)
    messages.emplace_back(m.frame, m.chunk, m.offset, m.size, m.kind);
  const auto index =
      fb::CreateIndex(fbb, fbb.CreateVectorOfStructs(chunks), fbb.CreateVectorOfStructs(messages));
  fb::MessageBuilder message(fbb);
  message.add_body_type(fb::Body::Index);
  message.add_body(index.Union());
  fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());

  const uint32_t indexBytes = schema::alignMessage(static_cast<uint32_t>(fbb.GetSize()));
  std::vector<uint8_t> frame(schema::kSkippableHeaderBytes + indexBytes + schema::kFooterBytes, 0);
  schema::storeLE32(frame.data(), schema::kIndexFrameMagic);
  schema::storeLE32(frame.data() + 4, indexBytes + schema::kFooterBytes);
  std::memcpy(frame.data() + schema::kSkippableHeaderBytes, fbb.GetBufferPointer(), fbb.GetSize());
  uint8_t* footer = frame.data() + schema::kSkippableHeaderBytes + indexBytes;
  schema::storeLE32(footer, indexBytes);
  schema::storeLE32(footer + 4, schema::crc32(frame.data() + schema::kSkippableHeaderBytes, indexBytes));
  schema::storeLE64(footer + 8, schema::kFooterMagic);
  if (auto r = s.writeAll(frame.data(), frame.size()); !r) return r;

  // The file is complete, index and footer included, before the sync: a failed sync is reported (the
  // data may not survive a crash of the machine), and what reached the file still reads.
  const std::unique_ptr<FileSink> file = std::move(s.sink);
  if (const int code = file->sync(); code != 0) {
    file->close();
    return s.ioError("fdatasync failed", code);
  }
  if (const int code = file->close(); code != 0) return s.ioError("close failed", code);
  return {};
}

}  // namespace reel::trace

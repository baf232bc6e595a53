#include "frame_prefetcher.h"

#include "reel/runtime/cpu_time.h"

namespace reel::replay {

std::unique_ptr<FramePrefetcher> FramePrefetcher::create(const trace::TraceReader& reader,
                                                         uint32_t lookahead) {
  if (lookahead == 0) return nullptr;
  auto own = trace::TraceReader::open(reader.name());
  if (!own) return nullptr;
  // The same trace: a reader made from bytes has a name only, which may name another file or none.
  const auto a = reader.chunks(), b = own->chunks();
  bool same = reader.frameCount() == own->frameCount() && a.size() == b.size();
  for (size_t c = 0; same && c < a.size(); ++c)
    same = a[c].offset == b[c].offset && a[c].compressedSize == b[c].compressedSize;
  for (size_t f = 0; same && f < reader.frameCount(); ++f)
    same = reader.frameNumber(f) == own->frameNumber(f);
  if (!same) return nullptr;
  return std::unique_ptr<FramePrefetcher>(
      new FramePrefetcher(std::make_unique<trace::TraceReader>(std::move(own.value())), lookahead));
}

FramePrefetcher::FramePrefetcher(std::unique_ptr<trace::TraceReader> reader, uint32_t lookahead)
    : reader_(std::move(reader)), lookahead_(lookahead) {
  // The records decoded frames wait in: the worker stops when all are queued or in its hands.
  for (uint32_t i = 0; i < lookahead_; ++i) free_.push_back(std::make_unique<trace::FrameRecord>());
  next_ = reader_->frameCount();  // nothing to do until the first take() says where to start
  worker_ = std::thread([this] { work(); });
}

FramePrefetcher::~FramePrefetcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

void FramePrefetcher::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || (next_ < reader_->frameCount() && !free_.empty()); });
    if (stopping_) return;
    const size_t index = next_++;
    const uint64_t generation = generation_;
    std::unique_ptr<trace::FrameRecord> record = std::move(free_.back());
    free_.pop_back();
    decoding_ = true;
    decodingIndex_ = index;
    lock.unlock();
    const std::chrono::nanoseconds cpu0 = threadCpuTime();
    const std::chrono::nanoseconds zstd0 = reader_->decompressStats().cpu;
    Result<void> result = reader_->readFrame(index, *record);
    const std::chrono::nanoseconds cpu = threadCpuTime() - cpu0;
    const std::chrono::nanoseconds zstd = reader_->decompressStats().cpu - zstd0;
    lock.lock();
    decoding_ = false;
    stats_.readCpu += cpu;
    stats_.decompressCpu += zstd;
    ++stats_.frames;
    if (generation != generation_) {
      free_.push_back(std::move(record));  // a jump made it useless
      continue;
    }
    queue_.push_back({index, std::move(result), std::move(record)});
    ready_.notify_all();
  }
}

Result<void> FramePrefetcher::take(size_t index, trace::FrameRecord& out) {
  std::unique_lock lock(mutex_);
  const bool expected = !queue_.empty() ? queue_.front().index == index
                        : decoding_     ? decodingIndex_ == index
                                        : next_ == index;
  if (!expected) {
    // Not the frame read ahead (the first take, a restart, a jump): start over from it.
    ++generation_;
    for (Decoded& d : queue_) free_.push_back(std::move(d.record));
    queue_.clear();
    next_ = index;
    wake_.notify_all();
  }
  const auto began = std::chrono::steady_clock::now();
  ready_.wait(lock, [&] { return !queue_.empty() && queue_.front().index == index; });
  stats_.takeWait += std::chrono::steady_clock::now() - began;
  Decoded d = std::move(queue_.front());
  queue_.pop_front();
  std::swap(out, *d.record);
  d.record->keepAlive.reset();  // the chunk it held may go back to its reader
  free_.push_back(std::move(d.record));
  wake_.notify_all();
  return std::move(d.result);
}

FramePrefetcher::Stats FramePrefetcher::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void RenderIdleClock::onFrameStart(const FrameStart&) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  if (!started_) {
    started_ = true;
    first_ = now;
  } else if (ended_) {
    idle_ += now - lastEnd_;
  }
}

void RenderIdleClock::onFrameEnd(const FrameTiming&) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  lastEnd_ = now;
  ended_ = true;
}

RenderIdleClock::Totals RenderIdleClock::totals() const {
  std::lock_guard lock(mutex_);
  Totals t;
  t.idle = idle_;
  if (started_ && ended_) t.span = lastEnd_ - first_;
  return t;
}

}  // namespace reel::replay

#include "frame_prefetcher.h"

#include <algorithm>
#include <unordered_map>

#include "reel/runtime/assert.h"
#include "reel/runtime/cpu_time.h"
#include "reel/trace/message_kind.h"

namespace reel::replay {

uint32_t FramePrefetcher::defaultWorkers() {
  const uint32_t cores = std::thread::hardware_concurrency();
  return std::clamp<uint32_t>(cores > 2 ? cores - 2 : 1, 1, 4);
}

std::unique_ptr<FramePrefetcher> FramePrefetcher::create(const trace::TraceReader& reader,
                                                         const PrefetchOptions& options) {
  if (options.lookahead == 0) return nullptr;
  const uint32_t workers = options.workers ? options.workers : defaultWorkers();
  std::vector<std::unique_ptr<trace::TraceReader>> readers;
  for (uint32_t w = 0; w < workers; ++w) {
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
    readers.push_back(std::make_unique<trace::TraceReader>(std::move(own.value())));
  }
  // Each frame's chunk, from the index's frame messages, and the largest frame message: what one
  // decoded frame costs, to size the ring to the byte budget.
  std::unordered_map<uint64_t, uint32_t> chunkOf;
  uint64_t largest = 1;
  for (const trace::MessageInfo& m : reader.messages()) {
    if (m.kind != static_cast<uint8_t>(trace::MessageKind::Frame)) continue;
    chunkOf.emplace(m.frame, m.chunk);
    largest = std::max<uint64_t>(largest, m.size);
  }
  const size_t frames = reader.frameCount();
  std::vector<size_t> chunkEnd(frames);
  for (size_t f = frames; f-- > 0;) {
    const auto here = chunkOf.find(reader.frameNumber(f));
    const auto next = f + 1 < frames ? chunkOf.find(reader.frameNumber(f + 1)) : chunkOf.end();
    const bool sameChunk = here != chunkOf.end() && next != chunkOf.end() && here->second == next->second;
    chunkEnd[f] = sameChunk ? chunkEnd[f + 1] : f + 1;
  }
  const uint64_t fit = std::max<uint64_t>(2, options.budgetBytes / largest);
  const auto capacity = static_cast<uint32_t>(std::min<uint64_t>(options.lookahead, fit));
  return std::unique_ptr<FramePrefetcher>(
      new FramePrefetcher(std::move(readers), std::move(chunkEnd), capacity));
}

FramePrefetcher::FramePrefetcher(std::vector<std::unique_ptr<trace::TraceReader>> readers,
                                 std::vector<size_t> chunkEnd, uint32_t capacity)
    : frameCount_(chunkEnd.size()),
      chunkEnd_(std::move(chunkEnd)),
      slots_(capacity),
      base_(frameCount_),  // nothing to do until the first take() says where to start
      claim_(frameCount_) {
  workers_.resize(readers.size());
  for (size_t w = 0; w < readers.size(); ++w) {
    workers_[w].reader = std::move(readers[w]);
    trace::TraceReader* reader = workers_[w].reader.get();
    workers_[w].thread = std::thread([this, reader] { work(*reader); });
  }
}

FramePrefetcher::~FramePrefetcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (Worker& w : workers_) w.thread.join();
}

bool FramePrefetcher::admitted(size_t i) const {
  return i >= base_ && i - base_ < slots_.size() && slots_[i % slots_.size()].state == Slot::State::Free;
}

void FramePrefetcher::work(trace::TraceReader& reader) {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || (claim_ < frameCount_ && admitted(claim_)); });
    if (stopping_) return;
    // The frames from claim_ to the end of its chunk are this worker's: in order, each once it fits.
    const uint64_t generation = generation_;
    const size_t end = chunkEnd_[claim_];
    for (size_t i = std::exchange(claim_, end); i < end; ++i) {
      wake_.wait(lock, [&] { return stopping_ || generation != generation_ || admitted(i); });
      if (stopping_) return;
      if (generation != generation_) break;  // a jump: the frames after it are claimed anew
      Slot& slot = slots_[i % slots_.size()];
      slot.state = Slot::State::Decoding;
      slot.index = i;
      ++ahead_;
      stats_.peakAhead = std::max(stats_.peakAhead, ahead_);
      lock.unlock();
      const std::chrono::nanoseconds cpu0 = threadCpuTime();
      const std::chrono::nanoseconds zstd0 = reader.decompressStats().cpu;
      Result<void> result = reader.readFrame(i, slot.record);
      const std::chrono::nanoseconds cpu = threadCpuTime() - cpu0;
      const std::chrono::nanoseconds zstd = reader.decompressStats().cpu - zstd0;
      lock.lock();
      stats_.readCpu += cpu;
      stats_.decompressCpu += zstd;
      ++stats_.frames;
      if (generation != generation_) {
        // A jump made it useless; the slot may be the one a frame of the new position waits for.
        slot.state = Slot::State::Free;
        slot.record.keepAlive.reset();
        --ahead_;
        wake_.notify_all();
        break;
      }
      slot.result = std::move(result);
      slot.state = Slot::State::Ready;
      ready_.notify_all();
    }
  }
}

Result<void> FramePrefetcher::take(size_t index, trace::FrameRecord& out) {
  REEL_ASSERT(index < frameCount_, "FramePrefetcher::take: frame index out of range");
  std::unique_lock lock(mutex_);
  if (index != base_) {
    // Not the frame read ahead (the first take, a restart, a jump): start over from it. Frames being
    // decoded for the old position are dropped by their workers.
    ++generation_;
    for (Slot& slot : slots_) {
      if (slot.state != Slot::State::Ready) continue;
      slot.state = Slot::State::Free;
      slot.record.keepAlive.reset();
      --ahead_;
    }
    base_ = index;
    claim_ = index;
    wake_.notify_all();
  }
  Slot& slot = slots_[index % slots_.size()];
  const auto began = std::chrono::steady_clock::now();
  ready_.wait(lock, [&] { return slot.state == Slot::State::Ready && slot.index == index; });
  stats_.takeWait += std::chrono::steady_clock::now() - began;
  // The caller's record, and the chunk it held, go back to the ring: its buffers take a later frame.
  std::swap(out, slot.record);
  slot.record.keepAlive.reset();
  Result<void> result = std::move(slot.result);
  slot.state = Slot::State::Free;
  --ahead_;
  ++base_;
  wake_.notify_all();
  return result;
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

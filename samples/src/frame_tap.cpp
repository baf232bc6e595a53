#include "frame_tap.h"

#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/cpu_time.h"

namespace reel::samples {

namespace {
constexpr const char* kModeNames[] = {"read", "copy", "zstd", "hold"};  // by FrameTap::Mode

// Each byte range a leased frame holds: every bucket's packets and keys, then its resource requests.
template <typename Take>
void forEachStream(const FrameLease& lease, Take&& take) {
  for (const FrameBucketView& b : lease.buckets()) {
    take(b.stream->packets.base(), b.stream->packets.used());
    take(b.stream->keys.base(), b.stream->keys.used());
  }
  take(lease.requests().bytes.data(), lease.requests().bytes.size());
}
}  // namespace

std::optional<FrameTap::Mode> FrameTap::parseMode(std::string_view name) {
  for (size_t i = 0; i < std::size(kModeNames); ++i) {
    if (name == kModeNames[i]) return static_cast<Mode>(i);
  }
  return std::nullopt;
}

FrameTap::FrameTap(const Options& options) : options_(options) {
  if (options_.mode == Mode::Hold) return;  // no thread: the render thread swaps the held frame
  for (uint32_t i = 0; i < std::max(1u, options_.threads); ++i)
    threads_.emplace_back([this] { threadLoop(); });
}

FrameTap::~FrameTap() {
  finish();
}

void FrameTap::onFrame(const FrameView& frame) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    if (options_.mode == Mode::Hold) {
      held_ = frame.lease();
      forEachStream(held_, [&](const std::byte*, size_t size) { rawBytes_ += size; });
      ++frames_;
      return;
    }
    queued_.push_back(frame.lease());
  }
  work_.notify_one();
}

void FrameTap::finish() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::lock_guard lock(mutex_);
  held_.reset();
}

void FrameTap::threadLoop() {
  nameThisThread("reel-frame-tap");
  if (auto set = setThisThreadPriority(options_.priority); !set) {
    std::lock_guard lock(mutex_);
    if (error_.empty()) error_ = set.error().message;
  }
  struct FreeContext {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };
  std::unique_ptr<ZSTD_CCtx, FreeContext> cctx;
  if (options_.mode == Mode::Zstd) {
    cctx.reset(ZSTD_createCCtx());
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 1);
  }
  // Kept from frame to frame, as a capture keeps its buffers: a steady stream of frames allocates nothing.
  std::vector<std::byte> copy;
  std::vector<uint8_t> compressed;
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;  // stopping, and every frame taken is done
    FrameLease lease = std::move(queued_.front());
    queued_.pop_front();
    lock.unlock();
    const std::chrono::nanoseconds cpu0 = threadCpuTime();
    uint64_t raw = 0, out = 0, sum = 0;
    std::string error;
    auto take = [&](const std::byte* bytes, size_t size) {
      raw += size;
      if (options_.mode == Mode::Read) {
        // Word by word (the arenas' bytes are 8-byte aligned and their sizes multiples of 8), four sums
        // at once so that the loop runs at the speed of the loads.
        uint64_t s[4] = {};
        const size_t words = size / 8;
        size_t i = 0;
        for (; i + 4 <= words; i += 4) {
          for (int k = 0; k < 4; ++k) {
            uint64_t w;
            std::memcpy(&w, bytes + (i + k) * 8, 8);
            s[k] += w;
          }
        }
        for (; i < words; ++i) {
          uint64_t w;
          std::memcpy(&w, bytes + i * 8, 8);
          s[0] += w;
        }
        sum += s[0] + s[1] + s[2] + s[3];
        return;
      }
      if (options_.mode == Mode::Copy) {
        if (copy.size() < size) copy.resize(size);
        std::memcpy(copy.data(), bytes, size);
        out += size;
        return;
      }
      if (!cctx) {
        error = "cannot create a zstd context";
        return;
      }
      const size_t bound = ZSTD_compressBound(size);
      if (compressed.size() < bound) compressed.resize(bound);
      const size_t n = ZSTD_compress2(cctx.get(), compressed.data(), compressed.size(), bytes, size);
      if (ZSTD_isError(n)) {
        error = ZSTD_getErrorName(n);
        return;
      }
      out += n;
    };
    forEachStream(lease, take);
    lease.reset();
    const uint64_t cpu = static_cast<uint64_t>((threadCpuTime() - cpu0).count());
    lock.lock();
    ++frames_;
    rawBytes_ += raw;
    outBytes_ += out;
    cpuNs_ += cpu;
    sum_ += sum;
    if (!error.empty() && error_.empty()) error_ = error;
  }
}

std::string FrameTap::summary() const {
  std::lock_guard lock(mutex_);
  const double frames = frames_ ? double(frames_) : 1.0;
  char amount[96];
  if (options_.mode == Mode::Hold) {
    std::snprintf(amount, sizeof amount, "each held until the next");
  } else if (options_.mode == Mode::Read) {
    std::snprintf(amount, sizeof amount, "read, sum %016llx", static_cast<unsigned long long>(sum_));
  } else {
    std::snprintf(amount, sizeof amount, "%.2f MB %s", double(outBytes_) / frames / 1e6,
                  options_.mode == Mode::Copy ? "copied" : "compressed at level 1");
  }
  const std::string what = amount;
  char where[96];
  if (options_.mode == Mode::Hold) {
    std::snprintf(where, sizeof where, "on the render thread");
  } else {
    std::snprintf(where, sizeof where, "on %u thread%s at %s priority", options_.threads,
                  options_.threads == 1 ? "" : "s",
                  std::string(threadPriorityName(options_.priority)).c_str());
  }
  char line[320];
  std::snprintf(line, sizeof line,
                "frame tap: %s %s: %llu frames, %.2f MB a frame (%s), %.2f ms CPU a frame%s%s",
                kModeNames[static_cast<int>(options_.mode)], where, static_cast<unsigned long long>(frames_),
                double(rawBytes_) / frames / 1e6, what.c_str(), double(cpuNs_) / frames / 1e6,
                error_.empty() ? "" : "; ", error_.c_str());
  return line;
}

}  // namespace reel::samples

#include "model/frame_scan.h"

#include "reel/trace/reader.h"

namespace reel::viewer {

FrameScanner::FrameScanner(std::string path, std::vector<FrameSummary> frames)
    : total_(frames.size()), frames_(std::move(frames)) {
  thread_ = std::thread([this, p = std::move(path)] { run(p); });
}

FrameScanner::~FrameScanner() {
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
}

void FrameScanner::run(std::string path) {
  auto finish = [this](std::string error) {
    {
      std::lock_guard lock(mutex_);
      error_ = std::move(error);
    }
    done_.store(true, std::memory_order_release);
    done_.notify_all();
  };
  auto reader = trace::TraceReader::open(path);
  if (!reader) return finish(reader.error().message);
  const trace::TraceHeader& header = reader->header();
  if (auto resources = reader->readResources()) {
    std::lock_guard lock(mutex_);
    for (const trace::ResourcesRecord& r : resources.value()) timeline_.addCaptureStart(r, header);
  } else {
    std::lock_guard lock(mutex_);
    error_ = resources.error().message;
  }
  for (size_t i = 0; i < total_ && i < reader->frameCount(); ++i) {
    if (stop_.load(std::memory_order_relaxed)) break;
    FrameSummary s;
    {
      std::lock_guard lock(mutex_);
      s = frames_[i];
    }
    auto frame = reader->readFrame(i);
    if (!frame) {
      s.error = frame.error().message;
    } else {
      const trace::FrameRecord& f = frame.value();
      s.requests = f.requests.size();
      s.buckets = f.buckets.size();
      for (const trace::BucketRecord& b : f.buckets) {
        s.keys += b.keyCount();
        s.packets += b.linkCount();
        for (size_t k = 0; k < b.keyCount(); ++k) {
          b.forEachInChain(k, [&](const trace::PacketRecord& p) {
            s.payloadBytes += p.payload.size();
            s.auxBytes += p.aux.size();
          });
        }
      }
    }
    s.scanned = true;
    {
      std::lock_guard lock(mutex_);
      frames_[i] = std::move(s);
      if (frame) timeline_.addFrame(frame.value(), header);
    }
    scanned_.store(i + 1, std::memory_order_release);
  }
  std::string error;
  {
    std::lock_guard lock(mutex_);
    error = error_;
  }
  finish(std::move(error));
}

std::vector<FrameSummary> FrameScanner::summaries() const {
  std::lock_guard lock(mutex_);
  return frames_;
}

std::vector<ResourceInfo> FrameScanner::aliveAt(uint64_t frameNumber) const {
  std::lock_guard lock(mutex_);
  return timeline_.aliveAt(frameNumber);
}

std::optional<ResourceInfo> FrameScanner::findResource(ResourceKind kind, uint32_t handle,
                                                       uint64_t frameNumber) const {
  std::lock_guard lock(mutex_);
  return timeline_.find(kind, handle, frameNumber);
}

std::string FrameScanner::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void FrameScanner::wait() {
  while (!done_.load(std::memory_order_acquire)) done_.wait(false, std::memory_order_acquire);
}

}  // namespace reel::viewer

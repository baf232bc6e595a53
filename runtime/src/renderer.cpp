#include "reel/runtime/renderer.h"

namespace reel {
namespace {

// How far ahead translate() fetches packet chains, in keys. It fetches four lines from each chain's
// head: a `stress` chain (a shared reference and three packets, 184 bytes) spans three or four.
// Measured with BM_TranslateStress on the 2-core VM: 8, 16 and 32 keys ahead all ran at 38-42 ns/key;
// two lines instead of four left the chains' tails missing (102 ns/key), three matched four.
constexpr size_t kPrefetchKeys = 16;

bool isDestroy(CommandType type) {
  const std::optional<ResourceRequest> request = resourceRequestOf(type);
  return request && !request->creates;
}

}  // namespace

Renderer::Renderer(Device& device, RendererConfig config)
    : device_(device),
      config_(config),
      nextFrame_(config.firstFrameNumber),
      freeSlots_(static_cast<std::ptrdiff_t>(config.framesInFlight)) {
  REEL_ASSERT(config.framesInFlight >= 1 && config.framesInFlight <= kMaxFramesInFlight,
              "framesInFlight must be 1..4");
  thread_ = std::thread([this] { renderLoop(); });
}

Renderer::~Renderer() {
  flushAndWait();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  workReady_.notify_one();
  thread_.join();
}

void Renderer::kick(const FrameOptions& options) {
  bool waited = false;
  if (!freeSlots_.try_acquire()) {
    waited = true;
    {
      std::lock_guard lock(mutex_);
      ++stats_.kicksBlockedNow;
    }
    freeSlots_.acquire();
    std::lock_guard lock(mutex_);
    --stats_.kicksBlockedNow;
  }
  uint32_t slot;
  {
    std::lock_guard lock(mutex_);
    slot = (ringHead_ + ringCount_) % config_.framesInFlight;
  }
  // The slot is outside [head, head + count): the render thread does not look at it until published.
  PendingFrame& frame = ring_[slot];
  frame.frame = nextFrame_++;
  frame.stopAfterPackets = options.stopAfterPackets;
  frame.observer = observer_;
  frame.requests = &resources_.handOver();
  frame.buckets.clear();
  for (auto& bucket : buckets_) frame.buckets.push_back({bucket.get(), &bucket->handOver()});
  {
    std::lock_guard lock(mutex_);
    ++ringCount_;
    ++stats_.framesKicked;
    if (waited) ++stats_.kickWaits;
  }
  workReady_.notify_one();
}

void Renderer::flushAndWait() {
  std::unique_lock lock(mutex_);
  const uint64_t ticket = ++flushRequests_;
  workReady_.notify_one();
  frameDone_.wait(lock, [&] { return flushesDone_ >= ticket; });
}

RendererStats Renderer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Renderer::renderLoop() {
  for (;;) {
    PendingFrame* frame = nullptr;
    bool flush = false;
    uint64_t flushTicket = 0;
    {
      std::unique_lock lock(mutex_);
      workReady_.wait(lock, [&] { return ringCount_ > 0 || flushRequests_ > flushesDone_ || stopping_; });
      if (ringCount_ > 0) {
        frame = &ring_[ringHead_];
      } else if (flushRequests_ > flushesDone_) {
        flush = true;
        flushTicket = flushRequests_;
      } else {
        return;  // stopping, and nothing left
      }
    }
    if (flush) {
      // Every kicked frame is processed (the ring is empty): only the GPU may still be busy.
      device_.waitIdle();
      {
        std::lock_guard lock(mutex_);
        flushesDone_ = flushTicket;
      }
      frameDone_.notify_all();
      continue;
    }
    const uint64_t translated = processFrame(*frame);
    {
      std::lock_guard lock(mutex_);
      ringHead_ = (ringHead_ + 1) % config_.framesInFlight;
      --ringCount_;
      ++stats_.framesProcessed;
      stats_.packetsTranslated += translated;
    }
    freeSlots_.release();
    frameDone_.notify_all();
  }
}

uint64_t Renderer::processFrame(PendingFrame& frame) {
  if (frame.observer) frame.observer->onFrameStart(FrameStart{frame.frame, &device_, &live_});
  device_.beginFrame(frame.frame);

  // Creates and writes before the frame's commands, in request order; destroys after them.
  const RequestStream& requests = *frame.requests;
  deferredDestroys_.clear();
  for (const uint32_t offset : requests.requests) {
    const PacketHeader& h = requests.header(offset);
    const auto type = static_cast<CommandType>(h.type);
    if (isDestroy(type)) {
      deferredDestroys_.push_back(offset);
      continue;
    }
    dispatchPacket(device_, type, requests.payload(offset), PacketContext{requests.aux(h), nullptr});
    live_.onCreate(type, {requests.payload(offset), commandInfo(type).size}, requests.aux(h));
  }

  // Merge every bucket's keys, bucket by bucket in creation order, then sort them all at once.
  mergedPackets_.clear();
  mergedBuckets_.clear();
  sortEntries_.clear();
  for (uint16_t b = 0; b < frame.buckets.size(); ++b) {
    const BucketStream& stream = *frame.buckets[b].stream;
    for (uint32_t block = 0, blocks = stream.keyBlockCount(); block < blocks; ++block) {
      const KeyEntry* entries = stream.keyBlock(block);
      for (uint32_t i = 0, n = stream.keyBlockFill(block); i < n; ++i) {
        sortEntries_.push_back(
            SortEntry{entries[i].key, static_cast<uint32_t>(mergedPackets_.size()), entries[i].packet});
        mergedPackets_.push_back(entries[i].packet);
        mergedBuckets_.push_back(b);
      }
    }
  }
  radixSort(sortEntries_, sortScratch_);

  FrameView view;
  view.frame = frame.frame;
  view.requests = frame.requests;
  view.buckets = frame.buckets;
  view.mergedPackets = mergedPackets_;
  view.mergedBuckets = mergedBuckets_;
  view.sorted = sortEntries_;
  view.sortedOrderHash = hashSortedOrder(sortEntries_);
  if (frame.observer) frame.observer->onFrame(view);

  const uint64_t translated = translate(view, frame.stopAfterPackets);

  for (const uint32_t offset : deferredDestroys_) {
    const PacketHeader& h = requests.header(offset);
    const auto type = static_cast<CommandType>(h.type);
    dispatchPacket(device_, type, requests.payload(offset), PacketContext{requests.aux(h), nullptr});
    uint32_t handleValue;
    std::memcpy(&handleValue, requests.payload(offset), sizeof handleValue);
    live_.onDestroy(type, handleValue);
    resources_.recycle(type, handleValue);
  }

  device_.endFrame(frame.frame);

  // The streams may be recorded into again: the Vulkan device copied what it needed while translating.
  for (const FrameBucketView& b : frame.buckets) {
    const_cast<BucketStream*>(b.stream)->references.fetch_sub(1, std::memory_order_release);
  }
  frame.requests->references.fetch_sub(1, std::memory_order_release);
  return translated;
}

uint64_t Renderer::translate(const FrameView& view, uint64_t stopAfterPackets) {
  // Sorted order jumps around the packet arenas (keys are sorted, packets lie in recording order), so
  // every chain head is a cache miss that the hardware prefetcher cannot foresee: without a driver
  // (BM_TranslateStress, 100k stress keys) that was ~9x the cost of the same walk in recording order.
  // The next chains' lines are fetched kPrefetchKeys keys ahead, from offsets that come with the sorted
  // entries (no random read of mergedPackets): ~2x the recording-order walk, 4-5x faster than before.
  const SortEntry* sorted = view.sorted.data();
  const size_t total = view.sorted.size();
  uint64_t count = 0;
  for (size_t i = 0; i < total; ++i) {
    if (count >= stopAfterPackets) break;
    // Written out here, not in a lambda: GCC 12 deems a function whose only effect is a prefetch pure and
    // deletes the call (the first version of this fetched nothing).
    if (i + kPrefetchKeys < total) {
      const SortEntry& ahead = sorted[i + kPrefetchKeys];
      const std::byte* head =
          view.buckets[view.mergedBuckets[ahead.sequence]].stream->packets.base() + ahead.value;
      // A prefetch never faults: lines past the arena's end are harmless.
      __builtin_prefetch(head);
      __builtin_prefetch(head + 64);
      __builtin_prefetch(head + 128);
      __builtin_prefetch(head + 192);
    }
    const SortEntry& entry = sorted[i];
    const FrameBucketView& bucket = view.buckets[view.mergedBuckets[entry.sequence]];
    const BucketStream& stream = *bucket.stream;
    // FrameView::forEachInChain without the payload's size, which only observers need.
    auto dispatchChain = [&] {
      for (uint32_t offset = entry.value; offset != 0 && count < stopAfterPackets;) {
        const PacketHeader& h = stream.header(offset);
        const uint32_t body = detail::resolveShared(stream, offset, h);
        const PacketHeader& bh = stream.header(body);
        dispatchPacket(device_, static_cast<CommandType>(bh.type), stream.payload(body),
                       PacketContext{stream.aux(bh), detail::tagOf(stream, h)});
        ++count;
        offset = h.next;
      }
    };
    MaterialBinder* binder = bucket.bucket->materialBinder();
    MaterialId material;
    if (binder && bucket.bucket->keyMaterial(entry.key, material)) {
      // Seed 001: the binder binds the material's next pass and says whether another one follows.
      bool anotherPass;
      do {
        anotherPass = binder->bind(material, device_);
        dispatchChain();
      } while (anotherPass);
    } else {
      dispatchChain();
    }
  }
  return count;
}

}  // namespace reel

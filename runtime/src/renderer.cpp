#include "reel/runtime/renderer.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>

#include "declared_passes.h"
#include "material_passes.h"
#include "reel/runtime/cpu_time.h"
#include "reel/runtime/instance_merge.h"
#include "reel/runtime/radix_sort.h"
#include "reel/runtime/translation_jobs.h"
#include "reel/runtime/worker_pool.h"

namespace reel {

namespace detail {
// Adds the time from one enter() to the next to the phase entered first, in wall and thread CPU time.
class PhaseClock {
 public:
  PhaseClock() : lastWall_(std::chrono::steady_clock::now()), lastCpu_(threadCpuTime()) {}
  void enter(FramePhase next) {
    const auto wall = std::chrono::steady_clock::now();
    const auto cpu = threadCpuTime();
    if (current_ != FramePhase::Count) {
      timing_.wall[static_cast<size_t>(current_)] += wall - lastWall_;
      timing_.cpu[static_cast<size_t>(current_)] += cpu - lastCpu_;
    }
    current_ = next;
    lastWall_ = wall;
    lastCpu_ = cpu;
  }
  FrameTiming stop() {
    enter(FramePhase::Count);
    return timing_;
  }

 private:
  FrameTiming timing_;
  FramePhase current_ = FramePhase::Count;
  std::chrono::steady_clock::time_point lastWall_;
  std::chrono::nanoseconds lastCpu_;
};
}  // namespace detail
namespace {
using detail::PhaseClock;

bool isDestroy(CommandType type) {
  return semanticsOf(type).category == CommandCategory::Destroy;
}

// RendererConfig::mergeInstances, unless REEL_MERGE_INSTANCES says otherwise ("0" off, "1" on).
bool mergeInstancesFromEnvironment(bool configured) {
  const char* env = std::getenv("REEL_MERGE_INSTANCES");
  if (env && std::string_view(env) == "0") return false;
  if (env && std::string_view(env) == "1") return true;
  return configured;
}

}  // namespace

namespace detail {

// One kicked frame's streams, with the references handOver() took on them. Busy from the kick that
// fills it until its last lease ends; the render thread's own lease is the first.
struct FrameRecord {
  LeasePool* pool = nullptr;
  uint64_t frame = 0;
  const RequestStream* requests = nullptr;
  std::vector<FrameBucketView> buckets;  // capacity kept between frames: a steady state allocates nothing
  // Guarded by pool->mutex.
  uint32_t leases = 0;
  bool observed = false;  // an observer holds one of the leases
};

// A record for every frame in flight plus every frame observers may keep: a kick always finds a free
// one, because a frame's end waits while observers hold more than kMaxObserverRetainedFrames frames
// (Renderer::waitForObserverLeases).
struct LeasePool {
  LeasePool() {
    for (FrameRecord& record : records) record.pool = this;
  }
  std::mutex mutex;
  std::condition_variable released;  // an observed frame's last lease ended
  std::array<FrameRecord, kMaxFramesInFlight + kMaxObserverRetainedFrames> records;
  uint32_t observed = 0;  // busy records that an observer holds a lease on
};

}  // namespace detail

void FrameLease::reset() {
  detail::FrameRecord* record = std::exchange(record_, nullptr);
  if (!record) return;
  detail::LeasePool& pool = *record->pool;
  std::lock_guard lock(pool.mutex);
  REEL_ASSERT(record->leases > 0, "a FrameLease ended on a frame nobody holds");
  if (--record->leases > 0) return;
  // Release order: the kick thread acquires these counts before it resets a stream, so every read of
  // the frame, by any lease holder (each ended under the mutex before this), comes first.
  for (const FrameBucketView& b : record->buckets)
    b.stream->references.fetch_sub(1, std::memory_order_release);
  record->requests->references.fetch_sub(1, std::memory_order_release);
  if (record->observed) {
    record->observed = false;
    --pool.observed;
    pool.released.notify_all();
  }
}

uint64_t FrameLease::frame() const {
  REEL_ASSERT(record_ != nullptr, "FrameLease::frame on a lease that holds no frame");
  return record_->frame;
}

const RequestStream& FrameLease::requests() const {
  REEL_ASSERT(record_ != nullptr, "FrameLease::requests on a lease that holds no frame");
  return *record_->requests;
}

std::span<const FrameBucketView> FrameLease::buckets() const {
  REEL_ASSERT(record_ != nullptr, "FrameLease::buckets on a lease that holds no frame");
  return record_->buckets;
}

FrameLease FrameView::lease() const {
  REEL_ASSERT(record != nullptr, "FrameView::lease on a view that no Renderer made");
  detail::LeasePool& pool = *record->pool;
  std::lock_guard lock(pool.mutex);
  // The render thread's own lease lives until the frame is translated, so inside onFrame this holds.
  REEL_ASSERT(record->leases > 0, "FrameView::lease after the frame was given back (only inside onFrame)");
  ++record->leases;
  if (!record->observed) {
    record->observed = true;
    ++pool.observed;
  }
  return FrameLease(record);
}

void ObserverRegistration::reset() {
  Renderer* renderer = std::exchange(renderer_, nullptr);
  FrameObserver* observer = std::exchange(observer_, nullptr);
  if (renderer) renderer->removeObserver(observer);
}

namespace detail {
void checkAbi(const AbiStamp& app) {
  const AbiStamp library = AbiStamp::current();
  if (app.layout == library.layout && std::string_view(app.version) == library.version) return;
  std::fprintf(stderr,
               "reel: this program was compiled against reel %s headers (packet layout %016llx), but links "
               "the reel %s library (packet layout %016llx): rebuild it against the reel it links\n",
               app.version, static_cast<unsigned long long>(app.layout), library.version,
               static_cast<unsigned long long>(library.layout));
  std::abort();
}
}  // namespace detail

Renderer::Renderer(Device& device, RendererConfig config, AbiStamp app)
    : device_((detail::checkAbi(app), device)),
      config_(config),
      nextFrame_(config.firstFrameNumber),
      leases_(std::make_unique<detail::LeasePool>()),
      freeSlots_(static_cast<std::ptrdiff_t>(config.framesInFlight)) {
  REEL_ASSERT(config.framesInFlight >= 1 && config.framesInFlight <= kMaxFramesInFlight,
              "framesInFlight must be 1..4");
  workers_ = resolveRenderWorkers(config.workers);
  // The sort uses the workers on any device; translation jobs only where the device records on several
  // threads (processFrame caps them at jobCapacity()).
  if (workers_ > 1) {
    pool_ = std::make_unique<WorkerPool>(workers_);
    planner_ = std::make_unique<JobPlanner>();
    minJobKeys_ = minJobKeysFromEnvironment();
  }
  sorter_ = std::make_unique<RadixSorter>(pool_.get());
  prefixes_ = std::make_unique<SortPrefixes>();
  passes_ = std::make_unique<DeclaredPasses>();
  if (mergeInstancesFromEnvironment(config.mergeInstances)) {
    merger_ = std::make_unique<InstanceMerger>();
    mergeCursors_.resize(workers_);  // one per translating thread (WorkerPool's thread index)
  }
  thread_ = std::thread([this] { renderLoop(); });
  // Before any kick or flush: the render thread touches the device only for those.
  device_.setOwnerThread(thread_.get_id());
}

Renderer::~Renderer() {
  flushAndWait();
  const std::thread::id renderThread = thread_.get_id();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  workReady_.notify_one();
  thread_.join();
  // Both would otherwise point into this renderer after it is gone.
  REEL_ASSERT(observers_.empty(),
              "a Renderer is destroyed while an observer is registered: end every ObserverRegistration (a "
              "capture, a replay's feeder) before the renderer");
  {
    std::lock_guard lock(leases_->mutex);
    for (const detail::FrameRecord& record : leases_->records) {
      REEL_ASSERT(record.leases == 0,
                  "a FrameLease outlives its renderer: end every lease (a capture's "
                  "writer holds some) before the renderer is destroyed");
    }
  }
  // A later renderer, or a direct user, may drive the device from any thread.
  if (device_.ownerThread() == renderThread) device_.setOwnerThread(std::thread::id());
}

ObserverRegistration Renderer::addObserver(FrameObserver& observer) {
  REEL_ASSERT(std::find(observers_.begin(), observers_.end(), &observer) == observers_.end(),
              "addObserver: this observer is registered already");
  observers_.push_back(&observer);
  return ObserverRegistration(this, &observer);
}

void Renderer::removeObserver(FrameObserver* observer) {
  REEL_ASSERT(std::this_thread::get_id() != thread_.get_id(),
              "an ObserverRegistration ended inside an observer call: it would wait for the frame it is in");
  const auto it = std::find(observers_.begin(), observers_.end(), observer);
  REEL_ASSERT(it != observers_.end(), "removeObserver: the observer is not registered");
  observers_.erase(it);
  // Frames kicked until now took the observer with them (PendingFrame::observers): once the render
  // thread is past them, nothing calls it again and its owner may destroy it.
  std::unique_lock lock(mutex_);
  const uint64_t kicked = stats_.framesKicked;
  frameDone_.wait(lock, [&] { return stats_.framesProcessed >= kicked; });
}

FrameLease Renderer::leaseRecordedFrame(uint64_t frame) {
  detail::FrameRecord* record = nullptr;
  {
    std::lock_guard lock(leases_->mutex);
    for (detail::FrameRecord& r : leases_->records) {
      if (r.leases == 0) {
        record = &r;
        break;
      }
    }
    REEL_ASSERT(record != nullptr, "no free frame record: observers hold more frames than FrameLease allows");
    record->leases = 1;
  }
  // Busy from here on: only this thread touches the record until the kick publishes the frame.
  record->frame = frame;
  record->requests = &resources_.handOver();
  record->buckets.clear();
  for (auto& bucket : buckets_)
    record->buckets.push_back({bucket.get(), &bucket->handOver(), bucket->order()});
  return FrameLease(record);
}

void Renderer::waitForObserverLeases() {
  std::unique_lock lock(leases_->mutex);
  if (leases_->observed <= kMaxObserverRetainedFrames) return;
  // Counted before the wait, so that a test can see the render thread held up. Never both mutexes at
  // once: withIdleDevice's call, under mutex_, may end a lease.
  lock.unlock();
  {
    std::lock_guard statsLock(mutex_);
    ++stats_.leaseWaits;
  }
  lock.lock();
  leases_->released.wait(lock, [&] { return leases_->observed <= kMaxObserverRetainedFrames; });
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
  frame.stopAfterPackets = options.stopAfterPackets;
  frame.observers.assign(observers_.begin(), observers_.end());
  frame.lease = leaseRecordedFrame(nextFrame_++);
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
      device_.assertOwnerThread("Device::waitIdle");
      device_.waitIdle();
      {
        std::lock_guard lock(mutex_);
        flushesDone_ = flushTicket;
      }
      frameDone_.notify_all();
      continue;
    }
    const uint64_t translated = processFrame(*frame);
    // Before the ring slot is free for another kick, which needs a free frame record and free streams.
    waitForObserverLeases();
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
  const uint64_t number = frame.lease.frame();
  const RequestStream& requests = frame.lease.requests();
  const std::span<const FrameBucketView> buckets = frame.lease.buckets();
  PhaseClock clock;
  clock.enter(FramePhase::Observers);
  for (FrameObserver* observer : frame.observers)
    observer->onFrameStart(FrameStart{number, &device_, &live_});
  clock.enter(FramePhase::Begin);
  device_.assertOwnerThread("Device::beginFrame");
  device_.beginFrame(number);
  clock.enter(FramePhase::Requests);

  // Creates and writes before the frame's commands, in request order; destroys after them.
  deferredDestroys_.clear();
  passes_->clear();
  for (const uint32_t offset : requests.requests) {
    const PacketHeader& h = requests.header(offset);
    const auto type = static_cast<CommandType>(h.type);
    if (isDestroy(type)) {
      deferredDestroys_.push_back(offset);
      continue;
    }
    dispatchPacket(device_, type, requests.payload(offset), PacketContext{requests.aux(h), nullptr});
    if (type == CommandType::DeclarePass) {
      cmd::DeclarePass declare;
      std::memcpy(&declare, requests.payload(offset), sizeof declare);
      if (std::string error = passes_->declare(declare); !error.empty())
        device_.reportError("frame " + std::to_string(number) + ": " + error);
      continue;
    }
    live_.onCreate(type, {requests.payload(offset), commandInfo(type).size}, requests.aux(h));
    if (type == CommandType::CreatePipeline) {
      // A BindPipeline's scope is its pipeline's bind point: the job planner asks for it by handle slot.
      cmd::CreatePipeline create;
      std::memcpy(&create, requests.payload(offset), sizeof create);
      const uint32_t slot = create.pipeline.index();
      if (slot >= computePipelines_.size()) computePipelines_.resize(slot + 1);
      computePipelines_[slot] = !create.desc.computeShader.isNull();
      if (merger_) merger_->onCreatePipeline(create, requests.aux(h));
    }
  }

  // Merge every bucket's keys, bucket by bucket in creation order, then sort them all at once. Merge
  // order (the sequence numbers, hence the order hash's inputs) never depends on passes or bucket order:
  // the sort applies them (bucket_order.h), so a frame of one pass and one bucket order sorts exactly as
  // before either existed.
  clock.enter(FramePhase::Merge);
  mergedPackets_.clear();
  mergedBuckets_.clear();
  sortEntries_.clear();
  prefixes_->clear();
  for (uint16_t b = 0; b < buckets.size(); ++b) {
    const BucketStream& stream = *buckets[b].stream;
    for (uint32_t block = 0, blocks = stream.keyBlockCount(); block < blocks; ++block) {
      const KeyEntry* entries = stream.keyBlock(block);
      for (uint32_t i = 0, n = stream.keyBlockFill(block); i < n; ++i) {
        sortEntries_.push_back(
            SortEntry{entries[i].key, static_cast<uint32_t>(mergedPackets_.size()), entries[i].packet});
        mergedPackets_.push_back(entries[i].packet);
        mergedBuckets_.push_back(b);
        prefixes_->push(sortPrefix(entries[i].pass, buckets[b].order));
      }
    }
  }
  clock.enter(FramePhase::Sort);
  sorter_->sort(sortEntries_, prefixes_->bySequence(), activeWorkers());
  if (const size_t outside = passes_->locate(sortEntries_, *prefixes_)) {
    device_.reportError("frame " + std::to_string(number) + ": " + std::to_string(outside) +
                        " keys name a pass the frame did not declare (it declares " +
                        std::to_string(passes_->count()) + "); they run after its passes, outside any");
  }
  // Material binders' passes become packets before anyone sees the frame (material_passes.h).
  MaterialPasses::expand(buckets, sortEntries_, mergedPackets_, mergedBuckets_);

  FrameView view;
  view.frame = number;
  view.requests = &requests;
  view.buckets = buckets;
  view.mergedPackets = mergedPackets_;
  view.mergedBuckets = mergedBuckets_;
  view.sorted = sortEntries_;
  view.sortedOrderHash = hashSortedOrder(sortEntries_);
  view.prefixes = prefixes_->bySequence();
  view.uniformPrefix = prefixes_->of(0);
  view.record = frame.lease.record_;
  clock.enter(FramePhase::Observers);
  for (FrameObserver* observer : frame.observers) observer->onFrame(view);
  // Observers saw the frame as recorded; translation merges runs of draws (instance_merge.h). A frame
  // stopped after N packets counts the recorded packets, so it stays unmerged.
  const bool merge = merger_ && merger_->anyOptedIn() && frame.stopAfterPackets == UINT64_MAX;

  // A frame stopped after N packets stays on one thread: it is a debugging view, and its end is easier to
  // find there.
  const uint32_t threads = pool_ ? activeWorkers() : 1;
  const uint32_t jobs = threads > 1 && frame.stopAfterPackets == UINT64_MAX
                            ? std::min(jobCountFor(view.sorted.size(), threads * kJobsPerThread, minJobKeys_),
                                       device_.jobCapacity())
                            : 1;
  FrameTiming wide;
  uint64_t translated;
  DrawCounts draws;
  passes_->setQueues(jobs == 1);
  // Transient textures share memory only in frames whose graph is built (applyGraph says so).
  const bool graph = passes_->count() != 0 && (jobs > 1 || view.sorted.size() <= kPassReadsMaxKeys);
  if (!graph) device_.planTransients({}, false);
  if (jobs > 1) {
    translated = translateWide(view, jobs, threads, clock, wide, merge, draws, graph);
  } else {
    clock.enter(FramePhase::Translate);
    const auto start = std::chrono::steady_clock::now();
    if (graph) {
      FrameGraphBuilder builder = graphBuilder();
      walkGraph(view, builder);
      applyGraph(builder.finish(), frame.stopAfterPackets != UINT64_MAX);
    }
    translated = translate(view, 0, view.sorted.size(), frame.stopAfterPackets,
                           merge ? &mergeCursors_[0] : nullptr, draws);
    // A frame stopped inside a pass that preferred another queue: the rest of the frame is the graphics
    // queue's.
    if (passes_->count() != 0) device_.preferQueue(QueueClass::Graphics);
    wide.jobWall[0] = std::chrono::steady_clock::now() - start;
    wide.jobPackets[0] = translated;
  }

  clock.enter(FramePhase::Submit);

  for (const uint32_t offset : deferredDestroys_) {
    const PacketHeader& h = requests.header(offset);
    const auto type = static_cast<CommandType>(h.type);
    dispatchPacket(device_, type, requests.payload(offset), PacketContext{requests.aux(h), nullptr});
    uint32_t handleValue;
    std::memcpy(&handleValue, requests.payload(offset), sizeof handleValue);
    live_.onDestroy(type, handleValue);
    if (merger_ && type == CommandType::DestroyPipeline) merger_->onDestroyPipeline(handleValue);
    resources_.recycle(type, handleValue);
  }

  device_.assertOwnerThread("Device::endFrame");
  device_.endFrame(number);
  FrameTiming timing = clock.stop();
  timing.frame = number;
  timing.packets = translated;
  timing.jobs = jobs;
  timing.jobWall = wide.jobWall;
  timing.jobPackets = wide.jobPackets;
  timing.drawsSubmitted = draws.submitted;
  timing.drawsRecorded = draws.submitted + draws.mergedDraws - draws.mergedRuns;
  timing.mergedRuns = draws.mergedRuns;
  {
    std::lock_guard lock(mutex_);
    stats_.drawsRecorded += timing.drawsRecorded;
    stats_.drawsSubmitted += timing.drawsSubmitted;
  }
  for (FrameObserver* observer : frame.observers) observer->onFrameEnd(timing);

  // The streams may be recorded into again unless an observer leased them: the Vulkan device copied
  // what it needed while translating.
  frame.lease.reset();
  return translated;
}

FrameGraphBuilder Renderer::graphBuilder() {
  graphPasses_.assign(passes_->descs().begin(), passes_->descs().end());
  graphPasses_.emplace_back();
  return FrameGraphBuilder(
      graphPasses_, [this](RenderTargetHandle target) -> std::optional<RenderTargetDesc> {
        const auto create =
            live_.createPacket<cmd::CreateRenderTarget>(ResourceKind::RenderTarget, target.value);
        if (!create) return std::nullopt;
        return create->desc;
      });
}

void Renderer::walkGraph(const FrameView& view, FrameGraphBuilder& builder) const {
  const auto outside = static_cast<uint32_t>(passes_->count());
  for (const SortEntry& entry : view.sorted) {
    const uint32_t pass = std::min<uint32_t>(view.passOf(entry.sequence), outside);
    FrameView::forEachInChain(*view.buckets[view.mergedBuckets[entry.sequence]].stream, entry.value,
                              [&](const PacketView& p) { builder.add(pass, p.type, p.payload); });
  }
}

void Renderer::applyGraph(const FrameGraph& graph, bool stopped) {
  // graph.passes holds the declared passes and, last, the keys that name none: transient textures they
  // touch live up to the frame's end.
  const size_t declared = passes_->count();
  for (size_t p = 0; p < declared; ++p) {
    const GraphPass& g = graph.passes[p];
    std::vector<GraphResource> reads;
    std::set_difference(g.reads.begin(), g.reads.end(), g.writes.begin(), g.writes.end(),
                        std::back_inserter(reads));
    passes_->setPrologue(p, std::move(reads));
    passes_->setQueue(p, passQueue(passes_->descs()[p], g));
  }
  std::vector<TransientLife> lives = transientLives(graphPasses_, graph, [this](uint32_t texture) {
    const auto create = live_.createPacket<cmd::CreateTexture>(ResourceKind::Texture, texture);
    return create && (create->desc.usage & texture_usage::kTransient) != 0;
  });
  // A transient attachment of the pass where its life ends is not needed after it, when rendering runs
  // to the pass's end (a pass begun again after an interruption loads what the one before stored).
  if (!stopped) {
    std::vector<std::vector<GraphResource>> discards = discardedAttachments(passes_->descs(), graph, lives);
    for (size_t p = 0; p < declared; ++p) passes_->setDiscards(p, std::move(discards[p]));
  }
  device_.planTransients(lives, true);
}

uint64_t Renderer::translateWide(const FrameView& view, uint32_t jobs, uint32_t threads, PhaseClock& clock,
                                 FrameTiming& timing, bool merge, DrawCounts& draws, bool graph) {
  clock.enter(FramePhase::Sweep);
  FrameGraphBuilder builder;
  if (graph) builder = graphBuilder();
  asyncPassCuts(view.sorted.size(), jobs);
  const std::span<const TranslationJob> plan = planner_->plan(
      view, jobs - static_cast<uint32_t>(wideCuts_.size()), pool_.get(), threads,
      [this](uint32_t slot) { return slot < computePipelines_.size() && computePipelines_[slot] != 0; },
      graph ? JobPlanner::GraphInput{graphPasses_, passes_->starts()} : JobPlanner::GraphInput{}, wideCuts_);
  jobs = static_cast<uint32_t>(plan.size());
  if (graph) {
    planner_->mergeGraph(builder);
    const FrameGraph frameGraph = builder.finish();
    applyGraph(frameGraph, false);
    assignJobQueues(plan, frameGraph);
  } else {
    jobQueues_.assign(jobs, QueueClass::Graphics);
  }
  device_.beginJobs(jobQueues_);
  clock.enter(FramePhase::Translate);
  std::array<uint64_t, kMaxRenderWorkers> packets{};
  std::array<DrawCounts, kMaxRenderWorkers> jobDraws{};
  // Jobs outnumber threads (kJobsPerThread): each thread takes the next job in sort order until none is
  // left, so a thread whose packets cost more (the same packet count can take 3x as long in another part
  // of the frame: other pipelines, descriptor pushes) simply takes fewer jobs.
  std::atomic<uint32_t> next{0};
  pool_->run(std::min(jobs, threads), [&](uint32_t thread) {
    for (uint32_t j; (j = next.fetch_add(1, std::memory_order_relaxed)) < jobs;) {
      const auto start = std::chrono::steady_clock::now();
      const TranslationJob& job = plan[j];
      device_.enterJob(j);
      // The declared pass open across the job's start begins again where the single-threaded walk began
      // it: after the state recorded before it (which its begin resets), before the state recorded in it.
      const PassCursor cursor(*passes_, device_, job.firstKey, job.endKey);
      const size_t resumed = cursor.resumed();
      bool begun = resumed == DeclaredPasses::kNone;
      for (const FramePacketRef& ref : job.prefix) {
        if (!begun && ref.key >= passes_->start(resumed)) {
          passes_->begin(device_, resumed, cursor.ends(resumed));
          begun = true;
        }
        JobPlanner::visit(view, ref,
                          [&](CommandType type, const std::byte* payload, const PacketContext& context) {
                            dispatchPacket(device_, type, payload, context);
                          });
      }
      if (!begun) passes_->begin(device_, resumed, cursor.ends(resumed));
      device_.startJobRange();
      packets[j] = translate(view, job.firstKey, job.endKey, UINT64_MAX,
                             merge ? &mergeCursors_[thread] : nullptr, jobDraws[j]);
      device_.leaveJob();
      timing.jobWall[j] = std::chrono::steady_clock::now() - start;
      timing.jobPackets[j] = packets[j];
    }
    // Thread 0 is the render thread (WorkerPool::run): from here it waits for the others.
    if (thread == 0) clock.enter(FramePhase::Wait);
  });
  device_.endJobs();
  uint64_t total = 0;
  for (uint32_t j = 0; j < jobs; ++j) {
    total += packets[j];
    draws.submitted += jobDraws[j].submitted;
    draws.mergedRuns += jobDraws[j].mergedRuns;
    draws.mergedDraws += jobDraws[j].mergedDraws;
  }
  return total;
}

void Renderer::asyncPassCuts(size_t keys, uint32_t jobs) {
  wideCuts_.clear();
  const std::span<const PassDesc> descs = passes_->descs();
  for (size_t p = 0; p < descs.size(); ++p) {
    const size_t first = passes_->start(p), end = passes_->start(p + 1);
    if (first == end || !descs[p].target.isNull() || descs[p].queue != QueueClass::AsyncCompute) continue;
    if (first > 0 && (wideCuts_.empty() || wideCuts_.back() != first)) wideCuts_.push_back(first);
    if (end < keys) wideCuts_.push_back(end);
  }
  if (wideCuts_.size() >= jobs) wideCuts_.clear();
}

void Renderer::assignJobQueues(std::span<const TranslationJob> plan, const FrameGraph& graph) {
  jobQueues_.assign(plan.size(), QueueClass::Graphics);
  const std::span<const size_t> starts = passes_->starts();
  for (size_t j = 0; j < plan.size(); ++j) {
    const auto after = std::upper_bound(starts.begin(), starts.end(), plan[j].firstKey);
    if (after == starts.begin() || after == starts.end()) continue;  // before the passes, or naming none
    const size_t p = static_cast<size_t>(after - starts.begin()) - 1;
    if (plan[j].endKey > *after || passes_->queueOf(p) != QueueClass::AsyncCompute) continue;
    const GraphPass& pass = graph.passes[p];
    auto isDepth = [&](const GraphResource& r) {
      if (r.kind != ResourceKind::Texture) return false;
      const auto create = live_.createPacket<cmd::CreateTexture>(ResourceKind::Texture, r.handle);
      return create && isDepthFormat(create->desc.format);
    };
    const bool copiesDepth =
        pass.copiesTextures && (std::any_of(pass.reads.begin(), pass.reads.end(), isDepth) ||
                                std::any_of(pass.writes.begin(), pass.writes.end(), isDepth));
    if (!copiesDepth) jobQueues_[j] = QueueClass::AsyncCompute;
  }
}

uint64_t Renderer::translate(const FrameView& view, size_t first, size_t end, uint64_t stopAfterPackets,
                             InstanceMergeCursor* merge, DrawCounts& draws) {
  // Sorted order jumps around the packet arenas (keys are sorted, packets lie in recording order), so
  // every chain head is a cache miss that the hardware prefetcher cannot foresee: without a driver
  // (BM_TranslateStress, 100k stress keys) that was ~9x the cost of the same walk in recording order.
  // The next chains' lines are fetched kPrefetchKeys keys ahead, from offsets that come with the sorted
  // entries (no random read of mergedPackets): ~2x the recording-order walk, 4-5x faster than before.
  const SortEntry* sorted = view.sorted.data();
  const size_t total = end;
  uint64_t count = 0;
  uint64_t drawPackets = 0;
  if (merge) merge->reset();
  // Declared passes begin and end between keys (declared_passes.h); a frame without any has no event.
  PassCursor passes(*passes_, device_, first, end);
  bool stopped = false;
  for (size_t i = first; i < total; ++i) {
    if (count >= stopAfterPackets) {
      stopped = true;
      break;
    }
    if (i == passes.nextEvent()) passes.at(i);
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
      // The bucket of the key whose chain is fetched next time round: mergedBuckets is read in sorted
      // order, at random, and the address above waits for it.
      if (i + 2 * kPrefetchKeys < total)
        __builtin_prefetch(&view.mergedBuckets[sorted[i + 2 * kPrefetchKeys].sequence]);
    }
    if (merge) {
      // A run of draws from here, dispatched as one instanced draw: skip the keys it took. A run stays
      // inside its pass.
      const size_t runEnd = std::min(total, passes.nextEvent());
      if (const size_t taken = merger_->translateRun(device_, view, i, runEnd, *merge, count)) {
        ++drawPackets;
        i += taken - 1;
        continue;
      }
    }
    const SortEntry& entry = sorted[i];
    const BucketStream& stream = *view.buckets[view.mergedBuckets[entry.sequence]].stream;
    // FrameView::forEachInChain without the payload's size, which only observers need.
    uint32_t offset = entry.value;
    for (; offset != 0 && count < stopAfterPackets;) {
      const PacketHeader& h = stream.header(offset);
      const uint32_t body = detail::resolveShared(stream, offset, h);
      const PacketHeader& bh = stream.header(body);
      const auto type = static_cast<CommandType>(bh.type);
      dispatchPacket(device_, type, stream.payload(body),
                     PacketContext{stream.aux(bh), detail::tagOf(stream, h)});
      drawPackets += type < CommandType::Count && semanticsOf(type).category == CommandCategory::Draw;
      ++count;
      offset = h.next;
    }
    stopped = offset != 0;
  }
  // The frame's last job ends its passes (and begins and ends those no key names after its last key).
  if (!stopped && total == view.sorted.size() && passes.nextEvent() == total) passes.at(total);
  draws.submitted += drawPackets;
  if (merge) {
    draws.mergedRuns += merge->counts.runs;
    draws.mergedDraws += merge->counts.mergedDraws;
  }
  return count;
}

}  // namespace reel

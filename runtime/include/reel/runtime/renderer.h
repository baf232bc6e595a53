#pragma once
// The Renderer: the one handoff point between the app and the render thread (Raven's ring of per-frame
// queues with a counting semaphore; bgfx's swap()).
//
// Usage (given reel::Device& device, int frames):
//   reel::Renderer renderer(device, {.framesInFlight = 2});  // device: a reel::VulkanDevice, or a NullDevice
//   auto& world = renderer.createBucket<reel::DrawKey>("world");
//   for (int frame = 0; frame < frames; ++frame) {
//     // record into world (from any threads) and renderer.resources(), then:
//     const reel::DrawKey key = reel::DrawKey::draw(0, 1, reel::Translucency::Opaque, {1, 0}, 0);
//     world.add<reel::cmd::Draw>(key).vertexCount = 3;
//     renderer.kick();  // hands the frame over and starts recording the next
//   }
//   renderer.flushAndWait();  // every kicked frame done, CPU and GPU
//
// Threading contract: createBucket, addObserver (and ending its registration), kick, flushAndWait and
// withIdleDevice are called from one thread, the app's "kick" thread; recording (bucket add, resource
// requests) from any thread but not during kick. While the renderer runs, only its render thread calls
// into the device (debug builds assert it, device.h), except inside withIdleDevice.
// The render thread processes frames strictly in kick order: each kick publishes exactly one frame,
// empty or not, so nothing like a read index can drift from a write index (Raven's minimized-window
// bug cannot happen: there is no per-slot state left behind by a skipped frame).

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <semaphore>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "reel/runtime/abi.h"
#include "reel/runtime/command_bucket.h"
#include "reel/runtime/device.h"
#include "reel/runtime/frame.h"
#include "reel/runtime/frame_timing.h"
#include "reel/runtime/resource_context.h"

namespace reel {

struct RendererConfig {
  uint32_t framesInFlight = 2;  // 1..kMaxFramesInFlight: frames kicked but not yet processed
  uint64_t firstFrameNumber =
      0;  // the number of the first frame kicked (a replay continues a trace's numbering)
  // Threads that translate a large frame (the render thread and workers - 1 render workers), when the
  // device records in parallel (Device::jobCapacity). 0: REEL_RENDER_WORKERS when set, else the
  // hardware's threads. A frame of fewer than 2 x kMinJobKeys keys, or one kicked with stopAfterPackets,
  // stays on the render thread. The images never depend on it.
  uint32_t workers = 0;
  // Instance merging (docs/instance-merging.md): runs of sorted draws of a pipeline that opts in
  // (PipelineInstancing) and differ only in their per-draw constants become one instanced draw.
  // REEL_MERGE_INSTANCES=1 / =0 overrides it. Never in a frame kicked with stopAfterPackets. The images
  // never depend on it. Off by default: finding the runs costs every key of an opted-in pipeline a look
  // at its chain, which on `stress` (a quarter of its draws in long runs) cost more render-thread CPU
  // than the draws it saved, on the H100 host and on lavapipe (docs/instance-merging.md).
  bool mergeInstances = false;
};

// Per-frame choices made at kick().
struct FrameOptions {
  // Translate only the first N packets of the sorted frame (chains counted packet by packet), then end
  // it: what `reel replay --stop-at` and the viewer use to look at a target after a given command.
  uint64_t stopAfterPackets = UINT64_MAX;
};

struct RendererStats {
  uint64_t framesKicked = 0;
  uint64_t framesProcessed = 0;
  uint64_t kickWaits = 0;        // kicks that blocked because the render thread was a whole ring behind
  uint64_t kicksBlockedNow = 0;  // kicks blocked at this moment (0 or 1: one kick thread)
  uint64_t packetsTranslated = 0;
  uint64_t leaseWaits = 0;      // frame ends that waited for observers to end leases (FrameLease's bound)
  uint64_t drawsRecorded = 0;   // draw packets of the frames as recorded
  uint64_t drawsSubmitted = 0;  // draws that reached the device, after instance merging
};

class Renderer;

// An observer's place among a renderer's observers (Renderer::addObserver). Move-only. Ending it
// (destructor or reset()) removes the observer: frames kicked afterwards do not call it, and reset()
// returns only once the render thread is past every frame kicked before, so that the observer is never
// called again and may be destroyed. Kick thread only, and never from inside an observer call (it would
// wait for the frame it is in). Ends before its renderer.
class ObserverRegistration {
 public:
  ObserverRegistration() = default;
  ObserverRegistration(ObserverRegistration&& other) noexcept
      : renderer_(std::exchange(other.renderer_, nullptr)),
        observer_(std::exchange(other.observer_, nullptr)) {}
  ObserverRegistration& operator=(ObserverRegistration&& other) noexcept {
    if (this != &other) {
      reset();
      renderer_ = std::exchange(other.renderer_, nullptr);
      observer_ = std::exchange(other.observer_, nullptr);
    }
    return *this;
  }
  ObserverRegistration(const ObserverRegistration&) = delete;
  ObserverRegistration& operator=(const ObserverRegistration&) = delete;
  ~ObserverRegistration() { reset(); }

  void reset();
  explicit operator bool() const { return renderer_ != nullptr; }

 private:
  friend class Renderer;
  ObserverRegistration(Renderer* renderer, FrameObserver* observer)
      : renderer_(renderer), observer_(observer) {}
  Renderer* renderer_ = nullptr;
  FrameObserver* observer_ = nullptr;
};

namespace detail {
struct LeasePool;  // renderer.cpp: the frame records that FrameLeases hold
class PhaseClock;  // renderer.cpp: times the render thread's phases
}  // namespace detail
class WorkerPool;       // worker_pool.h: the render workers
struct TranslationJob;  // translation_jobs.h: a wide frame's range of keys
class JobPlanner;       // translation_jobs.h: job ranges and the state each starts from
class RadixSorter;      // radix_sort.h: the frame's sort, parallel when large
class InstanceMerger;   // instance_merge.h: runs of draws folded into instanced draws
class SortPrefixes;     // radix_sort.h: each key's pass and bucket order
class DeclaredPasses;   // declared_passes.h: the frame's passes, begun and ended around their keys
struct InstanceMergeCursor;

class Renderer {
 public:
  // `app` is evaluated in the caller's translation unit: the library checks that the caller was compiled
  // against the same layouts (abi.h) and stops with a message naming both if not. Leave it defaulted.
  Renderer(Device& device, RendererConfig config = {}, AbiStamp app = AbiStamp::current());
  ~Renderer();  // flushes every kicked frame, then stops the render thread
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  template <typename Key>
  CommandBucket<Key>& createBucket(std::string name, const BucketConfig& config = {}) {
    auto bucket = std::make_unique<CommandBucket<Key>>(std::move(name), config);
    CommandBucket<Key>& ref = *bucket;
    buckets_.push_back(std::move(bucket));
    return ref;
  }

  // A bucket of any CommandBucketBase type (a replay's buckets carry the key layout of their trace).
  CommandBucketBase& adoptBucket(std::unique_ptr<CommandBucketBase> bucket) {
    buckets_.push_back(std::move(bucket));
    return *buckets_.back();
  }
  size_t bucketCount() const { return buckets_.size(); }
  CommandBucketBase& bucket(size_t index) { return *buckets_[index]; }

  ResourceContext& resources() { return resources_; }
  Device& device() { return device_; }

  // Kick thread. Adds `observer` after those already registered: it sees every frame kicked from now on
  // (FrameObserver), until the registration ends. Adding one never replaces another; an observer is
  // registered at most once at a time.
  [[nodiscard]] ObserverRegistration addObserver(FrameObserver& observer);
  size_t observerCount() const { return observers_.size(); }  // kick thread

  // Hands the recorded frame to the render thread; returns at once unless framesInFlight frames are
  // already waiting, in which case it blocks until the oldest is done.
  void kick(const FrameOptions& options = {});
  // Returns when every kicked frame is translated and the device is idle.
  void flushAndWait();

  // Flushes, then calls fn(device) on this thread while the render thread is idle: the one way for the
  // kick thread to use the device directly (read back a render target after a frame, say).
  template <typename Fn>
  auto withIdleDevice(Fn&& fn) {
    flushAndWait();
    std::lock_guard lock(mutex_);  // orders the call after the render thread's last use
    const DeviceLoan loan(device_, thread_.get_id());
    return fn(device_);
  }

  // The number the next kick() gives the frame being recorded now (0 first).
  uint64_t recordingFrame() const { return nextFrame_; }
  uint32_t framesInFlight() const { return config_.framesInFlight; }
  // Threads that may translate one frame (RendererConfig::workers, resolved).
  uint32_t workers() const { return workers_; }
  // Frames the render thread begins from now on sort and translate on at most `threads` of workers()
  // (0: all of them), leaving the other cores to the app's own work, a capture or another process. Any
  // thread; the images never depend on it.
  void limitWorkers(uint32_t threads) { workerLimit_.store(threads, std::memory_order_relaxed); }
  // What limitWorkers left in force: the threads a frame may use now.
  uint32_t activeWorkers() const {
    const uint32_t limit = workerLimit_.load(std::memory_order_relaxed);
    return limit && limit < workers_ ? limit : workers_;
  }
  RendererStats stats() const;

 private:
  friend class ObserverRegistration;

  struct PendingFrame {
    uint64_t stopAfterPackets = UINT64_MAX;
    std::vector<FrameObserver*> observers;  // those registered at kick (capacity kept between frames)
    FrameLease lease;                       // the render thread's hold on the frame's streams
  };
  // The device belongs to the kick thread for a withIdleDevice call (device.h's owner thread), then
  // returns to the render thread.
  class DeviceLoan {
   public:
    DeviceLoan(Device& device, std::thread::id renderThread) : device_(device), renderThread_(renderThread) {
      device_.setOwnerThread(std::this_thread::get_id());
    }
    ~DeviceLoan() { device_.setOwnerThread(renderThread_); }
    DeviceLoan(const DeviceLoan&) = delete;
    DeviceLoan& operator=(const DeviceLoan&) = delete;

   private:
    Device& device_;
    std::thread::id renderThread_;
  };

  void removeObserver(FrameObserver* observer);
  FrameLease leaseRecordedFrame(uint64_t frame);  // kick: hands every stream over to a frame record
  // Render thread, after a frame: waits while observers hold more than kMaxObserverRetainedFrames
  // frames (FrameLease).
  void waitForObserverLeases();
  void renderLoop();
  uint64_t processFrame(PendingFrame& frame);  // returns the packets translated
  // Draw packets that reached the device, and what instance merging folded into them.
  struct DrawCounts {
    uint64_t submitted = 0;
    uint64_t mergedRuns = 0;   // runs merged into one instanced draw each
    uint64_t mergedDraws = 0;  // draws inside those runs
  };
  // Translates the sorted keys [first, end) on the calling thread, at most stopAfterPackets packets.
  // Adds its draws to `draws`; merges runs of draws through `merge` (instance_merge.h) unless it is null.
  uint64_t translate(const FrameView& view, size_t first, size_t end, uint64_t stopAfterPackets,
                     InstanceMergeCursor* merge, DrawCounts& draws);
  // A frame with declared passes: its render graph (frame_graph.h) gives each pass with a target what it
  // reads and does not write (Device::prepareReads at its begin) and the transient attachments nothing
  // needs after it (Device::discardAtPassEnd; not in a frame `stopped` after N packets), each pass the
  // queue it runs on (passQueue; frames translated on one thread) and the device the lives of the frame's
  // transient textures (Device::planTransients). A wide frame's graph comes from the sweep's segments
  // (JobPlanner); a frame translated on one thread walks its packets for it, when it has at most
  // kPassReadsMaxKeys keys (a larger one does not walk its packets twice).
  static constexpr size_t kPassReadsMaxKeys = 4096;
  // The builder for this frame's graph: the declared passes, then one more for the keys naming none.
  FrameGraphBuilder graphBuilder();
  void walkGraph(const FrameView& view, FrameGraphBuilder& builder) const;
  void applyGraph(const FrameGraph& graph, bool stopped);
  // Wide frames: the sweep, then up to `jobs` jobs on the render workers; each job's wall time into
  // jobWall.
  uint64_t translateWide(const FrameView& view, uint32_t jobs, uint32_t threads, detail::PhaseClock& clock,
                         FrameTiming& timing, bool merge, DrawCounts& draws, bool graph);
  // Wide frames on several queues: a job records for one queue, so each declared pass that may run on
  // async compute (no target, preferring it) is a job of its own or several: its first key and the key
  // after its last begin jobs. Empty when they would take more than `jobs` - 1 of the frame's jobs.
  void asyncPassCuts(size_t keys, uint32_t jobs);
  // Each planned job's queue: async compute for a job inside a pass the graph puts there (passQueue),
  // unless the pass copies textures and touches a depth or stencil texture (only graphics queues copy
  // those, and a job cannot move to another queue part way); graphics for every other.
  void assignJobQueues(std::span<const TranslationJob> plan, const FrameGraph& graph);

  Device& device_;
  RendererConfig config_;
  ResourceContext resources_;
  std::vector<std::unique_ptr<CommandBucketBase>> buckets_;
  std::vector<FrameObserver*> observers_;  // kick thread
  uint64_t nextFrame_;
  std::unique_ptr<detail::LeasePool> leases_;  // declared before ring_: outlives the leases it holds

  std::counting_semaphore<kMaxFramesInFlight> freeSlots_;
  mutable std::mutex mutex_;
  std::condition_variable workReady_;
  std::condition_variable frameDone_;
  // Kicked frames not yet processed, oldest at ringHead_: a FIFO of at most framesInFlight entries.
  std::array<PendingFrame, kMaxFramesInFlight> ring_;
  uint32_t ringHead_ = 0;
  uint32_t ringCount_ = 0;
  bool stopping_ = false;
  uint64_t flushRequests_ = 0;  // flushAndWait tickets handed out / completed by the render thread
  uint64_t flushesDone_ = 0;
  RendererStats stats_;

  // Render thread only: reused every frame so that a steady state allocates nothing.
  std::vector<uint32_t> mergedPackets_;
  std::vector<uint16_t> mergedBuckets_;
  std::unique_ptr<SortPrefixes> prefixes_;  // each merged key's pass and bucket order
  std::unique_ptr<DeclaredPasses> passes_;
  std::vector<SortEntry> sortEntries_;
  std::vector<uint32_t> deferredDestroys_;
  LiveResources live_;
  uint32_t workers_ = 1;
  size_t minJobKeys_ = 0;  // translation_jobs.h: kMinJobKeys unless REEL_RENDER_JOB_KEYS says otherwise
  std::atomic<uint32_t> workerLimit_{0};  // limitWorkers
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<JobPlanner> planner_;
  std::vector<PassDesc> graphPasses_;       // graphBuilder's passes (capacity kept between frames)
  std::vector<size_t> wideCuts_;            // asyncPassCuts
  std::vector<QueueClass> jobQueues_;       // assignJobQueues
  std::unique_ptr<RadixSorter> sorter_;     // on pool_ for large frames
  std::vector<uint8_t> computePipelines_;   // per pipeline handle slot: binds to the compute bind point
  std::unique_ptr<InstanceMerger> merger_;  // null when merging is off
  std::vector<InstanceMergeCursor> mergeCursors_;  // per translating thread

  std::thread thread_;  // last: starts after everything above exists
};

}  // namespace reel

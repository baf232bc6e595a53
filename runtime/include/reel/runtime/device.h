#pragma once
// The Device: what the render thread translates sorted packets into. One execute() overload per
// command of commands.inc, so that a Device that misses a command does not compile. Implementations:
// NullDevice (records what it was asked, for tests) and the Vulkan device.
//
// Usage (given reel::Device& device, reel::TextureHandle color, uint64_t frame):
//   // frame: the frame about to be kicked (Renderer::recordingFrame()); device: Renderer::device()
//   auto onImage = [](reel::Result<reel::ReadbackImage> image) {
//     if (!image) return;  // image.error().message says why
//     std::printf("%ux%u, %zu bytes\n", image->width, image->height, image->pixels.size());
//   };
//   device.requestReadback(color, frame, onImage);
//
// Threading: every method is called from the render thread only, except takeErrors() and those marked
// "any thread". While a Renderer drives the device, its render thread owns it (ownerThread).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/frame_graph.h"
#include "reel/runtime/readback.h"
#include "reel/runtime/result.h"
#include "reel/runtime/tags.h"

namespace reel {

// What a device is, as a trace header records it.
struct DeviceInfo {
  std::string name;        // "llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H100 80GB HBM3"
  std::string driver;      // driver name and version
  std::string apiVersion;  // "1.3.230"
  std::string type;        // "cpu", "discrete", "integrated", "virtual", "null"
};

// What a packet carries besides its fields.
struct PacketContext {
  std::span<const std::byte> aux;
  const TagRecord* tag = nullptr;  // null when untagged or tags are compiled out
};

class Device {
 public:
  virtual ~Device() = default;

  virtual const char* name() const = 0;
  virtual DeviceInfo info() const = 0;
  // Brackets one frame's work. endFrame submits it; it may return before the GPU is done.
  virtual void beginFrame(uint64_t frame) = 0;
  virtual void endFrame(uint64_t frame) = 0;
  // Blocks until every submitted frame is finished.
  virtual void waitIdle() = 0;

#define REEL_COMMAND(Name, Semantics, ...) \
  virtual void execute(const cmd::Name& packet, const PacketContext& context) = 0;
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

  // Contents of a live resource as the GPU last left them, for capture: called on the render thread
  // (from a FrameObserver), it waits for the submitted work that writes the resource. A texture comes
  // back tightly packed, row by row, in its own format.
  virtual Result<std::vector<std::byte>> readBuffer(BufferHandle buffer) = 0;
  virtual Result<std::vector<std::byte>> readTexture(TextureHandle texture, uint32_t mipLevel) = 0;

  // Any thread: deliver `texture` (mip 0) as it is at the end of frame `frame` to `callback`, on the
  // render thread, once the device has finished that frame (readback.h). Ask before the frame is kicked;
  // a request for a frame that already ended fails through the callback. A device that cannot read
  // back fails every request (this default).
  virtual void requestReadback(TextureHandle texture, uint64_t frame, ReadbackCallback callback);
  // Whether frames end on a screen (a windowed device). Only then does setPresentSource matter.
  virtual bool presents() const {
    return false;
  }
  // Any thread: the texture the end of frame `frame` shows (a replay shows whichever target each frame
  // chose). Ask before the frame is kicked, like requestReadback. A device that does not present ignores it.
  virtual void setPresentSource(TextureHandle texture, uint64_t frame) {
    (void)texture;
    (void)frame;
  }

  // ---- Wide translation (optional) ----
  // A device that can record several contiguous ranges of one frame's sorted packets at once, each on
  // its own thread into its own command list, says how many ranges it takes (jobCapacity() > 1). The
  // default, 1, keeps every frame on the render thread (NullDevice). Per wide frame the renderer calls:
  //   beginJobs(queues)  render thread, after the frame's observers: one entry per job, the queue class
  //                      its commands are for (AsyncCompute: a job inside a declared pass that the
  //                      frame's graph puts on async compute, whose commands need no graphics queue;
  //                      else Graphics); a device with one queue records every job for it
  //   for each job j, on one thread per job, the jobs at the same time:
  //     enterJob(j); the state packets in force at the job's start, in sort order (the device applies
  //     them and neither reports nor counts anything); startJobRange(); the job's own packets; leaveJob()
  //   endJobs()          render thread, once every job has left: joins the jobs' work in job order
  // Between enterJob and leaveJob the job's thread may call execute() (dispatchPacket) on the device.
  virtual uint32_t jobCapacity() const {
    return 1;
  }
  virtual void beginJobs(std::span<const QueueClass> queues) {
    (void)queues;
  }
  void enterJob(uint32_t job);
  virtual void startJobRange() {}
  void leaveJob();
  virtual void endJobs() {}

  // Before a declared pass with a target begins, when the renderer knows the frame's render graph
  // (frame_graph.h), on the thread that begins it (a job's, in wide frames; also when a job begins again
  // a pass open across its start, while it replays its state): the buffers and textures the pass reads and
  // does not write, so that a device can make them ready in one batch before the pass instead of at the
  // command that first reads them (which may have to interrupt the pass). Advisory: the commands that read
  // them still follow, and a device may ignore this.
  virtual void prepareReads(std::span<const GraphResource> reads) {
    (void)reads;
  }

  // Before a declared pass with a target begins (after prepareReads), on the thread that begins it: its
  // attachments whose contents nothing needs after the pass (transient textures, texture_usage::kTransient,
  // whose last pass in the frame this is), when the renderer knows from the frame's graph that the pass
  // runs from here to its end on this thread with no command that interrupts rendering (GraphPass::
  // interrupted; a wide frame's job that ends inside the pass is not told). Never for a frame stopped
  // after N packets: what a debugging view stops on is kept. A device may leave those attachments'
  // contents undefined at the pass's end (Vulkan: VK_ATTACHMENT_STORE_OP_DONT_CARE), which a tiling GPU
  // then need not write to memory. Advisory, like prepareReads; applies to the next BeginRenderPass only.
  virtual void discardAtPassEnd(std::span<const GraphResource> attachments) {
    (void)attachments;
  }

  // The queue class the declared pass about to begin prefers (PassDesc::queue), until the next call; the
  // renderer goes back to Graphics after a frame's last declared pass. A device with a queue of that class
  // may run there the commands that queue supports (dispatches on async compute, copies on transfer) and
  // keeps the others on its graphics queue; results never depend on it. Only for frames translated on one
  // thread (the render thread); a wide frame's jobs each record for the queue beginJobs gives them. The
  // default ignores it.
  virtual void preferQueue(QueueClass queue) {
    (void)queue;
  }

  // Before a frame's packets: its transient textures' lives (texture_usage::kTransient, frame_graph.h)
  // when the renderer built the frame's graph (`known`: wide frames, and frames translated on the render
  // thread with at most Renderer::kPassReadsMaxKeys keys), so that a device may let transient textures
  // whose lives do not overlap share memory. `known` false: this frame's lives are not known, and no
  // transient texture may share memory during it. The default ignores it.
  virtual void planTransients(std::span<const TransientLife> lives, bool known) {
    (void)lives;
    (void)known;
  }

  // Problems found while translating (a stale handle in a packet, a failed allocation): reported, and the
  // command skipped, never a crash. Any thread may collect them.
  std::vector<std::string> takeErrors();
  size_t errorCount() const;

  // The thread allowed to call into the device. A Renderer sets its render thread when it starts, lends
  // the device to the kick thread for a withIdleDevice call and clears it when it ends. No owner (a
  // default id) lets any thread call: tests and tools that drive a device without a renderer.
  void setOwnerThread(std::thread::id owner) {
    owner_.store(owner, std::memory_order_release);
  }
  std::thread::id ownerThread() const {
    return owner_.load(std::memory_order_acquire);
  }
  // Debug builds (NDEBUG not defined): a REEL_ASSERT, naming `call`, that the calling thread owns the
  // device or that it has no owner. reel's core checks it where it calls into a device (dispatchPacket,
  // the renderer's frame brackets). Release builds: nothing.
  void assertOwnerThread(const char* call) const;

 protected:
  // Also the renderer's, for what it finds wrong in a frame before the device sees it (a pass declared
  // out of order, keys naming a pass the frame did not declare): tools collect one list of errors.
  friend class Renderer;
  void reportError(std::string message);
  // The job the calling thread is in on this device (enterJob), or kNoJob.
  static constexpr uint32_t kNoJob = UINT32_MAX;
  uint32_t currentJob() const;
  // enterJob / leaveJob's device side, on the job's thread.
  virtual void beginJob(uint32_t job) {
    (void)job;
  }
  virtual void endJob(uint32_t job) {
    (void)job;
  }

 private:
  std::atomic<std::thread::id> owner_{};
  mutable std::mutex errorMutex_;
  std::vector<std::string> errors_;
  size_t errorCount_ = 0;
};

// Calls the execute() overload for a packet of any type: the dispatch table follows from commands.inc.
void dispatchPacket(Device& device, CommandType type, const void* payload, const PacketContext& context);

}  // namespace reel

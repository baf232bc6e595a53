#pragma once
// The Vulkan device's implementation (the public face is reel/vulkan/vulkan_device.h). Not installed:
// reel's own tests and benchmarks reach native handles through it.
//
// Design, one file per idea under vulkan/src/:
//   context.cpp       instance, device selection (--device / REEL_DEVICE / discrete / any), validation
//   memory_allocator.cpp memory domains (device / host upload / host readback), resources sharing blocks
//                     (sub-allocation, dedicated where the driver prefers), persistent mapping
//   staging.cpp       per-frame linear upload and readback arenas
//   resources.cpp     buffers, textures (views, zero fill, uploads, mip chains), samplers, shaders, targets
//   pipelines.cpp     the fixed push-descriptor binding model, pipelines from descriptors, pipeline cache
//   spirv.cpp         which bindings a shader declares, so an unbound slot is reported, not crashed on
//   barriers.cpp      barriers derived from each resource's last use (no hand-placed barriers)
//   frame_context.cpp Granite frame contexts: command pool, garbage, arenas, readbacks per frame in flight
//   translate.cpp     sorted packets -> vkCmd*, with most-recently-used caches so that a redundant bind
//                     never reaches Vulkan; render passes are dynamic rendering, begun lazily
//   readback.cpp      readBuffer / readTexture (synchronous, for capture) and requestReadback (frame images)
//   swapchain.cpp     the windowed path (GLFW surface from the app, resize, minimize)
//
// Frames: frame f records into frame context f % framesInFlight; endFrame submits one command buffer that
// signals the device's timeline semaphore with a new serial. With several queues (queues.h), a frame's
// commands that the pass's preferred queue supports go there in segments, each its own submission; the
// frame's last submission, on the graphics queue, waits for every other queue's last one, so that the
// graphics serial alone still says when a frame context is finished. beginFrame waits only for the serial of
// the context it is about to reuse (framesInFlight frames ago), then frees that context's garbage and
// delivers its readbacks. No vkDeviceWaitIdle on the hot path; waitIdle() (Renderer::flushAndWait) waits for
// the last serial. With collectTimings, each context also brackets its command buffers with timestamp queries
// (frame_context.h, GpuTimer), read back at that same recycling point, so GPU times never stall anything.
//
// Render passes: BeginRenderPass only records what to do; vkCmdBeginRendering happens at the pass's first
// draw (or at EndRenderPass, so a clear with no draw still clears). Commands that cannot run inside a
// render pass (copies, updates, dispatches) and barriers that a draw needs (a texture written earlier in
// the frame, a buffer a dispatch wrote) suspend it: vkCmdEndRendering, the work, and the next draw resumes
// with load ops LOAD. Binding state (pipeline, buffers, descriptors, push constants, viewport) starts empty
// every frame and carries from packet to packet in sorted order.
//
// Errors: a packet naming a stale or unknown handle, an unbound slot the pipeline uses, a draw outside a
// pass, a failed allocation, device loss, and every validation-layer message (when validation is on) are
// reported through reportError(); the packet is skipped, nothing crashes. After device loss, frames are
// skipped and readbacks fail.
//
// Threading: as Device says, everything on the render thread, except requestReadback(),
// setPresentSource(), stats() and takeErrors(), which any thread may call. readBuffer / readTexture may
// also be called from the kick thread while the render thread is idle (after Renderer::flushAndWait).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "barriers.h"
#include "context.h"
#include "frame_context.h"
#include "pipelines.h"
#include "reel/runtime/command_bucket.h"
#include "reel/runtime/detail/resource_table.h"
#include "reel/runtime/device.h"
#include "reel/runtime/readback.h"
#include "reel/vulkan/vulkan_device.h"
#include "resources.h"
#include "swapchain.h"

namespace reel {

class VulkanDeviceImpl final : public VulkanDevice {
 public:
  static Result<std::unique_ptr<VulkanDeviceImpl>> create(const VulkanDeviceOptions& options);
  ~VulkanDeviceImpl() override;
  VulkanDeviceImpl(const VulkanDeviceImpl&) = delete;
  VulkanDeviceImpl& operator=(const VulkanDeviceImpl&) = delete;

  DeviceInfo info() const override { return context_->info(); }
  void beginFrame(uint64_t frame) override;
  void endFrame(uint64_t frame) override;
  void waitIdle() override;

#define REEL_COMMAND(Name, Semantics, ...) \
  void execute(const cmd::Name& packet, const PacketContext& context) override;
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

  Result<std::vector<std::byte>> readBuffer(BufferHandle buffer) override;
  Result<std::vector<std::byte>> readTexture(TextureHandle texture, uint32_t mipLevel) override;
  void requestReadback(TextureHandle texture, uint64_t frame, ReadbackCallback callback) override;
  bool presents() const override {
    return swapchain_ != nullptr;
  }
  void setPresentSource(TextureHandle texture) override;
  // The render thread may still be ending earlier frames, whose textures may differ: hence per frame.
  void setPresentSource(TextureHandle texture, uint64_t frame) override;

  VulkanDeviceStats stats() const override;
  void setGpuTimingCallback(std::function<void(const VulkanGpuTiming&)> callback) override {
    gpuTimingCallback_ = std::move(callback);
  }
  bool gpuTimestamps() const override {
    return gpuTimestamps_;
  }

  // ---- native access, for benchmarks and interop (render thread, or while it is idle) ----
  const vk::Context& context() const {
    return *context_;
  }
  VkPipelineLayout pipelineLayout() const {
    return pipelines_->layout();
  }
  VkPipeline nativePipeline(PipelineHandle handle);
  VkBuffer nativeBuffer(BufferHandle handle);
  VkImageView nativeView(TextureHandle handle);
  VkImageView nativeAttachmentView(TextureHandle handle);
  VkImage nativeImage(TextureHandle handle);
  VkSampler nativeSampler(SamplerHandle handle);

 private:
  struct Recorder;  // one thread's translation state (below)
  struct DebugLabel {
    std::string name;
    float color[4];
  };
  explicit VulkanDeviceImpl(const VulkanDeviceOptions& options);
  Result<void> init();
  static void onValidationMessage(void* self, std::string message);

  // ---- frames and submission (vulkan_device.cpp) ----
  bool frameRecording() const {
    return cmd_ != VK_NULL_HANDLE;
  }
  Result<void> beginCommandBuffer();
  // Ends and submits the open command buffer; waits on `wait` (binary, at `waitStage`) and signals the
  // timeline with a new serial (returned) plus `signal` when given.
  // `endTimer`: false when the frame goes on on another queue (the frame's GPU time then spans from its
  // first graphics command buffer to its last). Also waits for what the graphics segment needs of the
  // other queues (queues.h).
  Result<uint64_t> submit(VkSemaphore wait = VK_NULL_HANDLE, VkPipelineStageFlags2 waitStage = 0,
                          VkSemaphore signal = VK_NULL_HANDLE, bool endTimer = true);
  // Ends and submits the open command buffer on a compute or transfer queue.
  Result<void> submitOther(vk::QueueKind kind);
  // Submits ended command buffers, in order, on `kind`'s queue: waits for what its segment needs of the
  // other queues (and on `wait`, binary, at `waitStage`), signals its timeline with the next serial
  // (returned; and `signal` when given).
  Result<uint64_t> submitOn(vk::QueueKind kind, std::span<const VkCommandBuffer> commands,
                            VkSemaphore wait = VK_NULL_HANDLE, VkPipelineStageFlags2 waitStage = 0,
                            VkSemaphore signal = VK_NULL_HANDLE);
  // The semaphore waits a segment of `kind` needs (queues.h), appended to `waits`; forgets them.
  void takeWaits(vk::QueueKind kind, std::vector<VkSemaphoreSubmitInfo>& waits);
  Result<void> waitSerial(uint64_t serial);
  // Blocks until `semaphore` (a timeline) reaches `value`; reports a lost device.
  Result<void> waitTimeline(VkSemaphore semaphore, uint64_t value);
  // Submits what the frame recorded so far and waits for it, then opens a new command buffer (a
  // synchronous readback in the middle of a frame).
  Result<void> flushMidFrame();
  void handleVkFailure(const char* call, VkResult result);
  void reportLost(const char* where);
  void recycleAllFinished();
  // Hands the GPU time of the frame `frame` last recorded to the callback (its work is finished).
  void deliverGpuTime(vk::FrameContext& frame);

  // ---- resources (resources.cpp) ----
  // Every resource request runs inside a frame.
  bool beginRequest();
  Result<void> uploadBuffer(vk::Buffer& buffer, uint64_t offset, std::span<const std::byte> data);
  Result<void> uploadTexture(vk::Texture& texture, uint32_t mip, uint32_t x, uint32_t y, uint32_t width,
                             uint32_t height, std::span<const std::byte> texels);
  Result<void> generateMips(vk::Texture& texture);
  Result<void> clearTexture(vk::Texture& texture);
  bool formatSupports(VkFormat format, VkFormatFeatureFlags features);
  void retire(std::unique_ptr<vk::Retired> object);
  void nameObject(VkObjectType type, uint64_t handle, const char* kind, uint32_t index);

  // ---- translation (translate.cpp) ----
  bool beginSorted(Recorder& r);  // false: skip the packet (no frame open, device lost)
  template <ResourceKind K, typename T>
  T* lookup(vk::ResourceTableOf<K, T>& table, Handle<K> handle, CommandType command, const char* field,
            const PacketContext& context);
  void reportPacket(CommandType command, const PacketContext& context, const std::string& message);
  // `instanced`: a merged draw (instance merging), through the bound pipeline's instanced variant.
  bool prepareDraw(Recorder& r, CommandType command, const PacketContext& context, bool instanced = false);
  // A merged draw's per-instance constants (the packet's auxiliary data) into the frame's upload arena,
  // bound at the pipeline's instance slot; false (reported) when the pipeline does not opt in or the
  // data does not fit.
  bool bindInstanceData(Recorder& r, CommandType command, uint32_t instanceCount,
                        const PacketContext& context);
  bool prepareDispatch(Recorder& r, const PacketContext& context);
  bool settleBound(Recorder& r, bool graphics, CommandType command, const PacketContext& context);
  bool ensureRendering(Recorder& r);
  void suspendRendering(Recorder& r);
  // Before a command that must run outside rendering: ends rendering, and first runs a pending pass's
  // clear when the command touches one of its attachments.
  void leaveRendering(Recorder& r, const vk::Texture* touched1 = nullptr,
                      const vk::Texture* touched2 = nullptr);
  void endPass(Recorder& r);
  void resetBindings(Recorder& r);       // a new frame or job: nothing bound
  void invalidateRecorded(Recorder& r);  // a new command buffer: nothing recorded, re-apply what is bound
  void flushBarriers(Recorder& r);
  void pushDescriptors(Recorder& r, VkPipelineBindPoint point, uint32_t bits);
  // Ends the open labels in r.cmd and forgets them (a frame's or a job's end).
  void closeDebugLabels(Recorder& r);
  // Ends them in r.cmd, then begins them again in the next command buffer.
  void suspendDebugLabels(Recorder& r);
  void resumeDebugLabels(Recorder& r);
  void beginDebugLabel(VkCommandBuffer cmd, const DebugLabel& label);
  // The render thread's recorder (resources.cpp, readback.cpp, vulkan_device.cpp).
  void suspendRendering() {
    suspendRendering(main_);
  }
  void flushBarriers() {
    flushBarriers(main_);
  }

  // ---- readback (readback.cpp) ----
  void serviceReadbacks(uint64_t frame);
  Result<vk::LinearArena::Slice> recordTextureCopy(vk::Texture& texture, uint32_t mip, VkDeviceSize bytes);
  // Runs `record` in a command buffer and waits for it (the frame's own, flushed, when a frame is open).
  Result<void> runAndWait(const std::function<Result<void>(VkCommandBuffer)>& record,
                          vk::FrameContext*& used);
  // readBuffer / readTexture: runs `copy` (which copies `bytes` into the readback slice it returns) with
  // runAndWait, then hands back the slice's bytes; `what` names the caller in errors.
  Result<std::vector<std::byte>> readBackNow(
      const char* what, VkDeviceSize bytes,
      const std::function<Result<vk::LinearArena::Slice>(VkCommandBuffer)>& copy);

  // ---- several queues (vulkan_device.cpp, queues.h) ----
  void preferQueue(QueueClass queue) override;
  // Where a command that needs a queue of `capability` (Compute: a dispatch, Transfer: a copy, Graphics:
  // drawing and blits) runs, given the preferred queue class and the queues the device has.
  vk::QueueKind queueFor(vk::QueueKind capability) const;
  // The render thread's recorder moves to a segment on `kind` (submitting the current one) unless it is
  // there already. Jobs never move: each records for the queue beginJobs gave it (jobQueues_).
  void onQueue(Recorder& r, vk::QueueKind kind);
  // Submits the render thread's segment and begins the next, on `kind` (which may be the same queue: a
  // split, so that a wait the next commands need is not one of those before them).
  void nextSegment(Recorder& r, vk::QueueKind kind);
  // Whether a job's first uses, joined now (endJobs), would wait for another queue's segment that the
  // current one has not waited for: then the jobs joined before it are submitted without that wait.
  bool jobWaitsForAnotherQueue(const Recorder& job) const;
  // Whether r's command buffer may record push constants: not a transfer queue's (only graphics and
  // compute pools take them, VUID-vkCmdPushConstants-commandBuffer-cmdpool). Jobs record for graphics.
  bool takesPushConstants(const Recorder& r) const {
    return r.job || current_ != vk::QueueKind::Transfer;
  }
  // The queue a copy of `bytes` between the host and a resource records on (a request's upload of resource
  // data or a write, a frame's readback): the transfer queue, where the device has one, for copies large
  // enough to pay for a submission and a semaphore wait (kTransferCopyBytes), so that they overlap the
  // graphics work around them; else graphics. `texelCopies`: a texture region the transfer queue may copy.
  static constexpr uint64_t kTransferCopyBytes = 256u << 10;
  vk::QueueKind copyQueue(uint64_t bytes, bool texelCopies = true) const;
  // Whether a queue without graphics may copy the texture at all: not its depth or stencil aspects (only
  // graphics queues copy those, VUID-vkCmdCopyBufferToImage-commandBuffer-07739), and not while it shares
  // memory (its hand-over barrier orders only the graphics queue's work on the memory, transients.cpp).
  static bool copiesOffGraphics(const vk::Texture& texture) {
    return (texture.aspect & (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT)) == 0 &&
           !texture.alias;
  }
  // Whether the transfer queue may copy this region of a texture's mip (a color texture, at its family's
  // granularity).
  bool transferCopies(const vk::Texture& texture, uint32_t mip, uint32_t x, uint32_t y, uint32_t width,
                      uint32_t height) const;

  // ---- transient textures (transients.cpp) ----
  void planTransients(std::span<const TransientLife> lives, bool known) override;
  // The textures a readback request of the frame being recorded names, sorted (planTransients): their
  // contents are wanted after the frame, so they are never discarded.
  std::vector<uint32_t> readBackThisFrame_;
  // A new image for `texture`, bound to `shared` (null: memory of its own), with its views; the old ones
  // go to the frame's garbage. The contents are undefined.
  Result<void> rebindTexture(vk::Texture& texture, std::shared_ptr<vk::AliasMemory> shared);
  // resources.cpp: the image of a texture as its record describes it (format, size, mips, usage), unbound;
  // its views once it is bound.
  Result<vk::OwnedImage> createImage(const vk::Texture& texture);
  Result<void> makeTextureViews(vk::Texture& texture);
  std::vector<uint32_t> aliased_;  // handle values of the textures bound to shared memory

  // ---- presentation (vulkan_device.cpp) ----
  std::optional<uint32_t> recordPresent();

  VulkanDeviceOptions options_;
  std::unique_ptr<vk::Context> context_;
  const vk::DeviceFns* fns_ = nullptr;
  std::unique_ptr<vk::MemoryAllocator> allocator_;
  std::unique_ptr<vk::PipelineLibrary> pipelines_;
  vk::OwnedSemaphore timeline_;   // the graphics queue's
  uint64_t lastSerial_ = 0;       // last serial submitted
  uint64_t completedSerial_ = 0;  // last serial known finished
  // The compute and the transfer queue, where the device has them (index by vk::QueueKind; [Graphics] is
  // context_->queue() with timeline_ and lastSerial_).
  struct OtherQueue {
    VkQueue queue = VK_NULL_HANDLE;
    vk::OwnedSemaphore timeline;
    uint64_t lastSerial = 0;
  };
  OtherQueue queues_[vk::kQueueKinds];
  bool severalQueues_ = false;
  vk::QueueSegment segments_[vk::kQueueKinds];
  vk::QueueKind current_ = vk::QueueKind::Graphics;  // the queue the render thread's recorder records for
  QueueClass preferred_ = QueueClass::Graphics;
  std::vector<std::unique_ptr<vk::FrameContext>> frames_;
  std::unique_ptr<vk::FrameContext> immediate_;  // synchronous work outside frames
  std::unique_ptr<vk::Swapchain> swapchain_;
  vk::OwnedSampler defaultSampler_;
  VkPhysicalDeviceLimits limits_{};
  bool lost_ = false;
  std::atomic<bool> destroying_{
      false};  // validation messages during teardown also go to stderr: no one reads errors then

  // Resources behind the handles. After the core objects: destroyed first.
  vk::ResourceTableOf<ResourceKind::Buffer, vk::Buffer> buffers_;
  vk::ResourceTableOf<ResourceKind::Texture, vk::Texture> textures_;
  vk::ResourceTableOf<ResourceKind::Sampler, vk::Sampler> samplers_;
  vk::ResourceTableOf<ResourceKind::Shader, vk::Shader> shaders_;
  vk::ResourceTableOf<ResourceKind::Pipeline, vk::Pipeline> pipelineRecords_;
  vk::ResourceTableOf<ResourceKind::RenderTarget, vk::RenderTarget> targets_;
  uint64_t shaderSerial_ = 0;

  // ---- translation state: one Recorder per thread that translates (the render thread's, each job's) ----
  struct Pass {
    bool open = false;       // between BeginRenderPass and EndRenderPass
    bool rendering = false;  // inside vkCmdBeginRendering
    bool begun = false;      // rendering began at least once: later begins load
    RenderTargetHandle handle;
    vk::Texture* colors[4] = {};
    uint32_t colorCount = 0;
    vk::Texture* depth = nullptr;
    VkExtent2D extent{};
    LoadOp colorLoad = LoadOp::Clear, depthLoad = LoadOp::Clear;
    VkClearColorValue clearColor{};
    float clearDepth = 1.0f;
    uint32_t clearStencil = 0;
    // Attachments stored DONT_CARE (Device::discardAtPassEnd): bit i for colors[i], kDiscardDepth for the
    // depth; set only for a pass that rendering runs through to its end.
    static constexpr uint8_t kDiscardDepth = 1u << 4;
    uint8_t discards = 0;
  };
  // What the app has bound (desired) and what the command buffer last recorded (the MRU caches).
  struct Bound {
    vk::Pipeline* graphics = nullptr;
    vk::Pipeline* compute = nullptr;
    vk::Buffer* vertex[vk::binding::kVertexSlots] = {};
    VkDeviceSize vertexOffset[vk::binding::kVertexSlots] = {};
    vk::Buffer* index = nullptr;
    VkDeviceSize indexOffset = 0;
    VkIndexType indexType = VK_INDEX_TYPE_UINT16;
    vk::Buffer* uniform[vk::binding::kUniformSlots] = {};
    VkDeviceSize uniformOffset[vk::binding::kUniformSlots] = {},
                 uniformRange[vk::binding::kUniformSlots] = {};
    vk::Texture* texture[vk::binding::kTextureSlots] = {};
    VkSampler sampler[vk::binding::kTextureSlots] = {};
    vk::Buffer* storage[vk::binding::kStorageSlots] = {};
    VkDeviceSize storageOffset[vk::binding::kStorageSlots] = {},
                 storageRange[vk::binding::kStorageSlots] = {};
    uint32_t descriptorMask = 0;  // bit N: binding N has something bound
    VkViewport viewport{};
    VkRect2D scissor{};
    std::byte push[vk::binding::kPushConstantBytes] = {};
    uint32_t pushBytes = 0;  // high-water mark of bytes pushed this frame
  };
  struct Recorded {
    VkPipeline graphics = VK_NULL_HANDLE;
    VkPipeline compute = VK_NULL_HANDLE;
    VkBuffer vertex[vk::binding::kVertexSlots] = {};
    VkDeviceSize vertexOffset[vk::binding::kVertexSlots] = {};
    VkBuffer index = VK_NULL_HANDLE;
    VkDeviceSize indexOffset = 0;
    VkIndexType indexType = VK_INDEX_TYPE_MAX_ENUM;
    bool viewportSet = false, scissorSet = false;
    VkViewport viewport{};
    VkRect2D scissor{};
  };
  enum DirtyBits : uint32_t {
    kDirtyGraphicsPipeline = 1u << 0,
    kDirtyComputePipeline = 1u << 1,
    kDirtyVertex = 1u << 2,
    kDirtyIndex = 1u << 3,
    kDirtyViewport = 1u << 4,
    kDirtyScissor = 1u << 5,
    kCheckGraphics = 1u << 6,  // bound resources changed: settle them before the next draw
    kCheckCompute = 1u << 7,
  };
  // A translation job's view of one resource's synchronization (translate.cpp, "Wide translation").
  struct JobUse {
    void* resource = nullptr;  // vk::Buffer or vk::Texture
    bool image = false;
    bool discard = false;     // the first use may drop the old contents
    bool inherited = true;    // no write in the job yet: reads from before the job are unknown
    bool wrote = false;       // the job wrote it: its state at the job's end is known whole
    bool handedOver = false;  // its first use took shared memory from a texture the job used before it
    vk::Use first;            // the first use in the job: its barrier is placed before the job (unless
                              // handedOver: the job recorded that one itself)
    vk::SyncState state;      // as the job leaves it
  };
  struct Recorder {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    vk::BarrierBatch barriers;
    uint64_t writeEpoch = 1;  // bumped whenever a resource is written: bound resources need a new check
    Pass pass;
    Bound bound;
    Recorded recorded;
    uint32_t dirty = 0;
    uint32_t descriptorDirty[2] = {};  // per bind point (graphics, compute): bindings to push
    uint64_t checkedEpoch[2] = {};     // writeEpoch at the last check of each bind point's resources
    uint32_t graphicsSettled = 0;      // vk::Pipeline::settles of the last graphics check (settleBound)
    bool formatChecked = false;        // the bound graphics pipeline's formats match the open pass
    // Open DebugMarkerBegin labels, outermost first: a frame that moves to another command buffer (a
    // queue's segment, a mid-frame flush) ends them in the old one and begins them again in the new one.
    std::vector<DebugLabel> labels;
    // discardAtPassEnd's attachments, for the next BeginRenderPass.
    std::vector<uint32_t> discardNext;
    // The render thread's: a packet was translated into the queue segment it records (nextSegment).
    bool segmentRecorded = false;
    VulkanDeviceStats* stats = nullptr;
    // Jobs only.
    bool job = false;
    bool replaying = false;  // applying the state in force at the job's start: nothing is reported
    VulkanDeviceStats jobStats;
    std::vector<JobUse> uses;        // in first-use order
    std::vector<uint32_t> useTable;  // open addressing: index + 1 into uses, 0 empty
    // Each shared memory (transient textures) the job used, with the texture that used it last in the job.
    std::vector<std::pair<vk::AliasMemory*, uint32_t>> aliasUsers;
  };
  Recorder& rec() {
    const uint32_t job = currentJob();
    return job == kNoJob ? main_ : *jobs_[job];
  }
  // Barriers and their state, through the recorder: a job keeps its own view (JobUse).
  void use(Recorder& r, vk::Buffer& buffer, const vk::Use& use);
  void use(Recorder& r, vk::Texture& texture, const vk::Use& use, bool discard = false);
  bool settled(Recorder& r, vk::Buffer& buffer, const vk::Use& use);
  bool settled(Recorder& r, vk::Texture& texture, const vk::Use& use);
  // Makes a resource ready for every read its usage allows (its ReadScope), unless it already is.
  void settleRead(Recorder& r, vk::Buffer& buffer);
  void settleRead(Recorder& r, vk::Texture& texture);
  // A job's use of a texture on shared memory that another texture used earlier in the job: the job
  // hands the memory over itself, in its command buffer. Returns false when no other did.
  bool handOverInJob(Recorder& r, vk::Texture& texture, const vk::Use& use, bool discard);
  JobUse* findUse(Recorder& r, const void* resource);
  JobUse& addUse(Recorder& r, void* resource);
  void recordJobUpload(Recorder& r, vk::Buffer& buffer, uint64_t offset, std::span<const std::byte> data,
                       CommandType command, const PacketContext& context);
  // A declared pass's reads settled before it begins: their barriers go with the attachments' in the one
  // batch before vkCmdBeginRendering instead of interrupting the pass at the first draw that reads them.
  void prepareReads(std::span<const GraphResource> reads) override;
  void discardAtPassEnd(std::span<const GraphResource> attachments) override;
  // Whether settling `reads` on the render thread's segment would wait for another queue (asks only).
  bool readsWaitForAnotherQueue(const Recorder& r, std::span<const GraphResource> reads);
  // `f` on each of `reads` live on the device (its vk::Buffer or vk::Texture), until a call returns true;
  // whether one did (translate.cpp).
  template <typename F>
  bool anyLiveRead(std::span<const GraphResource> reads, F&& f);
  // Wide translation (Device's job interface).
  uint32_t jobCapacity() const override;
  void beginJobs(std::span<const QueueClass> queues) override;
  void beginJob(uint32_t job) override;
  void startJobRange() override;
  void endJob(uint32_t job) override;
  void endJobs() override;

  // ---- the frame being recorded (render thread) ----
  uint64_t frame_ = 0;
  vk::FrameContext* ctx_ = nullptr;
  Recorder main_;
  // The render thread's recorder under the names resources.cpp and readback.cpp record with: requests,
  // readbacks and presentation always run on the render thread, outside jobs.
  VkCommandBuffer& cmd_ = main_.cmd;
  vk::BarrierBatch& barriers_ = main_.barriers;
  uint64_t& writeEpoch_ = main_.writeEpoch;
  Pass& pass_ = main_.pass;
  std::vector<std::unique_ptr<Recorder>> jobs_;  // [0, jobCount_) in use this frame
  uint32_t jobCount_ = 0;
  std::vector<vk::QueueKind> jobQueues_;                // per job this frame: the queue it records for
  std::vector<VkCommandBuffer> pendingCommandBuffers_;  // ended, submitted before cmd_ (wide frames)
  std::mutex uploadMutex_;                              // jobs share the frame context's upload arena

  // ---- shared with other threads ----
  mutable std::mutex sharedMutex_;
  struct ReadbackRequest {
    TextureHandle texture;
    uint64_t frame;
    ReadbackCallback callback;
  };
  std::vector<ReadbackRequest> readbackRequests_;
  TextureHandle presentSource_;
  std::vector<std::pair<uint64_t, TextureHandle>> framePresentSources_;  // (frame, texture), kick order
  VulkanDeviceStats statsSnapshot_;

  VulkanDeviceStats stats_;  // render thread (jobs count into their own, added at endJobs)
  std::function<void(const VulkanGpuTiming&)> gpuTimingCallback_;
  bool gpuTimestamps_ = false;
};

}  // namespace reel

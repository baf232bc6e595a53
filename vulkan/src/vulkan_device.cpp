// The Vulkan device's life and frames: creation, frame contexts, submission, presentation, waitIdle.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "formats.h"
#include "vulkan_device_impl.h"

namespace reel {

namespace {
bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}
}  // namespace

VulkanDeviceImpl::VulkanDeviceImpl(const VulkanDeviceOptions& options) : options_(options) {
  main_.stats = &stats_;
}

Result<std::unique_ptr<VulkanDeviceImpl>> VulkanDeviceImpl::create(const VulkanDeviceOptions& options) {
  if (options.framesInFlight < 1 || options.framesInFlight > kMaxFramesInFlight) {
    return fail("framesInFlight must be 1..", kMaxFramesInFlight, ", not ", options.framesInFlight);
  }
  std::unique_ptr<VulkanDeviceImpl> device(new VulkanDeviceImpl(options));
  if (auto r = device->init(); !r) return r.error();
  return device;
}

Result<std::unique_ptr<VulkanDevice>> VulkanDevice::create(const VulkanDeviceOptions& options) {
  auto device = VulkanDeviceImpl::create(options);
  if (!device) return device.error();
  return std::unique_ptr<VulkanDevice>(std::move(*device));
}

Result<std::vector<std::string>> listVulkanDevices() {
  return vk::listPhysicalDevices();
}

void VulkanDeviceImpl::onValidationMessage(void* self, std::string message) {
  auto* device = static_cast<VulkanDeviceImpl*>(self);
  if (device->destroying_.load()) std::fprintf(stderr, "reel: during teardown: %s\n", message.c_str());
  device->reportError(std::move(message));
}

Result<void> VulkanDeviceImpl::init() {
  vk::ContextConfig config;
  config.applicationName = options_.applicationName;
  config.deviceName = options_.deviceName;
  config.validate = options_.validate || envFlag("REEL_VALIDATE");
  config.synchronizationValidation = options_.synchronizationValidation;
  config.instanceExtensions = options_.instanceExtensions;
  config.createSurface = options_.createSurface;
  config.oneQueue = options_.oneQueue;
  // REEL_QUEUES=shared: every queue opened and resources shared as with several queues, but all work on
  // the graphics queue; what concurrent sharing alone costs (scripts/device-sharing.sh).
  bool graphicsOnly = false;
  if (const char* queues = std::getenv("REEL_QUEUES"); queues && *queues) {
    if (std::strcmp(queues, "1") == 0) {
      config.oneQueue = true;
    } else if (std::strcmp(queues, "shared") == 0) {
      graphicsOnly = true;
    } else {
      return fail(
          "REEL_QUEUES=", queues,
          ": 1 (one queue) or shared (every queue's sharing, work on graphics) is understood; unset it "
          "for every queue");
    }
  }
  auto context = vk::Context::create(config, &VulkanDeviceImpl::onValidationMessage, this);
  if (!context) return context.error();
  context_ = std::move(*context);
  fns_ = &context_->fns();
  limits_ = context_->properties().limits;
  allocator_ = std::make_unique<vk::MemoryAllocator>(*fns_, context_->memory(), limits_);
  // Several queue families: resources are shared by all of them (queues.h), so every buffer and image,
  // the frame contexts' arenas included, is created knowing it.
  severalQueues_ = context_->families().size() > 1;
  if (severalQueues_) allocator_->shareWith(context_->families());
  if (graphicsOnly) severalQueues_ = false;
  pipelines_ = std::make_unique<vk::PipelineLibrary>(*fns_);
  if (auto r = pipelines_->init(options_.pipelineCachePath); !r) return r.error();

  // One timeline semaphore orders everything: each submission signals the next serial.
  auto type = vk::make<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  auto semaphoreInfo = vk::make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type);
  VkSemaphore timeline = VK_NULL_HANDLE;
  if (VkResult r = fns_->t.vkCreateSemaphore(fns_->device, &semaphoreInfo, nullptr, &timeline);
      r != VK_SUCCESS) {
    return vk::vkError("vkCreateSemaphore", r);
  }
  timeline_ = vk::OwnedSemaphore(fns_, timeline);
  uint32_t families[vk::kQueueKinds];
  for (size_t k = 0; k < vk::kQueueKinds; ++k) {
    const auto kind = static_cast<vk::QueueKind>(k);
    families[k] = context_->queue(kind).family;
    segments_[k].kind = kind;
    segments_[k].stages = vk::supportedStages(kind);
    segments_[k].access = vk::supportedAccess(kind);
    if (k == 0 || context_->queue(kind).queue == VK_NULL_HANDLE) continue;
    queues_[k].queue = context_->queue(kind).queue;
    VkSemaphore other = VK_NULL_HANDLE;
    if (VkResult r = fns_->t.vkCreateSemaphore(fns_->device, &semaphoreInfo, nullptr, &other);
        r != VK_SUCCESS) {
      return vk::vkError("vkCreateSemaphore", r);
    }
    queues_[k].timeline = vk::OwnedSemaphore(fns_, other);
  }
  if (severalQueues_) main_.barriers.setSegment(&segments_[0]);
  stats_.queues = static_cast<uint32_t>(context_->families().size());

  // GPU times need a queue that writes timestamps; a device whose queue does not just has none.
  uint32_t timestampBits = 0;
  if (options_.collectTimings && limits_.timestampPeriod > 0.0f) {
    timestampBits = context_->queue(vk::QueueKind::Graphics).timestampValidBits;
  }
  gpuTimestamps_ = timestampBits > 0;

  for (uint32_t i = 0; i < options_.framesInFlight; ++i) {
    auto frame = std::make_unique<vk::FrameContext>(*fns_, *allocator_, families);
    if (auto r = frame->init(); !r) return r.error();
    if (auto r = frame->gpuTimer.init(*fns_, timestampBits, limits_.timestampPeriod); !r) return r.error();
    if (options_.createSurface) {
      auto binary = vk::make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
      VkSemaphore acquired = VK_NULL_HANDLE;
      if (VkResult r = fns_->t.vkCreateSemaphore(fns_->device, &binary, nullptr, &acquired);
          r != VK_SUCCESS) {
        return vk::vkError("vkCreateSemaphore", r);
      }
      frame->acquired = vk::OwnedSemaphore(fns_, acquired);
    }
    frames_.push_back(std::move(frame));
  }
  immediate_ = std::make_unique<vk::FrameContext>(*fns_, *allocator_, families);
  if (auto r = immediate_->init(); !r) return r.error();

  // BindTexture with a null sampler samples with this one.
  auto sampler = vk::make<VkSamplerCreateInfo>(VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO);
  sampler.magFilter = sampler.minFilter = VK_FILTER_NEAREST;
  sampler.addressModeU = sampler.addressModeV = sampler.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  sampler.maxLod = VK_LOD_CLAMP_NONE;
  VkSampler defaultSampler = VK_NULL_HANDLE;
  if (VkResult r = fns_->t.vkCreateSampler(fns_->device, &sampler, nullptr, &defaultSampler);
      r != VK_SUCCESS) {
    return vk::vkError("vkCreateSampler", r);
  }
  defaultSampler_ = vk::OwnedSampler(fns_, defaultSampler);

  if (options_.createSurface) {
    swapchain_ = std::make_unique<vk::Swapchain>(*context_, options_.framebufferSize, options_.vsync);
  }
  return {};
}

VulkanDeviceImpl::~VulkanDeviceImpl() {
  if (!context_ || !fns_) return;
  if (frameRecording()) {
    // A frame left open (the renderer always closes them): submit it so that its work is not lost.
    endFrame(frame_);
  }
  waitIdle();
  destroying_ = true;
  std::lock_guard lock(sharedMutex_);
  for (ReadbackRequest& r : readbackRequests_) {
    r.callback(fail("the device was destroyed before frame ", r.frame));
  }
  readbackRequests_.clear();
}

// ---------------------------------------------------------------------------------------------------------
// Submission

Result<void> VulkanDeviceImpl::beginCommandBuffer() {
  auto cmd = ctx_->beginCommandBuffer();
  if (!cmd) return cmd.error();
  cmd_ = *cmd;
  ctx_->gpuTimer.beginCommandBuffer(cmd_);
  invalidateRecorded(main_);
  return {};
}

void VulkanDeviceImpl::takeWaits(vk::QueueKind kind, std::vector<VkSemaphoreSubmitInfo>& waits) {
  vk::QueueSegment& segment = segments_[static_cast<size_t>(kind)];
  for (size_t o = 0; o < vk::kQueueKinds; ++o) {
    if (segment.needs[o] == 0) continue;
    auto info = vk::make<VkSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO);
    info.semaphore = o == 0 ? timeline_.get() : queues_[o].timeline.get();
    info.value = segment.needs[o];
    // Every stage: the semaphore also orders the layout changes that follow it (queues.h).
    info.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    waits.push_back(info);
    segment.waited[o] = std::max(segment.waited[o], segment.needs[o]);
    segment.needs[o] = 0;
    ++stats_.queueWaits;
  }
}

Result<uint64_t> VulkanDeviceImpl::submitOn(vk::QueueKind kind, std::span<const VkCommandBuffer> commands,
                                            VkSemaphore wait, VkPipelineStageFlags2 waitStage,
                                            VkSemaphore signal) {
  const auto k = static_cast<size_t>(kind);
  const bool graphics = kind == vk::QueueKind::Graphics;
  uint64_t& last = graphics ? lastSerial_ : queues_[k].lastSerial;
  const uint64_t serial = last + 1;
  std::vector<VkCommandBufferSubmitInfo> infos(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    infos[i] = vk::make<VkCommandBufferSubmitInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO);
    infos[i].commandBuffer = commands[i];
  }
  VkSemaphoreSubmitInfo signals[2] = {
      vk::make<VkSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO),
      vk::make<VkSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO)};
  signals[0].semaphore = graphics ? timeline_.get() : queues_[k].timeline.get();
  signals[0].value = serial;
  signals[0].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  signals[1].semaphore = signal;
  signals[1].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  std::vector<VkSemaphoreSubmitInfo> waits;
  if (wait) {
    auto waitInfo = vk::make<VkSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO);
    waitInfo.semaphore = wait;
    waitInfo.stageMask = waitStage;
    waits.push_back(waitInfo);
  }
  if (severalQueues_) takeWaits(kind, waits);
  auto info = vk::make<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
  info.waitSemaphoreInfoCount = static_cast<uint32_t>(waits.size());
  info.pWaitSemaphoreInfos = waits.data();
  info.commandBufferInfoCount = static_cast<uint32_t>(infos.size());
  info.pCommandBufferInfos = infos.data();
  info.signalSemaphoreInfoCount = signal ? 2 : 1;
  info.pSignalSemaphoreInfos = signals;
  VkQueue queue = graphics ? context_->queue() : queues_[k].queue;
  if (VkResult r = fns_->t.vkQueueSubmit2(queue, 1, &info, VK_NULL_HANDLE); r != VK_SUCCESS) {
    if (vk::isDeviceLost(r)) reportLost("vkQueueSubmit2");
    return vk::vkError("vkQueueSubmit2", r);
  }
  last = serial;
  segments_[k].serial = serial + 1;
  ++stats_.submits;
  if (!graphics) ++(kind == vk::QueueKind::Compute ? stats_.computeSubmits : stats_.transferSubmits);
  return serial;
}

Result<void> VulkanDeviceImpl::submitOther(vk::QueueKind kind) {
  VkCommandBuffer cmd = std::exchange(cmd_, VK_NULL_HANDLE);
  if (VkResult r = fns_->t.vkEndCommandBuffer(cmd); r != VK_SUCCESS) {
    return vk::vkError("vkEndCommandBuffer", r);
  }
  auto submitted = submitOn(kind, {&cmd, 1});
  if (!submitted) return submitted.error();
  return {};
}

Result<uint64_t> VulkanDeviceImpl::submit(VkSemaphore wait, VkPipelineStageFlags2 waitStage,
                                          VkSemaphore signal, bool endTimer) {
  VkCommandBuffer cmd = std::exchange(cmd_, VK_NULL_HANDLE);
  if (ctx_ && endTimer) ctx_->gpuTimer.endCommandBuffer(cmd);
  if (VkResult r = fns_->t.vkEndCommandBuffer(cmd); r != VK_SUCCESS) {
    return vk::vkError("vkEndCommandBuffer", r);
  }
  // A wide frame's earlier command buffers (requests, then each job's) go first, in order.
  pendingCommandBuffers_.push_back(cmd);
  auto serial = submitOn(vk::QueueKind::Graphics, pendingCommandBuffers_, wait, waitStage, signal);
  pendingCommandBuffers_.clear();
  return serial;
}

void VulkanDeviceImpl::preferQueue(QueueClass queue) {
  preferred_ = queue;
}

vk::QueueKind VulkanDeviceImpl::queueFor(vk::QueueKind capability) const {
  using vk::QueueKind;
  if (!severalQueues_ || capability == QueueKind::Graphics) return QueueKind::Graphics;
  auto has = [&](QueueKind kind) { return queues_[static_cast<size_t>(kind)].queue != VK_NULL_HANDLE; };
  if (preferred_ == QueueClass::Transfer && capability == QueueKind::Transfer && has(QueueKind::Transfer)) {
    return QueueKind::Transfer;
  }
  if (preferred_ != QueueClass::Graphics && has(QueueKind::Compute)) return QueueKind::Compute;
  return QueueKind::Graphics;
}

vk::QueueKind VulkanDeviceImpl::copyQueue(uint64_t bytes, bool texelCopies) const {
  using vk::QueueKind;
  const bool transfer =
      severalQueues_ && queues_[static_cast<size_t>(QueueKind::Transfer)].queue != VK_NULL_HANDLE;
  return transfer && texelCopies && bytes >= kTransferCopyBytes ? QueueKind::Transfer : QueueKind::Graphics;
}

bool VulkanDeviceImpl::transferCopies(const vk::Texture& texture, uint32_t mip, uint32_t x, uint32_t y,
                                      uint32_t width, uint32_t height) const {
  if (!copiesOffGraphics(texture)) return false;
  return vk::copyFitsGranularity(context_->queue(vk::QueueKind::Transfer).imageGranularity,
                                 std::max(1u, texture.desc.width >> mip),
                                 std::max(1u, texture.desc.height >> mip), x, y, width, height);
}

void VulkanDeviceImpl::onQueue(Recorder& r, vk::QueueKind kind) {
  if (r.job || kind == current_ || !frameRecording()) return;
  nextSegment(r, kind);
}

void VulkanDeviceImpl::nextSegment(Recorder& r, vk::QueueKind kind) {
  if (r.pass.rendering) suspendRendering(r);
  suspendDebugLabels(r);  // labels do not span command buffers
  flushBarriers(r);
  const vk::QueueKind from = std::exchange(current_, kind);
  if (from == vk::QueueKind::Graphics) {
    if (auto serial = submit(VK_NULL_HANDLE, 0, VK_NULL_HANDLE, /*endTimer=*/false); !serial) {
      return reportError("frame " + std::to_string(frame_) + ": " + serial.error().message);
    }
  } else if (auto submitted = submitOther(from); !submitted) {
    return reportError("frame " + std::to_string(frame_) + ": " + submitted.error().message);
  }
  r.barriers.setSegment(&segments_[static_cast<size_t>(kind)]);
  auto cmd = ctx_->beginCommandBuffer(kind);
  if (!cmd) return reportError("frame " + std::to_string(frame_) + ": " + cmd.error().message);
  r.cmd = *cmd;
  r.segmentRecorded = false;
  invalidateRecorded(r);
  resumeDebugLabels(r);
  ++r.writeEpoch;  // bound resources are settled again, on this queue
}

Result<void> VulkanDeviceImpl::waitTimeline(VkSemaphore semaphore, uint64_t value) {
  auto info = vk::make<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  if (VkResult r = fns_->t.vkWaitSemaphores(fns_->device, &info, UINT64_MAX); r != VK_SUCCESS) {
    if (vk::isDeviceLost(r)) reportLost("vkWaitSemaphores");
    return vk::vkError("vkWaitSemaphores", r);
  }
  return {};
}

Result<void> VulkanDeviceImpl::waitSerial(uint64_t serial) {
  if (serial <= completedSerial_) return {};
  if (auto r = waitTimeline(timeline_.get(), serial); !r) return r;
  completedSerial_ = serial;
  return {};
}

Result<void> VulkanDeviceImpl::flushMidFrame() {
  onQueue(main_, vk::QueueKind::Graphics);
  if (pass_.rendering) suspendRendering();
  suspendDebugLabels(main_);  // labels do not span command buffers
  auto serial = submit();
  if (!serial) return serial.error();
  ctx_->serial = *serial;
  if (auto r = waitSerial(*serial); !r) return r;
  ctx_->gpuTimer.collect();
  auto begun = beginCommandBuffer();
  if (begun) resumeDebugLabels(main_);
  return begun;
}

void VulkanDeviceImpl::reportLost(const char* where) {
  if (lost_) return;
  lost_ = true;
  reportError(std::string("device lost (") + where + "): every later frame is skipped");
}

void VulkanDeviceImpl::handleVkFailure(const char* call, VkResult result) {
  if (vk::isDeviceLost(result)) {
    reportLost(call);
  } else {
    reportError("frame " + std::to_string(frame_) + ": " + vk::vkError(call, result).message);
  }
}

void VulkanDeviceImpl::recycleAllFinished() {
  // Oldest first, so that readbacks are delivered in frame order.
  std::vector<vk::FrameContext*> finished;
  for (auto& frame : frames_) {
    if (frame.get() != ctx_ && frame->serial <= completedSerial_) finished.push_back(frame.get());
  }
  std::sort(finished.begin(), finished.end(), [](auto* a, auto* b) { return a->serial < b->serial; });
  for (vk::FrameContext* frame : finished) {
    deliverGpuTime(*frame);
    frame->recycle(*allocator_);
  }
}

void VulkanDeviceImpl::deliverGpuTime(vk::FrameContext& frame) {
  std::optional<vk::GpuTimer::FrameTime> time = frame.gpuTimer.takeFrame();
  if (!time || !gpuTimingCallback_) return;
  gpuTimingCallback_(VulkanGpuTiming{time->frame, time->gpu, time->commandBuffers});
}

// ---------------------------------------------------------------------------------------------------------
// Frames

void VulkanDeviceImpl::beginFrame(uint64_t frame) {
  frame_ = frame;
  if (lost_) return;
  ctx_ = frames_[frame % frames_.size()].get();
  // The context was last used framesInFlight frames ago: usually long finished, so this does not block.
  if (auto r = waitSerial(ctx_->serial); !r) {
    if (!lost_) reportError("frame " + std::to_string(frame) + ": " + r.error().message);
    ctx_ = nullptr;
    return;
  }
  deliverGpuTime(*ctx_);
  ctx_->recycle(*allocator_);
  if (options_.collectTimings) ctx_->gpuTimer.startFrame(frame);
  current_ = vk::QueueKind::Graphics;
  if (severalQueues_) main_.barriers.setSegment(&segments_[0]);
  if (auto r = beginCommandBuffer(); !r) {
    reportError("frame " + std::to_string(frame) + ": " + r.error().message);
    ctx_ = nullptr;
    return;
  }
  resetBindings(main_);
}

void VulkanDeviceImpl::endFrame(uint64_t frame) {
  if (frameRecording()) {
    // A frame may end inside a render pass when the renderer stops after N packets (replay --stop-at):
    // the pass is closed, its clear still runs.
    if (pass_.open) endPass(main_);
    preferred_ = QueueClass::Graphics;
    serviceReadbacks(frame);  // large readbacks on the transfer queue
    // The frame's last submission is the graphics queue's, after every other queue's work of the frame.
    onQueue(main_, vk::QueueKind::Graphics);
    for (size_t k = 1; k < vk::kQueueKinds; ++k) {
      vk::QueueSegment& graphics = segments_[0];
      if (queues_[k].lastSerial > graphics.waited[k]) graphics.needs[k] = queues_[k].lastSerial;
    }
    closeDebugLabels(main_);
    const std::optional<uint32_t> image = recordPresent();
    VkSemaphore wait = image ? ctx_->acquired.get() : VK_NULL_HANDLE;
    VkSemaphore signal = image ? swapchain_->renderFinished(*image) : VK_NULL_HANDLE;
    auto serial = submit(wait, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, signal);
    if (serial) {
      ctx_->serial = *serial;
      if (image) {
        if (auto r = swapchain_->present(*image); !r) {
          reportError("frame " + std::to_string(frame) + ": " + r.error().message);
        } else {
          ++stats_.presents;
        }
      }
    } else if (!lost_) {
      reportError("frame " + std::to_string(frame) + ": " + serial.error().message);
    }
  } else {
    serviceReadbacks(frame);  // fails this frame's requests (device lost, or the frame could not begin)
  }
  cmd_ = VK_NULL_HANDLE;
  ctx_ = nullptr;
  ++stats_.frames;
  stats_.barriers = barriers_.recorded();
  for (const auto& job : jobs_) stats_.barriers += job->barriers.recorded();
  stats_.pipelinesCreated = pipelines_->created();
  stats_.pipelinesShared = pipelines_->shared();
  stats_.pipelineCacheBytesLoaded = pipelines_->cacheBytesLoaded();
  if (swapchain_) stats_.swapchainRecreations = swapchain_->recreations();
  {
    std::lock_guard lock(sharedMutex_);
    statsSnapshot_ = stats_;
  }
}

void VulkanDeviceImpl::waitIdle() {
  if (frameRecording()) return;  // inside a frame: its own work is not submitted yet; nothing to wait for
  if (!lost_) {
    if (auto r = waitSerial(lastSerial_); !r && !lost_) reportError("waitIdle: " + r.error().message);
    // A frame's last submission waits for the other queues; one that failed midway may have left work
    // there.
    for (const OtherQueue& q : queues_) {
      if (q.lastSerial == 0 || lost_) continue;
      if (auto r = waitTimeline(q.timeline.get(), q.lastSerial); !r && !lost_) {
        reportError("waitIdle: " + r.error().message);
      }
    }
  }
  if (lost_) completedSerial_ = lastSerial_;  // nothing will ever finish: let readbacks fail and memory go
  recycleAllFinished();
}

VulkanDeviceStats VulkanDeviceImpl::stats() const {
  VulkanDeviceStats s;
  {
    std::lock_guard lock(sharedMutex_);
    s = statsSnapshot_;
  }
  // Any thread: the allocator locks its own; the transient figures are the last frame's.
  const VulkanMemoryStats transient = s.memory;
  s.memory = allocator_->stats();
  s.memory.transientBytes = transient.transientBytes;
  s.memory.aliasedBytesSaved = transient.aliasedBytesSaved;
  return s;
}

void VulkanDeviceImpl::setPresentSource(TextureHandle texture) {
  std::lock_guard lock(sharedMutex_);
  presentSource_ = texture;
}

void VulkanDeviceImpl::setPresentSource(TextureHandle texture, uint64_t frame) {
  if (!swapchain_) return;  // headless: nothing would ever take the entry
  std::lock_guard lock(sharedMutex_);
  framePresentSources_.emplace_back(frame, texture);
}

// ---------------------------------------------------------------------------------------------------------
// Presentation: blit the present source into the acquired swapchain image, scaled to the window.

std::optional<uint32_t> VulkanDeviceImpl::recordPresent() {
  if (!swapchain_) return std::nullopt;
  TextureHandle source;
  {
    std::lock_guard lock(sharedMutex_);
    source = presentSource_;
    // Entries are in kick order: those of frames that ended (or were never kicked) go.
    auto& sources = framePresentSources_;
    size_t done = 0;
    while (done < sources.size() && sources[done].first <= frame_) {
      if (sources[done].first == frame_) source = sources[done].second;
      ++done;
    }
    sources.erase(sources.begin(), sources.begin() + static_cast<std::ptrdiff_t>(done));
  }
  if (source.isNull()) return std::nullopt;
  auto* slot = textures_.find(source);
  if (!slot) {
    reportError("frame " + std::to_string(frame_) + ": the present source " + formatHandle(source) +
                " is not live");
    return std::nullopt;
  }
  vk::Texture& texture = **slot;
  if (texture.aspect != VK_IMAGE_ASPECT_COLOR_BIT) {
    reportError("frame " + std::to_string(frame_) + ": the present source is a depth texture");
    return std::nullopt;
  }
  auto acquired = swapchain_->acquire(ctx_->acquired.get());
  if (!acquired) {
    reportError("frame " + std::to_string(frame_) + ": " + acquired.error().message);
    return std::nullopt;
  }
  if (!*acquired) return std::nullopt;  // minimized
  const uint32_t index = **acquired;
  const VkImage target = swapchain_->image(index);
  const VkExtent2D extent = swapchain_->extent();

  barriers_.use(texture, {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT, false,
                          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL});
  barriers_.record(*fns_, cmd_);
  // The acquire semaphore is waited for at ALL_TRANSFER: the transition chains from that stage.
  auto toDst = vk::make<VkImageMemoryBarrier2>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2);
  toDst.srcStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
  toDst.dstStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
  toDst.dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  toDst.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  toDst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  toDst.srcQueueFamilyIndex = toDst.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  toDst.image = target;
  toDst.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  auto dependency = vk::make<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
  dependency.imageMemoryBarrierCount = 1;
  dependency.pImageMemoryBarriers = &toDst;
  fns_->t.vkCmdPipelineBarrier2(cmd_, &dependency);

  // Scaled to fit with its aspect ratio kept; the bars around it black.
  const vk::BlitRect rect = vk::letterbox({texture.desc.width, texture.desc.height}, extent);
  if (rect.x0 > 0 || rect.y0 > 0 || rect.x1 < static_cast<int32_t>(extent.width) ||
      rect.y1 < static_cast<int32_t>(extent.height)) {
    const VkClearColorValue black{};
    const VkImageSubresourceRange whole{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    fns_->t.vkCmdClearColorImage(cmd_, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &whole);
    // The blit writes the same image: transfer write after transfer write.
    auto afterClear = vk::make<VkImageMemoryBarrier2>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2);
    afterClear.srcStageMask = afterClear.dstStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
    afterClear.srcAccessMask = afterClear.dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    afterClear.oldLayout = afterClear.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    afterClear.srcQueueFamilyIndex = afterClear.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    afterClear.image = target;
    afterClear.subresourceRange = whole;
    auto clearDependency = vk::make<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
    clearDependency.imageMemoryBarrierCount = 1;
    clearDependency.pImageMemoryBarriers = &afterClear;
    fns_->t.vkCmdPipelineBarrier2(cmd_, &clearDependency);
  }
  VkImageBlit blit{};
  blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  blit.srcOffsets[1] = {static_cast<int32_t>(texture.desc.width), static_cast<int32_t>(texture.desc.height),
                        1};
  blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  blit.dstOffsets[0] = {rect.x0, rect.y0, 0};
  blit.dstOffsets[1] = {rect.x1, rect.y1, 1};
  const VkFilter filter = formatSupports(texture.format, VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT)
                              ? VK_FILTER_LINEAR
                              : VK_FILTER_NEAREST;
  fns_->t.vkCmdBlitImage(cmd_, texture.image.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, filter);

  VkImageMemoryBarrier2 toPresent = toDst;
  toPresent.srcStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
  toPresent.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  toPresent.dstStageMask = VK_PIPELINE_STAGE_2_NONE;
  toPresent.dstAccessMask = 0;
  toPresent.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  toPresent.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  dependency.pImageMemoryBarriers = &toPresent;
  fns_->t.vkCmdPipelineBarrier2(cmd_, &dependency);
  return index;
}

// ---------------------------------------------------------------------------------------------------------
// Native access

VkPipeline VulkanDeviceImpl::nativePipeline(PipelineHandle handle) {
  auto* p = pipelineRecords_.find(handle);
  return p ? (*p)->get() : VK_NULL_HANDLE;
}
VkBuffer VulkanDeviceImpl::nativeBuffer(BufferHandle handle) {
  auto* p = buffers_.find(handle);
  return p ? (*p)->get() : VK_NULL_HANDLE;
}
VkImageView VulkanDeviceImpl::nativeView(TextureHandle handle) {
  auto* p = textures_.find(handle);
  return p ? (*p)->view.get() : VK_NULL_HANDLE;
}
VkImageView VulkanDeviceImpl::nativeAttachmentView(TextureHandle handle) {
  auto* p = textures_.find(handle);
  return p ? (*p)->attachmentView.get() : VK_NULL_HANDLE;
}
VkImage VulkanDeviceImpl::nativeImage(TextureHandle handle) {
  auto* p = textures_.find(handle);
  return p ? (*p)->image.get() : VK_NULL_HANDLE;
}
VkSampler VulkanDeviceImpl::nativeSampler(SamplerHandle handle) {
  auto* p = samplers_.find(handle);
  return p ? (*p)->sampler.get() : VK_NULL_HANDLE;
}

}  // namespace reel

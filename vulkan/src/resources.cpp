// Resource requests: Create* / Write* / Destroy* packets become Vulkan objects behind the handles.
#include <algorithm>
#include <cstring>

#include "formats.h"
#include "spirv.h"
#include "vulkan_device_impl.h"

namespace reel {

using vk::Use;

namespace {

constexpr VkPipelineStageFlags2 kShaderStages = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                                VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                                                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr Use kTransferWrite{VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, true,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};

vk::ReadScope bufferReads(uint32_t usage) {
  vk::ReadScope r;
  if (usage & buffer_usage::kVertex) {
    r.stages |= VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT;
    r.access |= VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT;
  }
  if (usage & buffer_usage::kIndex) {
    r.stages |= VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT;
    r.access |= VK_ACCESS_2_INDEX_READ_BIT;
  }
  if (usage & buffer_usage::kUniform) {
    r.stages |= kShaderStages;
    r.access |= VK_ACCESS_2_UNIFORM_READ_BIT;
  }
  if (usage & buffer_usage::kStorage) {
    r.stages |= kShaderStages;
    r.access |= VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
  }
  return r;
}

// "CreateTexture texture#3.1": the command and the handle it is about, for messages.
template <Command T, ResourceKind K>
std::string resourceName(const T&, Handle<K> handle) {
  return std::string(commandName(T::kType)) + " " + formatHandle(handle);
}

}  // namespace

bool VulkanDeviceImpl::beginRequest() {
  if (frameRecording()) return true;
  if (!lost_) reportError("frame " + std::to_string(frame_) + ": a resource request outside a frame");
  return false;
}

#define REEL_REQUEST() \
  if (!beginRequest()) return

bool VulkanDeviceImpl::formatSupports(VkFormat format, VkFormatFeatureFlags features) {
  VkFormatProperties properties;
  vkGetPhysicalDeviceFormatProperties(context_->physical(), format, &properties);
  return (properties.optimalTilingFeatures & features) == features;
}

void VulkanDeviceImpl::retire(std::unique_ptr<vk::Retired> object) {
  if (ctx_) {
    ctx_->garbage.push_back(std::move(object));
    return;
  }
  // Outside a frame (teardown paths): the GPU may still use it until everything submitted is done.
  (void)waitSerial(lastSerial_);
  object.reset();
}

void VulkanDeviceImpl::nameObject(VkObjectType type, uint64_t handle, const char* kind, uint32_t index) {
  if (!context_->validation()) return;  // names only help validation messages
  const std::string name = std::string("reel ") + kind + " #" + std::to_string(index);
  auto info = vk::make<VkDebugUtilsObjectNameInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT);
  info.objectType = type;
  info.objectHandle = handle;
  info.pObjectName = name.c_str();
  vkSetDebugUtilsObjectNameEXT(fns_->device, &info);
}

// ---------------------------------------------------------------------------------------------------------
// Uploads: through the frame's upload arena and a GPU copy, so that a write lands in command order (a
// buffer the previous frame still reads is not overwritten under it).

Result<void> VulkanDeviceImpl::uploadBuffer(vk::Buffer& buffer, uint64_t offset,
                                            std::span<const std::byte> data) {
  if (data.empty()) return {};
  barriers_.use(buffer, kTransferWrite);
  ++writeEpoch_;
  // vkCmdUpdateBuffer carries up to 64 KiB in the command buffer itself: no staging for small updates.
  if (data.size() <= 65536 && data.size() % 4 == 0 && offset % 4 == 0) {
    flushBarriers();
    fns_->t.vkCmdUpdateBuffer(cmd_, buffer.get(), offset, data.size(), data.data());
    return {};
  }
  auto slice = ctx_->upload.allocate(data.size(), 16);
  if (!slice) return slice.error();
  std::memcpy(slice->data, data.data(), data.size());
  allocator_->flush(*slice->memory, slice->offset, data.size());
  flushBarriers();
  const VkBufferCopy region{slice->offset, offset, data.size()};
  fns_->t.vkCmdCopyBuffer(cmd_, slice->buffer, buffer.get(), 1, &region);
  return {};
}

Result<void> VulkanDeviceImpl::uploadTexture(vk::Texture& texture, uint32_t mip, uint32_t x, uint32_t y,
                                             uint32_t width, uint32_t height,
                                             std::span<const std::byte> texels) {
  const VkDeviceSize bytes = VkDeviceSize{width} * height * formatBytesPerPixel(texture.desc.format);
  auto slice = ctx_->upload.allocate(bytes, 16);
  if (!slice) return slice.error();
  std::memcpy(slice->data, texels.data(), bytes);
  allocator_->flush(*slice->memory, slice->offset, bytes);
  barriers_.use(texture, kTransferWrite, texture.sync.layout == VK_IMAGE_LAYOUT_UNDEFINED);
  ++writeEpoch_;
  flushBarriers();
  VkBufferImageCopy region{};
  region.bufferOffset = slice->offset;
  // A depth/stencil upload writes the depth aspect (D24S8 as packed 32-bit words, stencil untouched).
  region.imageSubresource = {texture.aspect & ~VkImageAspectFlags{VK_IMAGE_ASPECT_STENCIL_BIT}, mip, 0, 1};
  region.imageOffset = {static_cast<int32_t>(x), static_cast<int32_t>(y), 0};
  region.imageExtent = {width, height, 1};
  fns_->t.vkCmdCopyBufferToImage(cmd_, slice->buffer, texture.image.get(),
                                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
  return {};
}

Result<void> VulkanDeviceImpl::generateMips(vk::Texture& texture) {
  // Mip 0 was just uploaded: the whole image is in TRANSFER_DST with a pending transfer write. Each level
  // is blitted from the one above it, which first becomes a transfer source.
  flushBarriers();
  const VkFilter filter = formatSupports(texture.format, VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT)
                              ? VK_FILTER_LINEAR
                              : VK_FILTER_NEAREST;
  auto barrier = vk::make<VkImageMemoryBarrier2>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2);
  barrier.srcStageMask = barrier.dstStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
  barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = texture.image.get();
  auto dependency = vk::make<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
  dependency.imageMemoryBarrierCount = 1;
  dependency.pImageMemoryBarriers = &barrier;
  int32_t w = static_cast<int32_t>(texture.desc.width), h = static_cast<int32_t>(texture.desc.height);
  for (uint32_t level = 1; level < texture.mipLevels; ++level) {
    barrier.subresourceRange = {texture.aspect, level - 1, 1, 0, 1};
    fns_->t.vkCmdPipelineBarrier2(cmd_, &dependency);
    VkImageBlit blit{};
    blit.srcSubresource = {texture.aspect, level - 1, 0, 1};
    blit.srcOffsets[1] = {w, h, 1};
    w = std::max(1, w / 2);
    h = std::max(1, h / 2);
    blit.dstSubresource = {texture.aspect, level, 0, 1};
    blit.dstOffsets[1] = {w, h, 1};
    fns_->t.vkCmdBlitImage(cmd_, texture.image.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           texture.image.get(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, filter);
  }
  // Back to one layout for the whole image, as SyncState tracks it: levels 0..n-2 were read, the last one
  // written.
  VkImageMemoryBarrier2 back[2] = {barrier, barrier};
  back[0].srcAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT;
  back[0].dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  back[0].oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  back[0].newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  back[0].subresourceRange = {texture.aspect, 0, texture.mipLevels - 1, 0, 1};
  back[1].srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  back[1].dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_TRANSFER_READ_BIT;
  back[1].oldLayout = back[1].newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  back[1].subresourceRange = {texture.aspect, texture.mipLevels - 1, 1, 0, 1};
  dependency.imageMemoryBarrierCount = 2;
  dependency.pImageMemoryBarriers = back;
  fns_->t.vkCmdPipelineBarrier2(cmd_, &dependency);
  texture.sync = vk::SyncState{};
  texture.sync.layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  texture.sync.writeStages = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
  texture.sync.writeAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  texture.sync.written = true;
  return {};
}

Result<void> VulkanDeviceImpl::clearTexture(vk::Texture& texture) {
  // Zeroed rather than undefined: frame N must be the same image on every run, and replays rebuild
  // resources the same way.
  barriers_.use(texture, kTransferWrite, true);
  ++writeEpoch_;
  flushBarriers();
  const VkImageSubresourceRange range{texture.aspect, 0, texture.mipLevels, 0, 1};
  if (texture.aspect == VK_IMAGE_ASPECT_COLOR_BIT) {
    const VkClearColorValue zero{};
    fns_->t.vkCmdClearColorImage(cmd_, texture.image.get(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1,
                                 &range);
  } else {
    const VkClearDepthStencilValue zero{};
    fns_->t.vkCmdClearDepthStencilImage(cmd_, texture.image.get(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                        &zero, 1, &range);
  }
  return {};
}

// ---------------------------------------------------------------------------------------------------------
// Create

void VulkanDeviceImpl::execute(const cmd::CreateBuffer& p, const PacketContext& c) {
  REEL_REQUEST();
  const std::string what = resourceName(p, p.buffer);
  if (p.buffer.isNull() || buffers_.find(p.buffer)) {
    return reportError(what + ": null handle or slot already live");
  }
  const BufferDesc& d = p.desc;
  if (d.size == 0) return reportError(what + ": size 0");
  if (static_cast<uint8_t>(d.domain) > static_cast<uint8_t>(MemoryDomain::HostReadback)) {
    return reportError(what + ": unknown memory domain");
  }
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (d.usage & buffer_usage::kVertex) usage |= VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
  if (d.usage & buffer_usage::kIndex) usage |= VK_BUFFER_USAGE_INDEX_BUFFER_BIT;
  if (d.usage & buffer_usage::kUniform) usage |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  if (d.usage & buffer_usage::kStorage) usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  auto allocation = vk::createBuffer(*fns_, *allocator_, d.size, usage, d.domain);
  if (!allocation) {
    return reportError(what + " (" + std::to_string(d.size) + " bytes): " + allocation.error().message);
  }
  auto buffer = std::make_unique<vk::Buffer>();
  buffer->desc = d;
  buffer->allocation = std::move(*allocation);
  buffer->reads = bufferReads(d.usage);
  buffer->handle = p.buffer.value;
  if (c.aux.size() > d.size) reportError(what + ": initial data larger than the buffer; truncated");
  const std::span<const std::byte> data = c.aux.first(std::min<size_t>(c.aux.size(), d.size));
  if (std::byte* mapped = buffer->allocation.memory.mapped) {
    // Host visible (a host domain, or device memory on a unified-memory GPU): a new buffer is not in use,
    // and a submission makes earlier host writes visible to the device.
    std::memcpy(mapped, data.data(), data.size());
    std::memset(mapped + data.size(), 0, d.size - data.size());
    allocator_->flush(buffer->allocation.memory, 0, d.size);
  } else {
    onQueue(main_, copyQueue(data.size()));  // fills and copies run on any queue
    if (data.size() < d.size) {
      barriers_.use(*buffer, kTransferWrite);
      flushBarriers();
      fns_->t.vkCmdFillBuffer(cmd_, buffer->get(), 0, VK_WHOLE_SIZE, 0);
    }
    if (auto r = uploadBuffer(*buffer, 0, data); !r) return reportError(what + ": " + r.error().message);
  }
  nameObject(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(buffer->get()), "buffer", p.buffer.index());
  buffers_.insert(p.buffer, std::move(buffer));
}

void VulkanDeviceImpl::execute(const cmd::CreateTexture& p, const PacketContext& c) {
  REEL_REQUEST();
  const std::string what = resourceName(p, p.texture);
  if (p.texture.isNull() || textures_.find(p.texture)) {
    return reportError(what + ": null handle or slot already live");
  }
  const TextureDesc& d = p.desc;
  const VkFormat format = vk::toVkFormat(d.format);
  if (format == VK_FORMAT_UNDEFINED) return reportError(what + ": no format");
  if (d.width == 0 || d.height == 0 || d.width > limits_.maxImageDimension2D ||
      d.height > limits_.maxImageDimension2D) {
    return reportError(what + ": size " + std::to_string(d.width) + "x" + std::to_string(d.height) +
                       " outside 1.." + std::to_string(limits_.maxImageDimension2D));
  }
  const uint32_t maxMips = 32 - static_cast<uint32_t>(__builtin_clz(std::max(d.width, d.height)));
  const uint32_t mips = std::max(1u, d.mipLevels);
  if (mips > maxMips) {
    return reportError(what + ": " + std::to_string(mips) + " mip levels, at most " +
                       std::to_string(maxMips));
  }
  const bool depth = isDepthFormat(d.format);
  if (depth && (d.usage & (texture_usage::kColorTarget | texture_usage::kStorage))) {
    return reportError(what + ": a depth format cannot be a color or storage target");
  }
  if (!depth && (d.usage & texture_usage::kDepthTarget)) {
    return reportError(what + ": a color format cannot be a depth target");
  }

  VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  VkFormatFeatureFlags features = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  if (d.usage & texture_usage::kSampled) {
    usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
    features |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  }
  if (d.usage & texture_usage::kColorTarget) {
    usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    features |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
  }
  if (d.usage & texture_usage::kDepthTarget) {
    usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
    features |= VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT;
  }
  if (d.usage & texture_usage::kStorage) {
    usage |= VK_IMAGE_USAGE_STORAGE_BIT;
    features |= VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
  }
  if (mips > 1 && !c.aux.empty()) features |= VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT;
  if (!formatSupports(format, features)) {
    return reportError(what + ": format " + enumNames(d.format)[static_cast<size_t>(d.format)] +
                       " does not support this usage on " + context_->info().name);
  }

  auto texture = std::make_unique<vk::Texture>();
  texture->desc = d;
  texture->mipLevels = mips;
  texture->format = format;
  texture->usage = usage;
  auto image = createImage(*texture);
  if (!image) return reportError(what + ": " + image.error().message);
  texture->image = std::move(*image);
  texture->aspect = vk::aspectOf(d.format);
  texture->handle = p.texture.value;
  if (d.usage & texture_usage::kSampled) {
    texture->reads = {kShaderStages, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  }
  auto memory = allocator_->allocateFor(texture->image.get(),
                                        MemoryDomain::Device);  // sub-allocated or dedicated, bound
  if (!memory) return reportError(what + ": " + memory.error().message);
  texture->memory = std::move(*memory);
  if (auto views = makeTextureViews(*texture); !views)
    return reportError(what + ": " + views.error().message);

  const VkDeviceSize mip0Bytes = VkDeviceSize{d.width} * d.height * formatBytesPerPixel(d.format);
  // Only an upload of the one mip runs on the transfer queue: clears need compute or graphics, and the
  // mip chain is blitted on graphics.
  const bool upload = !c.aux.empty() && c.aux.size() >= mip0Bytes && mips == 1;
  onQueue(main_, upload ? copyQueue(mip0Bytes, transferCopies(*texture, 0, 0, 0, d.width, d.height))
                        : vk::QueueKind::Graphics);
  Result<void> filled;
  if (!c.aux.empty() && c.aux.size() < mip0Bytes) {
    reportError(what + ": initial data has " + std::to_string(c.aux.size()) + " bytes, mip 0 needs " +
                std::to_string(mip0Bytes) + "; the texture is zeroed instead");
    filled = clearTexture(*texture);
  } else if (!c.aux.empty()) {
    if (mips > 1) filled = clearTexture(*texture);  // levels past 0 are regenerated, but start defined
    if (filled) filled = uploadTexture(*texture, 0, 0, 0, d.width, d.height, c.aux);
    if (filled && mips > 1) filled = generateMips(*texture);
  } else {
    filled = clearTexture(*texture);
  }
  if (!filled) return reportError(what + ": " + filled.error().message);
  nameObject(VK_OBJECT_TYPE_IMAGE, reinterpret_cast<uint64_t>(texture->image.get()), "texture",
             p.texture.index());
  textures_.insert(p.texture, std::move(texture));
}

Result<vk::OwnedImage> VulkanDeviceImpl::createImage(const vk::Texture& texture) {
  auto info = vk::make<VkImageCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO);
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = texture.format;
  info.extent = {texture.desc.width, texture.desc.height, 1};
  info.mipLevels = texture.mipLevels;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = texture.usage;
  allocator_->setSharing(info);
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImage image = VK_NULL_HANDLE;
  if (VkResult r = fns_->t.vkCreateImage(fns_->device, &info, nullptr, &image); r != VK_SUCCESS) {
    return vk::vkError("vkCreateImage", r);
  }
  return vk::OwnedImage(fns_, image);
}

Result<void> VulkanDeviceImpl::makeTextureViews(vk::Texture& texture) {
  auto makeView = [&](uint32_t levels, VkImageAspectFlags aspect) -> Result<vk::OwnedImageView> {
    auto view = vk::make<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
    view.image = texture.image.get();
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = texture.format;
    view.subresourceRange = {aspect, 0, levels, 0, 1};
    VkImageView handle = VK_NULL_HANDLE;
    if (VkResult r = fns_->t.vkCreateImageView(fns_->device, &view, nullptr, &handle); r != VK_SUCCESS) {
      return vk::vkError("vkCreateImageView", r);
    }
    return vk::OwnedImageView(fns_, handle);
  };
  // A sampled view of a depth/stencil image sees the depth aspect only (one aspect per sampled view). A
  // texture only copied to and from has no view: Vulkan allows none on an image of transfer usage only.
  const uint32_t usage = texture.desc.usage;
  if (usage & (texture_usage::kSampled | texture_usage::kStorage)) {
    const bool depth = isDepthFormat(texture.desc.format);
    auto view = makeView(texture.mipLevels, depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT);
    if (!view) return view.error();
    texture.view = std::move(*view);
  }
  if (usage & (texture_usage::kColorTarget | texture_usage::kDepthTarget)) {
    auto attachment = makeView(1, texture.aspect);
    if (!attachment) return attachment.error();
    texture.attachmentView = std::move(*attachment);
  }
  return {};
}

void VulkanDeviceImpl::execute(const cmd::CreateSampler& p, const PacketContext&) {
  REEL_REQUEST();
  const std::string what = resourceName(p, p.sampler);
  if (p.sampler.isNull() || samplers_.find(p.sampler)) {
    return reportError(what + ": null handle or slot already live");
  }
  auto info = vk::make<VkSamplerCreateInfo>(VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO);
  info.magFilter = vk::toVkFilter(p.desc.magFilter);
  info.minFilter = vk::toVkFilter(p.desc.minFilter);
  info.mipmapMode = vk::toVkMipmapMode(p.desc.minFilter);
  info.addressModeU = vk::toVkAddressMode(p.desc.addressU);
  info.addressModeV = vk::toVkAddressMode(p.desc.addressV);
  info.addressModeW = info.addressModeU;
  info.maxLod = VK_LOD_CLAMP_NONE;
  VkSampler sampler = VK_NULL_HANDLE;
  if (VkResult r = fns_->t.vkCreateSampler(fns_->device, &info, nullptr, &sampler); r != VK_SUCCESS) {
    return reportError(what + ": " + vk::vkError("vkCreateSampler", r).message);
  }
  auto record = std::make_unique<vk::Sampler>();
  record->desc = p.desc;
  record->sampler = vk::OwnedSampler(fns_, sampler);
  samplers_.insert(p.sampler, std::move(record));
}

void VulkanDeviceImpl::execute(const cmd::CreateShader& p, const PacketContext& c) {
  REEL_REQUEST();
  const std::string what = resourceName(p, p.shader);
  if (p.shader.isNull() || shaders_.find(p.shader)) {
    return reportError(what + ": null handle or slot already live");
  }
  if (c.aux.empty() || c.aux.size() % 4 != 0) {
    return reportError(what + ": SPIR-V size is not a multiple of 4 bytes");
  }
  std::vector<uint32_t> words(c.aux.size() / 4);
  std::memcpy(words.data(), c.aux.data(), c.aux.size());
  auto reflected = vk::reflectShader(words);
  if (!reflected) return reportError(what + ": " + reflected.error().message);
  auto info = vk::make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  info.codeSize = c.aux.size();
  info.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r = fns_->t.vkCreateShaderModule(fns_->device, &info, nullptr, &module); r != VK_SUCCESS) {
    return reportError(what + ": " + vk::vkError("vkCreateShaderModule", r).message);
  }
  auto shader = std::make_unique<vk::Shader>();
  shader->desc = p.desc;
  shader->module = vk::OwnedShaderModule(fns_, module);
  shader->serial = ++shaderSerial_;
  shader->bindings = reflected->bindings;
  shaders_.insert(p.shader, std::move(shader));
}

void VulkanDeviceImpl::execute(const cmd::CreatePipeline& p, const PacketContext& c) {
  REEL_REQUEST();
  const std::string what = resourceName(p, p.pipeline);
  if (p.pipeline.isNull() || pipelineRecords_.find(p.pipeline)) {
    return reportError(what + ": null handle or slot already live");
  }
  const PipelineDesc& d = p.desc;
  vk::ShaderRef refs[3];
  uint32_t bindings = 0;
  const ShaderHandle handles[3] = {d.vertexShader, d.fragmentShader, d.computeShader};
  const ShaderStage stages[3] = {ShaderStage::Vertex, ShaderStage::Fragment, ShaderStage::Compute};
  const char* fields[3] = {"vertexShader", "fragmentShader", "computeShader"};
  for (int i = 0; i < 3; ++i) {
    if (handles[i].isNull()) continue;
    auto* shader = shaders_.find(handles[i]);
    if (!shader) {
      return reportError(what + ": desc." + fields[i] + " names " + formatHandle(handles[i]) +
                         ", which is not live on the device");
    }
    if ((*shader)->desc.stage != stages[i]) {
      return reportError(what + ": desc." + fields[i] + " is not a " +
                         enumNames(stages[i])[static_cast<size_t>(stages[i])] + " shader");
    }
    refs[i] = {(*shader)->module.get(), (*shader)->serial};
    bindings |= (*shader)->bindings;
  }
  const bool compute = !d.computeShader.isNull();
  if (compute && (!d.vertexShader.isNull() || !d.fragmentShader.isNull())) {
    return reportError(what + ": a compute pipeline names graphics shaders too");
  }
  if (!compute && d.vertexShader.isNull()) return reportError(what + ": no vertex or compute shader");
  auto object = pipelines_->create(d, refs[0], refs[1], refs[2]);
  if (!object) return reportError(what + ": " + object.error().message);
  auto pipeline = std::make_unique<vk::Pipeline>();
  pipeline->object = std::move(*object);
  pipeline->bindings = bindings;
  pipeline->settles = bindings | (d.attributeCount > 0 ? vk::Pipeline::kSettlesVertices : 0);
  // Instance merging's opt-in (PipelineInstancing, the request's auxiliary data): the same pipeline with
  // the instanced shaders. Shorter data is an opt-in this build does not know: the pipeline stays unmerged.
  if (c.aux.size() >= sizeof(PipelineInstancing) && !compute) {
    PipelineInstancing in;
    std::memcpy(&in, c.aux.data(), sizeof in);
    if (in.constantBytes != 0) {
      if (in.constantOffset % 4 != 0 || in.constantBytes % 4 != 0 ||
          uint64_t{in.constantOffset} + in.constantBytes > d.pushConstantBytes ||
          in.bufferSlot >= vk::binding::kStorageSlots) {
        return reportError(what +
                           ": its instancing's constant range passes desc.pushConstantBytes, or its "
                           "bufferSlot is over 3");
      }
      PipelineDesc variant = d;
      variant.vertexShader = in.vertexShader;
      if (!in.fragmentShader.isNull()) variant.fragmentShader = in.fragmentShader;
      vk::ShaderRef variantRefs[2];
      uint32_t variantBindings = 0;
      const ShaderHandle variantHandles[2] = {variant.vertexShader, variant.fragmentShader};
      const char* variantFields[2] = {"instancing.vertexShader", "instancing.fragmentShader"};
      for (int i = 0; i < 2; ++i) {
        if (variantHandles[i].isNull()) continue;
        auto* shader = shaders_.find(variantHandles[i]);
        if (!shader || (*shader)->desc.stage != stages[i]) {
          return reportError(what + ": " + variantFields[i] + " names " + formatHandle(variantHandles[i]) +
                             ", which is not a live " + (i == 0 ? "vertex" : "fragment") + " shader");
        }
        variantRefs[i] = {(*shader)->module.get(), (*shader)->serial};
        variantBindings |= (*shader)->bindings;
      }
      // The merged draw binds the instance buffer itself; everything else must be what the pipeline
      // reads already, so that a draw's checks and barriers (settles) hold for both variants.
      const uint32_t instanceBit = 1u << (vk::binding::kStorageBase + in.bufferSlot);
      if ((variantBindings & ~instanceBit & ~bindings) != 0) {
        return reportError(what +
                           ": its instanced shaders read bindings beside the instance buffer that "
                           "its own shaders do not");
      }
      auto variantObject = pipelines_->create(variant, variantRefs[0], variantRefs[1], {});
      if (!variantObject) return reportError(what + ": instanced variant: " + variantObject.error().message);
      pipeline->instanced = std::move(*variantObject);
      pipeline->instancing = in;
    }
  }
  pipelineRecords_.insert(p.pipeline, std::move(pipeline));
}

void VulkanDeviceImpl::execute(const cmd::CreateRenderTarget& p, const PacketContext&) {
  REEL_REQUEST();
  const std::string what = resourceName(p, p.target);
  if (p.target.isNull() || targets_.find(p.target)) {
    return reportError(what + ": null handle or slot already live");
  }
  const RenderTargetDesc& d = p.desc;
  if (d.colorCount > 4) return reportError(what + ": colorCount " + std::to_string(d.colorCount) + " > 4");
  if (d.colorCount == 0 && d.depth.isNull()) return reportError(what + ": no attachment");
  uint32_t width = 0, height = 0;
  auto check = [&](TextureHandle handle, bool isDepth, const std::string& field) -> bool {
    auto* slot = textures_.find(handle);
    if (!slot) {
      reportError(what + ": " + field + " names " + formatHandle(handle) +
                  ", which is not live on the device");
      return false;
    }
    const vk::Texture& t = **slot;
    const uint32_t need = isDepth ? texture_usage::kDepthTarget : texture_usage::kColorTarget;
    if (!(t.desc.usage & need)) {
      reportError(what + ": " + field + " lacks the " + (isDepth ? "depth" : "color") + " target usage");
      return false;
    }
    if (width == 0) {
      width = t.desc.width;
      height = t.desc.height;
    } else if (t.desc.width != width || t.desc.height != height) {
      reportError(what + ": attachments differ in size");
      return false;
    }
    return true;
  };
  for (uint32_t i = 0; i < d.colorCount; ++i) {
    if (!check(d.colors[i], false, "colors[" + std::to_string(i) + "]")) return;
    for (uint32_t j = 0; j < i; ++j) {
      if (d.colors[j] == d.colors[i]) return reportError(what + ": one texture is two color attachments");
    }
  }
  if (!d.depth.isNull() && !check(d.depth, true, "depth")) return;
  auto target = std::make_unique<vk::RenderTarget>();
  target->desc = d;
  targets_.insert(p.target, std::move(target));
}

// ---------------------------------------------------------------------------------------------------------
// Write

void VulkanDeviceImpl::execute(const cmd::WriteBuffer& p, const PacketContext& c) {
  REEL_REQUEST();
  auto* slot = buffers_.find(p.buffer);
  const std::string what = resourceName(p, p.buffer);
  if (!slot) return reportError(what + ": the buffer is not live on the device");
  vk::Buffer& buffer = **slot;
  if (p.offset > buffer.desc.size || c.aux.size() > buffer.desc.size - p.offset) {
    return reportError(what + ": " + std::to_string(c.aux.size()) + " bytes at offset " +
                       std::to_string(p.offset) + " pass the end of a " + std::to_string(buffer.desc.size) +
                       "-byte buffer");
  }
  onQueue(main_, copyQueue(c.aux.size()));
  if (auto r = uploadBuffer(buffer, p.offset, c.aux); !r) reportError(what + ": " + r.error().message);
}

void VulkanDeviceImpl::execute(const cmd::WriteTexture& p, const PacketContext& c) {
  REEL_REQUEST();
  auto* slot = textures_.find(p.texture);
  const std::string what = resourceName(p, p.texture);
  if (!slot) return reportError(what + ": the texture is not live on the device");
  vk::Texture& texture = **slot;
  if (p.mipLevel >= texture.mipLevels) {
    return reportError(what + ": mip " + std::to_string(p.mipLevel) + " out of range");
  }
  const uint32_t w = std::max(1u, texture.desc.width >> p.mipLevel),
                 h = std::max(1u, texture.desc.height >> p.mipLevel);
  if (p.width == 0 || p.height == 0 || p.x > w || p.y > h || p.width > w - p.x || p.height > h - p.y) {
    return reportError(what + ": region outside the mip");
  }
  const uint64_t bytes = uint64_t{p.width} * p.height * formatBytesPerPixel(texture.desc.format);
  if (c.aux.size() < bytes) {
    return reportError(what + ": " + std::to_string(c.aux.size()) + " bytes of texels, the region needs " +
                       std::to_string(bytes));
  }
  onQueue(main_, copyQueue(bytes, transferCopies(texture, p.mipLevel, p.x, p.y, p.width, p.height)));
  if (auto r = uploadTexture(texture, p.mipLevel, p.x, p.y, p.width, p.height, c.aux); !r) {
    reportError(what + ": " + r.error().message);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Destroy: the object moves into this frame's garbage and dies when the GPU has finished the frame.

#define REEL_DESTROY(Command, table, field)                                             \
  void VulkanDeviceImpl::execute(const cmd::Command& p, const PacketContext&) {         \
    REEL_REQUEST();                                                                     \
    auto object = table.take(p.field);                                                  \
    if (!object) return reportError(resourceName(p, p.field) + ": handle is not live"); \
    retire(std::move(*object));                                                         \
  }
REEL_DESTROY(DestroyBuffer, buffers_, buffer)
REEL_DESTROY(DestroyTexture, textures_, texture)
REEL_DESTROY(DestroySampler, samplers_, sampler)
REEL_DESTROY(DestroyShader, shaders_, shader)
REEL_DESTROY(DestroyPipeline, pipelineRecords_, pipeline)
REEL_DESTROY(DestroyRenderTarget, targets_, target)
#undef REEL_DESTROY

// The renderer begins and ends a declared pass as the BeginRenderPass / EndRenderPass it becomes
// (declared_passes.h); the declaration itself creates nothing on the device.
void VulkanDeviceImpl::execute(const cmd::DeclarePass&, const PacketContext&) {}

}  // namespace reel

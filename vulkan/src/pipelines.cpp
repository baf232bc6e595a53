#include "pipelines.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "formats.h"

namespace reel::vk {

PipelineLibrary::~PipelineLibrary() {
  // Best effort at teardown; saveCache() reports when called directly.
  if (!cachePath_.empty()) (void)saveCache();
}

Result<void> PipelineLibrary::init(const std::string& cachePath) {
  cachePath_ = cachePath;
  VkDescriptorSetLayoutBinding bindings[binding::kCount];
  for (uint32_t i = 0; i < binding::kCount; ++i) {
    bindings[i] = VkDescriptorSetLayoutBinding{};
    bindings[i].binding = i;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = binding::kStages;
    bindings[i].descriptorType = i < binding::kTextureBase   ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                 : i < binding::kStorageBase ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                                             : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  }
  auto setInfo = make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  setInfo.bindingCount = binding::kCount;
  setInfo.pBindings = bindings;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkCreateDescriptorSetLayout(fns_.device, &setInfo, nullptr, &setLayout);
      r != VK_SUCCESS) {
    return vkError("vkCreateDescriptorSetLayout", r);
  }
  setLayout_ = OwnedSetLayout(&fns_, setLayout);

  const VkPushConstantRange push{binding::kStages, 0, binding::kPushConstantBytes};
  auto layoutInfo = make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout;
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &push;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkCreatePipelineLayout(fns_.device, &layoutInfo, nullptr, &layout);
      r != VK_SUCCESS) {
    return vkError("vkCreatePipelineLayout", r);
  }
  layout_ = OwnedPipelineLayout(&fns_, layout);

  // A cache file from another driver or device is ignored by the driver itself (it checks the header).
  std::vector<char> data;
  if (!cachePath_.empty()) {
    std::ifstream in(cachePath_, std::ios::binary);
    if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto cacheInfo = make<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  cacheInfo.initialDataSize = data.size();
  cacheInfo.pInitialData = data.empty() ? nullptr : data.data();
  VkPipelineCache cache = VK_NULL_HANDLE;
  cacheBytesLoaded_ = data.size();
  if (VkResult r = fns_.t.vkCreatePipelineCache(fns_.device, &cacheInfo, nullptr, &cache); r != VK_SUCCESS) {
    cacheBytesLoaded_ = 0;
    cacheInfo.initialDataSize = 0;  // a corrupt file must not stop the device
    cacheInfo.pInitialData = nullptr;
    if ((r = fns_.t.vkCreatePipelineCache(fns_.device, &cacheInfo, nullptr, &cache)) != VK_SUCCESS) {
      return vkError("vkCreatePipelineCache", r);
    }
  }
  cache_ = OwnedPipelineCache(&fns_, cache);
  return {};
}

Result<void> PipelineLibrary::saveCache() const {
  if (cachePath_.empty() || !cache_) return {};
  size_t size = 0;
  if (VkResult r = fns_.t.vkGetPipelineCacheData(fns_.device, cache_.get(), &size, nullptr);
      r != VK_SUCCESS) {
    return vkError("vkGetPipelineCacheData", r);
  }
  std::vector<char> data(size);
  if (VkResult r = fns_.t.vkGetPipelineCacheData(fns_.device, cache_.get(), &size, data.data()); r < 0) {
    return vkError("vkGetPipelineCacheData", r);
  }
  // Write beside, then rename: a reader never sees half a file.
  const std::string temporary = cachePath_ + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out.write(data.data(), static_cast<std::streamsize>(size))) return fail("cannot write ", temporary);
  }
  if (std::rename(temporary.c_str(), cachePath_.c_str()) != 0) return fail("cannot rename ", temporary);
  return {};
}

Result<std::shared_ptr<const PipelineObject>> PipelineLibrary::create(const PipelineDesc& desc,
                                                                      ShaderRef vertex, ShaderRef fragment,
                                                                      ShaderRef compute) {
  std::string key(reinterpret_cast<const char*>(&desc), sizeof desc);
  for (const uint64_t serial : {vertex.serial, fragment.serial, compute.serial}) {
    key.append(reinterpret_cast<const char*>(&serial), sizeof serial);
  }
  if (auto it = dedup_.find(key); it != dedup_.end()) {
    if (auto existing = it->second.lock()) {
      ++shared_;
      return existing;
    }
  }
  auto object = std::make_shared<PipelineObject>();
  object->desc = desc;
  object->compute = compute.module != VK_NULL_HANDLE;
  auto pipeline =
      object->compute ? createCompute(compute.module) : createGraphics(desc, vertex.module, fragment.module);
  if (!pipeline) return pipeline.error();
  object->pipeline = std::move(*pipeline);
  ++created_;
  if (dedup_.size() >= 256) std::erase_if(dedup_, [](const auto& entry) { return entry.second.expired(); });
  dedup_[key] = object;
  return std::shared_ptr<const PipelineObject>(std::move(object));
}

Result<OwnedPipeline> PipelineLibrary::createCompute(VkShaderModule compute) {
  auto info = make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  info.stage = make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = compute;
  info.stage.pName = "main";
  info.layout = layout_.get();
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkCreateComputePipelines(fns_.device, cache_.get(), 1, &info, nullptr, &pipeline);
      r != VK_SUCCESS) {
    return vkError("vkCreateComputePipelines", r);
  }
  return OwnedPipeline(&fns_, pipeline);
}

Result<OwnedPipeline> PipelineLibrary::createGraphics(const PipelineDesc& desc, VkShaderModule vertex,
                                                      VkShaderModule fragment) {
  if (desc.colorCount > 4) return fail("colorCount ", desc.colorCount, " > 4");
  if (desc.attributeCount > 4) return fail("attributeCount ", desc.attributeCount, " > 4");

  VkPipelineShaderStageCreateInfo stages[2];
  uint32_t stageCount = 0;
  for (const auto& [stage, module] :
       {std::pair{VK_SHADER_STAGE_VERTEX_BIT, vertex}, std::pair{VK_SHADER_STAGE_FRAGMENT_BIT, fragment}}) {
    if (!module) continue;
    stages[stageCount] =
        make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    stages[stageCount].stage = stage;
    stages[stageCount].module = module;
    stages[stageCount].pName = "main";
    ++stageCount;
  }

  VkVertexInputBindingDescription vertexBinding{0, desc.vertexStride, VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attributes[4];
  for (uint32_t i = 0; i < desc.attributeCount; ++i) {
    const VertexAttribute& a = desc.attributes[i];
    attributes[i] = VkVertexInputAttributeDescription{a.location, 0, toVkFormat(a.format), a.offset};
    if (attributes[i].format == VK_FORMAT_UNDEFINED) return fail("vertex attribute ", i, " has no format");
  }
  auto vertexInput =
      make<VkPipelineVertexInputStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO);
  if (desc.attributeCount > 0) {
    vertexInput.vertexBindingDescriptionCount = 1;
    vertexInput.pVertexBindingDescriptions = &vertexBinding;
    vertexInput.vertexAttributeDescriptionCount = desc.attributeCount;
    vertexInput.pVertexAttributeDescriptions = attributes;
  }

  auto assembly = make<VkPipelineInputAssemblyStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO);
  assembly.topology = toVkTopology(desc.topology);
  auto viewport =
      make<VkPipelineViewportStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO);
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  auto raster = make<VkPipelineRasterizationStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO);
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = toVkCullMode(desc.cullMode);
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  auto multisample =
      make<VkPipelineMultisampleStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO);
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  auto depth =
      make<VkPipelineDepthStencilStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO);
  depth.depthTestEnable = desc.depthTest;
  depth.depthWriteEnable = desc.depthWrite;
  depth.depthCompareOp = desc.depthTest ? toVkCompareOp(desc.depthCompare) : VK_COMPARE_OP_ALWAYS;

  VkPipelineColorBlendAttachmentState blends[4];
  VkFormat colorFormats[4];
  for (uint32_t i = 0; i < desc.colorCount; ++i) {
    blends[i] = blendState(desc.blend);
    colorFormats[i] = toVkFormat(desc.colorFormats[i]);
    if (colorFormats[i] == VK_FORMAT_UNDEFINED) return fail("color format ", i, " is undefined");
  }
  auto blend =
      make<VkPipelineColorBlendStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO);
  blend.attachmentCount = desc.colorCount;
  blend.pAttachments = blends;

  const VkDynamicState dynamic[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  auto dynamicState =
      make<VkPipelineDynamicStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO);
  dynamicState.dynamicStateCount = 2;
  dynamicState.pDynamicStates = dynamic;

  // Dynamic rendering: the pipeline names the attachment formats instead of a VkRenderPass.
  auto rendering = make<VkPipelineRenderingCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO);
  rendering.colorAttachmentCount = desc.colorCount;
  rendering.pColorAttachmentFormats = colorFormats;
  rendering.depthAttachmentFormat =
      isDepthFormat(desc.depthFormat) ? toVkFormat(desc.depthFormat) : VK_FORMAT_UNDEFINED;
  rendering.stencilAttachmentFormat =
      desc.depthFormat == Format::D24UnormS8 ? toVkFormat(desc.depthFormat) : VK_FORMAT_UNDEFINED;
  if (desc.depthFormat != Format::Undefined && !isDepthFormat(desc.depthFormat)) {
    return fail("depth format ", enumNames(desc.depthFormat)[static_cast<size_t>(desc.depthFormat)],
                " is not a depth format");
  }

  auto info = make<VkGraphicsPipelineCreateInfo>(VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, &rendering);
  info.stageCount = stageCount;
  info.pStages = stages;
  info.pVertexInputState = &vertexInput;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pDepthStencilState = &depth;
  info.pColorBlendState = &blend;
  info.pDynamicState = &dynamicState;
  info.layout = layout_.get();
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkCreateGraphicsPipelines(fns_.device, cache_.get(), 1, &info, nullptr, &pipeline);
      r != VK_SUCCESS) {
    return vkError("vkCreateGraphicsPipelines", r);
  }
  return OwnedPipeline(&fns_, pipeline);
}

}  // namespace reel::vk

#pragma once
// reel's enums (enums.h) as Vulkan values. One table per enum, so that a new enum value fails loudly here
// rather than turning into VK_FORMAT_UNDEFINED somewhere in a pipeline.

#include "reel/runtime/enums.h"
#include "vk.h"

namespace reel::vk {

VkFormat toVkFormat(Format format);  // VK_FORMAT_UNDEFINED for Format::Undefined or an unknown value
VkImageAspectFlags aspectOf(Format format);
VkPrimitiveTopology toVkTopology(Topology topology);
VkCullModeFlags toVkCullMode(CullMode mode);
VkCompareOp toVkCompareOp(CompareOp op);
VkFilter toVkFilter(Filter filter);
VkSamplerMipmapMode toVkMipmapMode(Filter filter);
VkSamplerAddressMode toVkAddressMode(AddressMode mode);
VkIndexType toVkIndexType(IndexType type);
VkShaderStageFlagBits toVkShaderStage(ShaderStage stage);
// The color blend of one attachment for a blend mode (enums.h: the key's translucency modes plus
// premultiplied alpha).
VkPipelineColorBlendAttachmentState blendState(BlendMode mode);

}  // namespace reel::vk

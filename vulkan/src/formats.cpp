#include "formats.h"

namespace reel::vk {

VkFormat toVkFormat(Format format) {
  switch (format) {
    case Format::Undefined:
      return VK_FORMAT_UNDEFINED;
    case Format::RGBA8Unorm:
      return VK_FORMAT_R8G8B8A8_UNORM;
    case Format::BGRA8Unorm:
      return VK_FORMAT_B8G8R8A8_UNORM;
    case Format::RGBA8Srgb:
      return VK_FORMAT_R8G8B8A8_SRGB;
    case Format::RGBA16Float:
      return VK_FORMAT_R16G16B16A16_SFLOAT;
    case Format::RGBA32Float:
      return VK_FORMAT_R32G32B32A32_SFLOAT;
    case Format::R32Float:
      return VK_FORMAT_R32_SFLOAT;
    case Format::RG32Float:
      return VK_FORMAT_R32G32_SFLOAT;
    case Format::RGB32Float:
      return VK_FORMAT_R32G32B32_SFLOAT;
    case Format::D32Float:
      return VK_FORMAT_D32_SFLOAT;
    case Format::D24UnormS8:
      return VK_FORMAT_D24_UNORM_S8_UINT;
  }
  return VK_FORMAT_UNDEFINED;
}

VkImageAspectFlags aspectOf(Format format) {
  switch (format) {
    case Format::D32Float:
      return VK_IMAGE_ASPECT_DEPTH_BIT;
    case Format::D24UnormS8:
      return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
    default:
      return VK_IMAGE_ASPECT_COLOR_BIT;
  }
}

VkPrimitiveTopology toVkTopology(Topology topology) {
  switch (topology) {
    case Topology::TriangleList:
      return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    case Topology::TriangleStrip:
      return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
    case Topology::LineList:
      return VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    case Topology::PointList:
      return VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
  }
  return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
}

VkCullModeFlags toVkCullMode(CullMode mode) {
  switch (mode) {
    case CullMode::None:
      return VK_CULL_MODE_NONE;
    case CullMode::Back:
      return VK_CULL_MODE_BACK_BIT;
    case CullMode::Front:
      return VK_CULL_MODE_FRONT_BIT;
  }
  return VK_CULL_MODE_NONE;
}

VkCompareOp toVkCompareOp(CompareOp op) {
  switch (op) {
    case CompareOp::Never:
      return VK_COMPARE_OP_NEVER;
    case CompareOp::Less:
      return VK_COMPARE_OP_LESS;
    case CompareOp::LessOrEqual:
      return VK_COMPARE_OP_LESS_OR_EQUAL;
    case CompareOp::Equal:
      return VK_COMPARE_OP_EQUAL;
    case CompareOp::Greater:
      return VK_COMPARE_OP_GREATER;
    case CompareOp::GreaterOrEqual:
      return VK_COMPARE_OP_GREATER_OR_EQUAL;
    case CompareOp::Always:
      return VK_COMPARE_OP_ALWAYS;
  }
  return VK_COMPARE_OP_ALWAYS;
}

VkFilter toVkFilter(Filter filter) {
  return filter == Filter::Linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
}

VkSamplerMipmapMode toVkMipmapMode(Filter filter) {
  return filter == Filter::Linear ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
}

VkSamplerAddressMode toVkAddressMode(AddressMode mode) {
  switch (mode) {
    case AddressMode::Repeat:
      return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    case AddressMode::ClampToEdge:
      return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case AddressMode::MirroredRepeat:
      return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
  }
  return VK_SAMPLER_ADDRESS_MODE_REPEAT;
}

VkIndexType toVkIndexType(IndexType type) {
  return type == IndexType::U16 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32;
}

VkShaderStageFlagBits toVkShaderStage(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::Vertex:
      return VK_SHADER_STAGE_VERTEX_BIT;
    case ShaderStage::Fragment:
      return VK_SHADER_STAGE_FRAGMENT_BIT;
    case ShaderStage::Compute:
      return VK_SHADER_STAGE_COMPUTE_BIT;
  }
  return VK_SHADER_STAGE_VERTEX_BIT;
}

VkPipelineColorBlendAttachmentState blendState(BlendMode mode) {
  VkPipelineColorBlendAttachmentState s{};
  s.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                     VK_COLOR_COMPONENT_A_BIT;
  if (mode == BlendMode::Opaque) return s;
  s.blendEnable = VK_TRUE;
  // Destination alpha accumulates coverage the same way in every mode, so a blended target can itself be
  // composited later.
  s.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
  s.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  s.alphaBlendOp = VK_BLEND_OP_ADD;
  switch (mode) {
    case BlendMode::Alpha:  // src * a + dst * (1 - a)
      s.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
      s.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
      s.colorBlendOp = VK_BLEND_OP_ADD;
      break;
    case BlendMode::Additive:  // dst + src * a
      s.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
      s.dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
      s.colorBlendOp = VK_BLEND_OP_ADD;
      s.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
      s.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
      break;
    case BlendMode::Subtractive:  // dst - src * a
      s.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
      s.dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
      s.colorBlendOp = VK_BLEND_OP_REVERSE_SUBTRACT;
      s.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
      s.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
      break;
    case BlendMode::Premultiplied:  // src + dst * (1 - a), src already multiplied by a
      s.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
      s.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
      s.colorBlendOp = VK_BLEND_OP_ADD;
      break;
    case BlendMode::Opaque:
      break;
  }
  return s;
}

}  // namespace reel::vk

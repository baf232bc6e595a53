#pragma once
// Pipelines from descriptors, and the one binding model every pipeline shares.
//
// Binding model: push descriptors (VK_KHR_push_descriptor) in a single descriptor set (set 0) with a fixed
// layout, plus 128 bytes of push constants, visible to vertex, fragment and compute stages:
//
//   binding 0..3   uniform buffer   <- BindUniformBuffer slot 0..3
//   binding 4..7   combined sampler <- BindTexture slot 0..3
//   binding 8..11  storage buffer   <- BindStorageBuffer slot 0..3  (read-only in vertex/fragment stages)
//   push constants bytes 0..127     <- PushConstants
//
// Why: every pipeline has the same VkPipelineLayout, so switching pipelines never disturbs bound
// descriptors or push constants; push descriptors need no pools, sets or per-frame descriptor recycling,
// and descriptors are written into the command buffer only at a draw or dispatch whose bindings changed
// (incrementally: only the changed bindings are pushed). The cost is a fixed slot count, which the shader
// side (GLSL `layout(set = 0, binding = N)`) must follow.
//
// Pipeline cache: a VkPipelineCache for every creation (loaded from and saved to a file when a path is
// given), and descriptor-level dedup: equal PipelineDescs over the same shader objects share one
// VkPipeline.

#include <memory>
#include <string>
#include <unordered_map>

#include "resources.h"

namespace reel::vk {

namespace binding {
inline constexpr uint32_t kUniformSlots = 4, kTextureSlots = 4, kStorageSlots = 4, kVertexSlots = 4;
inline constexpr uint32_t kUniformBase = 0, kTextureBase = 4, kStorageBase = 8, kCount = 12;
inline constexpr uint32_t kPushConstantBytes = 128;
inline constexpr VkShaderStageFlags kStages =
    VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
}  // namespace binding

// A shader module as a pipeline needs it; `serial` is unique per CreateShader over the device's life, so
// that dedup never confuses a recycled handle's new code with the old.
struct ShaderRef {
  VkShaderModule module = VK_NULL_HANDLE;
  uint64_t serial = 0;
};

class PipelineLibrary {
 public:
  explicit PipelineLibrary(const DeviceFns& fns) : fns_(fns) {}
  ~PipelineLibrary();  // saves the cache when a path was given
  PipelineLibrary(const PipelineLibrary&) = delete;
  PipelineLibrary& operator=(const PipelineLibrary&) = delete;

  Result<void> init(const std::string& cachePath);
  VkPipelineLayout layout() const { return layout_.get(); }

  Result<std::shared_ptr<const PipelineObject>> create(const PipelineDesc& desc, ShaderRef vertex,
                                                       ShaderRef fragment, ShaderRef compute);
  Result<void> saveCache() const;
  uint64_t created() const { return created_; }
  uint64_t shared() const { return shared_; }
  uint64_t cacheBytesLoaded() const { return cacheBytesLoaded_; }

 private:
  Result<OwnedPipeline> createGraphics(const PipelineDesc& desc, VkShaderModule vertex,
                                       VkShaderModule fragment);
  Result<OwnedPipeline> createCompute(VkShaderModule compute);

  const DeviceFns& fns_;
  std::string cachePath_;
  OwnedSetLayout setLayout_;
  OwnedPipelineLayout layout_;
  OwnedPipelineCache cache_;
  std::unordered_map<std::string, std::weak_ptr<const PipelineObject>> dedup_;
  uint64_t created_ = 0;
  uint64_t shared_ = 0;
  uint64_t cacheBytesLoaded_ = 0;
};

}  // namespace reel::vk

#pragma once
// The part of a SPIR-V module's interface the Vulkan device checks: which descriptor bindings of set 0 it
// declares and as what. CreateShader refuses a module that does not fit the fixed binding model
// (pipelines.h: 0-3 uniform buffers, 4-7 combined image samplers, 8-11 storage buffers); a draw or
// dispatch whose pipeline declares a binding that nothing is bound to is reported and skipped, because a
// driver reading an unwritten descriptor may crash (lavapipe does).

#include <cstdint>
#include <span>
#include <string>

#include "reel/runtime/result.h"

namespace reel::vk {

struct ShaderInterface {
  uint32_t bindings = 0;  // bit N: the module declares set 0, binding N
  bool pushConstants = false;
};

// Reads OpDecorate / OpVariable / OpTypePointer / OpTypeStruct; fails on a malformed module or a binding
// that breaks the model (another set, a binding past 11, a type that does not match the slot).
Result<ShaderInterface> reflectShader(std::span<const uint32_t> words);

}  // namespace reel::vk

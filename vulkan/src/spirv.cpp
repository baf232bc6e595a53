#include "spirv.h"

#include <unordered_map>
#include <vector>

#include "pipelines.h"

namespace reel::vk {
namespace {

// SPIR-V constants (the unified spec, section 3).
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpTypeStruct = 30, kOpTypePointer = 32, kOpVariable = 59, kOpDecorate = 71;
constexpr uint32_t kOpTypeImage = 25, kOpTypeSampledImage = 27, kOpTypeArray = 28, kOpTypeRuntimeArray = 29;
constexpr uint32_t kDecorationBlock = 2, kDecorationBufferBlock = 3, kDecorationBinding = 33,
                   kDecorationSet = 34;
constexpr uint32_t kStorageUniformConstant = 0, kStorageUniform = 2, kStoragePushConstant = 9,
                   kStorageStorageBuffer = 12;

enum class Kind { Uniform, Texture, Storage, Other };

const char* kindName(Kind kind) {
  switch (kind) {
    case Kind::Uniform:
      return "a uniform buffer";
    case Kind::Texture:
      return "a combined image sampler";
    case Kind::Storage:
      return "a storage buffer";
    case Kind::Other:
      return "an unsupported resource";
  }
  return "?";
}

Kind slotKind(uint32_t binding) {
  if (binding < binding::kTextureBase) return Kind::Uniform;
  if (binding < binding::kStorageBase) return Kind::Texture;
  return Kind::Storage;
}

}  // namespace

Result<ShaderInterface> reflectShader(std::span<const uint32_t> words) {
  if (words.size() < 5 || words[0] != kMagic) return fail("not a SPIR-V module (bad magic or too short)");
  std::unordered_map<uint32_t, uint32_t> binding, set;
  std::unordered_map<uint32_t, uint32_t> decorations;                    // id -> Block / BufferBlock
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> pointers;  // id -> (storage class, pointee)
  std::unordered_map<uint32_t, uint32_t> opcodeOf;                       // type id -> opcode
  std::unordered_map<uint32_t, uint32_t> elementOf;                      // array type -> element type
  struct Variable {
    uint32_t id, type, storage;
  };
  std::vector<Variable> variables;

  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) return fail("malformed SPIR-V: instruction at word ", i);
    const uint32_t* op = &words[i];
    switch (opcode) {
      case kOpDecorate:
        if (count >= 4 && op[2] == kDecorationBinding) binding[op[1]] = op[3];
        if (count >= 4 && op[2] == kDecorationSet) set[op[1]] = op[3];
        if (count >= 3 && (op[2] == kDecorationBlock || op[2] == kDecorationBufferBlock)) {
          decorations[op[1]] = op[2];
        }
        break;
      case kOpTypePointer:
        if (count >= 4) pointers[op[1]] = {op[2], op[3]};
        break;
      case kOpTypeStruct:
      case kOpTypeImage:
      case kOpTypeSampledImage:
        if (count >= 2) opcodeOf[op[1]] = opcode;
        break;
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
        if (count >= 3) {
          opcodeOf[op[1]] = opcode;
          elementOf[op[1]] = op[2];
        }
        break;
      case kOpVariable:
        if (count >= 4) variables.push_back({op[2], op[1], op[3]});
        break;
      default:
        break;
    }
    i += count;
  }

  ShaderInterface out;
  for (const Variable& v : variables) {
    if (v.storage == kStoragePushConstant) out.pushConstants = true;
    if (v.storage != kStorageUniform && v.storage != kStorageUniformConstant &&
        v.storage != kStorageStorageBuffer) {
      continue;
    }
    auto b = binding.find(v.id);
    if (b == binding.end()) continue;  // not a descriptor
    const uint32_t s = set.count(v.id) ? set[v.id] : 0;
    if (s != 0) return fail("descriptor set ", s, " binding ", b->second, ": reel binds set 0 only");
    if (b->second >= binding::kCount) {
      return fail("binding ", b->second, " is past the ", binding::kCount, " slots");
    }
    uint32_t pointee = pointers.count(v.type) ? pointers[v.type].second : 0;
    if (opcodeOf.count(pointee) &&
        (opcodeOf[pointee] == kOpTypeArray || opcodeOf[pointee] == kOpTypeRuntimeArray)) {
      return fail("binding ", b->second, " is an array: reel binds one descriptor per slot");
    }
    Kind kind = Kind::Other;
    if (v.storage == kStorageStorageBuffer) {
      kind = Kind::Storage;
    } else if (v.storage == kStorageUniform) {
      kind = decorations.count(pointee) && decorations[pointee] == kDecorationBufferBlock ? Kind::Storage
                                                                                          : Kind::Uniform;
    } else if (opcodeOf.count(pointee) && opcodeOf[pointee] == kOpTypeSampledImage) {
      kind = Kind::Texture;
    }
    if (kind != slotKind(b->second)) {
      return fail("binding ", b->second, " is declared as ", kindName(kind), " but reel's layout has ",
                  kindName(slotKind(b->second)), " there");
    }
    out.bindings |= 1u << b->second;
  }
  return out;
}

}  // namespace reel::vk

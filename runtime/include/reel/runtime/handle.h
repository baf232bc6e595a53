#pragma once
// Typed resource handles: 32 bits = slot index + generation, resolved through a look-up table with a
// free list (Stingray's resource_lut; sokol's slot + generation). Packets carry handles, never Vulkan
// objects or pointers, so a packet stays position independent and can be written to a trace.
//
//   31                 20 19                                   0
//   +--------------------+--------------------------------------+
//   |  generation (12)   |              slot index (20)         |
//   +--------------------+--------------------------------------+
//
// Generation 0 is never handed out, so the all-zero handle is "no resource". Freeing a slot bumps its
// generation: a handle kept past destroy is *stale* and is detected, never dereferenced. A handle whose
// slot was never allocated by this pool, or whose index is past the pool, is *foreign*.

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "reel/runtime/assert.h"

namespace reel {

enum class ResourceKind : uint8_t { Buffer, Texture, Sampler, Shader, Pipeline, RenderTarget, Count };
const char* resourceKindName(ResourceKind kind);

// The split of a handle's 32 bits, the same for every kind.
inline constexpr uint32_t kHandleIndexBits = 20;
inline constexpr uint32_t kHandleIndexMask = (1u << kHandleIndexBits) - 1;

// How every tool and message prints a handle: "texture#3.1" (kind, slot index, generation); "null" for 0.
std::string formatHandle(ResourceKind kind, uint32_t value);

template <ResourceKind Kind>
struct Handle {
  static constexpr ResourceKind kKind = Kind;
  static constexpr uint32_t kIndexBits = kHandleIndexBits;
  static constexpr uint32_t kGenerationBits = 12;
  static constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
  static constexpr uint32_t kGenerationMask = (1u << kGenerationBits) - 1;
  static_assert(kIndexBits + kGenerationBits == 32, "a handle is 32 bits");

  uint32_t value = 0;

  static constexpr Handle make(uint32_t index, uint32_t generation) {
    return Handle{(generation & kGenerationMask) << kIndexBits | (index & kIndexMask)};
  }
  constexpr uint32_t index() const { return value & kIndexMask; }
  constexpr uint32_t generation() const { return value >> kIndexBits; }
  constexpr bool isNull() const { return value == 0; }
  friend constexpr bool operator==(Handle, Handle) = default;
};

template <ResourceKind Kind>
std::string formatHandle(Handle<Kind> handle) {
  return formatHandle(Kind, handle.value);
}

using BufferHandle = Handle<ResourceKind::Buffer>;
using TextureHandle = Handle<ResourceKind::Texture>;
using SamplerHandle = Handle<ResourceKind::Sampler>;
using ShaderHandle = Handle<ResourceKind::Shader>;
using PipelineHandle = Handle<ResourceKind::Pipeline>;
using RenderTargetHandle = Handle<ResourceKind::RenderTarget>;

enum class HandleState : uint8_t { Live, Null, Stale, Foreign };
const char* handleStateName(HandleState state);

// Hands out handles of one kind from any thread. Slots are recycled first-in first-out so that a slot's
// generation wraps as late as possible.
template <ResourceKind Kind>
class HandlePool {
 public:
  using HandleType = Handle<Kind>;

  explicit HandlePool(uint32_t capacity = HandleType::kIndexMask) : capacity_(capacity) {
    REEL_ASSERT(capacity >= 1 && capacity <= HandleType::kIndexMask, "pool capacity must fit a handle index");
  }

  // Returns the null handle when every slot is live.
  HandleType allocate() {
    std::lock_guard lock(mutex_);
    uint32_t index;
    if (freeHead_ < free_.size()) {
      index = free_[freeHead_++];
      if (freeHead_ == free_.size()) {
        free_.clear();
        freeHead_ = 0;
      }
    } else if (generations_.size() < capacity_) {
      index = static_cast<uint32_t>(generations_.size());
      generations_.push_back(1);
      live_.push_back(false);
    } else {
      return {};
    }
    live_[index] = true;
    ++liveCount_;
    return HandleType::make(index, generations_[index]);
  }

  // Makes a handle chosen elsewhere live, as a replay does with the handles a trace recorded, so that
  // recorded packets name the same resources without any remapping. False when the handle is null or
  // its slot is live.
  bool adopt(HandleType handle) {
    std::lock_guard lock(mutex_);
    const uint32_t index = handle.index();
    if (handle.isNull() || handle.generation() == 0 || index >= capacity_) return false;
    while (generations_.size() <= index) {
      free_.push_back(static_cast<uint32_t>(generations_.size()));
      generations_.push_back(1);
      live_.push_back(false);
    }
    if (live_[index]) return false;
    for (size_t i = freeHead_; i < free_.size(); ++i) {
      if (free_[i] == index) {
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    generations_[index] = static_cast<uint16_t>(handle.generation());
    live_[index] = true;
    ++liveCount_;
    return true;
  }

  // Frees a live handle at once; returns false (and changes nothing) for a null, stale or foreign one.
  bool release(HandleType handle) {
    if (!retire(handle)) return false;
    recycle(handle);
    return true;
  }

  // Two-step free: retire() makes the handle stale at once; recycle() later lets its slot be handed out
  // again (after the device destroyed what the slot held).
  bool retire(HandleType handle) {
    std::lock_guard lock(mutex_);
    if (stateLocked(handle) != HandleState::Live) return false;
    const uint32_t index = handle.index();
    live_[index] = false;
    --liveCount_;
    const uint32_t next = (generations_[index] + 1) & HandleType::kGenerationMask;
    generations_[index] = static_cast<uint16_t>(next == 0 ? 1 : next);
    return true;
  }
  // `retired` is the handle that retire() made stale. A replay may already have adopted the slot again
  // (it runs ahead of the render thread); then the slot stays with its new owner.
  void recycle(HandleType retired) {
    std::lock_guard lock(mutex_);
    const uint32_t index = retired.index();
    REEL_ASSERT(index < live_.size(), "recycle of a slot that was never allocated");
    if (live_[index]) {
      REEL_ASSERT(generations_[index] != retired.generation(), "recycle of a handle that is still live");
      return;
    }
    free_.push_back(index);
  }

  HandleState state(HandleType handle) const {
    std::lock_guard lock(mutex_);
    return stateLocked(handle);
  }
  bool isLive(HandleType handle) const { return state(handle) == HandleState::Live; }

  uint32_t liveCount() const {
    std::lock_guard lock(mutex_);
    return liveCount_;
  }

 private:
  HandleState stateLocked(HandleType handle) const {
    if (handle.isNull()) return HandleState::Null;
    const uint32_t index = handle.index();
    if (index >= generations_.size() || handle.generation() == 0) return HandleState::Foreign;
    if (generations_[index] != handle.generation() || !live_[index]) return HandleState::Stale;
    return HandleState::Live;
  }

  mutable std::mutex mutex_;
  uint32_t capacity_;
  std::vector<uint16_t> generations_;
  std::vector<bool> live_;
  std::vector<uint32_t> free_;
  size_t freeHead_ = 0;
  uint32_t liveCount_ = 0;
};

}  // namespace reel

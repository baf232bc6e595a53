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

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "reel/runtime/assert.h"

namespace reel {

enum class ResourceKind : uint8_t {
#define REEL_RESOURCE_KIND(Kind, name, Contents, summary) Kind,
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND
  Count
};
inline constexpr size_t kResourceKindCount = static_cast<size_t>(ResourceKind::Count);

// What a state rebuilt mid-capture needs of a live resource beside its create request.
enum class ResourceContents : uint8_t {
  None,        // the create request is all of it
  Bytes,       // its bytes on the device: read back whole, written back with one write request
  Mips,        // its texels on the device, mip by mip
  CreateData,  // the create request's auxiliary data (a shader's code)
};

// "texture", "render_target", ...; "unknown" past the list.
const char* resourceKindName(ResourceKind kind);
// The kind's one-line summary pattern over its create request's fields (resource_kinds.inc); "" past the
// list.
const char* resourceSummaryOf(ResourceKind kind);
constexpr ResourceContents resourceContentsOf(ResourceKind kind) {
  constexpr ResourceContents kContents[] = {
#define REEL_RESOURCE_KIND(Kind, name, Contents, summary) ResourceContents::Contents,
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND
  };
  const auto i = static_cast<size_t>(kind);
  return i < std::size(kContents) ? kContents[i] : ResourceContents::None;
}

// Calls fn.template operator()<K>() with the kind as a template argument, for a kind known only at run
// time: how generic code reaches per-kind tables without a switch of its own. Returns what fn returns;
// `kind` must be a listed kind.
template <typename Fn>
decltype(auto) visitResourceKind(ResourceKind kind, Fn&& fn) {
  return [&]<size_t... I>(std::index_sequence<I...>)->decltype(auto) {
    using Result = decltype(fn.template operator()<ResourceKind{}>());
    using Entry = Result (*)(Fn&);
    static constexpr Entry kTable[] = {
        [](Fn& f) -> Result { return f.template operator()<static_cast<ResourceKind>(I)>(); }...};
    REEL_ASSERT(static_cast<size_t>(kind) < sizeof...(I), "visitResourceKind: not a resource kind");
    return kTable[static_cast<size_t>(kind)](fn);
  }
  (std::make_index_sequence<kResourceKindCount>{});
}

// Calls fn.template operator()<K>() for every kind, in the list's (dependency) order.
template <typename Fn>
void forEachResourceKind(Fn&& fn) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (fn.template operator()<static_cast<ResourceKind>(I)>(), ...);
  }
  (std::make_index_sequence<kResourceKindCount>{});
}

// One T<K> per kind: a device's resource tables, a context's handle pools.
template <template <ResourceKind> class T>
class PerResourceKind {
 public:
  template <ResourceKind K>
  T<K>& get() {
    return std::get<static_cast<size_t>(K)>(items_);
  }
  template <ResourceKind K>
  const T<K>& get() const {
    return std::get<static_cast<size_t>(K)>(items_);
  }

 private:
  template <size_t... I>
  static auto makeItems(std::index_sequence<I...>) -> std::tuple<T<static_cast<ResourceKind>(I)>...>;
  decltype(makeItems(std::make_index_sequence<kResourceKindCount>{})) items_;
};

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

#define REEL_RESOURCE_KIND(Kind, name, Contents, summary) using Kind##Handle = Handle<ResourceKind::Kind>;
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND

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

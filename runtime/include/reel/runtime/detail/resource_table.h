#pragma once
// A device's side of the handle look-up table: what each live handle's slot holds on the device, with
// the generation it was created for, so that a packet naming a stale or unknown handle is caught before
// anything is dereferenced.

#include <cstdint>
#include <optional>
#include <vector>

#include "reel/runtime/handle.h"

namespace reel {

template <ResourceKind Kind, typename T>
class ResourceTable {
 public:
  using HandleType = Handle<Kind>;

  // False when the slot already holds a live object (a create for a handle that was not destroyed).
  bool insert(HandleType handle, T value) {
    if (handle.isNull()) return false;
    const uint32_t index = handle.index();
    if (index >= slots_.size()) slots_.resize(index + 1);
    Slot& slot = slots_[index];
    if (slot.value) return false;
    slot.generation = handle.generation();
    slot.value.emplace(std::move(value));
    ++live_;
    return true;
  }

  // The object for a live handle; null for a null, stale or unknown one.
  T* find(HandleType handle) {
    const uint32_t index = handle.index();
    if (handle.isNull() || index >= slots_.size()) return nullptr;
    Slot& slot = slots_[index];
    return slot.value && slot.generation == handle.generation() ? &*slot.value : nullptr;
  }
  const T* find(HandleType handle) const { return const_cast<ResourceTable*>(this)->find(handle); }

  // Removes and returns the object, or nothing when the handle is not live.
  std::optional<T> take(HandleType handle) {
    T* value = find(handle);
    if (!value) return std::nullopt;
    std::optional<T> out(std::move(*value));
    slots_[handle.index()].value.reset();
    --live_;
    return out;
  }

  uint32_t liveCount() const { return live_; }

  template <typename Fn>
  void forEach(Fn&& fn) {
    for (uint32_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].value) fn(HandleType::make(i, slots_[i].generation), *slots_[i].value);
    }
  }

 private:
  struct Slot {
    uint32_t generation = 0;
    std::optional<T> value;
  };
  std::vector<Slot> slots_;
  uint32_t live_ = 0;
};

}  // namespace reel

#pragma once
// Column<T>: a std::vector whose resize() leaves new elements of a trivial type unwritten. The writer
// sizes a frame's columns for the most its streams can hold, fills them from the front and trims them:
// with a plain vector every element would be written twice (zeroed, then filled), every frame.

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace reel::schema {

template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0 && std::is_trivially_default_constructible_v<U>) {
      ::new (static_cast<void*>(p)) U;  // default-initialised: left as it is
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
};

template <typename T>
using Column = std::vector<T, UninitializedAllocator<T>>;

}  // namespace reel::schema

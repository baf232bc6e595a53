#pragma once
// A block of address space reserved up front and committed by the OS page by page as it is touched, so
// that offsets into it stay valid while it grows (no reallocation, no pointer fix-ups), and claiming
// space is one atomic add.

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace reel {

class VirtualArena {
 public:
  static constexpr uint32_t kNoSpace = UINT32_MAX;

  // `reserveBytes` is address space, not memory: pages cost memory only once written. At most 4 GiB, so
  // that offsets fit 32 bits.
  explicit VirtualArena(uint64_t reserveBytes);
  ~VirtualArena();
  VirtualArena(const VirtualArena&) = delete;
  VirtualArena& operator=(const VirtualArena&) = delete;

  // Claims `bytes` (a multiple of 8) from any thread; returns the offset, or kNoSpace once the
  // reservation is exhausted (then every later claim fails too, until reset).
  uint32_t claim(uint32_t bytes) {
    const uint64_t offset = top_.fetch_add(bytes, std::memory_order_relaxed);
    if (offset + bytes > capacity_) return kNoSpace;
    return static_cast<uint32_t>(offset);
  }

  // Not thread-safe: only while nobody claims. Keeps the pages committed for the next use.
  void reset(uint32_t firstOffset = 0) { top_.store(firstOffset, std::memory_order_relaxed); }

  // Bytes claimed so far (clamped to the capacity).
  uint64_t used() const {
    const uint64_t top = top_.load(std::memory_order_relaxed);
    return top < capacity_ ? top : capacity_;
  }
  uint64_t capacity() const { return capacity_; }

  std::byte* base() { return base_; }
  const std::byte* base() const { return base_; }
  template <typename T>
  T* at(uint32_t offset) {
    return reinterpret_cast<T*>(base_ + offset);
  }
  template <typename T>
  const T* at(uint32_t offset) const {
    return reinterpret_cast<const T*>(base_ + offset);
  }

 private:
  std::byte* base_ = nullptr;
  uint64_t capacity_ = 0;
  alignas(64) std::atomic<uint64_t> top_{0};  // on its own cache line: claims must not evict base_
  char padding_[64 - sizeof(std::atomic<uint64_t>)];
};

}  // namespace reel

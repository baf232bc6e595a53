#include "reel/runtime/detail/virtual_arena.h"

#include <sys/mman.h>

#include <new>

#include "reel/runtime/assert.h"

namespace reel {

VirtualArena::VirtualArena(uint64_t reserveBytes) : capacity_(reserveBytes) {
  REEL_ASSERT(reserveBytes > 0 && reserveBytes <= (uint64_t{1} << 32), "an arena reserves 1 byte to 4 GiB");
  // MAP_NORESERVE: address space only; the kernel commits each page on first write.
  void* p =
      mmap(nullptr, reserveBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<std::byte*>(p);
  // A large frame's packets land in fresh address space (a new bucket stream, a replay's restart): with
  // 2 MiB pages that is 512x fewer first-touch faults. The first 2 MiB keep small pages, so that the
  // many small arenas (a bucket with a few packets) do not each hold a whole huge page. Only advice: the
  // kernel ignores it where transparent huge pages are off.
  constexpr uint64_t kHugePage = uint64_t{2} << 20;
  if (reserveBytes > 2 * kHugePage) madvise(base_ + kHugePage, reserveBytes - kHugePage, MADV_HUGEPAGE);
}

VirtualArena::~VirtualArena() {
  munmap(base_, capacity_);
}

}  // namespace reel

#pragma once
// Stable LSD radix sort of (key, sequence) pairs, as bgfx and Granite sort keys and indices rather than
// payloads. Six 11-bit digit passes at most; a pass whose digit is the same in every key is skipped (the
// histograms of all digits are built in one read). Equal keys keep their input order.

#include <cstdint>
#include <span>
#include <vector>

#include "reel/runtime/sort_entry.h"

namespace reel {

// Sorts `entries` in place; `scratch` is resized to match and reused between calls.
// Returns the number of digit passes that ran.
//
// With `majorBySequence` (one byte per entry, indexed by SortEntry::sequence), entries sort by
// (majorBySequence[sequence], key): the renderer's bucket order (BucketOrder) as one more digit above the
// key's, a pass that runs only when two entries differ in it. Empty: by key alone.
int radixSort(std::span<SortEntry> entries, std::vector<SortEntry>& scratch,
              std::span<const uint8_t> majorBySequence = {});

class WorkerPool;

// The render thread's sort: radixSort, or for a large frame the same stable LSD passes spread over a
// worker pool (same order, hence the same order hash). Keeps its scratch between frames.
class RadixSorter {
 public:
  // Below this many keys one thread sorts alone: a fork-join and the barriers between passes cost more
  // than the split saves. Measured with BM_RadixSortParallel (bench/runtime_bench.cpp): see
  // docs/measurements/h100-2026-11-25-wide2/.
  static constexpr size_t kParallelMinKeys = 65536;
  // A thread's range at least: fewer threads for a frame just above the threshold.
  static constexpr size_t kMinKeysPerThread = 16384;

  // `pool` may be null (always serial). Tests make small inputs go parallel with the other two.
  explicit RadixSorter(WorkerPool* pool, size_t parallelMinKeys = kParallelMinKeys,
                       size_t minKeysPerThread = kMinKeysPerThread)
      : pool_(pool), parallelMinKeys_(parallelMinKeys), minKeysPerThread_(minKeysPerThread) {}
  // One caller at a time (the render thread); the pool must be free. As radixSort.
  int sort(std::span<SortEntry> entries, std::span<const uint8_t> majorBySequence = {});

 private:
  WorkerPool* pool_;
  size_t parallelMinKeys_;
  size_t minKeysPerThread_;
  std::vector<SortEntry> scratch_;
  std::vector<uint32_t> counts_;   // per thread, one histogram
  std::vector<uint64_t> varying_;  // per thread
};

// FNV-1a of the sequence numbers in sorted order: a frame's sortedOrderHash. Equal hashes mean the
// render thread dispatched the frame's keys in the same order.
uint64_t hashSortedOrder(std::span<const SortEntry> sorted);

}  // namespace reel

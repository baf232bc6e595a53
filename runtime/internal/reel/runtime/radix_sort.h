#pragma once
// Stable LSD radix sort of (key, sequence) pairs, as bgfx and Granite sort keys and indices rather than
// payloads. Six 11-bit digit passes at most; a pass whose digit is the same in every key is skipped (the
// histograms of all digits are built in one read). Equal keys keep their input order.

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "reel/runtime/phase_barrier.h"
#include "reel/runtime/sort_entry.h"

namespace reel {

// Sorts `entries` in place; `scratch` is resized to match and reused between calls.
// Returns the number of digit passes that ran.
//
// With `majorBySequence` (24 bits per entry, indexed by SortEntry::sequence), entries sort by
// (majorBySequence[sequence], key): the frame's sort prefix (bucket_order.h: pass, then bucket order) as
// three more 8-bit digits above the key's, each a pass that runs only when two entries differ in it.
// Empty: by key alone.
int radixSort(std::span<SortEntry> entries, std::vector<SortEntry>& scratch,
              std::span<const uint32_t> majorBySequence = {});

// A frame's sort prefixes (bucket_order.h), key by key in merge order, stored only once two differ: a
// frame of one pass and one bucket order sorts by key alone and costs no prefix array.
class SortPrefixes {
 public:
  void clear() {
    values_.clear();
    count_ = 0;
    first_ = 0;
  }
  void push(uint32_t prefix) {
    if (count_++ == 0) {
      first_ = prefix;
    } else if (!values_.empty()) {
      values_.push_back(prefix);
    } else if (prefix != first_) {
      values_.assign(count_ - 1, first_);
      values_.push_back(prefix);
    }
  }
  // What radixSort takes: empty when every key has the same prefix.
  std::span<const uint32_t> bySequence() const { return values_; }
  uint32_t of(uint32_t sequence) const { return values_.empty() ? first_ : values_[sequence]; }

 private:
  std::vector<uint32_t> values_;
  size_t count_ = 0;
  uint32_t first_ = 0;
};

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

  // `pool` may be null (always serial). Tests make small inputs go parallel with the next two;
  // `barrierSpin` is how long a thread that finished a pass spins before it sleeps (PhaseBarrier), a
  // benchmark's parameter.
  explicit RadixSorter(WorkerPool* pool, size_t parallelMinKeys = kParallelMinKeys,
                       size_t minKeysPerThread = kMinKeysPerThread,
                       std::chrono::microseconds barrierSpin = PhaseBarrier::kDefaultSpin)
      : pool_(pool),
        parallelMinKeys_(parallelMinKeys),
        minKeysPerThread_(minKeysPerThread),
        barrierSpin_(barrierSpin) {}
  // One caller at a time (the render thread); the pool must be free. As radixSort, on at most
  // `maxThreads` of the pool's threads.
  int sort(std::span<SortEntry> entries, std::span<const uint32_t> majorBySequence = {},
           uint32_t maxThreads = UINT32_MAX);

 private:
  WorkerPool* pool_;
  size_t parallelMinKeys_;
  size_t minKeysPerThread_;
  std::chrono::microseconds barrierSpin_;
  std::vector<SortEntry> scratch_;
  std::vector<uint32_t> counts_;   // per thread, one histogram
  std::vector<uint64_t> varying_;  // per thread
};

// FNV-1a of the sequence numbers in sorted order: a frame's sortedOrderHash. Equal hashes mean the
// render thread dispatched the frame's keys in the same order.
uint64_t hashSortedOrder(std::span<const SortEntry> sorted);

}  // namespace reel

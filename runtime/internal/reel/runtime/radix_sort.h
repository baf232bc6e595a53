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

// FNV-1a of the sequence numbers in sorted order: a frame's sortedOrderHash. Equal hashes mean the
// render thread dispatched the frame's keys in the same order.
uint64_t hashSortedOrder(std::span<const SortEntry> sorted);

}  // namespace reel

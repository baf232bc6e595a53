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
int radixSort(std::span<SortEntry> entries, std::vector<SortEntry>& scratch);

// FNV-1a of the sequence numbers in sorted order: a frame's sortedOrderHash. Equal hashes mean the
// render thread dispatched the frame's keys in the same order.
uint64_t hashSortedOrder(std::span<const SortEntry> sorted);

}  // namespace reel

#include "reel/runtime/radix_sort.h"

#include <cstring>

namespace reel {

int radixSort(std::span<SortEntry> entries, std::vector<SortEntry>& scratch) {
  const size_t n = entries.size();
  if (n < 2) return 0;
  scratch.resize(n);

  // One read builds the histograms of all eight key bytes.
  uint32_t histogram[8][256];
  std::memset(histogram, 0, sizeof histogram);
  for (const SortEntry& e : entries) {
    const uint64_t k = e.key;
    ++histogram[0][k & 0xff];
    ++histogram[1][(k >> 8) & 0xff];
    ++histogram[2][(k >> 16) & 0xff];
    ++histogram[3][(k >> 24) & 0xff];
    ++histogram[4][(k >> 32) & 0xff];
    ++histogram[5][(k >> 40) & 0xff];
    ++histogram[6][(k >> 48) & 0xff];
    ++histogram[7][k >> 56];
  }

  SortEntry* from = entries.data();
  SortEntry* to = scratch.data();
  int passes = 0;
  for (int byte = 0; byte < 8; ++byte) {
    uint32_t* counts = histogram[byte];
    const uint32_t firstByte = static_cast<uint32_t>((from[0].key >> (byte * 8)) & 0xff);
    if (counts[firstByte] == n) continue;  // every key has the same byte here: the pass would not move anything

    uint32_t offsets[256];
    uint32_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      offsets[b] = sum;
      sum += counts[b];
    }
    const int shift = byte * 8;
    for (size_t i = 0; i < n; ++i) {
      const SortEntry e = from[i];
      to[offsets[(e.key >> shift) & 0xff]++] = e;
    }
    std::swap(from, to);
    ++passes;
  }
  if (from != entries.data()) std::memcpy(entries.data(), from, n * sizeof(SortEntry));
  return passes;
}

}  // namespace reel

#pragma once
// The index frame's checksum (container.h, format 1.1 on): CRC-32 (IEEE 802.3, the polynomial of zlib,
// PNG and gzip). A CRC rather than a hash because its guarantee is what the reader relies on: it detects
// every error burst of up to 32 bits, so any one byte of the index changed, whatever the change, never
// passes. zstd's own content checksum cannot serve: the index lives in a skippable frame, which zstd
// neither compresses nor checks.

#include <array>
#include <cstddef>
#include <cstdint>

namespace reel::schema {

namespace detail {
inline constexpr std::array<uint32_t, 256> kCrc32Table = [] {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}();
}  // namespace detail

// The index is a few bytes per message: a table-driven CRC is fast enough that it never shows.
inline uint32_t crc32(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = detail::kCrc32Table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

}  // namespace reel::schema

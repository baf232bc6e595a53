// libFuzzer target: the decompressed messages of a trace (what `zstd -dc trace.reel` prints). The
// first message becomes the header frame and the rest one chunk, both compressed here with valid
// checksums, so that every mutation reaches the FlatBuffers verifier and the record checks behind it.

#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.h"
#include "reel/schema/container.h"

namespace {

void appendFrame(std::vector<std::byte>& out, const uint8_t* data, size_t size, ZSTD_CCtx* cctx) {
  const size_t at = out.size();
  out.resize(at + ZSTD_compressBound(size));
  const size_t n = ZSTD_compress2(cctx, out.data() + at, out.size() - at, data, size);
  out.resize(ZSTD_isError(n) ? at : at + n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ZSTD_CCtx* cctx = [] {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    return c;
  }();
  // The header message's extent comes from its size prefix, clamped to the input.
  size_t headerBytes = size;
  if (size >= 4) {
    const uint64_t prefixed = reel::schema::alignMessage(uint64_t{reel::schema::loadLE32(data)} + 4);
    if (prefixed < size) headerBytes = static_cast<size_t>(prefixed);
  }
  std::vector<std::byte> file;
  appendFrame(file, data, headerBytes, cctx);
  if (headerBytes < size) appendFrame(file, data + headerBytes, size - headerBytes, cctx);
  auto reader = reel::trace::TraceReader::fromBytes(std::move(file), "fuzz.reel", reel::fuzz::fuzzOptions());
  if (reader) reel::fuzz::readEverything(reader.value());
  return 0;
}

// libFuzzer target: a whole .reel file, as TraceReader::fromBytes gets it. Checksums are checked, so
// mutations inside compressed chunks mostly end at the checksum; messages_fuzzer.cpp reaches past it.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(data),
                               reinterpret_cast<const std::byte*>(data) + size);
  auto reader =
      reel::trace::TraceReader::fromBytes(std::move(bytes), reel::fuzz::kFuzzName, reel::fuzz::fuzzOptions());
  if (reel::fuzz::readOrNamed(reader)) reel::fuzz::readEverything(reader.value());
  return 0;
}

// The library refuses an app compiled against other headers (abi.h), naming both sides.

#include <gtest/gtest.h>

#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"

namespace reel {
namespace {

TEST(AbiStampDeathTest, ARendererFromOtherHeadersStopsWithBothVersionsNamed) {
  NullDevice device(/*recordCalls=*/false);
  AbiStamp other = AbiStamp::current();
  other.layout ^= 1;
  other.version = "9.9.9";
  EXPECT_DEATH({ Renderer renderer(device, {}, other); },
               "compiled against reel 9\\.9\\.9 headers .*links the reel " REEL_VERSION_STRING " library");
}

TEST(AbiStamp, TheseHeadersMatchTheLibrary) {
  NullDevice device(/*recordCalls=*/false);
  Renderer renderer(device);  // the defaulted stamp: would abort on a mismatch
  EXPECT_NE(AbiStamp::layoutHash(), 0u);
  static_assert(AbiStamp::layoutHash() == AbiStamp::current().layout, "computed at compile time");
}

}  // namespace
}  // namespace reel

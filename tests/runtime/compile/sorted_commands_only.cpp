// Compiled by the ctests runtime.compile.* (tests/runtime/CMakeLists.txt), once per REEL_CASE: case 0 uses
// every recording entry point with sorted commands and must compile; each other case records one resource
// request, which must not (SortedCommand, commands.h). Resource requests go through ResourceContext.
#include <cstdint>

#include "reel/runtime/command_bucket.h"

namespace {

class Binder final : public reel::MaterialBinder {
 public:
  bool bind(reel::MaterialId, uint32_t, reel::BinderPackets& out) override {
#if REEL_CASE == 3
    out.add<reel::cmd::WriteBuffer>();
#else
    out.add<reel::cmd::BindPipeline>();
#endif
    return false;
  }
};

}  // namespace

int main() {
  reel::CommandBucket<uint32_t> bucket("probe");
  Binder binder;
  bucket.setMaterialBinder(&binder);
#if REEL_CASE == 1
  bucket.add<reel::cmd::CreateBuffer>(1u);
#elif REEL_CASE == 2
  auto& shared = bucket.createShared<reel::cmd::DestroyTexture>();
  bucket.addShared(2u, shared);
#else
  auto& draw = bucket.add<reel::cmd::Draw>(1u);
  bucket.append<reel::cmd::Draw>(&draw);
  auto& shared = bucket.createShared<reel::cmd::BindPipeline>();
  bucket.addShared(2u, shared);
#endif
  return 0;
}

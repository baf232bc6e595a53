// The usage example at the top of command_bucket.h, built from the header's own text (tests/runtime/
// CMakeLists.txt extracts it into command_bucket_example.cpp, compiled with -Werror on top of -Wall
// -Wextra) and run on the null device: the example does what its comments say.
#include <gtest/gtest.h>

#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"

namespace header_examples {
void commandBucketExample1(reel::CommandBucket<reel::DrawKey>& geometry,
                          reel::BufferHandle camera);  // generated
}

namespace reel {
namespace {

TEST(CommandBucketExample, RecordsWhatItSays) {
  NullDevice device;
  Renderer renderer(device);
  const BufferHandle camera = renderer.resources().createBuffer(
      BufferDesc{.size = 16, .usage = buffer_usage::kUniform, .domain = MemoryDomain::Device});
  header_examples::commandBucketExample1(renderer.createBucket<DrawKey>("geometry"), camera);
  renderer.kick();
  renderer.flushAndWait();

  std::vector<const NullDevice::Call*> commands;
  for (const auto& call : device.calls()) {
    if (call.kind == NullDevice::Call::Kind::Command && commandInfo(call.type).queue == CommandQueue::Sorted)
      commands.push_back(&call);
  }
  // The upload's key (a command in layer 0) sorts before the draw (layer 1); `next` follows `draw`.
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0]->type, CommandType::UpdateBuffer);
  EXPECT_EQ(commands[0]->as<cmd::UpdateBuffer>().buffer, camera);
  EXPECT_EQ(commands[0]->aux.size(), 4 * sizeof(float));
  EXPECT_EQ(commands[1]->as<cmd::DrawIndexed>().indexCount, 36u);
  EXPECT_EQ(commands[1]->tag, "crate");
  EXPECT_EQ(commands[2]->as<cmd::DrawIndexed>().indexCount, 6u);
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
}

}  // namespace
}  // namespace reel

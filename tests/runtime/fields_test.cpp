#include "reel/runtime/fields.h"

#include <gtest/gtest.h>

#include <set>

#include "reel/runtime/commands.h"

namespace reel {
namespace {

TEST(CommandTable, EveryCommandHasAConsistentFieldTable) {
  std::set<std::string> names;
  for (const CommandInfo& info : commandTable()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(findCommand(info.name), &info);
    EXPECT_EQ(commandName(info.type), std::string(info.name));
    uint32_t end = 0;
    for (const FieldInfo& f : info.fields) {
      EXPECT_GE(f.offset, end) << info.name << "." << f.name << " overlaps the field before it";
      end = f.offset + f.size * f.count;
      EXPECT_LE(end, info.size) << info.name << "." << f.name;
    }
  }
  EXPECT_EQ(commandTable().size(), kCommandTypeCount);
  EXPECT_EQ(findCommand("NoSuchCommand"), nullptr);
}

TEST(CommandTable, CoversTheCommandsTheRuntimePromises) {
  for (const char* name : {"BeginRenderPass", "EndRenderPass", "SetViewport", "SetScissor", "BindPipeline",
                           "BindVertexBuffer", "BindIndexBuffer", "BindTexture", "BindUniformBuffer",
                           "BindStorageBuffer", "PushConstants", "Draw", "DrawIndexed", "DrawInstanced",
                           "Dispatch", "CopyBuffer", "UpdateBuffer", "CopyTexture", "BlitTexture",
                           "DebugMarkerBegin", "DebugMarkerEnd"}) {
    const CommandInfo* info = findCommand(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->queue, CommandQueue::Sorted) << name;
  }
}

TEST(Fields, FormatPrintsEveryKindOfFieldByName) {
  cmd::BeginRenderPass pass{};
  pass.target = RenderTargetHandle::make(5, 2);
  pass.colorLoad = LoadOp::Clear;
  pass.depthLoad = LoadOp::DontCare;
  pass.clearColor[0] = 0.5f;
  pass.clearColor[3] = 1.0f;
  pass.clearDepth = 1.0f;
  EXPECT_EQ(formatFields(FieldsOf<cmd::BeginRenderPass>::fields(), &pass, sizeof pass),
            "target=render_target#5.2 colorLoad=clear depthLoad=dont_care clearColor=[0.5, 0, 0, 1] "
            "clearDepth=1 clearStencil=0");

  cmd::CreateBuffer create{};
  create.desc.size = 4096;
  create.desc.usage = buffer_usage::kVertex;
  create.desc.domain = MemoryDomain::HostUpload;
  EXPECT_EQ(formatFields(FieldsOf<cmd::CreateBuffer>::fields(), &create, sizeof create),
            "buffer=null desc={size=4096 usage=1 domain=host_upload}");

  cmd::DrawIndexed draw{};
  draw.vertexOffset = -3;
  EXPECT_EQ(formatFields(FieldsOf<cmd::DrawIndexed>::fields(), &draw, sizeof draw),
            "indexCount=0 firstIndex=0 vertexOffset=-3");
}

TEST(Fields, FormatNeverReadsPastTheGivenBytes) {
  cmd::CopyBuffer copy{};
  copy.size = 99;
  const std::string text = formatFields(FieldsOf<cmd::CopyBuffer>::fields(), &copy, 16);
  EXPECT_EQ(text, "source=null sourceOffset=0 destination=? destinationOffset=? size=?");
}

TEST(Fields, EnumValuesOutsideTheTablePrintAsNumbers) {
  cmd::BindIndexBuffer bind{};
  reinterpret_cast<uint8_t&>(bind.indexType) = 9;
  EXPECT_NE(formatFields(FieldsOf<cmd::BindIndexBuffer>::fields(), &bind, sizeof bind).find("indexType=9?"),
            std::string::npos);
}

TEST(Fields, LayoutHashesDifferBetweenCommandsAndAreStable) {
  std::set<uint64_t> hashes;
  for (const CommandInfo& info : commandTable()) hashes.insert(info.layoutHash);
  EXPECT_EQ(hashes.size(), commandTable().size());
  EXPECT_EQ(hashFields(FieldsOf<cmd::Draw>::fields()), hashFields(FieldsOf<cmd::Draw>::fields()));
}

}  // namespace
}  // namespace reel

#include "reel/runtime/fields.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

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
  for (const char* name : {"BeginRenderPass",   "EndRenderPass",     "SetViewport",     "SetScissor",
                           "BindPipeline",      "BindVertexBuffer",  "BindIndexBuffer", "BindTexture",
                           "BindUniformBuffer", "BindStorageBuffer", "PushConstants",   "Draw",
                           "DrawIndexed",       "DrawInstanced",     "Dispatch",        "CopyBuffer",
                           "UpdateBuffer",      "CopyTexture",       "BlitTexture",     "DebugMarkerBegin",
                           "DebugMarkerEnd"}) {
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
  // The hash depends on the table's contents, not on where the table lives: a copy hashes the same.
  const auto draw = FieldsOf<cmd::Draw>::fields();
  const std::vector<FieldInfo> copy(draw.begin(), draw.end());
  EXPECT_EQ(hashFields(copy), hashFields(draw));
}

// A trace records each command's layout hash, and a reader replays a command only when the hash is its
// own: every change a reader of the packet's bytes would notice must change the hash.
TEST(Fields, EveryChangeToAFieldChangesTheLayoutHash) {
  const auto indexed = FieldsOf<cmd::DrawIndexed>::fields();
  ASSERT_GE(indexed.size(), 3u);
  const std::vector<FieldInfo> original(indexed.begin(), indexed.end());
  const uint64_t base = hashFields(original);
  struct Change {
    const char* what;
    std::function<void(std::vector<FieldInfo>&)> apply;
  };
  const Change changes[] = {
      {"a field renamed", [](std::vector<FieldInfo>& f) { f[1].name = "renamed"; }},
      {"a field moved", [](std::vector<FieldInfo>& f) { f[1].offset += 4; }},
      {"a field's size", [](std::vector<FieldInfo>& f) { f[1].size = 8; }},
      {"a field's count", [](std::vector<FieldInfo>& f) { f[1].count = 2; }},
      {"a field's type",
       [](std::vector<FieldInfo>& f) {
         f[1].type = f[1].type == FieldType::U32 ? FieldType::I32 : FieldType::U32;
       }},
      {"a handle's kind", [](std::vector<FieldInfo>& f) { f[0].handleKind = ResourceKind::Buffer; }},
      {"two fields swapped", [](std::vector<FieldInfo>& f) { std::swap(f[0], f[1]); }},
      {"a field dropped", [](std::vector<FieldInfo>& f) { f.pop_back(); }},
  };
  std::set<uint64_t> seen{base};
  for (const Change& c : changes) {
    std::vector<FieldInfo> changed = original;
    c.apply(changed);
    const uint64_t h = hashFields(changed);
    EXPECT_NE(h, base) << c.what;
    EXPECT_TRUE(seen.insert(h).second) << c.what << " hashes like another change";
  }
  // The command table's hash is made from this field table (and the name and size): a changed field
  // table gives another command hash too, which is what the trace header carries.
  const CommandInfo* info = findCommand("DrawIndexed");
  ASSERT_NE(info, nullptr);
  EXPECT_NE(info->layoutHash, 0u);
  EXPECT_NE(info->layoutHash, base) << "the name and size are part of it";
}

}  // namespace
}  // namespace reel

#include "model/frame_passes.h"

#include <cstring>

#include "reel/trace/command_map.h"
#include "reel/trace/declared_passes.h"

namespace reel::viewer {

std::vector<PassRow> framePasses(const trace::FrameRecord& frame, const trace::TraceHeader& header,
                                 const FrameGraphBuilder::TargetLookup& targetOf) {
  const auto commands = trace::CommandMap::fromHeader(header);
  const std::vector<trace::DeclaredPass> declared = trace::declaredPasses(frame, commands);
  FrameGraph graph = trace::frameGraph(frame, declared, commands, targetOf);
  std::vector<PassRow> rows;
  rows.reserve(declared.size());
  for (size_t p = 0; p < declared.size(); ++p)
    rows.push_back({std::string(declared[p].name), declared[p].desc, std::move(graph.passes[p])});
  return rows;
}

FrameGraphBuilder::TargetLookup scannedTargets(const FrameScanner& scanner, const trace::TraceHeader& header,
                                               uint64_t number) {
  return [&scanner, commands = trace::CommandMap::fromHeader(header),
          number](RenderTargetHandle target) -> std::optional<RenderTargetDesc> {
    const std::optional<ResourceInfo> info =
        scanner.findResource(ResourceKind::RenderTarget, target.value, number);
    cmd::CreateRenderTarget create;
    if (!info || commands[info->createType] != CommandType::CreateRenderTarget ||
        info->create.size() != sizeof create)
      return std::nullopt;
    std::memcpy(&create, info->create.data(), sizeof create);
    return create.desc;
  };
}

}  // namespace reel::viewer

#include "model/frame_passes.h"

#include <algorithm>
#include <cstring>

#include "reel/trace/command_map.h"
#include "reel/trace/declared_passes.h"

namespace reel::viewer {

FramePasses framePasses(const trace::FrameRecord& frame, const trace::TraceHeader& header,
                        const FrameGraphBuilder::TargetLookup& targetOf) {
  const auto commands = trace::CommandMap::fromHeader(header);
  const std::vector<trace::DeclaredPass> declared = trace::declaredPasses(frame, commands);
  FrameGraph graph = trace::frameGraph(frame, declared, commands, targetOf);
  FramePasses passes;
  passes.rows.reserve(declared.size());
  for (size_t p = 0; p < declared.size(); ++p)
    passes.rows.push_back({std::string(declared[p].name), declared[p].desc, std::move(graph.passes[p])});
  passes.outside = std::move(graph.passes.back());
  return passes;
}

TransientMap transientMap(const FramePasses& passes, const TextureLookup& textureOf) {
  // A frame without declared passes has no graph in the renderer: nothing shares memory or is discarded.
  if (passes.rows.empty()) return {};
  FrameGraph graph;
  std::vector<PassDesc> descs;
  for (const PassRow& p : passes.rows) {
    graph.passes.push_back(p.graph);
    descs.push_back(p.desc);
  }
  graph.passes.push_back(passes.outside);
  descs.emplace_back();  // the keys that name no pass
  auto isTransient = [&](uint32_t texture) {
    const std::optional<TextureDesc> d = textureOf(texture);
    return d && (d->usage & texture_usage::kTransient) != 0;
  };
  TransientMap map;
  std::vector<AliasItem> items;
  std::vector<size_t> rowOf;
  const std::vector<TransientLife> lives = transientLives(descs, graph, isTransient);
  const std::vector<std::vector<GraphResource>> discards =
      discardedAttachments(std::span(descs).first(passes.rows.size()), graph, lives);
  for (const TransientLife& life : lives) {
    const TextureDesc d = *textureOf(life.texture);
    uint64_t bytes = 0;
    for (uint32_t mip = 0, w = d.width, h = d.height; mip < std::max(1u, d.mipLevels); ++mip) {
      bytes += uint64_t{w} * h * formatBytesPerPixel(d.format);
      w = std::max(1u, w / 2);
      h = std::max(1u, h / 2);
    }
    const std::vector<GraphResource>* atLast = life.last < discards.size() ? &discards[life.last] : nullptr;
    const GraphResource texture{ResourceKind::Texture, life.texture};
    const bool discarded = atLast && std::find(atLast->begin(), atLast->end(), texture) != atLast->end();
    map.textures.push_back({life, bytes, -1, discarded});
    map.bytes += bytes;
    if (!life.discardable) continue;
    items.push_back({life.first, life.last, bytes, 1, ~0u});
    rowOf.push_back(map.textures.size() - 1);
  }
  std::vector<AliasGroup> groups = aliasGroups(items);
  map.saved = aliasedBytesSaved(items, groups);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t& i : groups[g].items) {
      i = rowOf[i];
      map.textures[i].group = static_cast<int>(g);
    }
  }
  map.groups = std::move(groups);
  return map;
}

namespace {
// The description a resource was created with, as the background scan knows it in frame `number`.
template <typename Create>
auto createdDesc(const FrameScanner& scanner, const trace::CommandMap& commands, uint32_t value,
                 uint64_t number) -> std::optional<decltype(Create::desc)> {
  const ResourceKind kind = commandInfo(Create::kType).semantics.resource;
  const std::optional<ResourceInfo> info = scanner.findResource(kind, value, number);
  Create create;
  if (!info || commands[info->createType] != Create::kType || info->create.size() != sizeof create)
    return std::nullopt;
  std::memcpy(&create, info->create.data(), sizeof create);
  return create.desc;
}
}  // namespace

TextureLookup scannedTextures(const FrameScanner& scanner, const trace::TraceHeader& header,
                              uint64_t number) {
  return [&scanner, commands = trace::CommandMap::fromHeader(header), number](uint32_t texture) {
    return createdDesc<cmd::CreateTexture>(scanner, commands, texture, number);
  };
}

FrameGraphBuilder::TargetLookup scannedTargets(const FrameScanner& scanner, const trace::TraceHeader& header,
                                               uint64_t number) {
  return [&scanner, commands = trace::CommandMap::fromHeader(header), number](RenderTargetHandle target) {
    return createdDesc<cmd::CreateRenderTarget>(scanner, commands, target.value, number);
  };
}

}  // namespace reel::viewer

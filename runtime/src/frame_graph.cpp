#include "reel/runtime/frame_graph.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace reel {
namespace {

void sortUnique(std::vector<GraphResource>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Whether two sorted lists share an element.
bool intersect(const std::vector<GraphResource>& a, const std::vector<GraphResource>& b) {
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

bool isMemory(ResourceKind kind) {
  return kind == ResourceKind::Buffer || kind == ResourceKind::Texture;
}

}  // namespace

FrameGraphBuilder::FrameGraphBuilder(std::span<const PassDesc> passes, TargetLookup targetOf)
    : targetOf_(std::move(targetOf)), passes_(passes.size()), graphics_(passes.size()) {
  for (size_t p = 0; p < passes.size(); ++p) {
    graphics_[p] = !passes[p].target.isNull();
    if (graphics_[p]) passes_[p].needs = QueueClass::Graphics;
    if (!passes[p].target.isNull())
      addTarget(passes_[p], passes[p].target, passes[p].colorLoad, passes[p].depthLoad);
  }
}

void FrameGraphBuilder::addTarget(GraphPass& pass, RenderTargetHandle target, LoadOp colorLoad,
                                  LoadOp depthLoad) {
  const std::optional<RenderTargetDesc> desc = targetOf_ ? targetOf_(target) : std::nullopt;
  if (!desc) return;
  auto attach = [&](TextureHandle texture, LoadOp load) {
    if (texture.isNull()) return;
    pass.writes.push_back({ResourceKind::Texture, texture.value});
    if (load == LoadOp::Load) pass.reads.push_back({ResourceKind::Texture, texture.value});
  };
  for (uint32_t i = 0; i < std::min<uint32_t>(desc->colorCount, 4); ++i) attach(desc->colors[i], colorLoad);
  attach(desc->depth, depthLoad);
}

void FrameGraphBuilder::add(uint32_t pass, CommandType type, std::span<const std::byte> payload) {
  if (pass >= passes_.size() || type >= CommandType::Count) return;
  const CommandInfo& info = commandInfo(type);
  if (payload.size() != info.size) return;
  GraphPass& p = passes_[pass];
  ++p.packets;
  const CommandSemantics& s = info.semantics;
  // Vulkan runs blits on graphics queues only; other transfers run on any queue.
  const bool graphicsOnly = s.category == CommandCategory::Draw || s.category == CommandCategory::BeginPass ||
                            type == CommandType::BlitTexture;
  if (graphicsOnly) {
    p.needs = QueueClass::Graphics;
  } else if (s.category == CommandCategory::Dispatch && p.needs == QueueClass::Transfer) {
    p.needs = QueueClass::AsyncCompute;
  }
  if (s.category == CommandCategory::BeginPass) {
    cmd::BeginRenderPass begin;
    if (type == CommandType::BeginRenderPass) {
      std::memcpy(&begin, payload.data(), sizeof begin);
      addTarget(p, begin.target, begin.colorLoad, begin.depthLoad);
    }
    return;
  }
  if (s.category != CommandCategory::SetState && s.category != CommandCategory::Transfer) return;
  for (const FieldInfo& f : info.fields) {
    if (f.type != FieldType::Handle || f.count != 1 || !isMemory(f.handleKind)) continue;
    uint32_t handle;
    std::memcpy(&handle, payload.data() + f.offset, sizeof handle);
    if (handle == 0) continue;
    const GraphResource r{f.handleKind, handle};
    const bool source = std::string_view(f.name) == "source";
    const bool reads = s.category == CommandCategory::SetState || source;
    const bool writes =
        s.category == CommandCategory::SetState ? s.shaderWritable && !graphics_[pass] : !source;
    if (reads) p.reads.push_back(r);
    if (writes) p.writes.push_back(r);
  }
}

QueueClass passQueue(const PassDesc& desc, const GraphPass& pass) {
  if (!desc.target.isNull() || desc.queue == QueueClass::Graphics || pass.needs == QueueClass::Graphics) {
    return QueueClass::Graphics;
  }
  if (desc.queue == QueueClass::Transfer && pass.needs == QueueClass::Transfer) return QueueClass::Transfer;
  return QueueClass::AsyncCompute;
}

FrameGraph FrameGraphBuilder::finish() {
  FrameGraph graph;
  for (GraphPass& p : passes_) {
    sortUnique(p.reads);
    sortUnique(p.writes);
  }
  for (size_t b = 0; b < passes_.size(); ++b) {
    for (size_t a = 0; a < b; ++a) {
      const GraphPass &A = passes_[a], &B = passes_[b];
      if (intersect(B.reads, A.writes) || intersect(B.writes, A.reads) || intersect(B.writes, A.writes))
        passes_[b].dependsOn.push_back(static_cast<uint32_t>(a));
    }
  }
  graph.passes = std::move(passes_);
  passes_.clear();
  return graph;
}

}  // namespace reel

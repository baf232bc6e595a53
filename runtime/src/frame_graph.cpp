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

// What the graph needs of each command, found once from commands.inc: every packet of a wide frame goes
// through addPacket in the sweep, so that a draw costs one look-up.
struct MemoryField {
  uint32_t offset;
  ResourceKind kind;
  bool source;  // a transfer's `source`: read, where the other handles are written
};
struct CommandRole {
  CommandCategory category;
  bool shaderWritable;
  // The least a queue must do to run it: Vulkan runs draws, passes and blits on graphics queues only,
  // dispatches on compute queues too, other transfers on any.
  QueueClass needs;
  bool outsideRendering;            // a dispatch or a transfer: rendering stops for it
  std::vector<MemoryField> fields;  // a bind's or a transfer's single buffer or texture handles
};
const CommandRole& roleOf(CommandType type) {
  static const std::vector<CommandRole> table = [] {
    std::vector<CommandRole> roles;
    for (const CommandInfo& info : commandTable()) {
      const CommandSemantics& s = info.semantics;
      CommandRole& role = roles.emplace_back();
      role.category = s.category;
      role.shaderWritable = s.shaderWritable;
      const bool graphicsOnly = s.category == CommandCategory::Draw ||
                                s.category == CommandCategory::BeginPass ||
                                info.type == CommandType::BlitTexture;
      role.needs = graphicsOnly                              ? QueueClass::Graphics
                   : s.category == CommandCategory::Dispatch ? QueueClass::AsyncCompute
                                                             : QueueClass::Transfer;
      role.outsideRendering =
          s.category == CommandCategory::Dispatch || s.category == CommandCategory::Transfer;
      // Binds read (and may write) what they bind, transfers read their source and write the rest.
      if (s.category != CommandCategory::SetState && s.category != CommandCategory::Transfer) continue;
      for (const FieldInfo& f : info.fields) {
        if (f.type != FieldType::Handle || f.count != 1 || !isMemory(f.handleKind)) continue;
        role.fields.push_back(
            {static_cast<uint32_t>(f.offset), f.handleKind, std::string_view(f.name) == "source"});
      }
    }
    return roles;
  }();
  return table[static_cast<size_t>(type)];
}

// A pass's commands need at least `needs` of its queue. Graphics < AsyncCompute < Transfer: the lower
// needs more.
void require(GraphPass& pass, QueueClass needs) {
  pass.needs = std::min(pass.needs, needs);
}

}  // namespace

FrameGraphBuilder::FrameGraphBuilder(std::span<const PassDesc> passes, TargetLookup targetOf)
    : targetOf_(std::move(targetOf)),
      passes_(passes.size()),
      order_(passes.size()),
      graphics_(passes.size()) {
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
  const uint64_t position = next_++;
  if (type >= CommandType::Count || payload.size() != commandInfo(type).size) return;
  addPacket(pass, position, type, payload.data());
}

void FrameGraphBuilder::order(uint32_t pass, uint64_t position, bool draw) {
  Order& o = order_[pass];
  if (draw) {
    o.firstDraw = std::min(o.firstDraw, position);
  } else {
    o.interruptionEnd = std::max(o.interruptionEnd, position + 1);
  }
}

void FrameGraphBuilder::addUnique(uint32_t pass, bool write, GraphResource r) {
  // A pass binds few resources many times (draws of a few materials): a small table of what was added
  // lately skips most repeats at the cost of a look-up; compact() and finish() remove the others.
  const uint64_t packed = (uint64_t{pass} << 40 | uint64_t{static_cast<uint8_t>(r.kind)} << 33 |
                           uint64_t{write} << 32 | r.handle) +
                          1;  // 0: an empty entry
  uint64_t& seen = seen_[(packed * 0x9E3779B97F4A7C15ull) >> (64 - kSeenBits)];
  if (seen == packed) return;
  seen = packed;
  GraphPass& p = passes_[pass];
  (write ? p.writes : p.reads).push_back(r);
}

void FrameGraphBuilder::addPacket(uint32_t pass, uint64_t position, CommandType type,
                                  const std::byte* payload) {
  if (pass >= passes_.size() || type >= CommandType::Count) return;
  const CommandRole& role = roleOf(type);
  GraphPass& p = passes_[pass];
  ++p.packets;
  require(p, role.needs);
  if (role.category == CommandCategory::Draw || role.outsideRendering)
    order(pass, position, !role.outsideRendering);
  if (role.category == CommandCategory::EndPass) p.interrupted = true;
  if (role.category == CommandCategory::BeginPass) {
    p.interrupted = true;
    cmd::BeginRenderPass begin;
    if (type == CommandType::BeginRenderPass) {
      std::memcpy(&begin, payload, sizeof begin);
      if (targetOf_) {
        addTarget(p, begin.target, begin.colorLoad, begin.depthLoad);
      } else {
        pending_.push_back({pass, begin.target, begin.colorLoad, begin.depthLoad});
      }
    }
    return;
  }
  const bool state = role.category == CommandCategory::SetState;
  for (const MemoryField& f : role.fields) {
    uint32_t handle;
    std::memcpy(&handle, payload + f.offset, sizeof handle);
    if (handle == 0) continue;
    const GraphResource r{f.kind, handle};
    if (role.category == CommandCategory::Transfer && f.kind == ResourceKind::Texture)
      p.copiesTextures = true;
    const bool reads = state || f.source;
    const bool writes = state ? role.shaderWritable && !graphics_[pass] : !f.source;
    if (reads) addUnique(pass, false, r);
    if (writes) addUnique(pass, true, r);
  }
}

bool FrameGraphBuilder::isPlain(CommandType type, QueueClass& needs) {
  if (type >= CommandType::Count) return false;
  const CommandRole& role = roleOf(type);
  needs = role.needs;
  return role.fields.empty() && !role.outsideRendering && role.category != CommandCategory::BeginPass &&
         role.category != CommandCategory::EndPass;
}

void FrameGraphBuilder::addPlain(uint32_t pass, uint64_t packets, QueueClass needs, uint64_t firstDraw) {
  if (pass >= passes_.size()) return;
  GraphPass& p = passes_[pass];
  p.packets += packets;
  require(p, needs);
  if (firstDraw != UINT64_MAX) order(pass, firstDraw, true);
}

void FrameGraphBuilder::compact() {
  for (GraphPass& p : passes_) {
    sortUnique(p.reads);
    sortUnique(p.writes);
  }
}

void FrameGraphBuilder::merge(const FrameGraphBuilder& part) {
  for (size_t i = 0; i < std::min(passes_.size(), part.passes_.size()); ++i) {
    GraphPass& p = passes_[i];
    const GraphPass& q = part.passes_[i];
    p.reads.insert(p.reads.end(), q.reads.begin(), q.reads.end());
    p.writes.insert(p.writes.end(), q.writes.begin(), q.writes.end());
    p.packets += q.packets;
    require(p, q.needs);
    p.interrupted = p.interrupted || q.interrupted;
    p.copiesTextures = p.copiesTextures || q.copiesTextures;
    order_[i].firstDraw = std::min(order_[i].firstDraw, part.order_[i].firstDraw);
    order_[i].interruptionEnd = std::max(order_[i].interruptionEnd, part.order_[i].interruptionEnd);
  }
  for (const PendingTarget& t : part.pending_) {
    if (t.pass >= passes_.size()) continue;
    if (targetOf_) {
      addTarget(passes_[t.pass], t.target, t.colorLoad, t.depthLoad);
    } else {
      pending_.push_back(t);
    }
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
  compact();
  for (size_t p = 0; p < passes_.size(); ++p) {
    const Order& o = order_[p];
    if (o.firstDraw != UINT64_MAX && o.interruptionEnd > o.firstDraw + 1) passes_[p].interrupted = true;
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
  order_.clear();
  return graph;
}

std::vector<TransientLife> transientLives(std::span<const PassDesc> passes, const FrameGraph& graph,
                                          const std::function<bool(uint32_t texture)>& isTransient) {
  std::vector<TransientLife> lives;
  std::vector<std::pair<uint32_t, size_t>> index;  // texture -> lives[i], sorted by texture
  auto find = [&](uint32_t texture) -> TransientLife* {
    auto it = std::lower_bound(index.begin(), index.end(), std::pair<uint32_t, size_t>{texture, 0});
    return it != index.end() && it->first == texture ? &lives[it->second] : nullptr;
  };
  for (size_t p = 0; p < graph.passes.size() && p < passes.size(); ++p) {
    const GraphPass& pass = graph.passes[p];
    const bool graphics = passQueue(passes[p], pass) == QueueClass::Graphics;
    auto touch = [&](const GraphResource& r, bool read) {
      if (r.kind != ResourceKind::Texture || !isTransient(r.handle)) return;
      TransientLife* life = find(r.handle);
      if (!life) {
        TransientLife added;
        added.texture = r.handle;
        added.first = static_cast<uint32_t>(p);
        added.discardable = true;
        lives.push_back(added);
        const std::pair<uint32_t, size_t> entry{r.handle, lives.size() - 1};
        index.insert(std::lower_bound(index.begin(), index.end(), entry), entry);
        life = &lives.back();
      }
      if (read && life->first == p) life->discardable = false;
      life->last = static_cast<uint32_t>(p);
      life->graphicsOnly = life->graphicsOnly && graphics;
    };
    for (const GraphResource& r : pass.writes) touch(r, false);
    for (const GraphResource& r : pass.reads) touch(r, true);
  }
  return lives;
}

std::vector<std::vector<GraphResource>> discardedAttachments(std::span<const PassDesc> passes,
                                                             const FrameGraph& graph,
                                                             std::span<const TransientLife> lives) {
  std::vector<std::vector<GraphResource>> discards(passes.size());
  for (const TransientLife& life : lives) {
    if (life.last >= passes.size() || life.last >= graph.passes.size() || passes[life.last].target.isNull())
      continue;
    const GraphPass& g = graph.passes[life.last];
    const GraphResource texture{ResourceKind::Texture, life.texture};
    if (!g.interrupted && std::binary_search(g.writes.begin(), g.writes.end(), texture))
      discards[life.last].push_back(texture);
  }
  return discards;
}

std::vector<AliasGroup> aliasGroups(std::span<const AliasItem> items) {
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return items[a].first < items[b].first; });
  std::vector<AliasGroup> groups;
  for (const size_t i : order) {
    const AliasItem& item = items[i];
    AliasGroup* chosen = nullptr;
    for (AliasGroup& g : groups) {
      if (g.last < item.first && (g.memoryTypes & item.memoryTypes) != 0) {
        chosen = &g;
        break;
      }
    }
    if (!chosen) chosen = &groups.emplace_back();
    chosen->items.push_back(i);
    chosen->size = std::max(chosen->size, item.size);
    chosen->alignment = std::max(chosen->alignment, item.alignment);
    chosen->memoryTypes &= item.memoryTypes;
    chosen->last = std::max(chosen->last, item.last);
  }
  return groups;
}

uint64_t aliasedBytesSaved(std::span<const AliasItem> items, std::span<const AliasGroup> groups) {
  uint64_t saved = 0;
  for (const AliasGroup& g : groups) {
    uint64_t members = 0;
    for (const size_t i : g.items) members += items[i].size;
    saved += members - g.size;
  }
  return saved;
}

}  // namespace reel

#include "model/frame_stats.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "model/key_fields.h"
#include "reel/trace/command_map.h"

namespace reel::viewer {
namespace {

// Counts state changes over the rows in one order. Where each command keeps its slot is looked up
// once per command id; the last payload of each (type, slot) lives in a flat table for slots 0..15.
class StateTracker {
 public:
  StateTracker(const trace::TraceHeader& header, const std::vector<uint8_t>& isState) {
    slotField_.resize(header.commands.size());
    for (size_t id = 0; id < header.commands.size(); ++id) {
      if (!isState[id]) continue;
      for (const FieldInfo& f : header.commands[id].fields) {
        if (f.name && std::string_view(f.name) == "slot" && f.count == 1 && f.size <= 8) slotField_[id] = &f;
      }
    }
    last_.resize(header.commands.size() * kSlots);
  }

  // Whether the packet changed state (only called for state commands).
  bool apply(const trace::PacketRecord& p) {
    uint64_t slot = 0;
    if (const FieldInfo* f = slotField_[p.type]; f && uint64_t{f->offset} + f->size <= p.payload.size()) {
      std::memcpy(&slot, p.payload.data() + f->offset, f->size);
    }
    std::vector<std::byte>& last = slot < kSlots ? last_[p.type * kSlots + slot]
                                                 : overflow_[(uint64_t{p.type} << 32) | (slot & 0xffffffffu)];
    const size_t size = p.payload.size() + p.aux.size();
    const bool same =
        last.size() == size && std::memcmp(last.data(), p.payload.data(), p.payload.size()) == 0 &&
        (p.aux.empty() || std::memcmp(last.data() + p.payload.size(), p.aux.data(), p.aux.size()) == 0);
    if (same) return false;
    last.resize(size);
    std::memcpy(last.data(), p.payload.data(), p.payload.size());
    if (!p.aux.empty()) std::memcpy(last.data() + p.payload.size(), p.aux.data(), p.aux.size());
    return true;
  }

 private:
  static constexpr uint64_t kSlots = 16;
  std::vector<const FieldInfo*> slotField_;
  std::vector<std::vector<std::byte>> last_;             // (type, slot < 16) -> last payload + aux
  std::map<uint64_t, std::vector<std::byte>> overflow_;  // larger slots
};

}  // namespace

FrameStats computeStats(const trace::FrameRecord& frame, const FrameTable& table,
                        const trace::TraceHeader& header) {
  FrameStats s;
  s.packets = table.size();
  s.keys = table.keyCount();
  const size_t commandCount = header.commands.size();
  std::vector<TypeStats> byType(commandCount);
  std::vector<uint8_t> isState(commandCount, 0);
  const auto commands = trace::CommandMap::fromHeader(header);
  for (size_t id = 0; id < commandCount; ++id) {
    byType[id].type = static_cast<uint16_t>(id);
    byType[id].name = std::string(header.commands[id].name);
    const auto semantics = commands.semantics(id);
    isState[id] = semantics && semantics->category == CommandCategory::SetState;
  }
  std::vector<StateStats> states(commandCount);

  std::vector<KeyFieldReader> materials(frame.buckets.size());
  for (size_t b = 0; b < frame.buckets.size(); ++b) {
    if (const trace::KeyLayoutDesc* l = header.keyLayout(frame.buckets[b].keyType))
      materials[b] = KeyFieldReader(l->fields, "material");
  }

  for (bool sorted : {true, false}) {
    StateTracker tracker(header, isState);
    std::optional<uint64_t> lastMaterial;
    for (uint32_t pos = 0; pos < table.size(); ++pos) {
      const Row& row = table.row(table.rowAt(sorted, pos));
      const trace::PacketRecord p = packetOf(frame, row);
      if (sorted) {
        if (p.type < commandCount) {
          TypeStats& t = byType[p.type];
          ++t.count;
          t.payloadBytes += p.payload.size();
          t.auxBytes += p.aux.size();
        }
        s.payloadBytes += p.payload.size();
        s.auxBytes += p.aux.size();
        s.sharedLinks += p.shared ? 1 : 0;
      }
      if (row.link == 0) {
        const auto material = materials[row.bucket].read(keyOf(frame, row));
        if (material) {
          if (sorted) ++s.materialKeys;
          if (lastMaterial && *lastMaterial != *material)
            ++(sorted ? s.materialChangesSorted : s.materialChangesSubmission);
          lastMaterial = material;
        }
      }
      if (p.type >= commandCount || !isState[p.type]) continue;
      StateStats& st = states[p.type];
      const bool changed = tracker.apply(p);
      if (sorted) {
        ++st.packets;
        st.changesSorted += changed;
      } else {
        st.changesSubmission += changed;
      }
    }
  }

  for (TypeStats& t : byType) {
    if (t.count) s.types.push_back(std::move(t));
  }
  std::stable_sort(s.types.begin(), s.types.end(),
                   [](const TypeStats& a, const TypeStats& b) { return a.count > b.count; });
  for (size_t id = 0; id < commandCount; ++id) {
    if (!states[id].packets) continue;
    states[id].type = static_cast<uint16_t>(id);
    states[id].name = std::string(header.commands[id].name);
    s.states.push_back(std::move(states[id]));
  }
  return s;
}

}  // namespace reel::viewer

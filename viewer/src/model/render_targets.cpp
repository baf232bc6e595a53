#include "model/render_targets.h"

#include <algorithm>
#include <charconv>

#include "model/packet_fields.h"
#include "reel/trace/command_map.h"
#include "reel/trace/declared_passes.h"

namespace reel::viewer {

PassTargets::PassTargets(const trace::FrameRecord& frame, const FrameTable& table,
                         const trace::TraceHeader& header) {
  // The commands that begin a pass, as this build declares them; their `target` read with the trace's
  // own field table.
  const auto commands = trace::CommandMap::fromHeader(header);
  std::vector<const trace::CommandDesc*> passBegins(commands.size());
  bool any = false;
  for (size_t id = 0; id < commands.size(); ++id) {
    const auto semantics = commands.semantics(id);
    if (semantics && semantics->category == CommandCategory::BeginPass) {
      passBegins[id] = header.command(static_cast<uint16_t>(id));
      any = true;
    }
  }
  // Declared passes (format 1.5) begin before their first key; one no key names renders nothing a
  // position shows, but its target is still the frame's.
  const std::vector<trace::DeclaredPass> declared = trace::declaredPasses(frame, commands);
  auto addTarget = [&](uint32_t value) {
    if (std::find(targets_.begin(), targets_.end(), value) == targets_.end()) targets_.push_back(value);
  };
  for (const trace::DeclaredPass& pass : declared) {
    if (!pass.desc.target.isNull()) addTarget(pass.desc.target.value);
  }
  if (!any && declared.empty()) return;
  const auto order = table.sortedOrder();
  uint32_t lastPass = PassId::kNone;
  for (uint32_t pos = 0; pos < order.size(); ++pos) {
    const Row& row = table.row(order[pos]);
    const uint32_t pass = frame.buckets[row.bucket].pass(row.key);
    if (pass < declared.size() && pass != lastPass) {
      lastPass = pass;
      if (!declared[pass].desc.target.isNull()) begins_.emplace_back(pos, declared[pass].desc.target.value);
    }
    const trace::PacketRecord p = packetOf(frame, row);
    const trace::CommandDesc* desc = p.type < passBegins.size() ? passBegins[p.type] : nullptr;
    if (!desc) continue;
    const auto target = readField(desc->fields, p.payload, "target");
    if (!target || *target == 0) continue;
    const auto value = static_cast<uint32_t>(*target);
    begins_.emplace_back(pos, value);
    addTarget(value);
  }
}

std::optional<uint32_t> PassTargets::targetAt(uint32_t position) const {
  if (begins_.empty()) return std::nullopt;
  const auto it =
      std::upper_bound(begins_.begin(), begins_.end(), position,
                       [](uint32_t p, const std::pair<uint32_t, uint32_t>& b) { return p < b.first; });
  if (it == begins_.begin()) return begins_.front().second;
  return std::prev(it)->second;
}

std::optional<uint32_t> findTarget(const std::vector<uint32_t>& targets, std::string_view spec) {
  if (spec.empty()) return std::nullopt;
  uint32_t index = 0;
  const auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), index);
  if (ec == std::errc() && end == spec.data() + spec.size()) {
    if (index < targets.size()) return targets[index];
    return std::nullopt;
  }
  for (const uint32_t t : targets) {
    const std::string full = handleName(ResourceKind::RenderTarget, t);  // render_target#3.1
    const std::string slot = full.substr(0, full.find('.'));             // render_target#3
    const std::string hash = slot.substr(slot.find('#'));                // #3
    if (spec == full || spec == slot || spec == hash) return t;
  }
  return std::nullopt;
}

}  // namespace reel::viewer

#include "reel/runtime/commands.h"

#include <array>
#include <cstring>
#include <string_view>

namespace reel {
namespace {

// The layout of a command as a reader sees it: its name, its size and its field table.
uint64_t layoutHash(const char* name, uint64_t size, std::span<const FieldInfo> fields) {
  uint64_t h = hashFields(fields) ^ (size << 48);
  for (const char* c = name; *c; ++c) {
    h ^= static_cast<unsigned char>(*c);
    h *= 1099511628211ull;
  }
  return h;
}

#define REEL_COMMAND(Name, Semantics, ...)                                                \
  static_assert(fieldsFitSemantics(cmd::Name::kSemantics, FieldsOf<cmd::Name>::fields()), \
                #Name ": its fields do not give what its semantics (" #Semantics ") promise");
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

std::array<CommandInfo, kCommandTypeCount> buildTable() {
  std::array<CommandInfo, kCommandTypeCount> table{};
  size_t i = 0;
#define REEL_COMMAND(Name, Semantics, ...)                \
  table[i++] = CommandInfo{CommandType::Name,             \
                           #Name,                         \
                           cmd::Name::kQueue,             \
                           cmd::Name::kSemantics,         \
                           sizeof(cmd::Name),             \
                           FieldsOf<cmd::Name>::fields(), \
                           layoutHash(#Name, sizeof(cmd::Name), FieldsOf<cmd::Name>::fields())};
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
  return table;
}

}  // namespace

std::span<const CommandInfo> commandTable() {
  static const std::array<CommandInfo, kCommandTypeCount> kTable = buildTable();
  return kTable;
}

CommandType createCommandOf(ResourceKind kind) {
  return visitResourceKind(kind, []<ResourceKind K>() { return ResourceCommands<K>::Create::kType; });
}
CommandType destroyCommandOf(ResourceKind kind) {
  return visitResourceKind(kind, []<ResourceKind K>() { return ResourceCommands<K>::Destroy::kType; });
}

std::optional<uint32_t> fieldU32(CommandType type, std::span<const std::byte> payload,
                                 std::string_view name) {
  if (type >= CommandType::Count) return std::nullopt;
  const std::span<const FieldInfo> fields = commandInfo(type).fields;
  const size_t i = findFieldIndex(fields, name);
  if (i == fields.size()) return std::nullopt;
  const FieldInfo* f = &fields[i];
  if (f->size != sizeof(uint32_t) || uint64_t{f->offset} + f->size > payload.size()) return std::nullopt;
  uint32_t value;
  std::memcpy(&value, payload.data() + f->offset, sizeof value);
  return value;
}

std::optional<RenderTargetHandle> passTargetOf(CommandType type, std::span<const std::byte> payload) {
  if (type >= CommandType::Count || semanticsOf(type).category != CommandCategory::BeginPass)
    return std::nullopt;
  const std::optional<uint32_t> target = fieldU32(type, payload, "target");
  if (!target) return std::nullopt;
  return RenderTargetHandle{*target};
}

const char* commandCategoryName(CommandCategory category) {
  static constexpr const char* kNames[] = {"create",     "destroy",  "write",        "declare pass",
                                           "begin pass", "end pass", "state",        "draw",
                                           "dispatch",   "transfer", "begin marker", "end marker"};
  static_assert(std::size(kNames) == static_cast<size_t>(CommandCategory::EndMarker) + 1);
  const auto i = static_cast<size_t>(category);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

const CommandInfo* findCommand(std::string_view name) {
  for (const CommandInfo& info : commandTable()) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

}  // namespace reel

#include "reel/runtime/commands.h"

#include <array>
#include <cstring>

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

std::array<CommandInfo, kCommandTypeCount> buildTable() {
  std::array<CommandInfo, kCommandTypeCount> table{};
  size_t i = 0;
#define REEL_COMMAND(Name, Queue, ...)                                                                  \
  table[i++] = CommandInfo{CommandType::Name, #Name, CommandQueue::Queue, sizeof(cmd::Name),            \
                           FieldsOf<cmd::Name>::fields(),                                               \
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

std::optional<ResourceRequest> resourceRequestOf(CommandType type) {
  switch (type) {
#define REEL_KIND(Kind)                               \
  case CommandType::Create##Kind:                     \
    return ResourceRequest{ResourceKind::Kind, true}; \
  case CommandType::Destroy##Kind:                    \
    return ResourceRequest{ResourceKind::Kind, false};
    REEL_KIND(Buffer)
    REEL_KIND(Texture)
    REEL_KIND(Sampler)
    REEL_KIND(Shader)
    REEL_KIND(Pipeline)
    REEL_KIND(RenderTarget)
#undef REEL_KIND
    default:
      return std::nullopt;
  }
}

const CommandInfo* findCommand(std::string_view name) {
  for (const CommandInfo& info : commandTable()) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

}  // namespace reel

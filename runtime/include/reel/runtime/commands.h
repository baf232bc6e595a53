#pragma once
// Command packets, expanded from commands.inc: the CommandType enum, one POD struct per command in
// namespace reel::cmd, and the command table (name, queue, size, field table, layout hash).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "reel/runtime/descriptors.h"

namespace reel {

enum class CommandQueue : uint8_t { Resource, Sorted };

enum class CommandType : uint16_t {
#define REEL_COMMAND(Name, Queue, ...) Name,
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
  Count
};
inline constexpr uint32_t kCommandTypeCount = static_cast<uint32_t>(CommandType::Count);

namespace cmd {
#define REEL_FIELD(type, name) type name{};
#define REEL_ARRAY(type, name, count) type name[count]{};
#define REEL_COMMAND(Name, Queue, ...)                                \
  struct Name {                                                       \
    static constexpr CommandType kType = CommandType::Name;           \
    static constexpr CommandQueue kQueue = CommandQueue::Queue;       \
    __VA_ARGS__                                                       \
  };                                                                  \
  static_assert(std::is_trivially_copyable_v<Name>, #Name " must be POD"); \
  static_assert(alignof(Name) <= 8, #Name " must fit the 8-byte packet alignment");
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
#undef REEL_ARRAY
#undef REEL_FIELD
}  // namespace cmd

#define REEL_FIELD(type, name) makeField<type>(#name, offsetof(Self, name), 1),
#define REEL_ARRAY(type, name, count) makeField<type>(#name, offsetof(Self, name), count),
#define REEL_COMMAND(Name, Queue, ...)                                                           \
  template <>                                                                                    \
  struct FieldsOf<cmd::Name> {                                                                   \
    using Self = cmd::Name;                                                                      \
    static constexpr FieldInfo kTable[] = {__VA_ARGS__ FieldInfo{}};                             \
    static constexpr std::span<const FieldInfo> fields() { return {kTable, std::size(kTable) - 1}; } \
  };
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
#undef REEL_ARRAY
#undef REEL_FIELD

template <typename T>
concept Command = requires {
  { T::kType } -> std::convertible_to<CommandType>;
} && std::is_trivially_copyable_v<T>;

// A command of the sorted queue: what a CommandBucket (and a MaterialBinder) records under a key.
// Resource requests (creates, writes, destroys) go through ResourceContext, which applies them in
// request order around the frame's sorted commands; under a sort key they would run mid-frame.
template <typename T>
concept SortedCommand = Command<T> && T::kQueue == CommandQueue::Sorted;

struct CommandInfo {
  CommandType type;
  const char* name;
  CommandQueue queue;
  uint32_t size;  // sizeof the packet struct
  std::span<const FieldInfo> fields;
  uint64_t layoutHash;  // name, size and field table hashed together
};

// The command table, indexed by CommandType. Built once, immutable.
std::span<const CommandInfo> commandTable();
const CommandInfo* findCommand(std::string_view name);
inline const CommandInfo& commandInfo(CommandType type) { return commandTable()[static_cast<size_t>(type)]; }
inline const char* commandName(CommandType type) { return commandInfo(type).name; }

// What a Create* or Destroy* request is about: the kind of resource it names (its handle is the packet's
// first field) and whether it creates it. Nothing for any other command, writes included.
struct ResourceRequest {
  ResourceKind kind;
  bool creates;
};
std::optional<ResourceRequest> resourceRequestOf(CommandType type);

}  // namespace reel

#pragma once
// Command packets, expanded from commands.inc: the CommandType enum, one POD struct per command in
// namespace reel::cmd with what it does (its CommandSemantics), and the command table (name, queue,
// semantics, size, field table, layout hash).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "reel/runtime/descriptors.h"

namespace reel {

enum class CommandQueue : uint8_t { Resource, Sorted };

// What a command does, declared with it in commands.inc. Tools and devices derive from it what they need
// to know about a command (which requests create what, which state a command sets, where a pass begins),
// so no tool keeps a list of commands of its own.
enum class CommandCategory : uint8_t {
  Create,       // resource requests about one kind of resource (CommandSemantics::resource), whose
  Destroy,      // handle is the packet's first field
  Write,        //
  DeclarePass,  // a pass of the frame, by id (the `pass` field): a request, applied in request order
  BeginPass,    // opens the render pass into its `target`
  EndPass,      //
  SetState,     // sets bound state (CommandSemantics::state says which part)
  Draw,         //
  Dispatch,     //
  Transfer,     // copies, blits and buffer updates outside a pass
  BeginMarker,  // debug label scopes
  EndMarker,    //
};
const char* commandCategoryName(CommandCategory category);

// The part of the bound state a SetState command replaces; a later command of the same scope (and slot)
// makes it irrelevant.
enum class StateScope : uint8_t {
  None,          // not a state command
  Whole,         // one value: the last command of its type wins
  PerSlot,       // one value per `slot` field value
  PerBindPoint,  // one value per pipeline bind point (graphics, compute), read from its `pipeline`
  PushBytes,     // the bytes [offset, offset + aux size) of the push-constant block
};

struct CommandSemantics {
  CommandCategory category;
  ResourceKind resource = ResourceKind::Count;  // for Create, Destroy, Write
  StateScope state = StateScope::None;          // for SetState
  // SetState: what it binds, shaders may write (a storage buffer); other bound resources are only read.
  // (A transfer reads its `source` and writes its other handles; a pass writes its target.)
  bool shaderWritable = false;

  constexpr CommandSemantics writable() const {
    CommandSemantics s = *this;
    s.shaderWritable = true;
    return s;
  }

  // Resource requests are applied in request order around a frame's sorted commands.
  constexpr CommandQueue queue() const {
    return category <= CommandCategory::DeclarePass ? CommandQueue::Resource : CommandQueue::Sorted;
  }
  friend constexpr bool operator==(const CommandSemantics&, const CommandSemantics&) = default;
};

// The words commands.inc declares semantics with.
namespace semantics {
using enum ResourceKind;
using enum StateScope;
constexpr CommandSemantics creates(ResourceKind kind) {
  return {CommandCategory::Create, kind};
}
constexpr CommandSemantics destroys(ResourceKind kind) {
  return {CommandCategory::Destroy, kind};
}
constexpr CommandSemantics writes(ResourceKind kind) {
  return {CommandCategory::Write, kind};
}
constexpr CommandSemantics sets(StateScope scope) {
  return {CommandCategory::SetState, ResourceKind::Count, scope};
}
inline constexpr CommandSemantics declaresPass{CommandCategory::DeclarePass};
inline constexpr CommandSemantics beginsPass{CommandCategory::BeginPass};
inline constexpr CommandSemantics endsPass{CommandCategory::EndPass};
inline constexpr CommandSemantics draws{CommandCategory::Draw};
inline constexpr CommandSemantics dispatches{CommandCategory::Dispatch};
inline constexpr CommandSemantics transfers{CommandCategory::Transfer};
inline constexpr CommandSemantics beginsMarker{CommandCategory::BeginMarker};
inline constexpr CommandSemantics endsMarker{CommandCategory::EndMarker};
}  // namespace semantics

// The index of the field of that name at the top level of a field table; fields.size() when it has none.
// (An index, not a pointer: GCC's sanitizers make comparing a pointer into a static table with null
// something a constant expression cannot do.)
constexpr size_t findFieldIndex(std::span<const FieldInfo> fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (std::string_view(fields[i].name) == name) return i;
  }
  return fields.size();
}
namespace detail {
constexpr bool isHandleOf(std::span<const FieldInfo> fields, size_t i, ResourceKind kind) {
  return i < fields.size() && fields[i].type == FieldType::Handle && fields[i].count == 1 &&
         fields[i].handleKind == kind;
}
constexpr bool isU32(std::span<const FieldInfo> fields, size_t i) {
  return i < fields.size() && fields[i].type == FieldType::U32 && fields[i].count == 1;
}
}  // namespace detail

// Whether a command's fields give what its semantics promise tools (the handle a request names first, a
// pass's `target`, a state command's `slot`, `pipeline` or `offset`). commands.cpp checks every command
// of commands.inc with it as it is compiled.
constexpr bool fieldsFitSemantics(const CommandSemantics& s, std::span<const FieldInfo> fields) {
  switch (s.category) {
    case CommandCategory::Create:
    case CommandCategory::Destroy:
    case CommandCategory::Write:
      return !fields.empty() && fields[0].offset == 0 && detail::isHandleOf(fields, 0, s.resource) &&
             s.state == StateScope::None;
    case CommandCategory::DeclarePass:
      return detail::isU32(fields, findFieldIndex(fields, "pass")) && fields[0].offset == 0;
    case CommandCategory::BeginPass:
      return detail::isHandleOf(fields, findFieldIndex(fields, "target"), ResourceKind::RenderTarget);
    case CommandCategory::SetState:
      switch (s.state) {
        case StateScope::None:
          return false;
        case StateScope::Whole:
          return true;
        case StateScope::PerSlot:
          return detail::isU32(fields, findFieldIndex(fields, "slot"));
        case StateScope::PerBindPoint:
          return detail::isHandleOf(fields, findFieldIndex(fields, "pipeline"), ResourceKind::Pipeline);
        case StateScope::PushBytes:
          return detail::isU32(fields, findFieldIndex(fields, "offset"));
      }
      return false;
    default:
      return s.resource == ResourceKind::Count && s.state == StateScope::None;
  }
}

enum class CommandType : uint16_t {
#define REEL_COMMAND(Name, Semantics, ...) Name,
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
  Count
};
inline constexpr uint32_t kCommandTypeCount = static_cast<uint32_t>(CommandType::Count);

namespace cmd {
#define REEL_FIELD(type, name) type name{};
#define REEL_ARRAY(type, name, count) type name[count]{};
#define REEL_COMMAND(Name, Semantics, ...)                                 \
  struct Name {                                                            \
    static constexpr CommandType kType = CommandType::Name;                \
    static constexpr CommandSemantics kSemantics = [] {                    \
      using namespace ::reel::semantics;                                   \
      return Semantics;                                                    \
    }();                                                                   \
    static constexpr CommandQueue kQueue = kSemantics.queue();             \
    __VA_ARGS__                                                            \
  };                                                                       \
  static_assert(std::is_trivially_copyable_v<Name>, #Name " must be POD"); \
  static_assert(alignof(Name) <= 8, #Name " must fit the 8-byte packet alignment");
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
#undef REEL_ARRAY
#undef REEL_FIELD
}  // namespace cmd

#define REEL_FIELD(type, name) makeField<type>(#name, offsetof(Self, name), 1),
#define REEL_ARRAY(type, name, count) makeField<type>(#name, offsetof(Self, name), count),
#define REEL_COMMAND(Name, Semantics, ...)                                                           \
  template <>                                                                                        \
  struct FieldsOf<cmd::Name> {                                                                       \
    using Self = cmd::Name;                                                                          \
    static constexpr FieldInfo kTable[] = {__VA_ARGS__ FieldInfo{}};                                 \
    static constexpr std::span<const FieldInfo> fields() { return {kTable, std::size(kTable) - 1}; } \
  };
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
#undef REEL_ARRAY
#undef REEL_FIELD

template <typename T>
concept Command = requires {
  { T::kType } -> std::convertible_to<CommandType>;
}
&&std::is_trivially_copyable_v<T>;

// A command of the sorted queue: what a CommandBucket (and a MaterialBinder) records under a key.
// Resource requests (creates, writes, destroys) go through ResourceContext, which applies them in
// request order around the frame's sorted commands; under a sort key they would run mid-frame.
template <typename T>
concept SortedCommand = Command<T> && T::kQueue == CommandQueue::Sorted;

struct CommandInfo {
  CommandType type;
  const char* name;
  CommandQueue queue;
  CommandSemantics semantics;
  uint32_t size;  // sizeof the packet struct
  std::span<const FieldInfo> fields;
  uint64_t layoutHash;  // name, size and field table hashed together
};

// The command table, indexed by CommandType. Built once, immutable.
std::span<const CommandInfo> commandTable();
const CommandInfo* findCommand(std::string_view name);
inline const CommandInfo& commandInfo(CommandType type) {
  return commandTable()[static_cast<size_t>(type)];
}
inline const char* commandName(CommandType type) {
  return commandInfo(type).name;
}

// The create and destroy request of each resource kind, from resource_kinds.inc. A kind without its
// Create<Kind> and Destroy<Kind> commands, or with commands that do not say they create and destroy it,
// does not compile.
template <ResourceKind K>
struct ResourceCommands;
#define REEL_RESOURCE_KIND(Kind, name, Contents, summary)                         \
  template <>                                                                     \
  struct ResourceCommands<ResourceKind::Kind> {                                   \
    using Create = cmd::Create##Kind;                                             \
    using Destroy = cmd::Destroy##Kind;                                           \
    static_assert(Create::kSemantics == semantics::creates(ResourceKind::Kind),   \
                  "Create" #Kind " must be declared creates(" #Kind ")");         \
    static_assert(Destroy::kSemantics == semantics::destroys(ResourceKind::Kind), \
                  "Destroy" #Kind " must be declared destroys(" #Kind ")");       \
  };
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND

// The descriptor a kind's create request carries (BufferDesc, ...).
template <ResourceKind K>
using DescOf = decltype(ResourceCommands<K>::Create::desc);

inline const CommandSemantics& semanticsOf(CommandType type) {
  return commandInfo(type).semantics;
}

// A 32-bit field (a handle, a slot, an offset) of a packet of this build's layout, by name, through the
// command's field table; nothing when the command has no such field or the payload is too short.
std::optional<uint32_t> fieldU32(CommandType type, std::span<const std::byte> payload, std::string_view name);
// The render target a BeginPass command opens; nothing for any other command.
std::optional<RenderTargetHandle> passTargetOf(CommandType type, std::span<const std::byte> payload);
// The type of a resource kind's create and destroy requests.
CommandType createCommandOf(ResourceKind kind);
CommandType destroyCommandOf(ResourceKind kind);

}  // namespace reel

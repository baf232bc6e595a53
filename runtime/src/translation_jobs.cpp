#include "reel/runtime/translation_jobs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace reel {

uint32_t jobCountFor(size_t keys, uint32_t threads, size_t minKeys) {
  const size_t byKeys = keys / std::max<size_t>(minKeys, 1);
  return static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(threads, byKeys)));
}

size_t minJobKeysFromEnvironment() {
  const char* env = std::getenv("REEL_RENDER_JOB_KEYS");
  if (!env || !*env) return kMinJobKeys;
  char* end = nullptr;
  const unsigned long value = std::strtoul(env, &end, 10);
  if (*end != '\0' || value == 0) {
    std::fprintf(stderr, "reel: REEL_RENDER_JOB_KEYS='%s' is not a number > 0: ignored\n", env);
    return kMinJobKeys;
  }
  return value;
}

namespace {
constexpr size_t kPrefetchKeys = 16;  // as the renderer's translate() (renderer.cpp)

int32_t fieldOffset(const CommandInfo& info, std::string_view name) {
  for (const FieldInfo& f : info.fields) {
    if (name == f.name) return static_cast<int32_t>(f.offset);
  }
  return -1;
}
}  // namespace

JobPlanner::JobPlanner() {
  for (const CommandInfo& info : commandTable()) {
    TypeInfo t{info.semantics.category, info.semantics.state};
    switch (t.scope) {
      case StateScope::PerSlot:
        t.field = fieldOffset(info, "slot");
        break;
      case StateScope::PushBytes:
        t.field = fieldOffset(info, "offset");
        break;
      case StateScope::PerBindPoint:
        t.field = fieldOffset(info, "pipeline");
        break;
      default:
        break;
    }
    // commands.inc names these fields for every command of these scopes; a missing one is a broken list.
    REEL_ASSERT(t.scope == StateScope::None || t.scope == StateScope::Whole || t.field >= 0,
                "a state command of commands.inc lacks the field its scope reads");
    types_.push_back(t);
  }
}

std::span<const TranslationJob> JobPlanner::planErased(const FrameView& view, uint32_t count,
                                                       IsComputeFn isCompute, const void* fn) {
  const size_t keys = view.sorted.size();
  count = std::max<uint32_t>(1, count);
  jobs_.resize(count);
  whole_.assign(types_.size(), Ref{});
  perSlot_.assign(types_.size() * kMaxSlots, Ref{});
  std::fill(std::begin(bindPoint_), std::end(bindPoint_), Ref{});
  std::fill(std::begin(push_), std::end(push_), Ref{});
  pass_ = Ref{};
  markers_.clear();

  uint32_t ordinal = 0;
  size_t key = 0;
  for (uint32_t j = 0; j < count; ++j) {
    TranslationJob& job = jobs_[j];
    job.firstKey = keys * j / count;
    job.endKey = keys * (j + 1) / count;
    snapshot(job);
    if (j + 1 == count) break;  // the last job's packets change no later job's start
    // Only the packets' headers (and a state packet's scope field) are read: types come from the
    // command table, so a draw costs a look at its header and nothing else.
    for (; key < job.endKey; ++key) {
      // Chain heads lie in recording order, keys in sorted order: fetched ahead as translate() does (without
      // it the sweep waited on a cache miss per key, ~70 ns of a `stress` key on the H100 host).
      if (key + kPrefetchKeys < keys) {
        const SortEntry& ahead = view.sorted[key + kPrefetchKeys];
        const std::byte* head =
            view.buckets[view.mergedBuckets[ahead.sequence]].stream->packets.base() + ahead.value;
        __builtin_prefetch(head);
        __builtin_prefetch(head + 64);
        __builtin_prefetch(head + 128);
        __builtin_prefetch(head + 192);
      }
      const SortEntry& entry = view.sorted[key];
      const BucketStream& stream = *view.buckets[view.mergedBuckets[entry.sequence]].stream;
      for (uint32_t offset = entry.value; offset != 0;) {
        const PacketHeader& h = stream.header(offset);
        const uint32_t body = detail::resolveShared(stream, offset, h);
        const PacketHeader& bh = stream.header(body);
        const TypeInfo& t = types_[bh.type];
        const Ref ref{static_cast<uint32_t>(key), offset, ordinal++};
        switch (t.category) {
          case CommandCategory::SetState: {
            const std::byte* payload = stream.payload(body);
            uint32_t value = 0;
            if (t.field >= 0) std::memcpy(&value, payload + t.field, sizeof value);
            switch (t.scope) {
              case StateScope::Whole:
                whole_[bh.type] = ref;
                break;
              case StateScope::PerSlot:
                if (value < kMaxSlots) perSlot_[size_t{bh.type} * kMaxSlots + value] = ref;
                break;
              case StateScope::PerBindPoint:
                bindPoint_[isCompute(fn, PipelineHandle{value}.index()) ? 1 : 0] = ref;
                break;
              case StateScope::PushBytes: {
                const uint64_t end = uint64_t{value} + stream.aux(bh).size();
                for (uint64_t word = value / 4; word < std::min<uint64_t>((end + 3) / 4, kMaxPushWords);
                     ++word)
                  push_[word] = ref;
                break;
              }
              case StateScope::None:
                break;
            }
            break;
          }
          case CommandCategory::BeginPass:
            pass_ = ref;
            break;
          case CommandCategory::EndPass:
            pass_ = Ref{};
            break;
          case CommandCategory::BeginMarker:
            markers_.push_back(ref);
            break;
          case CommandCategory::EndMarker:
            if (!markers_.empty()) markers_.pop_back();
            break;
          default:
            break;
        }
        offset = h.next;
      }
    }
  }
  return jobs_;
}

void JobPlanner::snapshot(TranslationJob& job) {
  gathered_.clear();
  auto add = [&](const Ref& r) {
    if (r.ordinal != UINT32_MAX) gathered_.push_back(r);
  };
  for (const Ref& r : whole_) add(r);
  for (const Ref& r : perSlot_) add(r);
  for (const Ref& r : bindPoint_) add(r);
  for (const Ref& r : push_) add(r);
  add(pass_);
  for (const Ref& r : markers_) add(r);
  std::sort(gathered_.begin(), gathered_.end(),
            [](const Ref& a, const Ref& b) { return a.ordinal < b.ordinal; });
  // A push covering several words is gathered once per word.
  gathered_.erase(std::unique(gathered_.begin(), gathered_.end(),
                              [](const Ref& a, const Ref& b) { return a.ordinal == b.ordinal; }),
                  gathered_.end());
  job.prefix.clear();
  for (const Ref& r : gathered_) job.prefix.push_back({r.key, r.offset});
}

}  // namespace reel

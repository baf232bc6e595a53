#include "reel/runtime/translation_jobs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "reel/runtime/worker_pool.h"

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
    t.graphPlain = FrameGraphBuilder::isPlain(info.type, t.graphNeeds);
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
                                                       WorkerPool* pool, uint32_t threads,
                                                       IsComputeFn isCompute, const void* fn,
                                                       GraphInput graph, std::span<const size_t> cuts) {
  const size_t keys = view.sorted.size();
  count = std::max<uint32_t>(1, count);

  // Segments: about kMinSegmentKeys keys at least, kSegmentsPerJob per job at most, one per job at least;
  // every cut begins one.
  const size_t even = std::clamp<size_t>(keys / kMinSegmentKeys, count, size_t{count} * kSegmentsPerJob);
  segmentStarts_.clear();
  for (size_t s = 0; s < even; ++s) segmentStarts_.push_back(keys * s / even);
  for (const size_t cut : cuts) {
    REEL_ASSERT(cut > 0 && cut < keys, "plan: a cut outside the frame's keys");
    segmentStarts_.push_back(cut);
  }
  std::sort(segmentStarts_.begin(), segmentStarts_.end());
  segmentStarts_.erase(std::unique(segmentStarts_.begin(), segmentStarts_.end()), segmentStarts_.end());
  const size_t segmentCount = segmentStarts_.size();
  segments_.resize(segmentCount);
  for (size_t s = 0; s < segmentCount; ++s) {
    segments_[s].firstKey = segmentStarts_[s];
    segments_[s].endKey = s + 1 < segmentCount ? segmentStarts_[s + 1] : keys;
  }
  threads = pool ? std::max(1u, std::min({count, threads, pool->threads()})) : 1;
  if (sweepers_.size() < threads) sweepers_.resize(threads);
  const bool graphed = !graph.passes.empty() && graph.starts.size() == graph.passes.size();
  graphed_ = graphed ? threads : 0;
  if (graphed) graphStarts_.assign(graph.starts.begin(), graph.starts.end());
  for (uint32_t t = 0; t < threads; ++t) {
    sweepers_[t].scopes.resize(scopeCount());
    sweepers_[t].touched.assign(scopeCount(), 0);
    if (graphed) sweepers_[t].graph = FrameGraphBuilder(graph.passes, nullptr);
  }
  auto sweep = [&](uint32_t t) {
    for (size_t s = segmentCount * t / threads; s < segmentCount * (t + 1) / threads; ++s)
      summarise(view, segments_[s], sweepers_[t], isCompute, fn, graphed);
    if (graphed) sweepers_[t].graph.compact();
  };
  if (pool) {
    pool->run(threads, sweep);
  } else {
    sweep(0);
  }

  // Job boundaries on the segment boundaries nearest to equal packet shares; every job keeps at least
  // one segment. Then the cuts, where no boundary is yet.
  uint64_t total = 0;
  for (const Segment& segment : segments_) total += segment.packets;
  boundaries_.assign(count + 1, 0);
  boundaries_[count] = static_cast<uint32_t>(segmentCount);
  {
    uint32_t s = 0;
    uint64_t before = 0;  // packets of segments [0, s)
    for (uint32_t j = 1; j < count; ++j) {
      const uint64_t target = total * j / count;
      const uint32_t lowest = boundaries_[j - 1] + 1;
      const uint32_t highest = static_cast<uint32_t>(segmentCount) - (count - j);
      while (s < lowest) before += segments_[s++].packets;
      // Move on while the next boundary lies closer to the target.
      while (s < highest && before + segments_[s].packets / 2 < target) before += segments_[s++].packets;
      boundaries_[j] = s;
    }
  }
  for (const size_t cut : cuts) {
    const auto at = std::lower_bound(segmentStarts_.begin(), segmentStarts_.end(), cut);
    boundaries_.push_back(static_cast<uint32_t>(at - segmentStarts_.begin()));
  }
  std::sort(boundaries_.begin(), boundaries_.end());
  boundaries_.erase(std::unique(boundaries_.begin(), boundaries_.end()), boundaries_.end());
  count = static_cast<uint32_t>(boundaries_.size() - 1);
  jobs_.resize(count);

  // Combine the summaries in order; each job starts from the state after the segments before it.
  state_.assign(scopeCount(), Ref{});
  markers_.clear();
  for (uint32_t j = 0, s = 0; j < count; ++j) {
    TranslationJob& job = jobs_[j];
    for (; s < boundaries_[j]; ++s) {
      const Segment& segment = segments_[s];
      for (const auto& [scope, ref] : segment.scopes) state_[scope] = ref;
      markers_.resize(markers_.size() - std::min<size_t>(markers_.size(), segment.markerPops));
      markers_.insert(markers_.end(), segment.markerPushes.begin(), segment.markerPushes.end());
    }
    job.firstKey = segments_[boundaries_[j]].firstKey;
    job.endKey = segments_[boundaries_[j + 1] - 1].endKey;
    job.packets = 0;
    for (uint32_t k = boundaries_[j]; k < boundaries_[j + 1]; ++k) job.packets += segments_[k].packets;
    snapshot(job);
  }
  return jobs_;
}

void JobPlanner::mergeGraph(FrameGraphBuilder& builder) const {
  for (uint32_t t = 0; t < graphed_; ++t) builder.merge(sweepers_[t].graph);
}

void JobPlanner::summarise(const FrameView& view, Segment& segment, Sweeper& sweeper, IsComputeFn isCompute,
                           const void* fn, bool graph) const {
  const size_t keys = view.sorted.size();
  segment.packets = 0;
  segment.scopes.clear();
  segment.markerPops = 0;
  segment.markerPushes.clear();
  // The graph pass of the segment's keys: passes sort first, so it only ever moves on.
  uint32_t pass = 0;
  if (graph) {
    pass = static_cast<uint32_t>(
        std::max<ptrdiff_t>(std::upper_bound(graphStarts_.begin(), graphStarts_.end(), segment.firstKey) -
                                graphStarts_.begin() - 1,
                            0));
  }
  // Packets that only count for their pass (FrameGraphBuilder::addPlain), added when the pass changes.
  uint32_t plain = 0;
  QueueClass plainNeeds = QueueClass::Transfer;
  uint64_t plainFirstDraw = UINT64_MAX;
  auto addPlain = [&] {
    if (plain != 0) sweeper.graph.addPlain(pass, plain, plainNeeds, plainFirstDraw);
    plain = 0;
    plainNeeds = QueueClass::Transfer;
    plainFirstDraw = UINT64_MAX;
  };
  auto set = [&](uint32_t scope, const Ref& ref) {
    sweeper.scopes[scope] = ref;
    if (!sweeper.touched[scope]) {
      sweeper.touched[scope] = 1;
      sweeper.touchedList.push_back(scope);
    }
  };
  // Only the packets' headers (and a state packet's scope field) are read: types come from the command
  // table, so a draw costs a look at its header and nothing else.
  for (size_t key = segment.firstKey; key < segment.endKey; ++key) {
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
      // The bucket index of the key fetched next time round (read at random, as translate() does).
      if (key + 2 * kPrefetchKeys < keys)
        __builtin_prefetch(&view.mergedBuckets[view.sorted[key + 2 * kPrefetchKeys].sequence]);
    }
    const SortEntry& entry = view.sorted[key];
    const BucketStream& stream = *view.buckets[view.mergedBuckets[entry.sequence]].stream;
    if (graph && pass + 1 < graphStarts_.size() && key >= graphStarts_[pass + 1]) {
      addPlain();
      while (pass + 1 < graphStarts_.size() && key >= graphStarts_[pass + 1]) ++pass;
    }
    uint32_t link = 0;
    for (uint32_t offset = entry.value; offset != 0; ++link) {
      const PacketHeader& h = stream.header(offset);
      const uint32_t body = detail::resolveShared(stream, offset, h);
      const PacketHeader& bh = stream.header(body);
      const TypeInfo& t = types_[bh.type];
      const Ref ref{static_cast<uint32_t>(key), link, offset};
      ++segment.packets;
      if (graph) {
        if (t.graphPlain) {
          ++plain;
          plainNeeds = std::min(plainNeeds, t.graphNeeds);
          if (t.category == CommandCategory::Draw && plainFirstDraw == UINT64_MAX)
            plainFirstDraw = ref.order();
        } else {
          sweeper.graph.addPacket(pass, ref.order(), static_cast<CommandType>(bh.type), stream.payload(body));
        }
      }
      switch (t.category) {
        case CommandCategory::SetState: {
          const std::byte* payload = stream.payload(body);
          uint32_t value = 0;
          if (t.field >= 0) std::memcpy(&value, payload + t.field, sizeof value);
          switch (t.scope) {
            case StateScope::Whole:
              set(bh.type, ref);
              break;
            case StateScope::PerSlot:
              if (value < kMaxSlots) set(slotScope(bh.type, value), ref);
              break;
            case StateScope::PerBindPoint:
              set(bindPointScope(isCompute(fn, PipelineHandle{value}.index()) ? 1 : 0), ref);
              break;
            case StateScope::PushBytes: {
              const uint64_t end = uint64_t{value} + stream.aux(bh).size();
              for (uint64_t word = value / 4; word < std::min<uint64_t>((end + 3) / 4, kMaxPushWords); ++word)
                set(pushScope(static_cast<uint32_t>(word)), ref);
              break;
            }
            case StateScope::None:
              break;
          }
          break;
        }
        case CommandCategory::BeginPass:
          set(passScope(), ref);
          break;
        case CommandCategory::EndPass:
          set(passScope(), Ref{});
          break;
        case CommandCategory::BeginMarker:
          segment.markerPushes.push_back(ref);
          break;
        case CommandCategory::EndMarker:
          if (!segment.markerPushes.empty()) {
            segment.markerPushes.pop_back();
          } else {
            ++segment.markerPops;
          }
          break;
        default:
          break;
      }
      offset = h.next;
    }
  }
  if (graph) addPlain();
  for (const uint32_t scope : sweeper.touchedList) {
    segment.scopes.emplace_back(scope, sweeper.scopes[scope]);
    sweeper.touched[scope] = 0;
  }
  sweeper.touchedList.clear();
}

void JobPlanner::snapshot(TranslationJob& job) {
  gathered_.clear();
  for (const Ref& r : state_) {
    if (r.offset != 0) gathered_.push_back(r);
  }
  gathered_.insert(gathered_.end(), markers_.begin(), markers_.end());
  std::sort(gathered_.begin(), gathered_.end(),
            [](const Ref& a, const Ref& b) { return a.order() < b.order(); });
  // A push covering several words is gathered once per word.
  gathered_.erase(std::unique(gathered_.begin(), gathered_.end(),
                              [](const Ref& a, const Ref& b) { return a.order() == b.order(); }),
                  gathered_.end());
  job.prefix.clear();
  for (const Ref& r : gathered_) job.prefix.push_back({r.key, r.offset});
}

}  // namespace reel

#include "reel/runtime/instance_merge.h"

#include <bit>
#include <cstring>

#include "reel/runtime/handle.h"

namespace reel {
namespace {

// Keys between the one parsed and the one whose chain is fetched (BM_TranslateStress merged on the
// 2-core VM: 4 took the parse's cache misses away).
constexpr size_t kParseAhead = 4;

}  // namespace

void InstanceMerger::onCreatePipeline(const cmd::CreatePipeline& create, std::span<const std::byte> aux) {
  const uint32_t index = create.pipeline.index();
  if (index >= pipelines_.size()) pipelines_.resize(index + 1);
  Entry& entry = pipelines_[index];
  if (entry.instancing.constantBytes != 0) --optedIn_;
  entry = Entry{create.pipeline.value, {}};
  // Shorter auxiliary data than PipelineInstancing (a field appended later) is not an opt-in this build
  // understands: the pipeline then renders unmerged, which is always correct.
  if (aux.size() < sizeof(PipelineInstancing) || !create.desc.computeShader.isNull()) return;
  PipelineInstancing instancing;
  std::memcpy(&instancing, aux.data(), sizeof instancing);
  const uint64_t end = uint64_t{instancing.constantOffset} + instancing.constantBytes;
  // The same bounds the devices check for a push (commands.inc): a range outside them never merges.
  if (instancing.constantBytes == 0 || instancing.constantBytes % 4 != 0 ||
      instancing.constantOffset % 4 != 0 || end > create.desc.pushConstantBytes ||
      instancing.vertexShader.isNull()) {
    return;
  }
  entry.instancing = instancing;
  ++optedIn_;
}

void InstanceMerger::onDestroyPipeline(uint32_t handleValue) {
  const uint32_t index = handleValue & kHandleIndexMask;
  if (index >= pipelines_.size() || pipelines_[index].handle != handleValue) return;
  if (pipelines_[index].instancing.constantBytes != 0) --optedIn_;
  pipelines_[index] = Entry{};
}

const PipelineInstancing* InstanceMerger::instancing(uint32_t handleValue) const {
  const uint32_t index = handleValue & kHandleIndexMask;
  if (index >= pipelines_.size() || pipelines_[index].handle != handleValue) return nullptr;
  const Entry& entry = pipelines_[index];
  return entry.instancing.constantBytes != 0 ? &entry.instancing : nullptr;
}

bool InstanceMerger::parse(const BucketStream& stream, uint32_t head, Candidate& out) const {
  out.stateCount = 0;
  out.push = {};
  out.instancing = nullptr;
  for (uint32_t offset = head; offset != 0;) {
    const PacketHeader& h = stream.header(offset);
    const uint32_t body = detail::resolveShared(stream, offset, h);
    const auto type = static_cast<CommandType>(stream.header(body).type);
    const Packet packet{&stream, body};
    if (type == CommandType::Draw || type == CommandType::DrawIndexed) {
      if (h.next != 0 || !out.push.stream || !out.instancing) return false;  // the draw must end the chain
      // The push must cover exactly the declared range: its bytes are the instance's whole entry.
      cmd::PushConstants push;
      std::memcpy(&push, stream.payload(out.push.body), sizeof push);
      if (push.offset != out.instancing->constantOffset ||
          stream.header(out.push.body).auxSize != out.instancing->constantBytes) {
        return false;
      }
      out.draw = packet;
      out.drawType = type;
      return true;
    }
    if (type == CommandType::PushConstants) {
      if (out.push.stream) return false;
      out.push = packet;
    } else if (type < CommandType::Count && semanticsOf(type).category == CommandCategory::SetState) {
      if (out.stateCount == kMaxState) return false;
      out.state[out.stateCount++] = packet;
      if (type == CommandType::BindPipeline) {
        cmd::BindPipeline bind;
        std::memcpy(&bind, stream.payload(body), sizeof bind);
        out.instancing = instancing(bind.pipeline.value);
      }
    } else {
      return false;  // a pass, a marker, a transfer or a second draw: never merged
    }
    offset = h.next;
  }
  return false;  // no draw
}

bool InstanceMerger::samePacket(const Packet& a, const Packet& b, CommandType type) {
  if (a.stream == b.stream && a.body == b.body) return true;  // one shared packet
  const PacketHeader& ha = a.stream->header(a.body);
  const PacketHeader& hb = b.stream->header(b.body);
  return ha.type == hb.type && ha.auxSize == hb.auxSize &&
         std::memcmp(a.stream->payload(a.body), b.stream->payload(b.body), commandInfo(type).size) == 0 &&
         std::memcmp(a.stream->aux(ha).data(), b.stream->aux(hb).data(), ha.auxSize) == 0;
}

bool InstanceMerger::sameRun(const Candidate& a, const Candidate& b) {
  if (a.stateCount != b.stateCount || a.drawType != b.drawType || a.instancing != b.instancing) return false;
  for (uint32_t i = 0; i < a.stateCount; ++i) {
    const auto type = static_cast<CommandType>(a.state[i].stream->header(a.state[i].body).type);
    if (!samePacket(a.state[i], b.state[i], type)) return false;
  }
  // The same vertex or index range: the draw packets' bytes are all range fields.
  if (!samePacket(a.draw, b.draw, a.drawType)) return false;
  // Pushes at the same offset covering the declared range; their bytes are the per-instance entries.
  cmd::PushConstants pa, pb;
  std::memcpy(&pa, a.push.stream->payload(a.push.body), sizeof pa);
  std::memcpy(&pb, b.push.stream->payload(b.push.body), sizeof pb);
  return pa.offset == pb.offset;
}

size_t InstanceMerger::translateRun(Device& device, const FrameView& view, size_t i, size_t end,
                                    InstanceMergeCursor& cursor, uint64_t& packets) const {
  if (i < cursor.noRunBefore) return 0;
  auto streamOf = [&](size_t k) -> const BucketStream& {
    return *view.buckets[view.mergedBuckets[view.sorted[k].sequence]].stream;
  };
  // Most keys start no run: deciding that must cost no more than parsing the key after them.
  Candidate& first = cursor.slots[cursor.pendingSlot];
  if (cursor.pendingIndex != i && !parse(streamOf(i), view.sorted[i].value, first)) return 0;
  Candidate& next = cursor.slots[cursor.pendingSlot ^ 1];
  std::vector<Packet>& pushes = cursor.pushes;
  pushes.clear();
  pushes.push_back(first.push);
  size_t j = i + 1;
  for (; j < end && pushes.size() < kMaxInstances; ++j) {
    // The chains about to be parsed: translate() fetches further ahead, too far for this loop, which
    // reads each chain before translation does (a cache miss per key without it: 136 against 99 ns a
    // key in BM_TranslateStress merged).
    if (j + kParseAhead < end) {
      const SortEntry& ahead = view.sorted[j + kParseAhead];
      const std::byte* head = streamOf(j + kParseAhead).packets.base() + ahead.value;
      __builtin_prefetch(head);
      __builtin_prefetch(head + 64);
      __builtin_prefetch(head + 128);
    }
    if (!parse(streamOf(j), view.sorted[j].value, next)) break;
    if (!sameRun(first, next)) {
      // `next` starts the next attempt, in place.
      cursor.pendingSlot ^= 1;
      cursor.pendingIndex = j;
      break;
    }
    pushes.push_back(next.push);
  }
  if (pushes.size() < kMinRun) {
    // Every key up to j belongs to this short run, so none of them starts a long one.
    cursor.noRunBefore = j;
    return 0;
  }

  // The first key's state, the last key's constants, then one draw of the whole run.
  for (uint32_t s = 0; s < first.stateCount; ++s) {
    const Packet& p = first.state[s];
    const PacketHeader& h = p.stream->header(p.body);
    dispatchPacket(device, static_cast<CommandType>(h.type), p.stream->payload(p.body),
                   PacketContext{p.stream->aux(h), nullptr});
  }
  const Packet& lastPush = pushes.back();
  const PacketHeader& pushHeader = lastPush.stream->header(lastPush.body);
  dispatchPacket(device, CommandType::PushConstants, lastPush.stream->payload(lastPush.body),
                 PacketContext{lastPush.stream->aux(pushHeader), nullptr});

  const uint32_t bytes = first.instancing->constantBytes;
  cursor.constants.resize(size_t{bytes} * pushes.size());
  std::byte* entry = cursor.constants.data();
  for (const Packet& push : pushes) {
    // A push covers exactly the declared range (parse()): its bytes are the instance's entry.
    std::memcpy(entry, push.stream->aux(push.stream->header(push.body)).data(), bytes);
    entry += bytes;
  }
  const auto count = static_cast<uint32_t>(pushes.size());
  const std::byte* draw = first.draw.stream->payload(first.draw.body);
  const PacketContext context{cursor.constants, nullptr};
  if (first.drawType == CommandType::Draw) {
    cmd::Draw d;
    std::memcpy(&d, draw, sizeof d);
    cmd::DrawInstanced merged{};
    merged.vertexCount = d.vertexCount;
    merged.instanceCount = count;
    merged.firstVertex = d.firstVertex;
    dispatchPacket(device, CommandType::DrawInstanced, &merged, context);
  } else {
    cmd::DrawIndexed d;
    std::memcpy(&d, draw, sizeof d);
    cmd::DrawIndexedInstanced merged{};
    merged.indexCount = d.indexCount;
    merged.instanceCount = count;
    merged.firstIndex = d.firstIndex;
    merged.vertexOffset = d.vertexOffset;
    dispatchPacket(device, CommandType::DrawIndexedInstanced, &merged, context);
  }
  packets += first.stateCount + 2;
  ++cursor.counts.runs;
  cursor.counts.mergedDraws += count;
  return pushes.size();
}

}  // namespace reel

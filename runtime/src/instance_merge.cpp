#include "reel/runtime/instance_merge.h"

#include <bit>
#include <cstring>

#include "reel/runtime/handle.h"

namespace reel {

namespace {
// Address space for one frame's merged chains: a run's constants are at most 128 bytes an instance, so
// even a frame of millions of merged draws fits; pages are committed only as they are written.
constexpr uint64_t kStreamBytes = 1ull << 30;

uint32_t roundUp8(uint64_t bytes) {
  return static_cast<uint32_t>((bytes + 7u) & ~uint64_t{7});
}
}  // namespace

InstanceMerger::InstanceMerger() : stream_(BucketConfig{.packetBytes = kStreamBytes, .maxKeys = 1}) {}

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

uint32_t InstanceMerger::writePacket(CommandType type, const std::byte* payload,
                                     std::span<const std::byte> aux, uint32_t auxBytes, uint32_t previous) {
  const uint32_t size = commandInfo(type).size;
  const uint32_t payloadBytes = roundUp8(size);
  const uint64_t need = sizeof(PacketHeader) + payloadBytes + roundUp8(auxBytes);
  if (need > UINT32_MAX) return 0;
  const uint32_t offset = stream_.packets.claim(static_cast<uint32_t>(need));
  if (offset == VirtualArena::kNoSpace) return 0;
  PacketHeader& h = *stream_.packets.at<PacketHeader>(offset);
  h = PacketHeader{};
  h.type = static_cast<uint16_t>(type);
  std::byte* body = stream_.packets.base() + offset + sizeof(PacketHeader);
  std::memset(body, 0, payloadBytes);
  std::memcpy(body, payload, size);
  if (auxBytes != 0) {
    h.auxOffset = offset + static_cast<uint32_t>(sizeof(PacketHeader)) + payloadBytes;
    h.auxSize = auxBytes;
    if (!aux.empty()) std::memcpy(stream_.packets.base() + h.auxOffset, aux.data(), aux.size());
  }
  if (previous != 0) stream_.packets.at<PacketHeader>(previous)->next = offset;
  return offset;
}

uint32_t InstanceMerger::writeRun(std::span<const Candidate> run) {
  const Candidate& first = run.front();
  uint32_t head = 0, tail = 0;
  auto copy = [&](const Packet& p) {
    const PacketHeader& h = p.stream->header(p.body);
    const auto type = static_cast<CommandType>(h.type);
    const uint32_t offset = writePacket(type, p.stream->payload(p.body), p.stream->aux(h), h.auxSize, tail);
    if (offset == 0) return false;
    if (head == 0) head = offset;
    tail = offset;
    return true;
  };
  for (uint32_t i = 0; i < first.stateCount; ++i) {
    if (!copy(first.state[i])) return 0;
  }
  if (!copy(run.back().push)) return 0;

  const PipelineInstancing& instancing = *first.instancing;
  const uint32_t count = static_cast<uint32_t>(run.size());
  const uint64_t constantBytes = uint64_t{instancing.constantBytes} * count;
  if (constantBytes > UINT32_MAX) return 0;
  const std::byte* draw = first.draw.stream->payload(first.draw.body);
  uint32_t drawOffset;
  if (first.drawType == CommandType::Draw) {
    cmd::Draw d;
    std::memcpy(&d, draw, sizeof d);
    cmd::DrawInstanced merged{};
    merged.vertexCount = d.vertexCount;
    merged.instanceCount = count;
    merged.firstVertex = d.firstVertex;
    drawOffset = writePacket(CommandType::DrawInstanced, reinterpret_cast<const std::byte*>(&merged), {},
                             static_cast<uint32_t>(constantBytes), tail);
  } else {
    cmd::DrawIndexed d;
    std::memcpy(&d, draw, sizeof d);
    cmd::DrawIndexedInstanced merged{};
    merged.indexCount = d.indexCount;
    merged.instanceCount = count;
    merged.firstIndex = d.firstIndex;
    merged.vertexOffset = d.vertexOffset;
    drawOffset = writePacket(CommandType::DrawIndexedInstanced, reinterpret_cast<const std::byte*>(&merged),
                             {}, static_cast<uint32_t>(constantBytes), tail);
  }
  if (drawOffset == 0) return 0;
  // The constants, entry i from draw i: a push covers exactly the declared range (parse()).
  std::byte* entries = stream_.packets.base() + stream_.header(drawOffset).auxOffset;
  for (const Candidate& c : run) {
    const PacketHeader& h = c.push.stream->header(c.push.body);
    std::memcpy(entries, c.push.stream->aux(h).data(), instancing.constantBytes);
    entries += instancing.constantBytes;
  }
  return head;
}

const FrameView& InstanceMerger::merge(const FrameView& in) {
  stats_ = {};
  if (optedIn_ == 0) return in;
  stream_.packets.reset(8);  // offset 0 means "none" (command_bucket.h)
  sorted_.clear();
  packets_.clear();
  const size_t n = in.sorted.size();
  auto streamOf = [&](size_t i) -> const BucketStream& {
    return *in.buckets[in.mergedBuckets[in.sorted[i].sequence]].stream;
  };
  // Parses key i, fetching the chain kPrefetchKeys ahead first: sorted order jumps around the packet
  // arenas, so each chain head is a cache miss the hardware cannot foresee (as in Renderer::translate).
  auto parseAt = [&](size_t i, Candidate& out) {
    if (i + kPrefetchKeys < n) {
      const SortEntry& ahead = in.sorted[i + kPrefetchKeys];
      const std::byte* head = streamOf(i + kPrefetchKeys).packets.base() + ahead.value;
      __builtin_prefetch(head);
      __builtin_prefetch(head + 64);
      __builtin_prefetch(head + 128);
      __builtin_prefetch(head + 192);
    }
    return parse(streamOf(i), in.sorted[i].value, out);
  };
  // A candidate for key i, if it is one; the run that a parse broke off starts with it.
  Candidate pending;
  bool havePending = false;
  for (size_t i = 0; i < n;) {
    Candidate c;
    if (havePending) {
      c = pending;
      havePending = false;
    } else if (!parseAt(i, c)) {
      sorted_.push_back(in.sorted[i++]);
      continue;
    }
    run_.clear();
    run_.push_back(c);
    size_t j = i + 1;
    for (; j < n && run_.size() < kMaxInstances; ++j) {
      Candidate d;
      if (!parseAt(j, d)) break;
      if (!sameRun(run_.front(), d)) {
        pending = d;
        havePending = true;
        break;
      }
      run_.push_back(d);
    }
    stats_.candidates += run_.size();
    ++stats_.runLengths[std::min<size_t>(std::bit_width(run_.size()) - 1, stats_.runLengths.size() - 1)];
    const uint32_t head = run_.size() >= kMinRun ? writeRun(run_) : 0;
    if (head != 0) {
      ++stats_.runs;
      stats_.mergedDraws += run_.size();
      sorted_.push_back(SortEntry{in.sorted[i].key,
                                  static_cast<uint32_t>(in.mergedPackets.size() + packets_.size()), head});
      packets_.push_back(head);
    } else {
      sorted_.insert(sorted_.end(), in.sorted.begin() + static_cast<ptrdiff_t>(i),
                     in.sorted.begin() + static_cast<ptrdiff_t>(j));
    }
    i = j;
  }
  if (stats_.runs == 0) return in;

  // The merged chains' keys get sequence numbers after the frame's own, from the merger's stream.
  buckets_.assign(in.buckets.begin(), in.buckets.end());
  buckets_.push_back(FrameBucketView{nullptr, &stream_, BucketOrder::Scene});
  const auto merged = static_cast<uint16_t>(buckets_.size() - 1);
  bucketOf_.assign(in.mergedBuckets.begin(), in.mergedBuckets.end());
  bucketOf_.resize(bucketOf_.size() + packets_.size(), merged);
  packets_.insert(packets_.begin(), in.mergedPackets.begin(), in.mergedPackets.end());
  view_ = in;
  view_.buckets = buckets_;
  view_.mergedPackets = packets_;
  view_.mergedBuckets = bucketOf_;
  view_.sorted = sorted_;
  return view_;
}

}  // namespace reel

#include "message_encoder.h"

#include <algorithm>
#include <cstring>

#include "reel/runtime/commands.h"
#include "reel/runtime/frame.h"
#include "reel/schema/messages.h"
#include "reel/schema/predict.h"
#include "reel/version.h"

namespace reel::trace {
namespace {

using flatbuffers::Offset;
using flatbuffers::String;
using flatbuffers::Vector;

// Bigger than any frame the writer may build: FlatBuffers' limit is 2 GiB, and the estimate below
// leaves room for the tables around the columns.
constexpr uint64_t kMaxFrameMessageBytes = 1800ull << 20;

Offset<fb::Field> field(flatbuffers::FlatBufferBuilder& fbb, const FieldInfo& f) {
  std::vector<Offset<fb::Field>> children;
  for (const FieldInfo& child : f.children) children.push_back(field(fbb, child));
  std::vector<Offset<String>> enumNames;
  for (const char* name : f.enumNames) enumNames.push_back(fbb.CreateString(name));
  const auto name = fbb.CreateString(f.name);
  const auto enumVector = enumNames.empty() ? 0 : fbb.CreateVector(enumNames);
  const auto childVector = children.empty() ? 0 : fbb.CreateVector(children);
  const uint8_t handleKind = f.type == FieldType::Handle ? static_cast<uint8_t>(f.handleKind) : 255;
  return fb::CreateField(fbb, name, f.offset, f.size, f.count, static_cast<fb::FieldType>(f.type), handleKind,
                         enumVector, childVector);
}

Offset<fb::KeyLayout> keyLayout(flatbuffers::FlatBufferBuilder& fbb, const CommandBucketBase& bucket) {
  std::vector<Offset<fb::KeyField>> fields;
  for (const KeyFieldLayout& f : bucket.keyLayout()) {
    fields.push_back(fb::CreateKeyField(fbb, fbb.CreateString(f.name), f.shift, f.bits, f.mode, f.inverted));
  }
  return fb::CreateKeyLayout(fbb, fbb.CreateString(bucket.keyTypeName()), fbb.CreateVector(fields));
}

template <typename T, typename Allocator>
Offset<Vector<T>> column(flatbuffers::FlatBufferBuilder& fbb, const std::vector<T, Allocator>& v) {
  return v.empty() ? 0 : fbb.CreateVector(v.data(), v.size());
}

Offset<Vector<uint8_t>> bytes(flatbuffers::FlatBufferBuilder& fbb, std::span<const std::byte> data) {
  return data.empty() ? 0 : fbb.CreateVector(reinterpret_cast<const uint8_t*>(data.data()), data.size());
}

std::span<const uint8_t> finishMessage(flatbuffers::FlatBufferBuilder& fbb, MessageKind kind,
                                       Offset<void> body) {
  fb::MessageBuilder message(fbb);
  message.add_body_type(static_cast<fb::Body>(kind));
  message.add_body(body);
  fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());
  return {fbb.GetBufferPointer(), fbb.GetSize()};
}

}  // namespace

MessageEncoder::Impl::Impl() : fbb(1u << 20) {}

std::span<const uint8_t> MessageEncoder::Impl::finish(MessageKind kind, Offset<void> body) {
  return finishMessage(fbb, kind, body);
}

std::span<const uint8_t> MessageEncoder::Impl::header(const HeaderInfo& info) {
  fbb.Clear();
  std::vector<Offset<fb::Command>> commands;
  for (const CommandInfo& c : commandTable()) {
    std::vector<Offset<fb::Field>> fields;
    for (const FieldInfo& f : c.fields) fields.push_back(field(fbb, f));
    commands.push_back(fb::CreateCommand(fbb, static_cast<uint16_t>(c.type), fbb.CreateString(c.name),
                                         static_cast<uint8_t>(c.queue), c.size, c.layoutHash,
                                         fbb.CreateVector(fields)));
  }
  std::vector<Offset<fb::KeyLayout>> layouts;
  for (const CommandBucketBase* bucket : info.keyTypes) layouts.push_back(keyLayout(fbb, *bucket));
  std::vector<Offset<String>> args;
  for (const std::string& arg : info.appArgs) args.push_back(fbb.CreateString(arg));
  std::vector<Offset<String>> kinds;
  for (uint32_t k = 0; k < static_cast<uint32_t>(ResourceKind::Count); ++k) {
    kinds.push_back(fbb.CreateString(resourceKindName(static_cast<ResourceKind>(k))));
  }
  const auto header = fb::CreateHeader(
      fbb, schema::kFormatMajor, schema::kFormatMinor, fbb.CreateString(REEL_VERSION_STRING),
      fbb.CreateString(info.appName), fbb.CreateVector(args), fbb.CreateString(info.device.name),
      fbb.CreateString(info.device.driver), fbb.CreateString(info.device.apiVersion),
      fbb.CreateString(info.device.type), info.captureTimeNs, info.firstFrame, /*tagsEnabled=*/true,
      fbb.CreateVector(layouts), fbb.CreateVector(commands), fbb.CreateVector(kinds));
  return finish(MessageKind::Header, header.Union());
}

std::span<const uint8_t> MessageEncoder::Impl::keyLayouts(
    std::span<const CommandBucketBase* const> keyTypes) {
  fbb.Clear();
  std::vector<Offset<fb::KeyLayout>> layouts;
  for (const CommandBucketBase* bucket : keyTypes) layouts.push_back(keyLayout(fbb, *bucket));
  return finish(MessageKind::KeyLayouts, fb::CreateKeyLayouts(fbb, fbb.CreateVector(layouts)).Union());
}

std::span<const uint8_t> MessageEncoder::Impl::resources(const ResourceSnapshot& snapshot, size_t& next,
                                                         MessageKind kind) {
  fbb.Clear();
  std::vector<Offset<fb::LiveResource>> out;
  uint64_t bytesSoFar = 0;
  while (next < snapshot.resources.size()) {
    const ResourceSnapshot::Resource& r = snapshot.resources[next];
    uint64_t size = r.create.size() + r.code.size() + 64;
    for (const auto& c : r.contents) size += c.bytes.size() + 16;
    if (!out.empty() && bytesSoFar + size > kMaxResourcesMessageBytes) break;
    bytesSoFar += size;
    std::vector<Offset<fb::ResourceContents>> contents;
    for (const auto& c : r.contents)
      contents.push_back(fb::CreateResourceContents(fbb, c.mip, bytes(fbb, c.bytes)));
    out.push_back(fb::CreateLiveResource(fbb, static_cast<uint16_t>(r.createType), bytes(fbb, r.create),
                                         bytes(fbb, r.code),
                                         contents.empty() ? 0 : fbb.CreateVector(contents),
                                         r.readbackError.empty() ? 0 : fbb.CreateString(r.readbackError)));
    ++next;
  }
  const auto message = fb::CreateResources(fbb, snapshot.frame, fbb.CreateVector(out));
  return finish(kind, message.Union());
}

std::span<const uint8_t> MessageEncoder::Impl::marker(uint64_t frame, std::string_view text) {
  fbb.Clear();
  const auto message = fb::CreateMarker(fbb, frame, fbb.CreateString(text.data(), text.size()));
  return finish(MessageKind::Marker, message.Union());
}

std::span<const uint8_t> MessageEncoder::Impl::captureEnd(const CaptureEndInfo& info) {
  fbb.Clear();
  const auto message = fb::CreateCaptureEnd(fbb, info.frames, info.renderWaits, info.renderWaitNs,
                                            fbb.CreateString(info.reason));
  return finish(MessageKind::CaptureEnd, message.Union());
}

// ---- gathering (frame_encoding.h) ----

namespace {

// A body's bytes into its column: packets are a few bytes each, and a memcpy of a size known here is a
// move or two where a call with a run-time size costs more than the copy (400k of them in a frame).
inline void copyBody(uint8_t* to, const uint8_t* from, uint32_t size) {
  switch (size) {
    case 4:
      return (void)std::memcpy(to, from, 4);
    case 8:
      return (void)std::memcpy(to, from, 8);
    case 12:
      return (void)std::memcpy(to, from, 12);
    case 16:
      return (void)std::memcpy(to, from, 16);
    case 24:
      return (void)std::memcpy(to, from, 24);
    case 32:
      return (void)std::memcpy(to, from, 32);
    case 64:
      return (void)std::memcpy(to, from, 64);
    default:
      std::memcpy(to, from, size);
  }
}

}  // namespace

size_t FrameGatherer::TagKeyHash::operator()(const TagKey& k) const {
  uint64_t h = k.file;
  h = h * 0x9E3779B97F4A7C15ull ^ k.function;
  h = h * 0x9E3779B97F4A7C15ull ^ k.line;
  h = h * 0x9E3779B97F4A7C15ull ^ k.message;
  return static_cast<size_t>(h ^ (h >> 29));
}

const GatheredBucket* GatheredFrame::find(uint16_t index) const {
  if (index < bucketCount && buckets[index].index == index) return &buckets[index];
  for (size_t i = 0; i < bucketCount; ++i) {
    if (buckets[i].index == index) return &buckets[i];
  }
  return nullptr;
}

uint64_t GatheredFrame::messageBytesBound() const {
  // Beyond the columns' own bytes: tables, vtables, vector lengths, alignment and string terminators,
  // well under these allowances.
  uint64_t bytes = 1024;
  for (const GatheredBucket& b : activeBuckets()) {
    bytes += 1024 + b.keys.size() * sizeof(uint64_t) + b.payload.size() + b.aux.size() +
             (b.chainLengths.size() + b.linkBody.size() + b.linkTag.size() + b.bodyAuxSize.size() +
              b.sharedBodies.size() + b.tags.size()) *
                 sizeof(uint32_t) +
             b.bodyType.size() * sizeof(uint16_t) + std::string_view(b.bucket->name()).size() +
             std::string_view(b.bucket->keyTypeName()).size();
    for (const std::string& s : b.strings) bytes += s.size() + 16;
  }
  for (const GatheredRequest& r : requests) bytes += r.payloadSize + r.auxSize + 64;
  return bytes;
}

Result<void> FrameGatherer::gather(const FrameSource& source, GatheredFrame& out) {
  // A frame is one message: refuse one FlatBuffers cannot hold rather than let the builder overflow.
  uint64_t estimate = 0;
  for (const BucketSource& b : source.buckets)
    estimate += b.stream->packets.used() + b.stream->keys.used() * 2;
  if (source.requests) estimate += source.requests->bytes.size() * 2;
  if (estimate > kMaxFrameMessageBytes) {
    return fail("frame ", source.frame, " holds about ", estimate >> 20,
                " MiB of packets, more than one trace message can hold (", kMaxFrameMessageBytes >> 20,
                " MiB)");
  }
  out.frame = source.frame;
  out.sortedOrderHash = source.sortedOrderHash;
  out.dropped = source.dropped;
  out.counts = {};
  out.gatheredBytes = 0;
  if (out.buckets.size() < source.buckets.size()) out.buckets.resize(source.buckets.size());
  out.bucketCount = source.buckets.size();
  for (size_t i = 0; i < source.buckets.size(); ++i) {
    GatheredBucket& b = out.buckets[i];
    bucket(source.buckets[i], b);
    out.counts.packets += b.linkBody.size();
    out.counts.packetBytes += b.keys.size() * sizeof(uint64_t) + b.payload.size() + b.aux.size();
    out.gatheredBytes += b.keys.size() * sizeof(uint64_t) + b.payload.size() + b.aux.size() +
                         (b.chainLengths.size() + b.linkBody.size() + b.linkTag.size()) * sizeof(uint32_t);
  }
  out.requestBytes.clear();
  out.requests.clear();
  if (source.requests) {
    const RequestStream& r = *source.requests;
    out.requests.reserve(r.requests.size());
    for (const uint32_t offset : r.requests) {
      const PacketHeader& h = r.header(offset);
      const auto aux = r.aux(h);
      GatheredRequest g;
      g.type = h.type;
      g.payloadSize = commandInfo(static_cast<CommandType>(h.type)).size;
      g.payloadOffset = static_cast<uint32_t>(out.requestBytes.size());
      out.requestBytes.insert(out.requestBytes.end(), r.payload(offset), r.payload(offset) + g.payloadSize);
      g.auxOffset = static_cast<uint32_t>(out.requestBytes.size());
      g.auxSize = static_cast<uint32_t>(aux.size());
      out.requestBytes.insert(out.requestBytes.end(), aux.begin(), aux.end());
      out.requests.push_back(g);
    }
  }
  out.gatheredBytes += out.requestBytes.size();
  return {};
}

uint32_t FrameGatherer::string(GatheredBucket& out, std::string_view text) {
  auto [it, inserted] = messageString_.try_emplace(text, static_cast<uint32_t>(out.strings.size()));
  if (inserted) out.strings.emplace_back(text);
  return it->second;
}

uint32_t FrameGatherer::tag(GatheredBucket& out, const TagRecord& record) {
  // File and function are the program's literals: the pointer identifies them, no hashing of text.
  auto literal = [&](const char* s) {
    auto [it, inserted] = literalString_.try_emplace(s, 0);
    if (inserted) it->second = string(out, s ? std::string_view(s) : std::string_view());
    return it->second;
  };
  const TagKey key{literal(record.file), literal(record.function), record.line,
                   string(out, record.message())};
  auto [it, inserted] = tagIndex_.try_emplace(key, static_cast<uint32_t>(out.tags.size() / 4));
  if (inserted) out.tags.insert(out.tags.end(), {key.file, key.function, key.line, key.message});
  return it->second;
}

void FrameGatherer::GroupStaging::open(uint32_t group) {
  if (buffers_.size() <= group) buffers_.resize(group + 1);
  Column<uint8_t>& buffer = buffers_[group];
  if (buffer.size() < 4096) buffer.resize(4096);
  cursors_.resize(group + 1);
  cursors_[group] = {buffer.data(), buffer.data(), buffer.data() + buffer.size()};
}

void FrameGatherer::GroupStaging::grow(uint32_t group, uint32_t size) {
  Cursor& c = cursors_[group];
  Column<uint8_t>& buffer = buffers_[group];
  const size_t used = static_cast<size_t>(c.next - c.begin);
  buffer.resize(std::max(buffer.size() * 2, used + size));
  c = {buffer.data(), buffer.data() + used, buffer.data() + buffer.size()};
}

inline void FrameGatherer::GroupStaging::append(uint32_t group, const uint8_t* from, uint32_t size) {
  // Groups are numbered in the order their first bodies come (ColumnGroups), so a new one is the next.
  if (group >= cursors_.size()) open(group);
  if (static_cast<size_t>(cursors_[group].end - cursors_[group].next) < size) grow(group, size);
  Cursor& c = cursors_[group];
  copyBody(c.next, from, size);
  c.next += size;
}

void FrameGatherer::GroupStaging::layOut(const schema::ColumnGroups& groups, uint8_t* column) const {
  for (uint32_t g = 0; g < groups.groupCount(); ++g) {
    std::memcpy(column + groups.groupOffset(g), cursors_[g].begin, groups.groupBytes(g));
  }
}

void FrameGatherer::bucket(const BucketSource& source, GatheredBucket& c) {
  c.bucket = source.bucket;
  c.index = source.index;
  c.order = source.order;
  c.epoch = source.epoch;
  c.retained = false;
  c.sharedBodies.clear();
  c.tags.clear();
  c.strings.clear();
  sharedBody_.clear();
  recentShared_.fill({});
  literalString_.clear();
  messageString_.clear();
  tagIndex_.clear();
  c.payloadGroups.clear();
  c.auxGroups.clear();
  payloadStaging_.reset();
  auxStaging_.reset();
  if (commandSize_.empty()) {
    for (const CommandInfo& info : commandTable()) commandSize_.push_back(info.size);
  }
  const BucketStream& stream = *source.stream;
  size_t keyCount = 0;
  for (uint32_t block = 0, blocks = stream.keyBlockCount(); block < blocks; ++block)
    keyCount += stream.keyBlockFill(block);
  // Every column sized for the most the stream can hold (each link and each body is a packet header in
  // it), filled from the front and trimmed to what the walk found: no capacity check per element, and
  // later frames find the memory there (Column leaves a resize's new elements unwritten).
  const size_t packetBound = stream.packets.used() / sizeof(PacketHeader);
  c.keys.resize(keyCount);
  c.passes.resize(keyCount);
  c.chainLengths.resize(keyCount);
  for (auto* column : {&c.linkBody, &c.linkTag, &c.bodyAuxSize}) column->resize(packetBound);
  c.bodyType.resize(packetBound);
  // A body: its command id and aux size, and its bytes copied into their groups while the packet is in
  // the cache (a second pass over the stream, copying each body from its offset, read it all again).
  const auto* base = reinterpret_cast<const uint8_t*>(stream.packets.base());
  const uint32_t* const commandSizes = commandSize_.data();
  uint16_t* const bodyTypes = c.bodyType.data();
  uint32_t* const bodyAuxSizes = c.bodyAuxSize.data();
  uint32_t bodies = 0;
  auto body = [&](uint32_t packet) {
    const PacketHeader& h = stream.header(packet);
    bodyTypes[bodies] = h.type;
    bodyAuxSizes[bodies] = h.auxSize;
    const uint32_t size = commandSizes[h.type];
    if (size != 0) {
      payloadStaging_.append(c.payloadGroups.countBody(h.type, size), base + packet + sizeof(PacketHeader),
                             size);
    }
    if (h.auxSize != 0) {
      auxStaging_.append(
          c.auxGroups.countBody(schema::ColumnGroups::auxGroupKey(h.type, h.auxSize), h.auxSize),
          base + h.auxOffset, h.auxSize);
    }
    return bodies++;
  };
  uint64_t* const keys = c.keys.data();
  uint16_t* const passes = c.passes.data();
  uint32_t* const chainLengths = c.chainLengths.data();
  uint32_t* const linkBodies = c.linkBody.data();
  uint32_t* const linkTags = c.linkTag.data();
  size_t key = 0, link = 0;
  bool anyTag = false;
  bool anyPass = false;
  // Keys in the order the render thread merges them: block by block, each block front to back.
  for (uint32_t block = 0, blocks = stream.keyBlockCount(); block < blocks; ++block) {
    const KeyEntry* entries = stream.keyBlock(block);
    for (uint32_t i = 0, n = stream.keyBlockFill(block); i < n; ++i, ++key) {
      keys[key] = entries[i].key;
      passes[key] = entries[i].pass;
      anyPass |= entries[i].pass != PassId::kNone;
      const size_t firstLink = link;
      // The same walk as FrameView::forEachInChain, keeping what it resolves away: which links share
      // a packet, so that a replay can share it again.
      for (uint32_t offset = entries[i].packet; offset != 0; ++link) {
        const PacketHeader& h = stream.header(offset);
        uint32_t linkBody;
        if (h.flags & PacketHeader::kSharedRef) {
          uint32_t shared;
          std::memcpy(&shared, stream.payload(offset), sizeof shared);
          // The slot holds the whole offset, so any bits may pick it: those above the packets' alignment.
          SharedSlot& slot = recentShared_[(shared / 8) % recentShared_.size()];
          if (slot.offsetPlusOne == shared + 1) {
            linkBody = slot.body;
          } else {
            auto [it, inserted] = sharedBody_.try_emplace(shared, 0);
            if (inserted) {
              it->second = body(shared);
              c.sharedBodies.push_back(it->second);
            }
            linkBody = it->second;
            slot = {shared + 1, linkBody};
          }
        } else {
          linkBody = body(offset);
        }
        linkBodies[link] = linkBody;
        const TagRecord* tagRecord = ::reel::detail::tagOf(stream, h);
        linkTags[link] = tagRecord ? tag(c, *tagRecord) + 1 : 0;
        anyTag |= tagRecord != nullptr;
        offset = h.next;
      }
      chainLengths[key] = static_cast<uint32_t>(link - firstLink);
    }
  }
  c.linkBody.resize(link);
  c.linkTag.resize(link);
  c.bodyAuxSize.resize(bodies);
  c.bodyType.resize(bodies);
  if (!anyTag) c.linkTag.clear();
  if (!anyPass) c.passes.clear();
  const uint16_t* const bodyType = c.bodyType.data();
  const uint32_t* const bodyAuxSize = c.bodyAuxSize.data();
  auto typeAndAux = [&](size_t i) { return schema::ColumnGroups::auxGroupKey(bodyType[i], bodyAuxSize[i]); };
  // What the reader compares is only the columns' lengths; the layout (command ids and aux sizes body by
  // body) decides whether the previous frame is worth predicting from. Four hashes of every fourth body,
  // so that each multiply waits for the one four bodies back, not the one before.
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t h0 = 0xcbf29ce484222325ull, h1 = 0x84222325cbf29ce4ull, h2 = 0x9E3779B97F4A7C15ull, h3 = kPrime;
  size_t next = 0;
  for (; next + 4 <= bodies; next += 4) {
    h0 = (h0 ^ typeAndAux(next)) * kPrime;
    h1 = (h1 ^ typeAndAux(next + 1)) * kPrime;
    h2 = (h2 ^ typeAndAux(next + 2)) * kPrime;
    h3 = (h3 ^ typeAndAux(next + 3)) * kPrime;
  }
  for (; next < bodies; ++next) h0 = (h0 ^ typeAndAux(next)) * kPrime;
  uint64_t layout = c.keys.size() * 0x9E3779B97F4A7C15ull ^ bodies;
  for (const uint64_t h : {h0, h1, h2, h3}) layout = (layout ^ h) * kPrime;
  c.layout = layout;
  // The columns unshuffled, grouped: what the message stores (shuffled) and the next frame predicts from.
  c.payloadGroups.finish();
  c.auxGroups.finish();
  c.payload.resize(c.payloadGroups.totalBytes());
  payloadStaging_.layOut(c.payloadGroups, c.payload.data());
  c.aux.resize(c.auxGroups.totalBytes());
  auxStaging_.layOut(c.auxGroups, c.aux.data());
}

void bucketSources(std::span<const FrameBucketView> buckets, std::vector<BucketSource>& out) {
  out.clear();
  for (size_t i = 0; i < buckets.size(); ++i) {
    const FrameBucketView& b = buckets[i];
    out.push_back({b.bucket, b.stream, b.stream->epoch, static_cast<uint16_t>(i), b.order});
  }
}

void markRetained(GatheredFrame& frame, std::vector<uint64_t>& lastEpoch) {
  for (GatheredBucket& b : frame.activeBuckets()) {
    if (b.index >= lastEpoch.size()) lastEpoch.resize(b.index + 1, 0);
    b.retained = lastEpoch[b.index] == b.epoch;
    lastEpoch[b.index] = b.epoch;
  }
}

// ---- encoding (frame_encoding.h) ----

FrameEncoder::FrameEncoder() : fbb_(1u << 20) {}

std::span<const uint8_t> FrameEncoder::encode(const GatheredFrame& f, const GatheredFrame* previous,
                                              const GatheredFrame* beforePrevious) {
  fbb_.Clear();
  depthUsed_ = 0;
  std::vector<Offset<fb::Bucket>> buckets;
  buckets.reserve(f.bucketCount);
  for (const GatheredBucket& b : f.activeBuckets()) {
    // A bucket predicts from the frame before only where it has the same layout there, and from the
    // one before that only where the frame before also served.
    const GatheredBucket* a = previous ? previous->find(b.index) : nullptr;
    if (a && a->layout != b.layout) a = nullptr;
    const GatheredBucket* p = a && beforePrevious ? beforePrevious->find(b.index) : nullptr;
    if (p && p->layout != b.layout) p = nullptr;
    buckets.push_back(Offset<fb::Bucket>(bucket(b, a, p).o));
  }
  std::vector<Offset<fb::Request>> requests;
  requests.reserve(f.requests.size());
  for (const GatheredRequest& r : f.requests) {
    const auto aux = bytes(fbb_, {f.requestBytes.data() + r.auxOffset, r.auxSize});
    const auto payload = bytes(fbb_, {f.requestBytes.data() + r.payloadOffset, r.payloadSize});
    requests.push_back(fb::CreateRequest(fbb_, r.type, payload, aux));
  }
  const auto frame =
      fb::CreateFrame(fbb_, f.frame, f.sortedOrderHash, requests.empty() ? 0 : fbb_.CreateVector(requests),
                      fbb_.CreateVector(buckets), f.dropped);
  return finishMessage(fbb_, MessageKind::Frame, frame.Union());
}

FrameEncoder::Columns FrameEncoder::predictedColumns(const GatheredBucket& b, const GatheredBucket* a,
                                                     const GatheredBucket* p) {
  using schema::PredictedColumn;
  using schema::Predictor;
  Columns out;
  // A plain column is shuffled straight into the message. A predicted one is shuffled a block at a
  // time, each block's residuals made just before (ColumnGroups::shuffleGroupsFrom), into a buffer of
  // its own, and the message keeps only its segments that are not all zero (format 1.7): most of a
  // frame repeats the frame before, and what is not stored is neither appended nor compressed.
  auto encode = [&](PredictedColumn which, std::span<const uint8_t> x, std::span<const uint8_t> pa,
                    std::span<const uint8_t> pb, uint32_t word,
                    const schema::ColumnGroups* groups) -> Column {
    if (x.empty()) return {};
    // A column without groups is the keys: one group of 8-byte elements.
    auto shuffleWhole = [&](const uint8_t* from, uint8_t* to) {
      if (groups) return groups->shuffleGroups(from, to);
      schema::shuffleBytes(from, x.size() / sizeof(uint64_t), sizeof(uint64_t), to);
    };
    if (!a || pa.size() != x.size() || (p && pb.size() != x.size())) {
      uint8_t* to = nullptr;
      const auto vector = fbb_.CreateUninitializedVector(x.size(), 1, &to);
      shuffleWhole(x.data(), to);
      return {vector, 0};
    }
    // The mask in segmentMask_ and the packed segments, which pack(to) writes.
    auto residualColumn = [&](size_t packedBytes, auto&& pack) -> Column {
      const auto segments = fbb_.CreateVector(segmentMask_.data(), segmentMask_.size());
      uint8_t* packed = nullptr;
      const auto vector = fbb_.CreateUninitializedVector(packedBytes, 1, &packed);
      pack(packed);
      return {vector, segments};
    };
    segmentMask_.resize(schema::residualMaskWords(x.size()));
    if (std::memcmp(x.data(), pa.data(), x.size()) == 0) {
      // The column repeats the frame before's, as most of a frame does: its Delta residuals (Delta is
      // what choosePredictor takes for residuals all zero) are all zero, marked and packed as such
      // without computing, shuffling and scanning them: a memcmp reads two columns once and stops at
      // the first difference.
      out.predictors = schema::withPredictor(out.predictors, which, Predictor::Delta);
      depthUsed_ = std::max(depthUsed_, 1u);
      const size_t packedBytes = schema::markZeroResidualSegments(x.size(), segmentMask_.data());
      return residualColumn(packedBytes, [&](uint8_t* to) { std::memset(to, 0, packedBytes); });
    }
    const uint8_t* twoBack = p ? pb.data() : nullptr;
    const Predictor chosen = schema::choosePredictor(x.data(), pa.data(), twoBack, x.size(), word);
    out.predictors = schema::withPredictor(out.predictors, which, chosen);
    depthUsed_ = std::max(depthUsed_, chosen == Predictor::Linear ? 2u : 1u);
    auto fill = [&](uint64_t offset, uint64_t bytes, uint8_t* block) {
      schema::residuals(chosen, x.data() + offset, pa.data() + offset, twoBack ? twoBack + offset : nullptr,
                        bytes, word, block);
    };
    if (shuffled_.size() < x.size()) shuffled_.resize(x.size());
    uint8_t* shuffled = shuffled_.data();
    if (groups) {
      block_.resize(size_t{schema::kShuffleBlockElements} * groups->largestElement());
      if (!groups->shuffleGroupsFrom(fill, word, block_.data(), shuffled)) {
        // Groups off the word grid (aux bytes of odd sizes): the residuals of the whole column first.
        residual_.resize(x.size());
        fill(0, x.size(), residual_.data());
        shuffleWhole(residual_.data(), shuffled);
      }
    } else {
      block_.resize(size_t{schema::kShuffleBlockElements} * sizeof(uint64_t));
      schema::shuffleBlocksFrom(fill, 0, x.size() / sizeof(uint64_t), sizeof(uint64_t), block_.data(),
                                shuffled);
    }
    const size_t packedBytes = schema::markResidualSegments(shuffled, x.size(), segmentMask_.data());
    return residualColumn(packedBytes, [&](uint8_t* to) {
      schema::packResidualSegments(shuffled, x.size(), segmentMask_.data(), to);
    });
  };
  auto keyBytes = [](const GatheredBucket* g) {
    return g ? std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(g->keys.data()),
                                        g->keys.size() * sizeof(uint64_t))
             : std::span<const uint8_t>();
  };
  auto payloadBytes = [](const GatheredBucket* g) {
    return g ? std::span<const uint8_t>(g->payload) : std::span<const uint8_t>();
  };
  auto auxBytes = [](const GatheredBucket* g) {
    return g ? std::span<const uint8_t>(g->aux) : std::span<const uint8_t>();
  };
  out.aux = encode(PredictedColumn::Aux, auxBytes(&b), auxBytes(a), auxBytes(p), 4, &b.auxGroups);
  out.payload = encode(PredictedColumn::Payload, payloadBytes(&b), payloadBytes(a), payloadBytes(p), 4,
                       &b.payloadGroups);
  out.keys = encode(PredictedColumn::Keys, keyBytes(&b), keyBytes(a), keyBytes(p), 8, nullptr);
  return out;
}

namespace {

bool sameStructure(const GatheredBucket& b, const GatheredBucket& a) {
  return b.chainLengths == a.chainLengths && b.linkBody == a.linkBody && b.linkTag == a.linkTag &&
         b.bodyType == a.bodyType && b.bodyAuxSize == a.bodyAuxSize && b.sharedBodies == a.sharedBodies &&
         b.passes == a.passes && b.tags == a.tags && b.strings == a.strings;
}

}  // namespace

Offset<void> FrameEncoder::bucket(const GatheredBucket& b, const GatheredBucket* a, const GatheredBucket* p) {
  const Columns predicted = predictedColumns(b, a, p);
  // A bucket whose structure repeats the previous frame's leaves it out (trace.fbs, same_structure):
  // a third of a frame like stress's, the columns that change least.
  const bool same = a && !b.keys.empty() && sameStructure(b, *a);
  if (same) depthUsed_ = std::max(depthUsed_, 1u);
  Offset<Vector<Offset<String>>> stringVector = 0;
  Offset<Vector<const fb::Tag*>> tags = 0;
  if (!same) {
    std::vector<Offset<String>> strings;
    strings.reserve(b.strings.size());
    for (const std::string& s : b.strings) strings.push_back(fbb_.CreateString(s.data(), s.size()));
    if (!strings.empty()) stringVector = fbb_.CreateVector(strings);
    static_assert(sizeof(fb::Tag) == 4 * sizeof(uint32_t));
    if (!b.tags.empty()) {
      tags = fbb_.CreateVectorOfStructs(reinterpret_cast<const fb::Tag*>(b.tags.data()), b.tags.size() / 4);
    }
  }
  using schema::PredictedColumn;
  // A column goes in its residual field where it was predicted, in its plain field where not.
  auto plainOrResidual = [&](PredictedColumn which, const Column& column, bool asResidual) {
    return (schema::predictorOf(predicted.predictors, which) != schema::Predictor::Plain) == asResidual
               ? column.bytes
               : 0;
  };
  auto structure = [&](const auto& v) { return same ? 0 : column(fbb_, v); };
  const auto auxResidual = plainOrResidual(PredictedColumn::Aux, predicted.aux, true);
  const auto payloadResidual = plainOrResidual(PredictedColumn::Payload, predicted.payload, true);
  const auto keysResidual = plainOrResidual(PredictedColumn::Keys, predicted.keys, true);
  const auto aux = plainOrResidual(PredictedColumn::Aux, predicted.aux, false);
  const auto payload = plainOrResidual(PredictedColumn::Payload, predicted.payload, false);
  const auto sharedBodies = structure(b.sharedBodies);
  const auto bodyAuxSize = structure(b.bodyAuxSize);
  const auto bodyType = structure(b.bodyType);
  const auto linkTag = structure(b.linkTag);
  const auto linkBody = structure(b.linkBody);
  const auto chainLengths = structure(b.chainLengths);
  const auto keys = plainOrResidual(PredictedColumn::Keys, predicted.keys, false);
  const auto passes = structure(b.passes);
  const auto keyType = fbb_.CreateString(b.bucket->keyTypeName());
  const auto name = fbb_.CreateString(b.bucket->name());
  return fb::CreateBucket(fbb_, b.index, name, keyType, b.retained, keys, chainLengths, linkBody, linkTag,
                          bodyType, bodyAuxSize, sharedBodies, payload, aux, tags, stringVector,
                          static_cast<uint8_t>(b.order), predicted.predictors, keysResidual, payloadResidual,
                          auxResidual, passes, same, predicted.keys.segments, predicted.payload.segments,
                          predicted.aux.segments)
      .Union();
}

// ---- MessageEncoder::frame: the two steps, one frame after another ----

Result<std::span<const uint8_t>> MessageEncoder::Impl::frame(const FrameSource& source, FrameCounts& counts) {
  const uint32_t slot = (newest + 1) % 3;  // the oldest of the three
  GatheredFrame& now = frames[slot];
  if (auto r = gatherer.gather(source, now); !r) return r.error();
  markRetained(now, lastEpoch);
  // A frame predicts only from the frames before it since the last one that could not (a chunk's first).
  run = source.predict ? std::min<uint32_t>(run + 1, 2) : 0;
  const GatheredFrame* previous = run >= 1 ? &frames[newest] : nullptr;
  const GatheredFrame* beforePrevious = run >= 2 ? &frames[(newest + 2) % 3] : nullptr;
  newest = slot;
  counts.packets += now.counts.packets;
  counts.packetBytes += now.counts.packetBytes;
  return encoder.encode(now, previous, beforePrevious);
}

// ---- MessageEncoder ----

MessageEncoder::MessageEncoder() : impl_(std::make_unique<Impl>()) {}
MessageEncoder::~MessageEncoder() = default;

std::span<const uint8_t> MessageEncoder::header(const HeaderInfo& info) {
  return impl_->header(info);
}
std::span<const uint8_t> MessageEncoder::keyLayouts(std::span<const CommandBucketBase* const> keyTypes) {
  return impl_->keyLayouts(keyTypes);
}
std::span<const uint8_t> MessageEncoder::resources(const ResourceSnapshot& snapshot, size_t& next) {
  return impl_->resources(snapshot, next);
}
std::span<const uint8_t> MessageEncoder::keyFrame(const ResourceSnapshot& snapshot, size_t& next) {
  return impl_->resources(snapshot, next, MessageKind::KeyFrame);
}
Result<std::span<const uint8_t>> MessageEncoder::frame(const FrameSource& frame, FrameCounts& counts) {
  return impl_->frame(frame, counts);
}
std::span<const uint8_t> MessageEncoder::marker(uint64_t frame, std::string_view text) {
  return impl_->marker(frame, text);
}
std::span<const uint8_t> MessageEncoder::captureEnd(const CaptureEndInfo& info) {
  return impl_->captureEnd(info);
}

}  // namespace reel::trace

#include "messages.h"

#include <cstring>

#include "reel/runtime/commands.h"
#include "reel/runtime/frame.h"
#include "reel/schema/messages.h"

#ifndef REEL_VERSION_STRING
#define REEL_VERSION_STRING "unknown"
#endif

namespace reel::capture::detail {
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

template <typename T>
Offset<Vector<T>> column(flatbuffers::FlatBufferBuilder& fbb, const std::vector<T>& v) {
  return v.empty() ? 0 : fbb.CreateVector(v.data(), v.size());
}

Offset<Vector<uint8_t>> bytes(flatbuffers::FlatBufferBuilder& fbb, std::span<const std::byte> data) {
  return data.empty() ? 0 : fbb.CreateVector(reinterpret_cast<const uint8_t*>(data.data()), data.size());
}

}  // namespace

size_t MessageBuilder::Columns::TagKeyHash::operator()(const TagKey& k) const {
  uint64_t h = k.file;
  h = h * 0x9E3779B97F4A7C15ull ^ k.function;
  h = h * 0x9E3779B97F4A7C15ull ^ k.line;
  h = h * 0x9E3779B97F4A7C15ull ^ k.message;
  return static_cast<size_t>(h ^ (h >> 29));
}

void MessageBuilder::Columns::clear() {
  keys.clear();
  chainLengths.clear();
  linkBody.clear();
  linkTag.clear();
  bodyAuxSize.clear();
  sharedBodies.clear();
  bodyType.clear();
  payloadOffset.clear();
  auxOffset.clear();
  tags.clear();
  strings.clear();
  sharedBody.clear();
  literalString.clear();
  messageString.clear();
  tagIndex.clear();
}

MessageBuilder::MessageBuilder() : fbb_(1u << 20) {}

std::span<const uint8_t> MessageBuilder::finish(uint8_t kind, Offset<void> body) {
  fb::MessageBuilder message(fbb_);
  message.add_body_type(static_cast<fb::Body>(kind));
  message.add_body(body);
  fb::FinishSizePrefixedMessageBuffer(fbb_, message.Finish());
  return {fbb_.GetBufferPointer(), fbb_.GetSize()};
}

std::span<const uint8_t> MessageBuilder::header(const HeaderInfo& info) {
  fbb_.Clear();
  std::vector<Offset<fb::Command>> commands;
  for (const CommandInfo& c : commandTable()) {
    std::vector<Offset<fb::Field>> fields;
    for (const FieldInfo& f : c.fields) fields.push_back(field(fbb_, f));
    commands.push_back(fb::CreateCommand(fbb_, static_cast<uint16_t>(c.type), fbb_.CreateString(c.name),
                                         static_cast<uint8_t>(c.queue), c.size, c.layoutHash,
                                         fbb_.CreateVector(fields)));
  }
  std::vector<Offset<fb::KeyLayout>> layouts;
  for (const CommandBucketBase* bucket : info.keyTypes) layouts.push_back(keyLayout(fbb_, *bucket));
  std::vector<Offset<String>> args;
  for (const std::string& arg : info.appArgs) args.push_back(fbb_.CreateString(arg));
  std::vector<Offset<String>> kinds;
  for (uint32_t k = 0; k < static_cast<uint32_t>(ResourceKind::Count); ++k) {
    kinds.push_back(fbb_.CreateString(resourceKindName(static_cast<ResourceKind>(k))));
  }
  const auto header = fb::CreateHeader(
      fbb_, schema::kFormatMajor, schema::kFormatMinor, fbb_.CreateString(REEL_VERSION_STRING),
      fbb_.CreateString(info.appName), fbb_.CreateVector(args), fbb_.CreateString(info.device.name),
      fbb_.CreateString(info.device.driver), fbb_.CreateString(info.device.apiVersion),
      fbb_.CreateString(info.device.type), info.captureTimeNs, info.firstFrame, /*tagsEnabled=*/true,
      fbb_.CreateVector(layouts), fbb_.CreateVector(commands), fbb_.CreateVector(kinds));
  return finish(static_cast<uint8_t>(fb::Body::Header), header.Union());
}

std::span<const uint8_t> MessageBuilder::keyLayouts(std::span<const CommandBucketBase* const> keyTypes) {
  fbb_.Clear();
  std::vector<Offset<fb::KeyLayout>> layouts;
  for (const CommandBucketBase* bucket : keyTypes) layouts.push_back(keyLayout(fbb_, *bucket));
  return finish(static_cast<uint8_t>(fb::Body::KeyLayouts),
                fb::CreateKeyLayouts(fbb_, fbb_.CreateVector(layouts)).Union());
}

std::span<const uint8_t> MessageBuilder::resources(const Snapshot& snapshot, size_t& next) {
  fbb_.Clear();
  std::vector<Offset<fb::LiveResource>> out;
  uint64_t bytesSoFar = 0;
  while (next < snapshot.resources.size()) {
    const SnapshotResource& r = snapshot.resources[next];
    uint64_t size = r.create.size() + r.code.size() + 64;
    for (const auto& c : r.contents) size += c.bytes.size() + 16;
    if (!out.empty() && bytesSoFar + size > kMaxResourcesMessageBytes) break;
    bytesSoFar += size;
    std::vector<Offset<fb::ResourceContents>> contents;
    for (const auto& c : r.contents)
      contents.push_back(fb::CreateResourceContents(fbb_, c.mip, bytes(fbb_, c.bytes)));
    out.push_back(fb::CreateLiveResource(fbb_, static_cast<uint16_t>(r.createType), bytes(fbb_, r.create),
                                         bytes(fbb_, r.code),
                                         contents.empty() ? 0 : fbb_.CreateVector(contents),
                                         r.readbackError.empty() ? 0 : fbb_.CreateString(r.readbackError)));
    ++next;
  }
  const auto message = fb::CreateResources(fbb_, snapshot.frame, fbb_.CreateVector(out));
  return finish(static_cast<uint8_t>(fb::Body::Resources), message.Union());
}

std::span<const uint8_t> MessageBuilder::marker(uint64_t frame, std::string_view text) {
  fbb_.Clear();
  const auto message = fb::CreateMarker(fbb_, frame, fbb_.CreateString(text.data(), text.size()));
  return finish(static_cast<uint8_t>(fb::Body::Marker), message.Union());
}

std::span<const uint8_t> MessageBuilder::captureEnd(const CaptureEndInfo& info) {
  fbb_.Clear();
  const auto message = fb::CreateCaptureEnd(fbb_, info.frames, info.renderWaits, info.renderWaitNs,
                                            fbb_.CreateString(info.reason));
  return finish(static_cast<uint8_t>(fb::Body::CaptureEnd), message.Union());
}

uint32_t MessageBuilder::string(std::string_view text) {
  auto [it, inserted] =
      columns_.messageString.try_emplace(text, static_cast<uint32_t>(columns_.strings.size()));
  if (inserted) columns_.strings.push_back(text);
  return it->second;
}

uint32_t MessageBuilder::tag(const TagRecord& record) {
  Columns& c = columns_;
  // File and function are the program's literals: the pointer identifies them, no hashing of text.
  auto literal = [&](const char* s) {
    auto [it, inserted] = c.literalString.try_emplace(s, 0);
    if (inserted) it->second = string(s ? std::string_view(s) : std::string_view());
    return it->second;
  };
  const Columns::TagKey key{literal(record.file), literal(record.function), record.line,
                            string(record.message())};
  auto [it, inserted] = c.tagIndex.try_emplace(key, static_cast<uint32_t>(c.tags.size() / 4));
  if (inserted) c.tags.insert(c.tags.end(), {key.file, key.function, key.line, key.message});
  return it->second;
}

uint32_t MessageBuilder::body(const BucketStream& stream, uint32_t packet) {
  Columns& c = columns_;
  const PacketHeader& h = stream.header(packet);
  const uint32_t index = static_cast<uint32_t>(c.bodyType.size());
  c.bodyType.push_back(h.type);
  // Where the bytes are in the retained stream: they are copied once, straight into the shuffled columns.
  c.payloadOffset.push_back(packet + static_cast<uint32_t>(sizeof(PacketHeader)));
  c.bodyAuxSize.push_back(h.auxSize);
  c.auxOffset.push_back(h.auxOffset);
  return index;
}

Offset<void> MessageBuilder::bucket(const BucketTicket& ticket, FrameCounts& counts) {
  Columns& c = columns_;
  c.clear();
  const BucketStream& stream = *ticket.stream;
  bool anyTag = false;
  // Keys in the order the render thread merges them: block by block, each block front to back.
  for (uint32_t block = 0, blocks = stream.keyBlockCount(); block < blocks; ++block) {
    const KeyEntry* entries = stream.keyBlock(block);
    for (uint32_t i = 0, n = stream.keyBlockFill(block); i < n; ++i) {
      c.keys.push_back(entries[i].key);
      uint32_t length = 0;
      // The same walk as FrameView::forEachInChain, keeping what it resolves away: which links share
      // a packet, so that a replay can share it again.
      for (uint32_t offset = entries[i].packet; offset != 0; ++length) {
        const PacketHeader& h = stream.header(offset);
        uint32_t linkBody;
        if (h.flags & PacketHeader::kSharedRef) {
          uint32_t shared;
          std::memcpy(&shared, stream.payload(offset), sizeof shared);
          auto [it, inserted] = c.sharedBody.try_emplace(shared, 0);
          if (inserted) {
            it->second = body(stream, shared);
            c.sharedBodies.push_back(it->second);
          }
          linkBody = it->second;
        } else {
          linkBody = body(stream, offset);
        }
        c.linkBody.push_back(linkBody);
        const TagRecord* tagRecord = ::reel::detail::tagOf(stream, h);
        c.linkTag.push_back(tagRecord ? tag(*tagRecord) + 1 : 0);
        anyTag |= tagRecord != nullptr;
        offset = h.next;
      }
      c.chainLengths.push_back(length);
    }
  }
  if (!anyTag) c.linkTag.clear();
  counts.packets += c.linkBody.size();
  const auto* base = reinterpret_cast<const uint8_t*>(stream.packets.base());
  c.payloadGroups.clear();
  c.auxGroups.clear();
  c.payloadGroups.reserve(c.bodyType.size());
  c.auxGroups.reserve(c.bodyType.size());
  for (size_t i = 0; i < c.bodyType.size(); ++i) {
    c.payloadGroups.add(c.bodyType[i], commandInfo(static_cast<CommandType>(c.bodyType[i])).size);
    c.auxGroups.add(uint64_t{c.bodyType[i]} << 32 | c.bodyAuxSize[i], c.bodyAuxSize[i]);
  }
  c.payloadGroups.finish();
  c.auxGroups.finish();
  counts.packetBytes +=
      c.keys.size() * sizeof(uint64_t) + c.payloadGroups.totalBytes() + c.auxGroups.totalBytes();

  if (ticket.index >= lastEpoch_.size()) lastEpoch_.resize(ticket.index + 1, 0);
  const bool retained = lastEpoch_[ticket.index] == ticket.epoch;
  lastEpoch_[ticket.index] = ticket.epoch;

  // The columns as trace.fbs stores them: keys, payloads and aux data byte-shuffled, by groups.
  c.shuffledKeys.resize(c.keys.size() * sizeof(uint64_t));
  schema::shuffleBytes(reinterpret_cast<const uint8_t*>(c.keys.data()), c.keys.size(), sizeof(uint64_t),
                       c.shuffledKeys.data());
  c.shuffledPayload.resize(c.payloadGroups.totalBytes());
  c.payloadGroups.scatter(base, c.payloadOffset.data(), c.shuffledPayload.data());
  c.shuffledAux.resize(c.auxGroups.totalBytes());
  c.auxGroups.scatter(base, c.auxOffset.data(), c.shuffledAux.data());

  std::vector<Offset<String>> strings;
  strings.reserve(c.strings.size());
  for (std::string_view s : c.strings) strings.push_back(fbb_.CreateString(s.data(), s.size()));
  const auto stringVector = strings.empty() ? 0 : fbb_.CreateVector(strings);
  const auto tags = c.tags.empty() ? 0
                                   : fbb_.CreateVectorOfStructs(
                                         reinterpret_cast<const fb::Tag*>(c.tags.data()), c.tags.size() / 4);
  static_assert(sizeof(fb::Tag) == 4 * sizeof(uint32_t));
  const auto aux = column(fbb_, c.shuffledAux);
  const auto payload = column(fbb_, c.shuffledPayload);
  const auto sharedBodies = column(fbb_, c.sharedBodies);
  const auto bodyAuxSize = column(fbb_, c.bodyAuxSize);
  const auto bodyType = column(fbb_, c.bodyType);
  const auto linkTag = column(fbb_, c.linkTag);
  const auto linkBody = column(fbb_, c.linkBody);
  const auto chainLengths = column(fbb_, c.chainLengths);
  const auto keys = column(fbb_, c.shuffledKeys);
  const auto keyType = fbb_.CreateString(ticket.bucket->keyTypeName());
  const auto name = fbb_.CreateString(ticket.bucket->name());
  return fb::CreateBucket(fbb_, ticket.index, name, keyType, retained, keys, chainLengths, linkBody, linkTag,
                          bodyType, bodyAuxSize, sharedBodies, payload, aux, tags, stringVector)
      .Union();
}

Result<std::span<const uint8_t>> MessageBuilder::frame(const FrameTicket& ticket, FrameCounts& counts) {
  fbb_.Clear();
  // A frame is one message: refuse one FlatBuffers cannot hold rather than let the builder overflow.
  uint64_t estimate = 0;
  for (const BucketTicket& b : ticket.buckets)
    estimate += b.stream->packets.used() + b.stream->keys.used() * 2;
  if (ticket.requests) estimate += ticket.requests->bytes.size() * 2;
  if (estimate > kMaxFrameMessageBytes) {
    return fail("frame ", ticket.frame, " holds about ", estimate >> 20,
                " MiB of packets, more than one trace message can hold (", kMaxFrameMessageBytes >> 20,
                " MiB)");
  }

  std::vector<Offset<fb::Bucket>> buckets;
  buckets.reserve(ticket.buckets.size());
  for (const BucketTicket& b : ticket.buckets) buckets.push_back(Offset<fb::Bucket>(bucket(b, counts).o));

  std::vector<Offset<fb::Request>> requests;
  if (ticket.requests) {
    const RequestStream& r = *ticket.requests;
    requests.reserve(r.requests.size());
    for (const uint32_t offset : r.requests) {
      const PacketHeader& h = r.header(offset);
      const auto type = static_cast<CommandType>(h.type);
      const auto aux = bytes(fbb_, r.aux(h));
      const auto payload = bytes(fbb_, {r.payload(offset), commandInfo(type).size});
      requests.push_back(fb::CreateRequest(fbb_, h.type, payload, aux));
    }
  }
  const auto frame =
      fb::CreateFrame(fbb_, ticket.frame, ticket.sortedOrderHash,
                      requests.empty() ? 0 : fbb_.CreateVector(requests), fbb_.CreateVector(buckets));
  return finish(static_cast<uint8_t>(fb::Body::Frame), frame.Union());
}

}  // namespace reel::capture::detail

#include "message_encoder.h"

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

template <typename T>
Offset<Vector<T>> column(flatbuffers::FlatBufferBuilder& fbb, const std::vector<T>& v) {
  return v.empty() ? 0 : fbb.CreateVector(v.data(), v.size());
}

Offset<Vector<uint8_t>> bytes(flatbuffers::FlatBufferBuilder& fbb, std::span<const std::byte> data) {
  return data.empty() ? 0 : fbb.CreateVector(reinterpret_cast<const uint8_t*>(data.data()), data.size());
}

}  // namespace

size_t MessageEncoder::Impl::Columns::TagKeyHash::operator()(const TagKey& k) const {
  uint64_t h = k.file;
  h = h * 0x9E3779B97F4A7C15ull ^ k.function;
  h = h * 0x9E3779B97F4A7C15ull ^ k.line;
  h = h * 0x9E3779B97F4A7C15ull ^ k.message;
  return static_cast<size_t>(h ^ (h >> 29));
}

void MessageEncoder::Impl::Columns::clear() {
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

MessageEncoder::Impl::Impl() : fbb(1u << 20) {}

std::span<const uint8_t> MessageEncoder::Impl::finish(MessageKind kind, Offset<void> body) {
  fb::MessageBuilder message(fbb);
  message.add_body_type(static_cast<fb::Body>(kind));
  message.add_body(body);
  fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());
  return {fbb.GetBufferPointer(), fbb.GetSize()};
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

uint32_t MessageEncoder::Impl::string(std::string_view text) {
  auto [it, inserted] =
      columns.messageString.try_emplace(text, static_cast<uint32_t>(columns.strings.size()));
  if (inserted) columns.strings.push_back(text);
  return it->second;
}

uint32_t MessageEncoder::Impl::tag(const TagRecord& record) {
  Columns& c = columns;
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

uint32_t MessageEncoder::Impl::body(const BucketStream& stream, uint32_t packet) {
  Columns& c = columns;
  const PacketHeader& h = stream.header(packet);
  const uint32_t index = static_cast<uint32_t>(c.bodyType.size());
  c.bodyType.push_back(h.type);
  // Where the bytes are in the retained stream: they are copied once, straight into the shuffled columns.
  c.payloadOffset.push_back(packet + static_cast<uint32_t>(sizeof(PacketHeader)));
  c.bodyAuxSize.push_back(h.auxSize);
  c.auxOffset.push_back(h.auxOffset);
  return index;
}

Offset<void> MessageEncoder::Impl::bucket(const BucketSource& source, FrameCounts& counts) {
  Columns& c = columns;
  c.clear();
  const BucketStream& stream = *source.stream;
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

  if (source.index >= lastEpoch.size()) lastEpoch.resize(source.index + 1, 0);
  const bool retained = lastEpoch[source.index] == source.epoch;
  lastEpoch[source.index] = source.epoch;

  // The columns as trace.fbs stores them, kept unshuffled for the next frame to predict from.
  const uint8_t predictors = predictedColumns(source, base);

  std::vector<Offset<String>> strings;
  strings.reserve(c.strings.size());
  for (std::string_view s : c.strings) strings.push_back(fbb.CreateString(s.data(), s.size()));
  const auto stringVector = strings.empty() ? 0 : fbb.CreateVector(strings);
  const auto tags = c.tags.empty() ? 0
                                   : fbb.CreateVectorOfStructs(
                                         reinterpret_cast<const fb::Tag*>(c.tags.data()), c.tags.size() / 4);
  static_assert(sizeof(fb::Tag) == 4 * sizeof(uint32_t));
  using schema::PredictedColumn;
  auto plainOrResidual = [&](PredictedColumn which, const std::vector<uint8_t>& bytes, bool asResidual) {
    return (schema::predictorOf(predictors, which) != schema::Predictor::Plain) == asResidual
               ? column(fbb, bytes)
               : 0;
  };
  const auto auxResidual = plainOrResidual(PredictedColumn::Aux, c.shuffledAux, true);
  const auto payloadResidual = plainOrResidual(PredictedColumn::Payload, c.shuffledPayload, true);
  const auto keysResidual = plainOrResidual(PredictedColumn::Keys, c.shuffledKeys, true);
  const auto aux = plainOrResidual(PredictedColumn::Aux, c.shuffledAux, false);
  const auto payload = plainOrResidual(PredictedColumn::Payload, c.shuffledPayload, false);
  const auto sharedBodies = column(fbb, c.sharedBodies);
  const auto bodyAuxSize = column(fbb, c.bodyAuxSize);
  const auto bodyType = column(fbb, c.bodyType);
  const auto linkTag = column(fbb, c.linkTag);
  const auto linkBody = column(fbb, c.linkBody);
  const auto chainLengths = column(fbb, c.chainLengths);
  const auto keys = plainOrResidual(PredictedColumn::Keys, c.shuffledKeys, false);
  const auto keyType = fbb.CreateString(source.bucket->keyTypeName());
  const auto name = fbb.CreateString(source.bucket->name());
  return fb::CreateBucket(fbb, source.index, name, keyType, retained, keys, chainLengths, linkBody, linkTag,
                          bodyType, bodyAuxSize, sharedBodies, payload, aux, tags, stringVector,
                          static_cast<uint8_t>(source.order), predictors, keysResidual, payloadResidual,
                          auxResidual)
      .Union();
}

uint8_t MessageEncoder::Impl::predictedColumns(const BucketSource& source, const uint8_t* base) {
  Columns& c = columns;
  using schema::PredictedColumn;
  using schema::Predictor;
  if (source.index >= history.size()) history.resize(source.index + 1);
  ColumnHistory& h = history[source.index];
  // What the reader compares is only the columns' lengths; the layout (command ids and aux sizes body by
  // body) decides whether the previous frame is worth predicting from.
  uint64_t layout = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < c.bodyType.size(); ++i) {
    layout = (layout ^ (uint64_t{c.bodyType[i]} << 32 | c.bodyAuxSize[i])) * 0x100000001b3ull;
  }
  layout ^= c.keys.size() * 0x9E3779B97F4A7C15ull;
  // Slot 0 becomes this frame's columns, unshuffled.
  ColumnHistory::Slot& now = h.slots[0];
  now.keys.resize(c.keys.size() * sizeof(uint64_t));
  if (!c.keys.empty()) std::memcpy(now.keys.data(), c.keys.data(), now.keys.size());
  now.payload.resize(c.payloadGroups.totalBytes());
  for (size_t i = 0; i < c.bodyType.size(); ++i) {
    const uint32_t size = commandInfo(static_cast<CommandType>(c.bodyType[i])).size;
    std::memcpy(now.payload.data() + c.payloadGroups.elementOffset(i), base + c.payloadOffset[i], size);
  }
  now.aux.resize(c.auxGroups.totalBytes());
  for (size_t i = 0; i < c.bodyType.size(); ++i) {
    if (c.bodyAuxSize[i] == 0) continue;
    std::memcpy(now.aux.data() + c.auxGroups.elementOffset(i), base + c.auxOffset[i], c.bodyAuxSize[i]);
  }
  now.serial = serial_;
  now.layout = layout;

  const ColumnHistory::Slot& a = h.slots[1];
  const ColumnHistory::Slot& b = h.slots[2];
  const bool hasA =
      a.serial != 0 && a.serial + 1 == serial_ && a.serial >= predictFrom_ && a.layout == layout;
  const bool hasB =
      hasA && b.serial != 0 && b.serial + 2 == serial_ && b.serial >= predictFrom_ && b.layout == layout;
  uint8_t predictors = 0;
  auto encode = [&](PredictedColumn which, const std::vector<uint8_t>& x, const std::vector<uint8_t>& pa,
                    const std::vector<uint8_t>& pb, uint32_t word, std::vector<uint8_t>& out,
                    auto&& shuffle) {
    const uint8_t* from = x.data();
    if (hasA && !x.empty() && pa.size() == x.size() && (!hasB || pb.size() == x.size())) {
      const Predictor p =
          schema::choosePredictor(x.data(), pa.data(), hasB ? pb.data() : nullptr, x.size(), word);
      residual.resize(x.size());
      schema::residuals(p, x.data(), pa.data(), pb.data(), x.size(), word, residual.data());
      from = residual.data();
      predictors = schema::withPredictor(predictors, which, p);
    }
    out.resize(x.size());
    shuffle(from, out.data());
  };
  encode(PredictedColumn::Keys, now.keys, a.keys, b.keys, 8, c.shuffledKeys,
         [&](const uint8_t* in, uint8_t* out) {
           schema::shuffleBytes(in, c.keys.size(), sizeof(uint64_t), out);
         });
  encode(PredictedColumn::Payload, now.payload, a.payload, b.payload, 4, c.shuffledPayload,
         [&](const uint8_t* in, uint8_t* out) { c.payloadGroups.shuffleGroups(in, out); });
  encode(PredictedColumn::Aux, now.aux, a.aux, b.aux, 4, c.shuffledAux,
         [&](const uint8_t* in, uint8_t* out) { c.auxGroups.shuffleGroups(in, out); });
  // This frame becomes the previous one: the slots turn, no copy.
  std::swap(h.slots[2], h.slots[1]);
  std::swap(h.slots[1], h.slots[0]);
  return predictors;
}

Result<std::span<const uint8_t>> MessageEncoder::Impl::frame(const FrameSource& source, FrameCounts& counts) {
  fbb.Clear();
  ++serial_;
  if (!source.predict) predictFrom_ = serial_;
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

  std::vector<Offset<fb::Bucket>> buckets;
  buckets.reserve(source.buckets.size());
  for (const BucketSource& b : source.buckets) buckets.push_back(Offset<fb::Bucket>(bucket(b, counts).o));

  std::vector<Offset<fb::Request>> requests;
  if (source.requests) {
    const RequestStream& r = *source.requests;
    requests.reserve(r.requests.size());
    for (const uint32_t offset : r.requests) {
      const PacketHeader& h = r.header(offset);
      const auto type = static_cast<CommandType>(h.type);
      const auto aux = bytes(fbb, r.aux(h));
      const auto payload = bytes(fbb, {r.payload(offset), commandInfo(type).size});
      requests.push_back(fb::CreateRequest(fbb, h.type, payload, aux));
    }
  }
  const auto frame = fb::CreateFrame(fbb, source.frame, source.sortedOrderHash,
                                     requests.empty() ? 0 : fbb.CreateVector(requests),
                                     fbb.CreateVector(buckets), source.dropped);
  return finish(MessageKind::Frame, frame.Union());
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

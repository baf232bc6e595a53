#include "decode.h"

#include <sys/mman.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "reel/schema/predict.h"
#include "reel/schema/shuffle.h"

namespace reel::trace {

std::unique_ptr<std::byte[], detail::FreeBytes> detail::allocateLarge(uint64_t bytes) {
  constexpr uint64_t kHugePage = uint64_t{2} << 20;
  if (bytes >= kHugePage / 2) {
    const uint64_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
    void* p = std::aligned_alloc(kHugePage, rounded);
    // Only advice: the kernel ignores it where transparent huge pages are off.
    if (p) madvise(p, rounded, MADV_HUGEPAGE);
    return std::unique_ptr<std::byte[], FreeBytes>(static_cast<std::byte*>(p));
  }
  return std::unique_ptr<std::byte[], FreeBytes>(
      static_cast<std::byte*>(std::aligned_alloc(16, (std::max<uint64_t>(bytes, 1) + 15) & ~uint64_t{15})));
}

namespace {

using flatbuffers::Vector;

constexpr uint32_t kMaxFieldDepth = 16;         // descriptors nest 2 deep today
constexpr uint32_t kMaxPacketBytes = 1u << 16;  // packets are small structs
constexpr uint32_t kMaxFieldCount = 1u << 16;

std::string_view view(const flatbuffers::String* s) {
  return s ? std::string_view(s->data(), s->size()) : std::string_view();
}

std::span<const std::byte> bytesOf(const Vector<uint8_t>* v) {
  if (!v) return {};
  return {reinterpret_cast<const std::byte*>(v->data()), v->size()};
}

// Elements of 2 and 4 bytes: a vector's data follows its 4-byte aligned length, so they are aligned.
template <typename T>
std::span<const T> span4(const Vector<T>* v) {
  static_assert(sizeof(T) <= 4);
  if (!v) return {};
  return {reinterpret_cast<const T*>(v->data()), v->size()};
}

const char* keep(TraceHeader::Storage& storage, std::string_view text) {
  return storage.strings.emplace_back(text).c_str();
}

bool naturalSize(FieldType type, uint32_t size) {
  switch (type) {
    case FieldType::Bool:
    case FieldType::U8:
    case FieldType::I8:
      return size == 1;
    case FieldType::U16:
    case FieldType::I16:
      return size == 2;
    case FieldType::U32:
    case FieldType::I32:
    case FieldType::F32:
    case FieldType::Handle:
      return size == 4;
    case FieldType::U64:
    case FieldType::I64:
    case FieldType::F64:
      return size == 8;
    case FieldType::Enum:
      return size == 1 || size == 2 || size == 4 || size == 8;
    case FieldType::Struct:
      return size >= 1;
  }
  return false;
}

// Fields of a block `blockSize` bytes long; each must lie inside it, with the size its type has.
Result<std::span<const FieldInfo>> decodeFields(const Vector<flatbuffers::Offset<fb::Field>>* fields,
                                                uint32_t blockSize, uint32_t depth,
                                                TraceHeader::Storage& storage) {
  if (!fields || fields->size() == 0) return std::span<const FieldInfo>();
  if (depth > kMaxFieldDepth) return fail("fields nest deeper than ", kMaxFieldDepth);
  std::vector<FieldInfo> out(fields->size());
  for (uint32_t i = 0; i < fields->size(); ++i) {
    const fb::Field& f = *fields->Get(i);
    FieldInfo& info = out[i];
    info.name = keep(storage, view(f.name()));
    info.offset = f.offset();
    info.size = f.size();
    info.count = f.count();
    const auto type = static_cast<uint8_t>(f.type());
    if (type > static_cast<uint8_t>(FieldType::Struct))
      return fail("field '", info.name, "' has unknown type ", type);
    info.type = static_cast<FieldType>(type);
    if (!naturalSize(info.type, info.size)) {
      return fail("field '", info.name, "' of type ", fieldTypeName(info.type), " is ", info.size, " bytes");
    }
    if (info.count == 0 || info.count > kMaxFieldCount)
      return fail("field '", info.name, "' has count ", info.count);
    if (uint64_t{info.offset} + uint64_t{info.size} * info.count > blockSize) {
      return fail("field '", info.name, "' (offset ", info.offset, ", ", info.size, " x ", info.count,
                  " bytes) lies outside its ", blockSize, "-byte packet");
    }
    info.handleKind = f.handle_kind() < static_cast<uint8_t>(ResourceKind::Count)
                          ? static_cast<ResourceKind>(f.handle_kind())
                          : ResourceKind::Count;
    if (const auto* names = f.enum_names(); names && names->size() > 0) {
      auto& table = storage.enumTables.emplace_back();
      for (uint32_t n = 0; n < names->size(); ++n) table.push_back(keep(storage, view(names->Get(n))));
      info.enumNames = table;
    }
    if (info.type == FieldType::Struct) {
      auto children = decodeFields(f.children(), info.size, depth + 1, storage);
      if (!children) return fail("field '", info.name, "': ", children.error().message);
      info.children = children.value();
    }
  }
  return std::span<const FieldInfo>(storage.fieldTables.emplace_back(std::move(out)));
}

Result<KeyLayoutDesc> decodeKeyLayout(const fb::KeyLayout& layout, TraceHeader::Storage& storage) {
  KeyLayoutDesc desc;
  desc.keyType = keep(storage, view(layout.key_type()));
  std::vector<KeyFieldLayout> fields;
  if (const auto* v = layout.fields()) {
    for (uint32_t i = 0; i < v->size(); ++i) {
      const fb::KeyField& f = *v->Get(i);
      const char* name = keep(storage, view(f.name()));
      if (f.bits() == 0 || f.bits() > 64 || f.shift() >= 64 || f.shift() + f.bits() > 64) {
        return fail("key type '", desc.keyType, "' field '", name, "' has bits ", f.shift(), "+", f.bits());
      }
      if (f.mode() < -1 || f.mode() > static_cast<int8_t>(KeyMode::Command)) {
        return fail("key type '", desc.keyType, "' field '", name, "' has mode ", int{f.mode()});
      }
      fields.push_back(KeyFieldLayout{name, f.shift(), f.bits(), f.mode(), f.inverted()});
    }
  }
  desc.fields = storage.keyTables.emplace_back(std::move(fields));
  return desc;
}

}  // namespace

// ---- TraceHeader ----

TraceHeader::TraceHeader() : storage_(std::make_unique<Storage>()) {}
TraceHeader::TraceHeader(TraceHeader&&) noexcept = default;
TraceHeader& TraceHeader::operator=(TraceHeader&&) noexcept = default;
TraceHeader::~TraceHeader() = default;

const KeyLayoutDesc* TraceHeader::keyLayout(std::string_view keyType) const {
  for (const KeyLayoutDesc& layout : keyLayouts) {
    if (layout.keyType == keyType) return &layout;
  }
  return nullptr;
}

bool TraceHeader::matchesRuntime(uint16_t id) const {
  const CommandDesc* desc = command(id);
  if (!desc || id >= kCommandTypeCount) return false;
  const CommandInfo& info = commandTable()[id];
  return desc->layoutHash == info.layoutHash && desc->size == info.size && desc->name == info.name;
}

std::string TraceHeader::formatPacket(uint16_t type, std::span<const std::byte> payload) const {
  const CommandDesc* desc = command(type);
  if (!desc) return "command#" + std::to_string(type);
  std::string out(desc->name);
  const std::string fields = formatFields(desc->fields, payload.data(), payload.size());
  if (!fields.empty()) out += ' ' + fields;
  return out;
}

std::string TraceHeader::formatKey(std::string_view keyType, uint64_t bits) const {
  if (const KeyLayoutDesc* layout = keyLayout(keyType)) return formatKeyWithLayout(bits, layout->fields);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, bits);
  return buf;
}

// ---- messages ----

Result<const fb::Message*> verifyMessage(const std::byte* data, uint64_t available, uint32_t& size) {
  // The size prefix, the root offset and the file identifier: 12 bytes before anything can be checked.
  constexpr uint32_t kMinimum =
      schema::kSizePrefixBytes + sizeof(flatbuffers::uoffset_t) + flatbuffers::kFileIdentifierLength;
  if (available < kMinimum) return fail("message cut short: ", available, " bytes left");
  const uint32_t prefix = schema::loadLE32(data);
  if (prefix < kMinimum - schema::kSizePrefixBytes)
    return fail("message size prefix ", prefix, " is too small");
  if (prefix > available - schema::kSizePrefixBytes) {
    return fail("message size prefix ", prefix, " runs past the end (", available - schema::kSizePrefixBytes,
                " bytes left)");
  }
  if (uint64_t{prefix} + schema::kSizePrefixBytes >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return fail("message of ", prefix, " bytes is too large");
  if (!fb::SizePrefixedMessageBufferHasIdentifier(data)) return fail("message has no REEL file identifier");
  size = prefix + schema::kSizePrefixBytes;
  // Tables are at least 4 bytes: more visits than that means offsets that point back at shared tables
  // over and over (a hostile file making verification quadratic).
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(data), size, 64,
                                 std::max<uint32_t>(1024, size / 4));
  if (!fb::VerifySizePrefixedMessageBuffer(verifier)) return fail("message fails FlatBuffers verification");
  return fb::GetSizePrefixedMessage(data);
}

Result<TraceHeader> decodeHeader(const fb::Header& h) {
  TraceHeader header;
  TraceHeader::Storage& storage = header.storage();
  header.formatMajor = h.format_major();
  header.formatMinor = h.format_minor();
  header.reelVersion = view(h.reel_version());
  header.appName = view(h.app_name());
  if (const auto* args = h.app_args()) {
    for (uint32_t i = 0; i < args->size(); ++i) header.appArgs.emplace_back(view(args->Get(i)));
  }
  header.device = DeviceInfo{std::string(view(h.device_name())), std::string(view(h.device_driver())),
                             std::string(view(h.device_api_version())), std::string(view(h.device_type()))};
  header.captureTimeNs = h.capture_time_ns();
  header.firstFrame = h.first_frame();
  header.tagsEnabled = h.tags_enabled();
  if (const auto* commands = h.commands()) {
    for (uint32_t i = 0; i < commands->size(); ++i) {
      const fb::Command& c = *commands->Get(i);
      CommandDesc desc;
      desc.id = c.id();
      desc.name = keep(storage, view(c.name()));
      if (desc.id != i) return fail("command table entry ", i, " ('", desc.name, "') has id ", desc.id);
      if (c.queue() > static_cast<uint8_t>(CommandQueue::Sorted))
        return fail("command '", desc.name, "' has queue ", c.queue());
      desc.queue = static_cast<CommandQueue>(c.queue());
      desc.size = c.size();
      if (desc.size == 0 || desc.size > kMaxPacketBytes)
        return fail("command '", desc.name, "' has size ", desc.size);
      desc.layoutHash = c.layout_hash();
      auto fields = decodeFields(c.fields(), desc.size, 0, storage);
      if (!fields) return fail("command '", desc.name, "': ", fields.error().message);
      desc.fields = fields.value();
      header.commands.push_back(desc);
    }
  }
  if (const auto* layouts = h.key_layouts()) {
    for (uint32_t i = 0; i < layouts->size(); ++i) {
      auto layout = decodeKeyLayout(*layouts->Get(i), storage);
      if (!layout) return layout.error();
      header.keyLayouts.push_back(layout.value());
    }
  }
  if (const auto* kinds = h.resource_kinds()) {
    for (uint32_t i = 0; i < kinds->size(); ++i) header.resourceKinds.emplace_back(view(kinds->Get(i)));
  }
  return header;
}

Result<void> addKeyLayouts(TraceHeader& header, const fb::KeyLayouts& layouts) {
  if (const auto* v = layouts.layouts()) {
    for (uint32_t i = 0; i < v->size(); ++i) {
      auto layout = decodeKeyLayout(*v->Get(i), header.storage());
      if (!layout) return layout.error();
      if (!header.keyLayout(layout->keyType)) header.keyLayouts.push_back(layout.value());
    }
  }
  return {};
}

bool Decoder::predicted(const fb::Frame& frame) {
  if (const auto* buckets = frame.buckets()) {
    for (uint32_t i = 0; i < buckets->size(); ++i) {
      if (buckets->Get(i)->predictors() != 0 || buckets->Get(i)->same_structure()) return true;
    }
  }
  return false;
}

bool Decoder::follows(FramePlace place) const {
  return place.position != UINT64_MAX && place.position > 0 && last.position + 1 == place.position &&
         last.chunk == place.chunk;
}

Result<void> Decoder::bucket(const fb::Bucket& b, const TraceHeader& header, BucketRecord& out,
                             FramePlace place, const std::shared_ptr<const void>& keepAlive) {
  using schema::PredictedColumn;
  using schema::Predictor;
  out.index = b.index();
  out.name = view(b.name());
  out.keyType = view(b.key_type());
  out.retained = b.retained();
  out.order = static_cast<BucketOrder>(b.order());
  const uint8_t predictors = b.predictors();
  const Predictor keyPredictor = schema::predictorOf(predictors, PredictedColumn::Keys);
  const Predictor payloadPredictor = schema::predictorOf(predictors, PredictedColumn::Payload);
  const Predictor auxPredictor = schema::predictorOf(predictors, PredictedColumn::Aux);
  if (predictors >> 6 != 0 || keyPredictor > Predictor::Linear || payloadPredictor > Predictor::Linear ||
      auxPredictor > Predictor::Linear) {
    return fail("unknown predictors 0x", std::to_string(predictors));
  }
  // The frames a predicted column restores from: this bucket in the one or two frames just before, in
  // this chunk, decoded last.
  const HistorySlot* previous = nullptr;
  const HistorySlot* beforePrevious = nullptr;
  const bool sameStructure = b.same_structure();
  if (predictors != 0 || sameStructure) {
    const BucketHistory* h = out.index < history.size() ? &history[out.index] : nullptr;
    auto at = [&](const HistorySlot& slot, uint64_t back) {
      return place.position != UINT64_MAX && place.position >= back &&
             slot.place.position == place.position - back && slot.place.chunk == place.chunk;
    };
    if (h && at(h->slots[0], 1)) previous = &h->slots[0];
    if (h && at(h->slots[1], 2)) beforePrevious = &h->slots[1];
    const bool linear = keyPredictor == Predictor::Linear || payloadPredictor == Predictor::Linear ||
                        auxPredictor == Predictor::Linear;
    if (!previous || (linear && !beforePrevious)) {
      return fail("bucket ", out.index, " is encoded against the ", linear ? "two frames" : "frame",
                  " before it in its chunk, which ", linear ? "were" : "was", " not decoded before it",
                  place.position == UINT64_MAX ? " (its place in the trace is unknown)" : "");
    }
  }
  if (sameStructure && (b.chain_lengths() || b.link_body() || b.link_tag() || b.body_type() ||
                        b.body_aux_size() || b.shared_bodies() || b.tags() || b.strings() || b.passes())) {
    return fail("bucket ", out.index, " repeats the structure of the frame before it and carries its own");
  }
  // A column as stored: plain, residual, or residual kept as its segments that are not all zero
  // (format 1.7), which are put back into `unpacked` at the length of the column it restores against.
  auto columnOf = [&](const char* what, Predictor p, const Vector<uint8_t>* plain,
                      const Vector<uint8_t>* residual, const Vector<uint64_t>* segments,
                      std::vector<uint8_t> HistorySlot::*restoresAgainst, std::vector<uint8_t>& unpacked,
                      std::span<const std::byte>& column) -> Result<void> {
    if (!segments) {
      column = bytesOf(p != Predictor::Plain ? residual : plain);
      return {};
    }
    if (p == Predictor::Plain) return fail(what, " column is not predicted but has residual segments");
    const size_t bytes = (previous->*restoresAgainst).size();
    segmentMask.resize(segments->size());
    if (!segmentMask.empty()) std::memcpy(segmentMask.data(), segments->data(), segmentMask.size() * 8);
    unpacked.resize(bytes);
    const auto packed = bytesOf(residual);
    if (!schema::unpackResidualSegments(segmentMask,
                                        {reinterpret_cast<const uint8_t*>(packed.data()), packed.size()},
                                        bytes, unpacked.data())) {
      return fail(what, " column's residual segments (", packed.size(), " bytes, a mask of ",
                  segmentMask.size(), " words) do not make the ", bytes,
                  " bytes of the column it restores against");
    }
    column = {reinterpret_cast<const std::byte*>(unpacked.data()), bytes};
    return {};
  };
  std::span<const std::byte> keyBytes, payloadColumn, auxColumn;
  if (auto ok = columnOf("key", keyPredictor, b.keys(), b.keys_residual(), b.keys_residual_segments(),
                         &HistorySlot::keys, unpackedKeys, keyBytes);
      !ok)
    return ok;
  if (keyBytes.size() % sizeof(uint64_t) != 0)
    return fail("key column of ", keyBytes.size(), " bytes is not whole keys");
  out.keys_.resize(keyBytes.size() / sizeof(uint64_t));
  schema::unshuffleBytes(reinterpret_cast<const uint8_t*>(keyBytes.data()), out.keys_.size(),
                         sizeof(uint64_t), reinterpret_cast<uint8_t*>(out.keys_.data()));
  // The structure's views: into the frame before it (the record keeps that message when it is not its
  // own), or into this message; tags follow below, once checked against the strings.
  Structure structure = sameStructure ? previous->structure
                                      : Structure{.passes = span4(b.passes()),
                                                  .bodyType = span4(b.body_type()),
                                                  .chainLengths = span4(b.chain_lengths()),
                                                  .linkBody = span4(b.link_body()),
                                                  .linkTag = span4(b.link_tag()),
                                                  .bodyAuxSize = span4(b.body_aux_size()),
                                                  .sharedBodies = span4(b.shared_bodies()),
                                                  .tags = {},
                                                  .owner = keepAlive};
  out.passes_ = structure.passes;
  out.linkBody_ = structure.linkBody;
  out.linkTag_ = structure.linkTag;
  out.bodyType_ = structure.bodyType;
  out.bodyAuxSize_ = structure.bodyAuxSize;
  const std::span<const uint32_t> chainLengths = structure.chainLengths,
                                  sharedBodies = structure.sharedBodies;
  out.structureOwner_ = structure.owner == keepAlive ? nullptr : structure.owner;
  if (auto ok =
          columnOf("payload", payloadPredictor, b.payload(), b.payload_residual(),
                   b.payload_residual_segments(), &HistorySlot::payload, unpackedPayload, payloadColumn);
      !ok)
    return ok;
  if (auto ok = columnOf("aux", auxPredictor, b.aux(), b.aux_residual(), b.aux_residual_segments(),
                         &HistorySlot::aux, unpackedAux, auxColumn);
      !ok)
    return ok;
  // A residual column restores against columns of its own length (the writer predicts from nothing else).
  auto sameLength = [&](const char* what, Predictor p, uint64_t bytes,
                        std::vector<uint8_t> HistorySlot::*column) -> Result<void> {
    if (p == Predictor::Plain) return {};
    if ((previous->*column).size() != bytes ||
        (p == Predictor::Linear && (beforePrevious->*column).size() != bytes)) {
      return fail(what, " column of ", bytes, " bytes is encoded against a frame whose column has ",
                  (previous->*column).size());
    }
    return {};
  };
  if (auto ok = sameLength("key", keyPredictor, keyBytes.size(), &HistorySlot::keys); !ok) return ok;
  if (auto ok = sameLength("payload", payloadPredictor, payloadColumn.size(), &HistorySlot::payload); !ok)
    return ok;
  if (auto ok = sameLength("aux", auxPredictor, auxColumn.size(), &HistorySlot::aux); !ok) return ok;

  const size_t keys = out.keys_.size(), links = out.linkBody_.size(), bodies = out.bodyType_.size();
  if (chainLengths.size() != keys) return fail(keys, " keys but ", chainLengths.size(), " chain lengths");
  if (!out.passes_.empty() && out.passes_.size() != keys)
    return fail(keys, " keys but ", out.passes_.size(), " passes");
  out.chainStart_.resize(keys + 1);
  uint64_t link = 0;
  for (size_t k = 0; k < keys; ++k) {
    out.chainStart_[k] = static_cast<uint32_t>(link);
    link += chainLengths[k];
    if (link > links)
      return fail("chains of keys 0..", k, " hold ", link, " links, more than the ", links, " there are");
  }
  out.chainStart_[keys] = static_cast<uint32_t>(link);
  if (link != links) return fail("chains hold ", link, " links, but there are ", links);
  if (!out.linkTag_.empty() && out.linkTag_.size() != links)
    return fail(links, " links but ", out.linkTag_.size(), " link tags");
  if (out.bodyAuxSize_.size() != bodies)
    return fail(bodies, " bodies but ", out.bodyAuxSize_.size(), " aux sizes");
  for (size_t l = 0; l < links; ++l) {
    if (out.linkBody_[l] >= bodies) return fail("link ", l, " names body ", out.linkBody_[l], " of ", bodies);
  }

  // Command sizes by id (0: not in the table; a command's size is never 0): one load per body.
  const size_t commandCount = header.commands.size();
  out.typeSize_.resize(commandCount);
  for (size_t c = 0; c < commandCount; ++c) out.typeSize_[c] = header.commands[c].size;
  // The payload column's groups are keyed by command id alone (schema::ColumnGroups, as the writer
  // made them): count the bodies of each id and note the order ids first appear in, then each body's
  // offset is its group's start plus its rank. Arrays indexed by id instead of a group per body.
  typeBodies.assign(commandCount, 0);
  typeOrder.clear();
  auxGroups.clear();
  uint64_t payload = 0, aux = 0;
  for (size_t i = 0; i < bodies; ++i) {
    const uint16_t type = out.bodyType_[i];
    const uint32_t size = type < commandCount ? out.typeSize_[type] : 0;
    if (size == 0) return fail("body ", i, " has command id ", type, ", not in the trace's command table");
    payload += size;
    aux += out.bodyAuxSize_[i];
    if (typeBodies[type]++ == 0) typeOrder.push_back(type);
  }
  if (payload != payloadColumn.size())
    return fail("payloads need ", payload, " bytes, there are ", payloadColumn.size());
  if (aux != auxColumn.size()) return fail("aux data needs ", aux, " bytes, there are ", auxColumn.size());
  // Aux data is grouped by command id and size: most bodies have none, so the general grouping only
  // runs when there is some.
  if (aux != 0) {
    auxGroups.addBodies(bodies, [&](size_t i) {
      return std::pair<uint64_t, uint32_t>{
          schema::ColumnGroups::auxGroupKey(out.bodyType_[i], out.bodyAuxSize_[i]), out.bodyAuxSize_[i]};
    });
    auxGroups.finish();
    if (auxGroups.totalBytes() != aux)
      return fail("aux data needs ", aux, " bytes, there are ", auxColumn.size());
  }
  // Groups unshuffled whole, in place: each body's bytes are where its group and rank put them, so
  // nothing is moved a second time into body order.
  out.payload_.resize(payload);
  typeCursor.assign(commandCount, 0);
  uint64_t groupStart = 0;
  for (const uint16_t type : typeOrder) {
    const uint32_t size = out.typeSize_[type];
    schema::unshuffleBytes(reinterpret_cast<const uint8_t*>(payloadColumn.data()) + groupStart,
                           typeBodies[type], size,
                           reinterpret_cast<uint8_t*>(out.payload_.data()) + groupStart);
    typeCursor[type] = groupStart;
    groupStart += uint64_t{size} * typeBodies[type];
  }
  out.aux_.resize(aux);
  out.bodyPayload_.resize(bodies);
  out.bodyAux_.resize(bodies);
  out.bodyShared_.resize(bodies);
  for (size_t i = 0; i < bodies; ++i) {
    const uint16_t type = out.bodyType_[i];
    out.bodyPayload_[i] = static_cast<uint32_t>(typeCursor[type]);
    typeCursor[type] += out.typeSize_[type];
  }
  if (aux != 0) {
    auxGroups.gatherGroups(reinterpret_cast<const uint8_t*>(auxColumn.data()),
                           reinterpret_cast<uint8_t*>(out.aux_.data()));
    for (size_t i = 0; i < bodies; ++i) out.bodyAux_[i] = static_cast<uint32_t>(auxGroups.elementOffset(i));
  } else if (bodies) {
    std::memset(out.bodyAux_.data(), 0, bodies * sizeof(uint32_t));
  }
  if (bodies) std::memset(out.bodyShared_.data(), 0, bodies);
  for (size_t i = 0; i < sharedBodies.size(); ++i) {
    if (sharedBodies[i] >= bodies || (i > 0 && sharedBodies[i] <= sharedBodies[i - 1])) {
      return fail("shared body list entry ", i, " (", sharedBodies[i], ") is out of order or range");
    }
    out.bodyShared_[sharedBodies[i]] = 1;
  }

  const auto* strings = b.strings();
  const uint32_t stringCount = strings ? strings->size() : 0;
  out.tags_.clear();
  if (sameStructure) {
    out.tags_ = structure.tags;
  } else if (const auto* tags = b.tags()) {
    out.tags_.reserve(tags->size());
    for (uint32_t i = 0; i < tags->size(); ++i) {
      const fb::Tag& t = *tags->Get(i);
      if (t.file() >= stringCount || t.function() >= stringCount || t.message() >= stringCount) {
        return fail("tag ", i, " names a string past the ", stringCount, " there are");
      }
      out.tags_.push_back(TagView{view(strings->Get(t.file())), view(strings->Get(t.function())),
                                  view(strings->Get(t.message())), t.line()});
    }
  }
  const size_t tagCount = out.tags_.size();
  for (size_t l = 0; l < out.linkTag_.size(); ++l) {
    if (out.linkTag_[l] > tagCount) return fail("link ", l, " names tag ", out.linkTag_[l], " of ", tagCount);
  }

  auto* keyData = reinterpret_cast<uint8_t*>(out.keys_.data());
  auto* payloadData = reinterpret_cast<uint8_t*>(out.payload_.data());
  auto* auxData = reinterpret_cast<uint8_t*>(out.aux_.data());
  const uint8_t* none = nullptr;
  auto b2 = [&](std::vector<uint8_t> HistorySlot::*column) {
    return beforePrevious ? (beforePrevious->*column).data() : none;
  };
  if (keyPredictor != Predictor::Plain) {
    schema::restore(keyPredictor, keyData, previous->keys.data(), b2(&HistorySlot::keys), keyBytes.size(), 8);
  }
  if (payloadPredictor != Predictor::Plain) {
    schema::restore(payloadPredictor, payloadData, previous->payload.data(), b2(&HistorySlot::payload),
                    payload, 4);
  }
  if (auxPredictor != Predictor::Plain) {
    schema::restore(auxPredictor, auxData, previous->aux.data(), b2(&HistorySlot::aux), aux, 4);
  }
  // Kept for the frames after this one in its chunk. Whatever the header's version: a chunk is read as
  // it is, and what it holds says whether it predicts.
  if (place.position != UINT64_MAX) {
    if (out.index >= history.size()) history.resize(out.index + 1);
    BucketHistory& h = history[out.index];
    // The same frame decoded again replaces itself: the frame before it stays in the other slot.
    if (h.slots[0].place.position != place.position || h.slots[0].place.chunk != place.chunk)
      std::swap(h.slots[1], h.slots[0]);
    h.slots[0].keys.assign(keyData, keyData + keyBytes.size());
    h.slots[0].payload.assign(payloadData, payloadData + payload);
    h.slots[0].aux.assign(auxData, auxData + aux);
    h.slots[0].place = place;
    if (!sameStructure) structure.tags = out.tags_;
    h.slots[0].structure = std::move(structure);
  }
  return {};
}

Result<void> Decoder::frame(const fb::Frame& f, const TraceHeader& header,
                            std::shared_ptr<const void> keepAlive, FrameRecord& out, FramePlace place) {
  last = {};
  out.number = f.number();
  out.sortedOrderHash = f.sorted_order_hash();
  out.dropped = f.dropped();
  if (out.dropped && f.buckets() && f.buckets()->size() > 0)
    return fail("frame ", out.number, " is marked dropped but has ", f.buckets()->size(), " buckets");
  out.requests.clear();
  if (const auto* requests = f.requests()) {
    out.requests.reserve(requests->size());
    for (uint32_t i = 0; i < requests->size(); ++i) {
      const fb::Request& r = *requests->Get(i);
      const CommandDesc* command = header.command(r.type());
      if (!command)
        return fail("frame ", out.number, ": request ", i, " has command id ", r.type(),
                    ", not in the trace's command table");
      const auto payload = bytesOf(r.payload());
      if (payload.size() != command->size) {
        return fail("frame ", out.number, ": request ", i, " (", command->name, ") is ", payload.size(),
                    " bytes, its command ", command->size);
      }
      out.requests.push_back(RequestRecord{r.type(), payload, bytesOf(r.aux())});
    }
  }
  const auto* buckets = f.buckets();
  // Existing records keep their buffers: a replay decodes frame after frame into one FrameRecord.
  out.buckets.resize(buckets ? buckets->size() : 0);
  for (uint32_t i = 0; i < out.buckets.size(); ++i) {
    if (auto ok = bucket(*buckets->Get(i), header, out.buckets[i], place, keepAlive); !ok)
      return fail("frame ", out.number, ": bucket ", i, ": ", ok.error().message);
  }
  out.keepAlive = std::move(keepAlive);
  last = place;
  return {};
}

size_t FrameRecord::packetCount() const {
  size_t n = 0;
  for (const BucketRecord& b : buckets) n += b.linkCount();
  return n;
}

Result<ResourcesRecord> decodeResources(const fb::Resources& r, const TraceHeader& header,
                                        std::shared_ptr<const void> keepAlive) {
  ResourcesRecord out;
  out.frame = r.frame();
  if (const auto* resources = r.resources()) {
    out.resources.reserve(resources->size());
    for (uint32_t i = 0; i < resources->size(); ++i) {
      const fb::LiveResource& live = *resources->Get(i);
      LiveResourceRecord record;
      record.createType = live.create_type();
      const CommandDesc* command = header.command(record.createType);
      if (!command)
        return fail("resource ", i, " has command id ", record.createType,
                    ", not in the trace's command table");
      record.create = bytesOf(live.create());
      if (record.create.size() != command->size) {
        return fail("resource ", i, " (", command->name, ") is ", record.create.size(),
                    " bytes, its command ", command->size);
      }
      record.code = bytesOf(live.code());
      if (const auto* contents = live.contents()) {
        for (uint32_t c = 0; c < contents->size(); ++c) {
          const fb::ResourceContents& mip = *contents->Get(c);
          record.contents.push_back({mip.mip(), bytesOf(mip.data())});
        }
      }
      record.readbackError = view(live.readback_error());
      out.resources.push_back(std::move(record));
    }
  }
  out.keepAlive = std::move(keepAlive);
  return out;
}

bool messageFrame(const fb::Message& message, uint64_t& frame) {
  if (const auto* f = message.body_as_Frame()) return frame = f->number(), true;
  if (const auto* r = message.body_as_Resources()) return frame = r->frame(), true;
  if (const auto* k = message.body_as_KeyFrame()) return frame = k->frame(), true;
  if (const auto* m = message.body_as_Marker()) return frame = m->frame(), true;
  return false;
}

}  // namespace reel::trace

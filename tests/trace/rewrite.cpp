#include "rewrite.h"

#include <fstream>
#include <iterator>
#include <vector>

#include "reel/schema/compression.h"
#include "reel/schema/container.h"
#include "reel/schema/messages.h"
#include "reel/trace/reader.h"
#include "reel/trace/writer.h"

namespace reel::testing {
namespace {

using Bytes = std::vector<std::byte>;

Result<Bytes> decompress(schema::ChunkDecompressor& decompressor, const std::byte* data, uint64_t size) {
  const auto bound = schema::ChunkDecompressor::contentBound(data, size);
  if (!bound) return fail("a zstd frame of unknown size");
  Bytes out(*bound);
  auto n = decompressor.decompress(data, size, out.data(), out.size());
  if (!n) return n.error();
  out.resize(n.value());
  return out;
}

class Renumbering {
 public:
  Renumbering(const TraceEdit& edit, uint16_t count) : edit_(edit), count_(count) {}
  uint16_t operator()(uint16_t id) const { return edit_.renumber ? edit_.renumber(id, count_) : id; }

  Result<void> header(fb::Header& h) const {
    auto* commands = h.mutable_commands();
    if (!commands) return fail("the header has no command table");
    std::vector<const uint8_t*> tables;
    for (uint32_t i = 0; i < commands->size(); ++i) {
      fb::Command* c = commands->GetMutableObject(i);
      tables.push_back(reinterpret_cast<const uint8_t*>(c));
      if (!c->mutate_id((*this)(c->id())))
        return fail("command ", i, ": its id cannot be rewritten in place");
      if (c->name() && c->name()->str() == edit_.changeLayoutOf)
        c->mutate_layout_hash(c->layout_hash() ^ 0x5A5A);
    }
    // Entry i of the table must be the command of id i: the tables move to their new slots.
    for (uint32_t i = 0; i < tables.size(); ++i)
      commands->MutateOffset((*this)(static_cast<uint16_t>(i)), tables[i]);
    return {};
  }

  Result<void> frame(fb::Frame& f) const {
    if (auto* requests = f.mutable_requests()) {
      for (uint32_t i = 0; i < requests->size(); ++i) {
        fb::Request* r = requests->GetMutableObject(i);
        if (!r->mutate_type((*this)(r->type()))) return fail("request ", i, ": its type cannot be rewritten");
      }
    }
    if (auto* buckets = f.mutable_buckets()) {
      for (uint32_t b = 0; b < buckets->size(); ++b) {
        if (auto* types = buckets->GetMutableObject(b)->mutable_body_type()) {
          for (uint32_t i = 0; i < types->size(); ++i) types->Mutate(i, (*this)(types->Get(i)));
        }
      }
    }
    return {};
  }

  Result<void> resources(fb::Resources& r) const {
    if (auto* live = r.mutable_resources()) {
      for (uint32_t i = 0; i < live->size(); ++i) {
        fb::LiveResource* resource = live->GetMutableObject(i);
        if (!resource->mutate_create_type((*this)(resource->create_type())))
          return fail("resource ", i, ": its create type cannot be rewritten");
      }
    }
    return {};
  }

 private:
  const TraceEdit& edit_;
  uint16_t count_;
};

// A message of a kind this build does not know: its body is a table (a Marker's, here) that a reader of
// that kind would read, and the verifier passes an unknown union member as FlatBuffers says it must.
std::vector<uint8_t> unknownMessage(uint8_t kind, uint64_t frame) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto body = fb::CreateMarker(fbb, frame, fbb.CreateString("from a newer writer"));
  fb::MessageBuilder message(fbb);
  message.add_body_type(static_cast<fb::Body>(kind));
  message.add_body(body.Union());
  fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

// FlatBuffers leaves out a scalar equal to its default, and a 1.0 trace's format_minor is absent: there
// may be no bytes to change in place. The header's vtable has a slot for it, though (format_major, the
// field before it, is present), and a slot may point at any 2 bytes of the table: pointing it at the low
// half of app_name's offset (a forward offset, so never 0 or 1 in a real header) gives a minor version
// above this reader's, the major version unchanged.
Result<void> makeMinorVersionNewer(fb::Header& header) {
  auto* table = reinterpret_cast<uint8_t*>(&header);
  const auto vtableOffset = flatbuffers::ReadScalar<flatbuffers::soffset_t>(table);
  uint8_t* vtable = table - vtableOffset;
  const auto vtableSize = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable);
  if (vtableSize <= fb::Header::VT_APP_NAME) return fail("the header's vtable has no app_name slot");
  const auto appName = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable + fb::Header::VT_APP_NAME);
  if (appName == 0) return fail("the header has no app_name");
  flatbuffers::WriteScalar<flatbuffers::voffset_t>(vtable + fb::Header::VT_FORMAT_MINOR, appName);
  if (header.format_minor() <= schema::kFormatMinor)
    return fail("the borrowed minor version ", header.format_minor(), " is not newer than this reader's");
  return {};
}

}  // namespace

uint16_t rotatedIds(uint16_t id, uint16_t count) {
  return id == 0 ? 0 : static_cast<uint16_t>(id % (count - 1) + 1);
}

Result<void> rewriteTrace(const std::string& in, const std::string& out, const TraceEdit& edit) {
  auto reader = trace::TraceReader::open(in);
  if (!reader) return reader.error();
  std::ifstream stream(in, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  const auto* bytes = reinterpret_cast<const std::byte*>(file.data());
  const Renumbering renumber(edit, static_cast<uint16_t>(reader->header().commands.size()));
  schema::ChunkDecompressor decompressor;

  const auto headerFrame = schema::ChunkDecompressor::frameExtent(bytes, file.size());
  if (!headerFrame.error.empty()) return fail(in, ": header frame: ", headerFrame.error);
  auto header = decompress(decompressor, bytes, headerFrame.bytes);
  if (!header) return header.error();
  auto* headerMessage = fb::GetMutableSizePrefixedMessage(header->data());
  auto* headerBody = static_cast<fb::Header*>(headerMessage->mutable_body());
  if (auto ok = renumber.header(*headerBody); !ok) return ok;
  if (edit.formatMinor && !headerBody->mutate_format_minor(*edit.formatMinor))
    return fail(in, ": its header's format minor cannot be rewritten in place (format 1.0)");
  if (edit.newerMinorVersion) {
    if (auto ok = makeMinorVersionNewer(*headerBody); !ok) return fail(in, ": ", ok.error().message);
  }

  auto writer = trace::TraceFileWriter::create(out, {});
  if (!writer) return writer.error();
  const uint64_t headerBytes = schema::loadLE32(header->data()) + uint64_t{schema::kSizePrefixBytes};
  if (auto ok = writer->writeHeader({reinterpret_cast<const uint8_t*>(header->data()), headerBytes}); !ok)
    return ok;

  std::vector<Bytes> chunks;
  for (const trace::ChunkInfo& c : reader->chunks()) {
    auto raw = decompress(decompressor, bytes + c.offset, c.compressedSize);
    if (!raw) return raw.error();
    chunks.push_back(std::move(raw.value()));
  }
  for (const trace::MessageInfo& m : reader->messages()) {
    std::byte* at = chunks[m.chunk].data() + m.offset;
    fb::Message* message = fb::GetMutableSizePrefixedMessage(at);
    Result<void> ok;
    switch (static_cast<trace::MessageKind>(m.kind)) {
      case trace::MessageKind::Frame: {
        auto* frame = static_cast<fb::Frame*>(message->mutable_body());
        ok = renumber.frame(*frame);
        if (ok && edit.changeOrderHashes &&
            !frame->mutate_sorted_order_hash(frame->sorted_order_hash() ^ 0x5A5A5A5Aull))
          ok = fail(in, ": frame ", m.frame, ": no sorted-order hash to change");
        if (edit.markEverySegment && frame->mutable_buckets()) {
          for (uint32_t b = 0; b < frame->buckets()->size(); ++b) {
            auto* mask = frame->mutable_buckets()->GetMutableObject(b)->mutable_payload_residual_segments();
            if (mask && mask->size() > 0) mask->Mutate(0, ~uint64_t{0});
          }
        }
        break;
      }
      case trace::MessageKind::Resources:
        ok = renumber.resources(*static_cast<fb::Resources*>(message->mutable_body()));
        if (ok && edit.unknownResourceCommand) {
          if (auto* live = static_cast<fb::Resources*>(message->mutable_body())->mutable_resources()) {
            for (uint32_t i = 0; i < live->size(); ++i) live->GetMutableObject(i)->mutate_create_type(0xFFFF);
          }
        }
        break;
      default:
        break;
    }
    if (!ok) return ok;
    const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(at), m.size);
    if (auto written = writer->append(span, static_cast<trace::MessageKind>(m.kind), m.frame); !written)
      return written;
    if (static_cast<trace::MessageKind>(m.kind) == trace::MessageKind::Frame) {
      if (edit.unknownKind) {
        const std::vector<uint8_t> unknown = unknownMessage(edit.unknownKind, m.frame);
        if (auto written =
                writer->append(unknown, static_cast<trace::MessageKind>(edit.unknownKind), m.frame);
            !written)
          return written;
      }
      if (auto done = writer->frameDone(); !done) return done;
    }
  }
  return writer->finish();
}

}  // namespace reel::testing

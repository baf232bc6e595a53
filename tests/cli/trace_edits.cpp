#include "trace_edits.h"

#include <fstream>
#include <iterator>
#include <vector>

#include "reel/schema/compression.h"
#include "reel/schema/container.h"
#include "reel/schema/messages.h"
#include "reel/trace/reader.h"
#include "reel/trace/writer.h"

namespace reel::test {
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

// FlatBuffers leaves out a scalar equal to its default, and the writer's format_minor is 0 or absent:
// there may be no bytes to change in place. The header's vtable has a slot for it, though (format_major,
// the field before it, is present), and a slot may point at any 2 bytes of the table: pointing it at
// the low half of app_name's offset (a forward offset, so never 0 or 1 in a real header) gives a minor
// version above this reader's, the major version unchanged.
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

Result<void> copyTraceWith(const std::string& in, const std::string& out, const TraceChange& change) {
  auto reader = trace::TraceReader::open(in);
  if (!reader) return reader.error();
  std::ifstream stream(in, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  const auto* bytes = reinterpret_cast<const std::byte*>(file.data());
  schema::ChunkDecompressor decompressor;

  const auto headerFrame = schema::ChunkDecompressor::frameExtent(bytes, file.size());
  if (!headerFrame.error.empty()) return fail(in, ": header frame: ", headerFrame.error);
  auto header = decompress(decompressor, bytes, headerFrame.bytes);
  if (!header) return header.error();
  if (change.newerMinorVersion) {
    auto* message = fb::GetMutableSizePrefixedMessage(header->data());
    if (auto ok = makeMinorVersionNewer(*static_cast<fb::Header*>(message->mutable_body())); !ok) return ok;
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
    const auto kind = static_cast<trace::MessageKind>(m.kind);
    if (kind == trace::MessageKind::Frame && change.changeOrderHashes) {
      auto* frame = static_cast<fb::Frame*>(fb::GetMutableSizePrefixedMessage(at)->mutable_body());
      if (!frame->mutate_sorted_order_hash(frame->sorted_order_hash() ^ 0x5A5A5A5Aull))
        return fail(in, ": frame ", m.frame, ": no sorted-order hash to change");
    }
    const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(at), m.size);
    if (auto written = writer->append(span, kind, m.frame); !written) return written;
    if (kind == trace::MessageKind::Frame) {
      if (auto done = writer->frameDone(); !done) return done;
    }
  }
  return writer->finish();
}

}  // namespace reel::test

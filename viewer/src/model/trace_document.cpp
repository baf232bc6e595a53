#include "model/trace_document.h"

#include <chrono>

#include "reel/schema/messages.h"

namespace reel::viewer {
namespace {
double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

Result<std::unique_ptr<TraceDocument>> TraceDocument::open(const std::string& path) {
  auto reader = trace::TraceReader::open(path);
  if (!reader) return reader.error();
  return std::unique_ptr<TraceDocument>(new TraceDocument(path, std::move(reader.value())));
}

std::vector<FrameSummary> TraceDocument::indexSummaries() const {
  std::vector<FrameSummary> out(frameCount());
  for (size_t i = 0; i < out.size(); ++i) out[i].number = frameNumber(i);
  // The index lists each frame's message: where it is and how large it decompresses.
  for (const trace::MessageInfo& m : reader_.messages()) {
    if (m.kind != static_cast<uint8_t>(fb::Body::Frame)) continue;
    if (const auto i = findFrame(m.frame)) {
      out[*i].chunk = m.chunk;
      out[*i].messageBytes = m.size;
    }
  }
  return out;
}

Result<const LoadedFrame*> TraceDocument::load(size_t index) {
  if (loaded_ && loaded_->index == index) return loaded_.get();
  auto frame = std::make_unique<LoadedFrame>();
  frame->index = index;
  auto start = std::chrono::steady_clock::now();
  auto record = reader_.readFrame(index);
  if (!record) return record.error();
  frame->record = std::move(record.value());
  frame->readMs = msSince(start);
  start = std::chrono::steady_clock::now();
  frame->table = FrameTable::build(frame->record);
  frame->buildMs = msSince(start);
  loaded_ = std::move(frame);
  return loaded_.get();
}

}  // namespace reel::viewer

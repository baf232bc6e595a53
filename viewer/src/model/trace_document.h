#pragma once
// An open trace as the viewer holds it: the reader (header, frame index, warnings) and the one frame
// being looked at, read and turned into a FrameTable on demand. Opening reads only the header and
// the index (or rebuilds it), so a trace of any length opens at once; per-frame figures come from a
// FrameScanner in the background (frame_scan.h).
//
// Threading: one thread (the UI thread). The reader is not thread-safe; the scanner and the replay
// each open the file with readers of their own.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/frame_scan.h"
#include "model/frame_table.h"
#include "reel/trace/reader.h"

namespace reel::viewer {

struct LoadedFrame {
  size_t index = 0;  // in the trace's frame order
  trace::FrameRecord record;
  FrameTable table;
  double readMs = 0;   // decompress + verify + decode
  double buildMs = 0;  // rows + sorted order
};

class TraceDocument {
 public:
  static Result<std::unique_ptr<TraceDocument>> open(const std::string& path);

  const std::string& path() const { return path_; }
  trace::TraceReader& reader() { return reader_; }
  const trace::TraceHeader& header() const { return reader_.header(); }
  const std::vector<std::string>& warnings() const { return reader_.warnings(); }
  size_t frameCount() const { return reader_.frameCount(); }
  uint64_t frameNumber(size_t index) const { return reader_.frameNumber(index); }
  std::optional<size_t> findFrame(uint64_t number) const { return reader_.findFrame(number); }

  // What the index says of each frame, before any is read: number, chunk, message size.
  std::vector<FrameSummary> indexSummaries() const;

  // Reads frame `index` and builds its table; the previous one is dropped.
  Result<const LoadedFrame*> load(size_t index);
  const LoadedFrame* loaded() const { return loaded_.get(); }

 private:
  TraceDocument(std::string path, trace::TraceReader reader)
      : path_(std::move(path)), reader_(std::move(reader)) {}
  std::string path_;
  trace::TraceReader reader_;
  std::unique_ptr<LoadedFrame> loaded_;
};

}  // namespace reel::viewer

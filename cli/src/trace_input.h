#pragma once
// Opening a trace at the CLI edge: the reader's error becomes BadInput (one line, exit 2); its warnings
// (index rebuilt, file cut short) go to stderr once.

#include <cstdio>
#include <filesystem>
#include <string>

#include "reel/trace/reader.h"
#include "subcommand.h"

namespace reel::cli {

inline trace::TraceReader openTrace(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw BadInput(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw BadInput(path + ": is a directory, not a trace");
  auto reader = trace::TraceReader::open(path);
  if (!reader) throw BadInput(reader.error().message);
  for (const std::string& warning : reader->warnings())
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  return std::move(reader.value());
}

// A trace that holds no frame and did not end (cut short before its first whole chunk, or every chunk
// corrupt) has nothing to show: BadInput naming the file. A trace that ended with no frame is sound.
void requireReadableFrames(const trace::TraceReader& reader);

// "A-B", "A" or "A-" (to the last frame) over the trace's frame numbers; throws BadInput when the range
// is malformed or outside the trace. Returns frame indices [first, last].
std::pair<size_t, size_t> frameRange(const trace::TraceReader& reader, const std::string& text);

}  // namespace reel::cli

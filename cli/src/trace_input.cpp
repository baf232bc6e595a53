#include "trace_input.h"

#include <charconv>

namespace reel::cli {

void requireReadableFrames(const trace::TraceReader& reader) {
  if (reader.frameCount() > 0 || reader.complete()) return;
  throw BadInput(reader.name() + ": no frame can be read (" +
                 (reader.chunks().empty() ? "the file ends before its first whole chunk"
                                          : "no chunk holds a readable frame") +
                 ")");
}

std::pair<size_t, size_t> frameRange(const trace::TraceReader& reader, const std::string& text) {
  if (reader.frameCount() == 0) throw BadInput(reader.name() + ": the trace holds no frames");
  const uint64_t firstNumber = reader.frameNumber(0),
                 lastNumber = reader.frameNumber(reader.frameCount() - 1);
  uint64_t a = firstNumber, b = lastNumber;
  if (!text.empty()) {
    const size_t dash = text.find('-');
    auto parse = [&](std::string_view part, uint64_t& out) {
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
      if (ec != std::errc() || end != part.data() + part.size() || part.empty()) {
        throw BadInput("--frames '" + text + "': expected A-B, A or A- with frame numbers");
      }
    };
    if (dash == std::string::npos) {
      parse(text, a);
      b = a;
    } else {
      parse(std::string_view(text).substr(0, dash), a);
      if (dash + 1 < text.size()) parse(std::string_view(text).substr(dash + 1), b);
    }
    if (a > b) throw BadInput("--frames '" + text + "': the first frame is after the last");
  }
  const auto first = reader.findFrame(a), last = reader.findFrame(b);
  if (!first || !last) {
    throw BadInput(reader.name() + ": frames " + std::to_string(a) + "-" + std::to_string(b) +
                   " are outside the trace (it holds frames " + std::to_string(firstNumber) + "-" +
                   std::to_string(lastNumber) + ")");
  }
  return {*first, *last};
}

}  // namespace reel::cli

#include "reel/capture/environment.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace reel::capture {
namespace {

// The whole of `text` as a number of out's type (a sign only where the type has one).
template <typename Integer>
bool parseNumber(std::string_view text, Integer& out) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<FrameRange> parseFrameRange(std::string_view text) {
  auto bad = [&](const char* why) {
    return fail("REEL_CAPTURE_FRAMES='", std::string(text), "': ", why, " (expected A-B, A or A-)");
  };
  FrameRange range;
  const size_t dash = text.find('-');
  if (!parseNumber(text.substr(0, dash), range.first)) return bad("the first frame is not a number");
  if (dash == std::string_view::npos) {
    range.last = range.first;
  } else if (dash + 1 < text.size()) {
    if (!parseNumber(text.substr(dash + 1), range.last)) return bad("the last frame is not a number");
    if (range.last < range.first) return bad("the last frame comes before the first");
  }
  return range;
}

Result<std::optional<CaptureOptions>> optionsFromEnvironment(CaptureOptions defaults) {
  const char* path = std::getenv("REEL_CAPTURE");
  if (!path || !*path) return std::optional<CaptureOptions>();
  CaptureOptions options = std::move(defaults);
  options.path = path;
  if (const char* frames = std::getenv("REEL_CAPTURE_FRAMES"); frames && *frames) {
    auto range = parseFrameRange(frames);
    if (!range) return range.error();
    options.firstFrame = range->first;
    options.lastFrame = range->last;
  }
  if (const char* keys = std::getenv("REEL_CAPTURE_KEY_FRAMES"); keys && *keys) {
    // "0": none; "<N>ms": every N ms; "<N>f": every N frames (KeyFrameSettings).
    const std::string_view text = keys;
    uint32_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    const std::string_view unit(end, size_t(text.data() + text.size() - end));
    if (ec != std::errc() || !(unit == "ms" || unit == "f" || (unit.empty() && n == 0))) {
      return fail("REEL_CAPTURE_KEY_FRAMES='", text, "': expected 0, <N>ms or <N>f");
    }
    options.keyFrames = {};
    options.keyFrames.everyMillis = unit == "ms" ? n : 0;
    options.keyFrames.everyFrames = unit == "f" ? n : 0;
  }
  for (const auto& [variable, threads] :
       {std::pair{"REEL_CAPTURE_ENCODE_THREADS", &options.encodeThreads},
        std::pair{"REEL_CAPTURE_COMPRESS_THREADS", &options.compression.threads}}) {
    const char* text = std::getenv(variable);
    if (!text || !*text) continue;
    uint64_t n = 0;
    if (!parseNumber(text, n) || n > 64)
      return fail(variable, "='", text, "': expected a number of threads, 0 to 64");
    *threads = static_cast<uint32_t>(n);
  }
  if (const char* level = std::getenv("REEL_CAPTURE_LEVEL"); level && *level) {
    int n = 0;
    if (!parseNumber(level, n) || n < kMinCaptureLevel || n > kMaxCaptureLevel || n == 0) {
      return fail("REEL_CAPTURE_LEVEL='", level, "': expected a zstd level, ", kMinCaptureLevel,
                  " to -1 or 1 to ", kMaxCaptureLevel);
    }
    options.compression.level = n;
  }
  if (const char* priority = std::getenv("REEL_CAPTURE_PRIORITY"); priority && *priority) {
    const bool adaptive = std::string_view(priority) == "adaptive";
    const auto parsed = adaptive ? std::optional(ThreadPriority::Idle) : parseThreadPriority(priority);
    if (!parsed) {
      return fail("REEL_CAPTURE_PRIORITY='", priority, "': expected normal, background, idle or adaptive");
    }
    options.threadPriority = *parsed;
    options.normalWhenBehind = adaptive;
  }
  if (!options.log) {
    options.log = [](std::string_view line) {
      std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
    };
  }
  return std::optional<CaptureOptions>(std::move(options));
}

Result<std::unique_ptr<Capture>> installFromEnvironment(Renderer& renderer, CaptureOptions defaults) {
  auto options = optionsFromEnvironment(std::move(defaults));
  if (!options) return options.error();
  if (!*options) return std::unique_ptr<Capture>();
  return Capture::start(renderer, std::move(**options));
}

}  // namespace reel::capture

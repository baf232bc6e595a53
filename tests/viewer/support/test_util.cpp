#include "test_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "reel/replay/session.h"
#include "reel/runtime/renderer.h"
#include "reel/trace/reader.h"
#include "reel/vulkan/vulkan_device.h"

namespace reel::viewer::testing {

namespace {

std::filesystem::path scratchRoot() {
  return std::filesystem::temp_directory_path() / ("reel_viewer_tests_" + std::to_string(::getpid()));
}

// Scratch folders go at the end of a run that passed; a failed run keeps them to look at.
class RemoveScratch final : public ::testing::Environment {
 public:
  void TearDown() override {
    if (::testing::UnitTest::GetInstance()->Passed()) {
      std::error_code ignored;
      std::filesystem::remove_all(scratchRoot(), ignored);
    } else {
      std::fprintf(stderr, "reel_viewer_tests: scratch files kept in %s\n", scratchRoot().c_str());
    }
  }
};
[[maybe_unused]] const ::testing::Environment* const kRemoveScratch =
    ::testing::AddGlobalTestEnvironment(new RemoveScratch);

}  // namespace

std::filesystem::path testFolder() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "viewer";
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const auto dir = scratchRoot() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

Result<std::unique_ptr<Device>> vulkanDevice() {
  VulkanDeviceOptions options;
  options.applicationName = "reel_viewer_tests";
  auto device = VulkanDevice::create(options);
  if (!device) return device.error();
  return std::unique_ptr<Device>(std::move(device.value()));
}

Result<std::vector<std::byte>> directReplay(const std::string& tracePath, Device& device, size_t frameIndex,
                                            uint64_t stopAfterPackets, uint32_t texture) {
  auto reader = trace::TraceReader::open(tracePath);
  if (!reader) return reader.error();
  // The engine's play path on the caller's device: every frame from the capture start, the last one
  // stopped; none of the checkpoints, restores and continued steps that the viewer's stepping uses.
  auto session = replay::ReplaySession::create(reader.value(), device, {});
  if (!session) return session.error();
  if (auto played = session.value()->replayFrame(frameIndex, stopAfterPackets); !played)
    return played.error();
  auto texels = session.value()->renderer().withIdleDevice(
      [&](Device& d) { return d.readTexture(TextureHandle{texture}, 0); });
  const auto errors = device.takeErrors();
  if (!errors.empty()) return fail("direct replay: device error: ", errors.front());
  if (!session.value()->feeder().sortMismatches().empty())
    return fail("direct replay: sorted order mismatch");
  return texels;
}

struct ReferenceReplay::State {
  std::unique_ptr<trace::TraceReader> reader;
  std::unique_ptr<replay::ReplaySession> session;
};

ReferenceReplay::ReferenceReplay(const std::string& trace, const std::string& device, bool validate)
    : state_(std::make_unique<State>()) {
  auto reader = trace::TraceReader::open(trace);
  EXPECT_TRUE(reader) << reader.error().message;
  if (!reader) return;
  state_->reader = std::make_unique<trace::TraceReader>(std::move(reader.value()));
  replay::SessionOptions options;
  options.device = device;
  options.validate = validate;
  auto session = replay::ReplaySession::create(*state_->reader, options);
  EXPECT_TRUE(session) << session.error().message;
  if (session) state_->session = std::move(session.value());
}

ReferenceReplay::~ReferenceReplay() = default;

namespace {
image::Image replayImage(replay::ReplaySession* session, size_t frame, uint64_t stop,
                         const replay::TargetChoice& choice) {
  if (!session) return {};
  auto result = session->replayFrame(frame, stop, choice);
  EXPECT_TRUE(result) << result.error().message;
  if (!result || !result->image) return {};
  return std::move(*result->image);
}
}  // namespace

image::Image ReferenceReplay::texture(size_t frame, uint64_t stop, uint32_t texture) {
  replay::TargetChoice choice;
  choice.kind = replay::TargetChoice::Kind::Texture;
  choice.index = texture & 0xfffff;
  return replayImage(state_->session.get(), frame, stop, choice);
}

image::Image ReferenceReplay::target(size_t frame, uint64_t stop, uint32_t renderTarget,
                                     uint32_t attachment) {
  replay::TargetChoice choice;
  choice.kind = replay::TargetChoice::Kind::RenderTarget;
  choice.index = renderTarget & 0xfffff;
  choice.attachment = attachment;
  return replayImage(state_->session.get(), frame, stop, choice);
}

image::Image rgbaImage(const std::vector<std::byte>& texels, uint32_t width, uint32_t height) {
  image::Image out(width, height);
  if (texels.size() == out.rgba.size()) std::memcpy(out.rgba.data(), texels.data(), texels.size());
  return out;
}

CommandResult runCommand(const std::string& commandLine) {
  CommandResult result;
  FILE* pipe = ::popen((commandLine + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult runUnderXvfb(const std::string& xvfb, const std::string& arguments) {
  return runCommand(xvfb + " " + arguments);
}

namespace {
// The text right after "key": (whitespace skipped), or npos.
size_t valueAt(const std::string& json, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  size_t at = json.find(quoted);
  if (at == std::string::npos) return at;
  at = json.find(':', at + quoted.size());
  if (at == std::string::npos) return at;
  ++at;
  while (at < json.size() && (json[at] == ' ' || json[at] == '\n')) ++at;
  return at;
}
}  // namespace

std::optional<long long> jsonNumber(const std::string& json, const std::string& key) {
  const size_t at = valueAt(json, key);
  if (at == std::string::npos) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(json.c_str() + at, &end, 10);
  if (end == json.c_str() + at) return std::nullopt;
  return v;
}

std::optional<std::string> jsonString(const std::string& json, const std::string& key) {
  size_t at = valueAt(json, key);
  if (at == std::string::npos || json[at] != '"') return std::nullopt;
  std::string out;
  for (++at; at < json.size() && json[at] != '"'; ++at) {
    if (json[at] == '\\' && at + 1 < json.size()) {
      ++at;
      switch (json[at]) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'u': {
          out += static_cast<char>(std::strtol(json.substr(at + 1, 4).c_str(), nullptr, 16));
          at += 4;
          break;
        }
        default:
          out += json[at];
      }
    } else {
      out += json[at];
    }
  }
  return out;
}

std::optional<std::string> jsonObject(const std::string& json, const std::string& key) {
  const size_t at = valueAt(json, key);
  if (at == std::string::npos || json[at] != '{') return std::nullopt;
  int depth = 0;
  bool inString = false;
  for (size_t i = at; i < json.size(); ++i) {
    const char c = json[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') inString = true;
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) return json.substr(at, i - at + 1);
  }
  return std::nullopt;
}

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace reel::viewer::testing

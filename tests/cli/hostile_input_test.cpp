// Every `reel` subcommand that reads a trace or an image, against hostile input (issue 17): a missing
// file, an empty one, a directory, a FIFO, /dev/zero, random bytes, other formats (a PNG, a zstd file of
// something else), a trace cut short inside its header, at and a byte either side of every chunk
// boundary and inside its index, bytes flipped in the header, a chunk and the index, unreadable
// resources, a newer minor version with message kinds this reel does not know, a newer major version.
//
// Each case must end by itself within its limit (the harness kills it and fails the case otherwise), by
// exiting, never by a signal, with the documented code (README: 0 success, 1 a check failed, 2 bad
// input); whatever fails or warns names the file on stderr. Where a trace is damaged but readable,
// every frame it still holds must replay.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "reel/capture/capture.h"
#include "reel/image/image.h"
#include "reel/runtime/null_device.h"
#include "reel/schema/compression.h"
#include "reel/schema/container.h"
#include "reel/schema/messages.h"
#include "reel/trace/reader.h"
#include "rewrite.h"
#include "scene.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<char>;
using Clock = std::chrono::steady_clock;

// ---- the harness: one process per case, killed at its limit ----

struct Outcome {
  bool finished = false;  // false: it ran past its limit and was killed
  int exitCode = -1;
  int signal = 0;  // the signal that ended it, 0 if it exited
  std::string out, err;
  double seconds = 0;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs argv[0] with its arguments, stdin from /dev/null, in a process group of its own, so that a case
// that hangs is killed with whatever it started (reel view starts reel-viewer). `display`: the X display
// it gets, if not empty.
Outcome runWithin(const std::vector<std::string>& argv, std::chrono::milliseconds limit,
                  const fs::path& scratch, const std::string& display = {}) {
  const fs::path outPath = scratch / "stdout", errPath = scratch / "stderr";
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto started = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (!display.empty()) ::setenv("DISPLAY", display.c_str(), 1);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  Outcome outcome;
  if (pid < 0) return outcome;
  ::setpgid(pid, pid);  // also here: whichever of the two runs first
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      outcome.finished = true;
      break;
    }
    if (Clock::now() - started > limit) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  outcome.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (outcome.finished) {
    if (WIFEXITED(status)) outcome.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  }
  outcome.out = slurp(outPath);
  outcome.err = slurp(errPath);
  return outcome;
}

// One X server (Xvfb) for the `reel view` cases, on a display it picks itself (-displayfd): xvfb-run per
// case is slower, and under concurrent runs its own clean-up fails now and then (exit 5, whatever the
// viewer did). Empty display: no Xvfb here.
class XServer {
 public:
  XServer() {
    if (!fs::exists(kXvfb)) return;
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      const int devnull = ::open("/dev/null", O_RDWR);
      ::dup2(devnull, 0);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      const std::string fd = std::to_string(fds[1]);
      ::execl(kXvfb, kXvfb, "-displayfd", fd.c_str(), "-screen", "0", "1280x800x24", "-nolisten", "tcp",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    // The display number, then a newline, once the server listens.
    std::string number;
    char c = 0;
    pollfd ready{fds[0], POLLIN, 0};
    while (pid_ > 0 && ::poll(&ready, 1, 10000) == 1 && ::read(fds[0], &c, 1) == 1 && c != '\n') number += c;
    ::close(fds[0]);
    if (!number.empty()) display_ = ":" + number;
  }
  ~XServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  XServer(const XServer&) = delete;
  XServer& operator=(const XServer&) = delete;
  const std::string& display() const { return display_; }

 private:
  static constexpr const char* kXvfb = "/usr/bin/Xvfb";
  pid_t pid_ = -1;
  std::string display_;
};

// ---- cases ----

enum Exit : int { kOk = 0, kCheckFailed = 1, kBadInput = 2 };

struct Case {
  std::string name;
  std::vector<std::string> args;  // after `reel`
  int exit;
  std::string mustName;        // stderr must contain this (the file); empty: nothing required
  std::string stderrHas = {};  // and this, when set
  bool viewer = false;         // runs reel-viewer, on the test's X server
};

std::string quoteForMessage(const std::string& s) {
  return s.size() > 2000 ? s.substr(0, 2000) + "..." : s;
}

class HostileInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("reel_hostile_" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_ / "scratch");
    trace_ = new std::string((*dir_ / "trace.reel").string());
    captureTrace(*trace_);
    bytes_ = new Bytes(readBytes(*trace_));
    auto reader = trace::TraceReader::open(*trace_);
    ASSERT_TRUE(reader) << reader.error().message;
    chunks_ = new std::vector<trace::ChunkInfo>(reader->chunks().begin(), reader->chunks().end());
    frames_ = new std::vector<uint64_t>;
    frameChunk_ = new std::vector<uint32_t>;
    for (const trace::MessageInfo& m : reader->messages()) {
      if (m.kind != static_cast<uint8_t>(trace::MessageKind::Frame)) continue;
      frames_->push_back(m.frame);
      frameChunk_->push_back(m.chunk);
    }
    ASSERT_EQ(frames_->size(), kFrames);
    ASSERT_GE(chunks_->size(), 4u) << "frames in three chunks or more, and the end";
    auto resources = reader->readResources();
    ASSERT_TRUE(resources) << resources.error().message;
    ASSERT_FALSE(resources->empty());
    ASSERT_FALSE(resources->front().resources.empty())
        << "a capture from mid-run: resources alive at its start";
    if (!viewerPath().empty()) xserver_ = new XServer;
    image::Image png(2, 2);
    ASSERT_TRUE(image::writePng(*dir_ / "picture.png", png));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete xserver_;
    delete dir_;
    delete trace_;
    delete bytes_;
    delete chunks_;
    delete frames_;
    delete frameChunk_;
  }

  static constexpr size_t kFrames = 6;

  // Frames 2-7 of the test scene (from mid-run: the capture starts with live resources), two per chunk.
  // `keyEveryFrames`: key frames every that many frames (0: the default, none in a capture this short).
  static void captureTrace(const std::string& path, uint32_t keyEveryFrames = 0) {
    NullDevice device(false);
    Renderer renderer(device);
    testing::Scene scene(renderer, {.draws = 4, .auxBytes = 16});
    scene.frame();
    scene.frame();
    capture::CaptureOptions options;
    options.path = path;
    options.compression.maxFramesPerChunk = 2;
    options.handleSignals = false;
    if (keyEveryFrames) {
      options.compression.chunkMillis = 0;  // chunks of two frames, however slow the machine
      options.keyFrames = {.everyMillis = 0, .everyBytes = 0, .everyFrames = keyEveryFrames};
    }
    auto capture = capture::Capture::start(renderer, options);
    ASSERT_TRUE(capture) << capture.error().message;
    for (size_t f = 0; f < kFrames; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
  }

  static Bytes readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static std::string write(const std::string& name, const Bytes& bytes) {
    const std::string path = (*dir_ / name).string();
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  static std::string cut(uint64_t size) {
    return write("cut-" + std::to_string(size) + ".reel",
                 Bytes(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>(size)));
  }
  static std::string flipped(const std::string& name, uint64_t at) {
    Bytes damaged = *bytes_;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x21);
    return write(name, damaged);
  }

  static uint64_t headerEnd() { return chunks_->front().offset; }
  static uint64_t indexStart() { return chunks_->back().offset + chunks_->back().compressedSize; }
  static uint64_t chunkEnd(size_t c) { return (*chunks_)[c].offset + (*chunks_)[c].compressedSize; }
  // The frames (numbers) whose chunk lies whole before `end`, or outside chunk `lost`.
  static std::vector<uint64_t> framesWhole(uint64_t end, std::optional<uint32_t> lost = std::nullopt) {
    std::vector<uint64_t> out;
    for (size_t i = 0; i < frames_->size(); ++i) {
      const uint32_t c = (*frameChunk_)[i];
      if (chunkEnd(c) <= end && c != lost) out.push_back((*frames_)[i]);
    }
    return out;
  }

  static std::string viewerPath() {
#ifdef REEL_VIEWER_PATH
    return REEL_VIEWER_PATH;
#else
    return "";
#endif
  }

  // The subcommands that open a trace, given `path`: every one must refuse a file that is not a trace
  // the same way (exit 2, naming it).
  static std::vector<Case> refusedEverywhere(const std::string& what, const std::string& path,
                                             const std::string& stderrHas = {}) {
    const std::string out = (*dir_ / "scratch" / "out").string();
    const std::string first = std::to_string(frames_->front());
    std::vector<Case> cases = {
        {what + ": info", {"info", path}, kBadInput, path, stderrHas},
        {what + ": info --json", {"info", path, "--json"}, kBadInput, path, stderrHas},
        {what + ": dump", {"dump", path}, kBadInput, path, stderrHas},
        {what + ": verify", {"verify", path}, kBadInput, path, stderrHas},
        {what + ": replay", {"replay", path, "--device", "null", "--out", out}, kBadInput, path, stderrHas},
        {what + ": trim",
         {"trim", path, "--frames", first, "-o", out + ".reel", "--device", "null"},
         kBadInput,
         path,
         stderrHas},
        {what + ": bisect",
         {"bisect", path, "--frame", first, "--golden", (*dir_ / "picture.png").string(), "--device", "null"},
         kBadInput,
         path,
         stderrHas},
        {what + ": view --screenshot",
         {"view", path, "--screenshot", out + ".png"},
         kBadInput,
         path,
         stderrHas,
         /*viewer=*/true},
    };
    return cases;
  }

  // A trace that still reads: info and dump succeed (or say a check failed, when frames or resources
  // are lost), verify says what is wrong, and every frame the trace still holds replays on its own.
  struct Readable {
    std::string what, path;
    int info, dump, verify;
    std::vector<uint64_t> replayable;
    std::string warning = {};  // stderr of info must hold it (a warning naming the file)
  };
  static std::vector<Case> readableCases(const Readable& r) {
    const std::string out = (*dir_ / "scratch" / "out").string();
    std::vector<Case> cases = {
        {r.what + ": info", {"info", r.path}, r.info, r.info || !r.warning.empty() ? r.path : "", r.warning},
        {r.what + ": dump", {"dump", r.path}, r.dump, r.dump ? r.path : ""},
        {r.what + ": verify", {"verify", r.path}, r.verify, ""},
    };
    for (const uint64_t f : r.replayable) {
      cases.push_back({r.what + ": replay frame " + std::to_string(f),
                       {"replay", r.path, "--device", "null", "--frames", std::to_string(f)},
                       kOk,
                       ""});
    }
    if (!r.replayable.empty()) {
      const std::string first = std::to_string(r.replayable.front());
      cases.push_back({r.what + ": trim",
                       {"trim", r.path, "--frames", first, "-o", out + ".reel", "--device", "null"},
                       kOk,
                       ""});
    }
    return cases;
  }

  static void runCases(const std::vector<Case>& cases) {
    const std::string viewer = viewerPath();
    size_t skipped = 0;
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      std::vector<std::string> argv;
      auto limit = std::chrono::milliseconds(5000);
      if (c.viewer) {
        if (viewer.empty() || xserver_->display().empty()) {
          ++skipped;
          continue;
        }
        // reel view hands on to reel-viewer, which opens its window first, even to fail.
        limit = std::chrono::milliseconds(15000);
      }
      argv = {REEL_CLI_PATH};
      argv.insert(argv.end(), c.args.begin(), c.args.end());
      const Outcome o = runWithin(argv, limit, *dir_ / "scratch", c.viewer ? xserver_->display() : "");
      std::string command = "reel";
      for (const std::string& a : c.args) command += " " + a;
      ASSERT_TRUE(o.finished) << command << ": still running after " << limit.count() << " ms: killed";
      EXPECT_EQ(o.signal, 0) << command << ": ended by signal " << o.signal << "\nstderr: " << o.err;
      EXPECT_EQ(o.exitCode, c.exit) << command << "\nstderr: " << quoteForMessage(o.err)
                                    << "\nstdout: " << quoteForMessage(o.out);
      if (!c.mustName.empty()) {
        EXPECT_NE(o.err.find(c.mustName), std::string::npos)
            << command << ": stderr does not name " << c.mustName << ":\n"
            << o.err;
      }
      if (!c.stderrHas.empty()) {
        EXPECT_NE(o.err.find(c.stderrHas), std::string::npos) << command << ": stderr:\n" << o.err;
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
    if (skipped) std::printf("%zu cases of reel view skipped: reel-viewer or Xvfb missing\n", skipped);
  }

  static inline XServer* xserver_ = nullptr;
  static inline fs::path* dir_ = nullptr;
  static inline std::string* trace_ = nullptr;
  static inline Bytes* bytes_ = nullptr;
  static inline std::vector<trace::ChunkInfo>* chunks_ = nullptr;
  static inline std::vector<uint64_t>* frames_ = nullptr;
  static inline std::vector<uint32_t>* frameChunk_ = nullptr;
};

// The trace itself, as a reference: every subcommand succeeds on it.
TEST_F(HostileInput, TheIntactTraceReadsEverywhere) {
  runCases(readableCases({"intact", *trace_, kOk, kOk, kOk, *frames_}));
}

TEST_F(HostileInput, FilesThatAreNoTraceAreRefusedByEverySubcommand) {
  const std::string fifo = (*dir_ / "fifo.reel").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string folder = (*dir_ / "folder.reel").string();
  fs::create_directories(folder);
  std::mt19937 random(17);
  Bytes noise(4096);
  for (char& b : noise) b = static_cast<char>(random());
  // zstd, but not a trace: a zstd frame of text, as `zstd` would write it.
  const std::string text(3000, 'x');
  std::vector<uint8_t> zstd;
  auto compressor = schema::ChunkCompressor::create({});
  ASSERT_TRUE(compressor);
  ASSERT_TRUE(compressor->compressFrame(text.data(), text.size(), zstd));

  std::vector<Case> cases;
  auto add = [&](const std::vector<Case>& more) { cases.insert(cases.end(), more.begin(), more.end()); };
  add(refusedEverywhere("missing", (*dir_ / "missing.reel").string()));
  add(refusedEverywhere("empty", write("empty.reel", {}), "empty"));
  add(refusedEverywhere("a directory", folder, "directory"));
  add(refusedEverywhere("a FIFO", fifo, "FIFO"));
  add(refusedEverywhere("/dev/zero", "/dev/zero"));
  add(refusedEverywhere("random bytes", write("noise.reel", noise), "not a reel trace"));
  add(refusedEverywhere("a PNG", (*dir_ / "picture.png").string(), "not a reel trace"));
  add(refusedEverywhere("zstd of text", write("text.zst", Bytes(zstd.begin(), zstd.end())),
                        "not a reel trace"));
  runCases(cases);
}

// reel compare takes images: the same files, and a trace, are not PNGs.
TEST_F(HostileInput, FilesThatAreNoImageAreRefusedByCompare) {
  const std::string png = (*dir_ / "picture.png").string();
  const std::string fifo = (*dir_ / "fifo.png").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string folder = (*dir_ / "folder-of-images").string();
  fs::create_directories(folder);
  std::vector<Case> cases;
  for (const std::string& bad :
       {(*dir_ / "missing.png").string(), write("empty.png", {}), fifo, std::string("/dev/zero"), *trace_}) {
    cases.push_back({"compare " + bad + " IMG", {"compare", bad, png}, kBadInput, bad});
    cases.push_back({"compare IMG " + bad, {"compare", png, bad}, kBadInput, bad});
  }
  // A folder against a file: neither is the other's kind, and both are named.
  cases.push_back({"compare DIR IMG", {"compare", folder, png}, kBadInput, folder, png});
  cases.push_back({"compare IMG IMG", {"compare", png, png}, kOk, ""});
  runCases(cases);
}

TEST_F(HostileInput, TracesCutShortReadUpToTheirLastWholeChunk) {
  std::vector<uint64_t> cuts = {1, 4, headerEnd() / 2, headerEnd() - 1};
  for (size_t c = 0; c < chunks_->size(); ++c) {
    for (const int64_t d : {-1, 0, 1}) cuts.push_back(chunkEnd(c) + d);
  }
  cuts.push_back(headerEnd());
  cuts.push_back(headerEnd() + 1);
  cuts.push_back(indexStart() + 9);    // inside the index message
  cuts.push_back(bytes_->size() - 1);  // inside the footer
  std::vector<Case> cases;
  for (const uint64_t at : cuts) {
    const std::string path = cut(at);
    const std::string what = "cut at byte " + std::to_string(at) + " of " + std::to_string(bytes_->size());
    if (at < headerEnd()) {
      for (const Case& c : refusedEverywhere(what, path)) {
        if (!c.viewer) cases.push_back(c);  // (the viewer has its own row below)
      }
      continue;
    }
    const std::vector<uint64_t> whole = framesWhole(at);
    if (whole.empty()) {
      // No whole chunk: nothing to show, and saying "frames 0" with exit 0 would lie.
      cases.push_back({what + ": info", {"info", path}, kBadInput, path, "no frame can be read"});
      cases.push_back({what + ": dump", {"dump", path}, kBadInput, path, "no frame can be read"});
      cases.push_back({what + ": verify", {"verify", path}, kCheckFailed, ""});
      cases.push_back({what + ": replay", {"replay", path, "--device", "null"}, kBadInput, path});
      continue;
    }
    // Cut short: a warning (no index), and every whole chunk's frames.
    const std::string warning = at == bytes_->size() ? "" : "no index";
    auto more = readableCases({what, path, kOk, kOk, kCheckFailed, whole, warning});
    cases.insert(cases.end(), more.begin(), more.end());
  }
  runCases(cases);
  // And the viewer, once, on a header cut short.
  runCases({{"cut in the header: view --screenshot",
             {"view", cut(headerEnd() / 2), "--screenshot", (*dir_ / "scratch" / "out.png").string()},
             kBadInput,
             cut(headerEnd() / 2),
             "",
             true}});
}

TEST_F(HostileInput, FlippedBytesCostOnlyWhatTheyHit) {
  std::vector<Case> cases;
  auto add = [&](const std::vector<Case>& more) { cases.insert(cases.end(), more.begin(), more.end()); };
  // The header: the trace cannot be read at all (its zstd checksum fails).
  for (const uint64_t at : {uint64_t{12}, headerEnd() / 2, headerEnd() - 2}) {
    const std::string path = flipped("header-" + std::to_string(at) + ".reel", at);
    for (const Case& c : refusedEverywhere("header byte " + std::to_string(at) + " flipped", path)) {
      if (!c.viewer || at == 12) cases.push_back(c);
    }
  }
  // A chunk: its frames are lost and said to be; the frames before it still replay. (The frames after
  // it need the lost ones' state: replaying them waits for key frames, issue 17 item 4.)
  const uint32_t damaged = 1;
  const uint64_t inChunk = (*chunks_)[damaged].offset + (*chunks_)[damaged].compressedSize / 2;
  std::vector<uint64_t> before;
  for (size_t i = 0; i < frames_->size(); ++i) {
    if ((*frameChunk_)[i] < damaged) before.push_back((*frames_)[i]);
  }
  add(readableCases({"chunk byte flipped", flipped("chunk.reel", inChunk), kCheckFailed, kCheckFailed,
                     kCheckFailed, before}));
  // A chunk's frame header, in a trace without its index (a killed capture): the reader walks on to the
  // next whole chunk, and only the damaged chunk's frames are missing.
  {
    Bytes killed(bytes_->begin(), bytes_->begin() + static_cast<std::ptrdiff_t>(indexStart()));
    killed[(*chunks_)[damaged].offset] = static_cast<char>(killed[(*chunks_)[damaged].offset] ^ 0x21);
    add(readableCases({"no index, a chunk header flipped", write("killed-chunk.reel", killed), kOk, kOk,
                       kCheckFailed, before, "is damaged"}));
  }
  // The index: never worth a frame. Its message, its padding or footer, its frame header: the reader
  // warns once, rebuilds it from the chunks, and every frame replays.
  for (const uint64_t at :
       {indexStart() + 2, indexStart() + 6, indexStart() + 8 + 20, (indexStart() + bytes_->size()) / 2,
        uint64_t{bytes_->size() - 14}, uint64_t{bytes_->size() - 11}, uint64_t{bytes_->size() - 3}}) {
    add(readableCases({"index byte " + std::to_string(at) + " flipped",
                       flipped("index-" + std::to_string(at) + ".reel", at), kOk, kOk, kCheckFailed, *frames_,
                       "index"}));
  }
  runCases(cases);
}

// A replay of every frame of a trace with a damaged chunk: the frames before it replay, the chunk's
// frames and those after it up to the next key frame are lost and named (one line for the run), the
// replay goes on from that key frame, and the exit code says that frames were lost.
TEST_F(HostileInput, AWholeReplayGoesOnAfterADamagedChunkFromTheNextKeyFrame) {
  const std::string keyed = (*dir_ / "keyed.reel").string();
  captureTrace(keyed, /*keyEveryFrames=*/2);
  Bytes bytes = readBytes(keyed);
  auto reader = trace::TraceReader::open(keyed);
  ASSERT_TRUE(reader) << reader.error().message;
  const std::vector<size_t> keys = reader->keyFrames();
  ASSERT_GE(keys.size(), 2u) << "two key frames: one in the damaged chunk, one after it";
  // The chunk of the first key frame's frame (key frame, then its frame, in one chunk of two frames).
  uint32_t damaged = UINT32_MAX;
  std::vector<uint64_t> frameNumbers;
  std::vector<uint32_t> frameChunks;
  for (const trace::MessageInfo& m : reader->messages()) {
    if (m.kind != static_cast<uint8_t>(trace::MessageKind::Frame)) continue;
    frameNumbers.push_back(m.frame);
    frameChunks.push_back(m.chunk);
  }
  damaged = frameChunks[keys[0]];
  const trace::ChunkInfo chunk = reader->chunks()[damaged];
  bytes[chunk.offset + chunk.compressedSize / 2] ^= 0x5a;
  const std::string path = write("keyed-damaged.reel", bytes);
  // Lost: from the damaged chunk's first frame to the frame before the next key frame after the chunk.
  size_t firstLost = 0;
  while (frameChunks[firstLost] != damaged) ++firstLost;
  size_t next = 0;
  while (next < keys.size() && frameChunks[keys[next]] <= damaged) ++next;
  ASSERT_LT(next, keys.size()) << "a key frame after the damaged chunk";
  const size_t endLost = keys[next];
  ASSERT_GT(firstLost, 0u) << "a frame before the damage that replays";
  const std::string lostText = "frames " + std::to_string(frameNumbers[firstLost]) + "-" +
                               std::to_string(frameNumbers[endLost - 1]) + " could not be replayed";

  const Outcome o = runWithin({REEL_CLI_PATH, "replay", path, "--device", "null", "--json"},
                              std::chrono::milliseconds(10000), *dir_ / "scratch");
  ASSERT_TRUE(o.finished);
  EXPECT_EQ(o.exitCode, kCheckFailed) << o.err;
  EXPECT_NE(o.err.find(path + ": " + lostText), std::string::npos) << o.err;
  const size_t replayable = frameNumbers.size() - (endLost - firstLost);
  EXPECT_NE(o.out.find("\"frames\":" + std::to_string(replayable) + ","), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"frames_lost\":" + std::to_string(endLost - firstLost) + ","), std::string::npos)
      << o.out;
  // The frames after the next key frame did replay: the last frame is among those replayed.
  EXPECT_NE(o.out.find("{\"frame\":" + std::to_string(frameNumbers.back()) + ",\"loop\":0"),
            std::string::npos)
      << o.out;
}

TEST_F(HostileInput, UnreadableResourcesAreNotZeroResources) {
  const std::string path = (*dir_ / "resources.reel").string();
  ASSERT_TRUE(testing::rewriteTrace(*trace_, path, {.unknownResourceCommand = true}));
  runCases({
      {"unreadable resources: info",
       {"info", path},
       kCheckFailed,
       path,
       "has command id 65535, not in the trace's command table"},
      {"unreadable resources: info --json", {"info", path, "--json"}, kCheckFailed, path},
      {"unreadable resources: verify", {"verify", path}, kCheckFailed, ""},
  });
}

TEST_F(HostileInput, ANewerMinorVersionReadsWithAWarningAndANewerMajorIsRefused) {
  const std::string minor = (*dir_ / "newer-minor.reel").string();
  ASSERT_TRUE(
      testing::rewriteTrace(*trace_, minor, {.formatMinor = schema::kFormatMinor + 1, .unknownKind = 200}));
  const std::string newer = "newer than this reader";
  std::vector<Case> cases = readableCases({"newer minor", minor, kOk, kOk, kOk, *frames_, newer});
  // (No `reel view` row here: the viewer would render this trace on Vulkan, and the test scene's
  // resources are made for the null device. The viewer reads through the same TraceReader.)

  // A newer major: the header's version is the first field the reader checks; the header frame is
  // compressed again with the major raised, as a newer writer would have written it.
  const std::string major = (*dir_ / "newer-major.reel").string();
  {
    auto compressor = schema::ChunkCompressor::create({});
    ASSERT_TRUE(compressor);
    schema::ChunkDecompressor decompressor;
    const auto* data = reinterpret_cast<const std::byte*>(bytes_->data());
    const auto bound = schema::ChunkDecompressor::contentBound(data, headerEnd());
    ASSERT_TRUE(bound);
    std::vector<std::byte> raw(*bound);
    auto n = decompressor.decompress(data, headerEnd(), raw.data(), raw.size());
    ASSERT_TRUE(n);
    raw.resize(n.value());
    // Rewritten in place: format_major is 1, so FlatBuffers stored it (it leaves only defaults out).
    auto* message = fb::GetMutableSizePrefixedMessage(raw.data());
    auto* header = static_cast<fb::Header*>(message->mutable_body());
    ASSERT_TRUE(header->mutate_format_major(static_cast<uint16_t>(schema::kFormatMajor + 1)));
    std::vector<uint8_t> frame;
    ASSERT_TRUE(compressor->compressFrame(raw.data(), raw.size(), frame));
    Bytes file(frame.begin(), frame.end());
    file.insert(file.end(), bytes_->begin() + static_cast<std::ptrdiff_t>(headerEnd()), bytes_->end());
    write("newer-major.reel", file);
  }
  for (const Case& c : refusedEverywhere("newer major", major, newer)) cases.push_back(c);
  runCases(cases);
}

}  // namespace
}  // namespace reel::test

// F12 in reel-sample's window: the key event to capture request mapping on its own, and the whole path
// (a key event injected into a real window under xvfb-run, the capture, the trace) through the executable.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "capture_hotkey.h"
#include "reel/trace/reader.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;
using samples::captureRequestFor;
using window::Key;
using window::KeyAction;
using window::KeyEvent;

TEST(CaptureHotkey, OnlyAnF12PressRequestsACapture) {
  const auto press = captureRequestFor({Key::F12, KeyAction::Press}, "", 7);
  ASSERT_TRUE(press);
  EXPECT_EQ(press->firstFrame, 7u);
  EXPECT_EQ(press->lastFrame, 7u);
  EXPECT_EQ(press->path, "reel-sample_frame7.reel");
  EXPECT_FALSE(captureRequestFor({Key::F12, KeyAction::Repeat}, "", 7)) << "holding F12 down captures once";
  EXPECT_FALSE(captureRequestFor({Key::F12, KeyAction::Release}, "", 7));
  EXPECT_FALSE(captureRequestFor({Key::Escape, KeyAction::Press}, "", 7));
  EXPECT_FALSE(captureRequestFor({Key::Other, KeyAction::Press}, "", 7));
}

TEST(CaptureHotkey, SeveralFramesAndTheTraceNamedAfterCaptureOut) {
  const auto request = captureRequestFor({Key::F12, KeyAction::Press}, "out/cubes.reel", 120, 3);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->firstFrame, 120u);
  EXPECT_EQ(request->lastFrame, 122u);
  EXPECT_EQ(request->path, "out/cubes_frame120.reel");
  EXPECT_EQ(samples::hotkeyTracePath("trace", 5), "trace_frame5.reel") << "no .reel to take off";
  EXPECT_EQ(samples::hotkeyTracePath("", 0), "reel-sample_frame0.reel");
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// reel-sample in a window under xvfb-run, F12 injected into the window before frame 3 while a command-line
// capture of frames 0-1 is on: the trace of frames 3-4 is written beside that capture's.
TEST(CaptureHotkey, F12InTheWindowWritesATraceOfTheNextFrames) {
  const char* xvfb = "/usr/bin/xvfb-run";
  if (!fs::exists(xvfb)) GTEST_SKIP() << "xvfb-run is not installed (apt install xvfb)";
  const fs::path dir = fs::temp_directory_path() / "reel_sample_hotkey_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string command = "REEL_DEVICE=llvmpipe " + std::string(xvfb) +
                              " -a -s '-screen 0 1280x1024x24' " + REEL_SAMPLE_PATH +
                              " --scene cubes --draws 50 --frames 7 --width 96 --height 64 --validate" +
                              " --capture 0-1 --capture-out " + (dir / "run.reel").string() +
                              " --press-f12-at 3 --f12-frames 2 >" + (dir / "out.txt").string() + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string out = slurp(dir / "out.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  const fs::path trace = dir / "run_frame3.reel";
  EXPECT_NE(out.find("F12: capturing frames 3-4 to " + trace.string()), std::string::npos) << out;
  EXPECT_NE(out.find("windowed"), std::string::npos) << out;
  EXPECT_NE(out.find("; 0 errors"), std::string::npos) << out;
  auto reader = trace::TraceReader::open(trace.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message << "\n" << out;
  ASSERT_EQ(reader->frameCount(), 2u);
  EXPECT_EQ(reader->frameNumber(0), 3u);
  EXPECT_EQ(reader->frameNumber(1), 4u);
  EXPECT_TRUE(reader->complete());
  EXPECT_TRUE(reader->readResources().ok()) << "a mid-run capture starts with the live resources";
  EXPECT_TRUE(fs::exists(dir / "run.reel")) << "the command-line capture is still written";
}

}  // namespace
}  // namespace reel::test

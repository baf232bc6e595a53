#pragma once
// Runs the `reel` executable the way a user or a CI script would, and captures what it prints.

#include <filesystem>
#include <string>

#include "xvfb.h"  // findXvfbRun, for the tests that open a window

namespace reel::test {

struct RunResult {
  int exitCode = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// `args` is appended to the reel path as is (quote paths yourself).
RunResult runReel(const std::string& args);
// The same behind `prefix`, a command that runs reel: "xvfb-run -a", "env -u DISPLAY".
RunResult runReelWith(const std::string& prefix, const std::string& args);

// A fresh folder under the temporary directory, named after the running test.
std::filesystem::path testFolder();

}  // namespace reel::test

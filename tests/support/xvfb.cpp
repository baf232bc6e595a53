#include "xvfb.h"

#include <unistd.h>

#include <filesystem>

namespace reel::test {

std::string findXvfbRun() {
  for (const char* path : {"/usr/bin/xvfb-run", "/usr/local/bin/xvfb-run"}) {
    if (std::filesystem::exists(path))
      return std::string(path) + " -n " + std::to_string(100 + getpid() % 800);
  }
  return "";
}

bool xvfbRunFailedAfterTheCommand(int exitCode, std::string_view output) {
  return exitCode == 5 && output.find("xvfb-run: error: problem while cleaning up temporary directory") !=
                              std::string_view::npos;
}

}  // namespace reel::test

#include "xvfb.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace reel::test {

namespace {
std::filesystem::path authorityFile() {
  return std::filesystem::temp_directory_path() / ("reel_xauthority_" + std::to_string(getpid()));
}

void removeAuthorityFile() {
  std::error_code ignored;
  std::filesystem::remove(authorityFile(), ignored);
}
}  // namespace

std::string findXvfbRun() {
  for (const char* path : {"/usr/bin/xvfb-run", "/usr/local/bin/xvfb-run"}) {
    if (!std::filesystem::exists(path)) continue;
    static const bool removedAtExit = std::atexit(removeAuthorityFile) == 0;
    (void)removedAtExit;
    return std::string(path) + " -n " + std::to_string(100 + getpid() % 800) + " -f " +
           authorityFile().string();
  }
  return "";
}

}  // namespace reel::test

#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace reel::test {

namespace {
std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

std::filesystem::path testFolder() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::temp_directory_path() / "reel_cli_tests" /
             (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

RunResult runReel(const std::string& args) {
  return runReelWith("", args);
}

RunResult runReelWith(const std::string& prefix, const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() / "reel_cli_tests";
  std::filesystem::create_directories(dir);
  const auto outPath = dir / ("stdout_" + std::to_string(::getpid()));
  const auto errPath = dir / ("stderr_" + std::to_string(::getpid()));
  const std::string command = (prefix.empty() ? "" : prefix + " ") + std::string(REEL_CLI_PATH) + " " + args +
                              " >" + outPath.string() + " 2>" + errPath.string();
  RunResult result;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int status = std::system(command.c_str());
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = slurp(outPath);
    result.err = slurp(errPath);
    // xvfb-run (a prefix) exits 5 when it cannot remove its temporary folder after reel ran (seen once
    // under load on the 2-core VM): reel's own exit status is lost then, so it runs again, once.
    if (result.exitCode != 5 ||
        result.err.find("xvfb-run: error: problem while cleaning up temporary directory") ==
            std::string::npos)
      break;
  }
  return result;
}

std::string findXvfbRun() {
  for (const char* path : {"/usr/bin/xvfb-run", "/usr/local/bin/xvfb-run"}) {
    // Where `-a` starts looking for a free display: a number of this process's own, so that test
    // processes that ctest runs at once do not race for the same display.
    if (std::filesystem::exists(path))
      return std::string(path) + " -n " + std::to_string(100 + getpid() % 800);
  }
  return "";
}

}  // namespace reel::test

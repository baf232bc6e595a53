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
  const int status = std::system(command.c_str());
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(outPath);
  result.err = slurp(errPath);
  return result;
}

}  // namespace reel::test

#pragma once
// A file `name` in a folder of the running test's own (suite and test name) under the system's temporary
// folder, for the traces the replay tests capture.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace reel::testing {

inline std::filesystem::path tempPath(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "reel_replay_tests" /
                                    (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::create_directories(dir);
  return dir / name;
}

}  // namespace reel::testing

#pragma once
// One type per `reel` subcommand (renderdoccmd, gfxreconstruct's tools): each registers its own
// options on its CLI11 sub-app and runs itself. Exit codes are the same everywhere:
//   0 success, 1 a check failed (images differ, a trace has errors, the replay device reported errors, a
//   replayed frame's sorted order differs from the recorded one), 2 bad input (usage, files, devices).
// With --json, stdout holds one JSON object and nothing else; people's lines and --progress go to stderr.

#include <CLI/CLI.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace reel::cli {

enum ExitCode : int { kSuccess = 0, kCheckFailed = 1, kBadInput = 2 };

// Thrown at the CLI edge only: bad input with the one line to print ("trace.reel: not a reel trace").
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  virtual const char* name() const = 0;
  virtual const char* description() const = 0;
  virtual void addOptions(CLI::App& app) = 0;
  virtual int run() = 0;
};

std::vector<std::unique_ptr<Subcommand>> allSubcommands();

}  // namespace reel::cli

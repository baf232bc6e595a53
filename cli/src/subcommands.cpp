// The list of `reel` subcommands: each lives in commands/<name>.cpp.

#include "subcommand.h"

namespace reel::cli {

std::unique_ptr<Subcommand> makeBisectCommand();
std::unique_ptr<Subcommand> makeCompareCommand();
std::unique_ptr<Subcommand> makeDumpCommand();
std::unique_ptr<Subcommand> makeGoldenCommand();
std::unique_ptr<Subcommand> makeInfoCommand();
std::unique_ptr<Subcommand> makeReplayCommand();
std::unique_ptr<Subcommand> makeTrimCommand();
std::unique_ptr<Subcommand> makeVerifyCommand();
std::unique_ptr<Subcommand> makeViewCommand();

std::vector<std::unique_ptr<Subcommand>> allSubcommands() {
  std::vector<std::unique_ptr<Subcommand>> all;
  all.push_back(makeReplayCommand());
  all.push_back(makeInfoCommand());
  all.push_back(makeDumpCommand());
  all.push_back(makeVerifyCommand());
  all.push_back(makeCompareCommand());
  all.push_back(makeTrimCommand());
  all.push_back(makeBisectCommand());
  all.push_back(makeGoldenCommand());
  all.push_back(makeViewCommand());
  return all;
}

}  // namespace reel::cli

// The list of `reel` subcommands: each lives in commands/<name>.cpp.

#include "subcommand.h"

namespace reel::cli {

std::unique_ptr<Subcommand> makeCompareCommand();

std::vector<std::unique_ptr<Subcommand>> allSubcommands() {
  std::vector<std::unique_ptr<Subcommand>> all;
  all.push_back(makeCompareCommand());
  return all;
}

}  // namespace reel::cli

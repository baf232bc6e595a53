// `reel`: replay, inspect, compare and trim reel traces. See subcommand.h for the exit codes.

#include <cstdio>
#include <exception>
#include <string>

#include "reel/version.h"
#include "subcommand.h"

int main(int argc, char** argv) {
  using namespace reel::cli;
  CLI::App app{"reel: replay, inspect, compare and trim reel traces (.reel)", "reel"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "reel " REEL_VERSION_STRING);  // reel/version.h: the project() version
  auto subcommands = allSubcommands();
  Subcommand* chosen = nullptr;
  for (auto& sub : subcommands) {
    CLI::App* subApp = app.add_subcommand(sub->name(), sub->description());
    sub->addOptions(*subApp);
    subApp->callback([&chosen, s = sub.get()] { chosen = s; });
  }
  std::string known;
  bool isKnown = false;
  for (auto& sub : subcommands) {
    known += (known.empty() ? "" : ", ") + std::string(sub->name());
    isKnown |= argc > 1 && std::string(argv[1]) == sub->name();
  }
  if (argc > 1 && argv[1][0] != '-' && !isKnown) {
    std::fprintf(stderr, "reel: unknown subcommand '%s' (known: %s)\n", argv[1], known.c_str());
    return kBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "reel: %s (see reel --help)\n", e.what());
    return kBadInput;
  }
  try {
    return chosen->run();
  } catch (const BadInput& e) {
    std::fprintf(stderr, "reel %s: %s\n", chosen->name(), e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reel %s: internal error: %s\n", chosen->name(), e.what());
    return kBadInput;
  }
}

// reel view [TRACE] [viewer options]: opens the trace in reel-viewer, handing every argument on to it, the
// way `git gui` hands on to its own program: one command for the user, one UI program to maintain.

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../subcommand.h"

namespace reel::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kViewer = "reel-viewer";

// reel-viewer next to this reel (an installed pair), then where this build tree put it, then PATH.
std::vector<std::string> viewerCandidates() {
  std::vector<std::string> candidates;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back((self.parent_path() / kViewer).string());
#ifdef REEL_VIEWER_BUILD_PATH
  candidates.push_back(REEL_VIEWER_BUILD_PATH);
#endif
  return candidates;
}

class ViewCommand final : public Subcommand {
 public:
  const char* name() const override { return "view"; }
  const char* description() const override {
    return "Open a trace in reel-viewer (every argument is handed on: see reel-viewer --help)";
  }
  void addOptions(CLI::App& app) override {
    app_ = &app;
    // Everything, options included, belongs to reel-viewer; reel parses none of it.
    app.prefix_command();
    app.allow_extras();
  }

  int run() override {
    std::vector<std::string> args = app_->remaining();
    std::vector<char*> argv;
    std::string program = kViewer;
    argv.push_back(program.data());
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    std::string tried;
    for (const std::string& candidate : viewerCandidates()) {
      tried += candidate + ", ";
      if (::access(candidate.c_str(), X_OK) != 0) continue;
      ::execv(candidate.c_str(), argv.data());
      throw BadInput(candidate + ": cannot start it: " + std::strerror(errno));
    }
    ::execvp(kViewer, argv.data());  // returns only when PATH has none either
    throw BadInput(std::string(kViewer) + " was not found (looked at " + tried +
                   "and PATH); it is built with the viewer, -DREEL_BUILD_VIEWER=ON");
  }

 private:
  CLI::App* app_ = nullptr;
};

}  // namespace

std::unique_ptr<Subcommand> makeViewCommand() {
  return std::make_unique<ViewCommand>();
}

}  // namespace reel::cli

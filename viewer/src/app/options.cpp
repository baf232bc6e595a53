#include "app/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iterator>

namespace reel::viewer {

int parseOptions(int argc, char** argv, ViewerOptions& out) {
  CLI::App app{
      "reel-viewer: look at a reel trace packet by packet, in submission or sorted order, and at the "
      "image each command leaves"};
  uint64_t frame = 0, select = 0;
  std::string size;
  app.add_option("trace", out.trace, "the .reel trace to open (also: type a path in the window)");
  auto* frameOption = app.add_option("--frame", frame, "frame number (as captured) to show");
  auto* selectOption =
      app.add_option("--select", select, "position of the command to select, in the order shown");
  app.add_flag("--sorted", out.sorted, "show commands in sorted order (default: submission order)");
  app.add_option("--target", out.target,
                 "render target for the image panel: index into the frame's targets, or a handle name "
                 "(render_target#3); default: the target the selected command renders into");
  app.add_option("--attachment", out.attachment, "color attachment index, or 'depth' (default: 0)");
  app.add_option("--resource", out.resource,
                 "resource to show in the Resources panel: texture#3, render_target#0.1, ...");
  app.add_option("--stats-tab", out.statsTab,
                 "the Stats panel's tab to open: 'per type' (default), 'state changes' or 'passes'");
  app.add_option("--screenshot", out.screenshot,
                 "render the UI into this PNG once everything is loaded, then exit: 0 done, 1 the replay "
                 "device reported errors (validation messages included), 2 the trace cannot be opened, "
                 "3 timed out");
  app.add_option("--screenshot-info", out.screenshotInfo,
                 "with --screenshot: write where the panels are (JSON)");
  app.add_option("--screenshot-timeout", out.screenshotTimeoutSeconds,
                 "seconds to wait for loading and replay");
  app.add_option("--device", out.device, "replay device: 'null', or a part of a Vulkan device name");
  app.add_flag("--validate", out.validate, "Vulkan validation layer for replays");
  app.add_option("--size", size, "window size, WxH (default 1280x800)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!out.statsTab.empty() &&
      std::find_if(std::begin(kStatsTabs), std::end(kStatsTabs),
                   [&](const char* tab) { return out.statsTab == tab; }) == std::end(kStatsTabs)) {
    std::fprintf(
        stderr, "--stats-tab: '%s' is not a tab of the Stats panel ('per type', 'state changes', 'passes')\n",
        out.statsTab.c_str());
    return 2;
  }
  if (*frameOption) out.frame = frame;
  if (*selectOption) out.select = select;
  if (!size.empty()) {
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w < 320 || h < 240 || w > 8192 || h > 8192) {
      std::fprintf(stderr, "--size: '%s' is not WxH within 320x240..8192x8192\n", size.c_str());
      return 2;
    }
    out.width = w;
    out.height = h;
  }
  if (!out.screenshotInfo.empty() && out.screenshot.empty()) {
    std::fprintf(stderr, "--screenshot-info needs --screenshot\n");
    return 2;
  }
  return -1;
}

}  // namespace reel::viewer

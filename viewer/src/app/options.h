#pragma once
// The command line of reel-viewer:
//   reel-viewer [TRACE] [--frame N] [--select M] [--sorted] [--target NAME|INDEX] [--attachment A|depth]
//               [--resource NAME] [--screenshot out.png [--screenshot-info out.json]] [--device NAME]
//               [--size WxH]

#include <cstdint>
#include <optional>
#include <string>

namespace reel::viewer {

struct ViewerOptions {
  std::string trace;
  std::optional<uint64_t> frame;   // frame number as captured
  std::optional<uint64_t> select;  // position in the order shown (sorted with --sorted)
  bool sorted = false;
  std::string target;          // render target: index into the frame's targets, or its handle name
  std::string attachment;      // color attachment index, or "depth"
  std::string resource;        // resource to select in the Resources panel: "texture#3" or "texture#3.1"
  std::string statsTab;        // the Stats panel's tab to open first (kStatsTabs); empty: the first
  std::string screenshot;      // render the UI once into this PNG and exit
  std::string screenshotInfo;  // and write where the panels are (JSON)
  double screenshotTimeoutSeconds = 120;
  std::string device;  // "null", a part of a Vulkan device name, or empty (automatic)
  bool validate = false;
  int width = 1280;
  int height = 800;
};

// Parses argv into `out`. Returns -1 to go on, or the exit code (0 after --help, 2 for a usage error,
// which it has printed).
int parseOptions(int argc, char** argv, ViewerOptions& out);

// The Stats panel's tabs, in the order it shows them.
inline constexpr const char* kStatsTabs[] = {"per type", "state changes", "passes"};

}  // namespace reel::viewer

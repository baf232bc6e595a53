#pragma once
// `--screenshot`: the window's back buffer as a PNG, and (`--screenshot-info`) a JSON file that says
// where each panel and the replayed image were drawn, in the PNG's pixel coordinates (origin top left),
// so that a test can compare the image panel's pixels with a replay of its own.

#include <string>
#include <vector>

#include "reel/image/image.h"
#include "reel/runtime/result.h"

namespace reel::viewer {

// glReadPixels of the back buffer (after rendering, before the swap), rows flipped to top first.
image::Image readBackBuffer(int width, int height);

struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};

struct ScreenshotInfo {
  int width = 0, height = 0;
  std::string trace;
  std::string openError;                  // the reader's error, when the trace did not open
  std::vector<std::string> deviceErrors;  // what the replay device reported (validation messages too)
  struct Panel {
    std::string name;
    Rect rect;
  };
  std::vector<Panel> panels;
  // The image panel's replayed image, as drawn.
  bool imageShown = false;
  Rect image;
  int zoom = 1;  // screen pixels per image pixel, each way
  int imageWidth = 0, imageHeight = 0;
  std::string imageSource;  // "render_target#5.1 color 0 (texture#3.1)"
  std::string imageError;
  long long frame = -1;  // frame number replayed
  long long stopAfterPackets = -1;
  long long selectedRow = -1;     // submission position of the selected row
  long long selectedSorted = -1;  // its sorted position
  std::string device;
  bool timedOut = false;
  // The Resources panel's selection and the images it drew.
  std::string resource;
  std::string resourceError;
  struct ResourceImage {
    std::string source;
    Rect rect;
    int zoom = 0;  // 0: scaled down
    int imageWidth = 0, imageHeight = 0;
  };
  std::vector<ResourceImage> resourceImages;
  // The Stats panel: the tab shown, and on the passes tab its rows and dependency arrows (-1: none).
  std::string statsTab;
  long long statsPasses = -1;
  long long statsDependencies = -1;
  long long statsQueues = -1;
  long long statsSemaphores = -1;
  long long statsTransients = -1;
  long long statsAliasedBytesSaved = -1;
  long long statsStoresDiscarded = -1;
};

Result<void> writeScreenshotInfo(const std::string& path, const ScreenshotInfo& info);

}  // namespace reel::viewer

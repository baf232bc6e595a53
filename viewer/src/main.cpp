// reel-viewer: see app/viewer_app.h (panels and layout) and app/window.h (why OpenGL draws the UI).

#include <imgui.h>

#include <chrono>
#include <cstdio>

#include "app/options.h"
#include "app/screenshot.h"
#include "app/viewer_app.h"
#include "app/window.h"

namespace {

int run(const reel::viewer::ViewerOptions& options) {
  using namespace reel::viewer;
  const bool screenshot = !options.screenshot.empty();
  WindowOptions windowOptions;
  windowOptions.width = options.width;
  windowOptions.height = options.height;
  windowOptions.vsync = !screenshot;
  windowOptions.resizable = !screenshot;  // the PNG has the size asked for
  auto window = Window::create(windowOptions);
  if (!window) {
    std::fprintf(stderr, "reel-viewer: %s\n", window.error().message.c_str());
    return 2;  // no display: bad input, as for every reel command
  }
  ViewerApp app(options);
  app.start();

  const auto started = std::chrono::steady_clock::now();
  int settledFrames = 0;
  while (!(*window)->shouldClose()) {
    // Interactive: sleep until input, but keep drawing while a scan or replay is under way.
    const bool working = !app.settled();
    (*window)->beginFrame(screenshot || working ? 0.0 : 0.25);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    app.drawFrame(display.x, display.y);
    (*window)->render();
    if (screenshot) {
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const bool timedOut = waited > options.screenshotTimeoutSeconds;
      // A few frames after everything arrived: tables size their columns and scroll to the selection.
      settledFrames = app.settled() ? settledFrames + 1 : 0;
      if (settledFrames >= 4 || timedOut) {
        const int w = (*window)->framebufferWidth(), h = (*window)->framebufferHeight();
        const reel::image::Image pixels = readBackBuffer(w, h);
        if (auto ok = reel::image::writePng(options.screenshot, pixels); !ok) {
          std::fprintf(stderr, "reel-viewer: %s\n", ok.error().message.c_str());
          return 1;
        }
        ScreenshotInfo info = app.screenshotInfo(w, h);
        info.timedOut = timedOut;
        if (!options.screenshotInfo.empty()) {
          if (auto ok = writeScreenshotInfo(options.screenshotInfo, info); !ok) {
            std::fprintf(stderr, "reel-viewer: %s\n", ok.error().message.c_str());
            return 1;
          }
        }
        // The PNG shows the error window; the exit code and one line say it too, as every reel command
        // does for a file it cannot read (the reader's message names the file).
        if (!info.openError.empty()) {
          std::fprintf(stderr, "reel-viewer: %s\n", info.openError.c_str());
          return 2;
        }
        // Validation messages (REEL_VALIDATE=1 or --validate) and other device errors fail the
        // screenshot, so that a test taking one fails on them.
        if (!info.deviceErrors.empty()) {
          for (const std::string& e : info.deviceErrors)
            std::fprintf(stderr, "reel-viewer: device: %s\n", e.c_str());
          return 1;
        }
        if (timedOut) {
          std::fprintf(stderr, "reel-viewer: screenshot taken after %.0f s without everything loaded\n",
                       waited);
          return 3;
        }
        return 0;
      }
    }
    (*window)->present();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  reel::viewer::ViewerOptions options;
  if (const int code = reel::viewer::parseOptions(argc, argv, options); code >= 0) return code;
  return run(options);
}

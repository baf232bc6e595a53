#pragma once
// The viewer's window: GLFW, an OpenGL 3 context and Dear ImGui with its GLFW and OpenGL 3 backends.
//
// Why OpenGL and not ImGui's Vulkan backend: Debian's libimgui.a (1.86) calls vk* functions as
// link-time symbols, while reel loads Vulkan through volk, which defines global function pointers with
// the same vk* names; linking both into one executable clashes. So the UI is OpenGL, Vulkan runs
// headless for replays only (model/stepping_replay.h), and replayed images reach the screen as GL
// textures uploaded from readbacks (gl_texture.h).
//
// Threading: the thread that created the window, only.

#include <memory>
#include <string>

#include "reel/runtime/result.h"

struct GLFWwindow;

namespace reel::viewer {

struct WindowOptions {
  std::string title = "reel-viewer";
  int width = 1280;
  int height = 800;
  bool vsync = true;
  bool resizable = true;
};

class Window {
 public:
  static Result<std::unique_ptr<Window>> create(const WindowOptions& options);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  bool shouldClose() const;
  // Polls input (or waits up to `waitSeconds` for it, to idle when nothing changes), starts an ImGui frame.
  void beginFrame(double waitSeconds = 0);
  // Renders the ImGui frame into the back buffer (not yet shown: a screenshot reads it first).
  void render();
  void present();
  int framebufferWidth() const;
  int framebufferHeight() const;
  void setVsync(bool on);
  void requestClose();

 private:
  Window() = default;
  GLFWwindow* window_ = nullptr;
  bool imguiContext_ = false;
  bool glfwBackend_ = false;
  bool glBackend_ = false;
};

}  // namespace reel::viewer

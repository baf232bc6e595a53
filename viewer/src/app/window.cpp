#include "app/window.h"

#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <mutex>

namespace reel::viewer {
namespace {

// GLFW reports errors through a callback; the last one explains a failed call.
std::mutex gErrorMutex;
std::string gLastGlfwError;

void onGlfwError(int code, const char* description) {
  std::lock_guard lock(gErrorMutex);
  gLastGlfwError = "GLFW error " + std::to_string(code) + ": " + (description ? description : "?");
}

std::string lastGlfwError() {
  std::lock_guard lock(gErrorMutex);
  return gLastGlfwError.empty() ? std::string("unknown GLFW error") : gLastGlfwError;
}

}  // namespace

Result<std::unique_ptr<Window>> Window::create(const WindowOptions& options) {
  glfwSetErrorCallback(onGlfwError);
  if (!glfwInit())
    return fail("cannot open a window (is DISPLAY set? run under xvfb-run for screenshots): ",
                lastGlfwError());
  std::unique_ptr<Window> w(new Window());
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  glfwWindowHint(GLFW_RESIZABLE, options.resizable ? GLFW_TRUE : GLFW_FALSE);
  // A visible window: the back buffer of an unmapped X window has undefined contents for glReadPixels.
  glfwWindowHint(GLFW_VISIBLE, GLFW_TRUE);
  glfwWindowHint(GLFW_SRGB_CAPABLE, GLFW_FALSE);  // pixels go to the screen (and screenshots) as stored
  w->window_ = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (!w->window_) return fail("cannot create an OpenGL 3 window: ", lastGlfwError());
  glfwMakeContextCurrent(w->window_);
  glfwSwapInterval(options.vsync ? 1 : 0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  w->imguiContext_ = true;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is computed from the window size: screenshots are reproducible
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  ImGui::StyleColorsDark();
  if (!ImGui_ImplGlfw_InitForOpenGL(w->window_, true)) return fail("ImGui: GLFW backend failed to start");
  w->glfwBackend_ = true;
  if (!ImGui_ImplOpenGL3_Init("#version 130")) return fail("ImGui: OpenGL 3 backend failed to start");
  w->glBackend_ = true;
  return w;
}

Window::~Window() {
  if (glBackend_) ImGui_ImplOpenGL3_Shutdown();
  if (glfwBackend_) ImGui_ImplGlfw_Shutdown();
  if (imguiContext_) ImGui::DestroyContext();
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::shouldClose() const {
  return glfwWindowShouldClose(window_);
}
void Window::requestClose() {
  glfwSetWindowShouldClose(window_, GLFW_TRUE);
}
void Window::setVsync(bool on) {
  glfwSwapInterval(on ? 1 : 0);
}

void Window::beginFrame(double waitSeconds) {
  if (waitSeconds > 0) {
    glfwWaitEventsTimeout(waitSeconds);
  } else {
    glfwPollEvents();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void Window::render() {
  ImGui::Render();
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  glViewport(0, 0, w, h);
  glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::present() {
  glfwSwapBuffers(window_);
}

int Window::framebufferWidth() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return w;
}

int Window::framebufferHeight() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return h;
}

}  // namespace reel::viewer

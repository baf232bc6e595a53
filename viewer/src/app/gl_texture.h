#pragma once
// An RGBA8 image as an OpenGL texture for ImGui::Image: nearest filtering, so that an image shown at an
// integer zoom has exactly the replayed pixels (the screenshot tests compare them).
//
// Threading: the GL context's thread.

#include <cstdint>

#include "reel/image/image.h"

namespace reel::viewer {

class GlTexture {
 public:
  GlTexture() = default;
  ~GlTexture();
  GlTexture(const GlTexture&) = delete;
  GlTexture& operator=(const GlTexture&) = delete;
  GlTexture(GlTexture&& other) noexcept;
  GlTexture& operator=(GlTexture&& other) noexcept;

  // Uploads the image with alpha forced to opaque: ImGui blends what it draws, and a target's alpha
  // would otherwise mix the background into the pixels shown.
  void upload(const image::Image& image);
  void reset();

  bool valid() const { return id_ != 0; }
  void* imguiId() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(id_)); }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }

 private:
  uint32_t id_ = 0;
  uint32_t width_ = 0;
  uint32_t height_ = 0;
};

}  // namespace reel::viewer

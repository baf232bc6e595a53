#include "app/gl_texture.h"

#include <GL/gl.h>

#include <utility>
#include <vector>

namespace reel::viewer {

GlTexture::~GlTexture() {
  reset();
}

GlTexture::GlTexture(GlTexture&& other) noexcept
    : id_(std::exchange(other.id_, 0)), width_(other.width_), height_(other.height_) {}

GlTexture& GlTexture::operator=(GlTexture&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, 0);
    width_ = other.width_;
    height_ = other.height_;
  }
  return *this;
}

void GlTexture::reset() {
  if (id_) {
    const GLuint id = id_;
    glDeleteTextures(1, &id);
  }
  id_ = 0;
  width_ = height_ = 0;
}

void GlTexture::upload(const image::Image& image) {
  if (image.empty()) {
    reset();
    return;
  }
  std::vector<uint8_t> opaque = image.rgba;
  for (size_t i = 3; i < opaque.size(); i += 4) opaque[i] = 255;
  if (!id_) {
    GLuint id = 0;
    glGenTextures(1, &id);
    id_ = id;
  }
  glBindTexture(GL_TEXTURE_2D, id_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, static_cast<GLsizei>(image.width),
               static_cast<GLsizei>(image.height), 0, GL_RGBA, GL_UNSIGNED_BYTE, opaque.data());
  width_ = image.width;
  height_ = image.height;
}

}  // namespace reel::viewer

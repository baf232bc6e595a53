#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "reel/image/image.h"

extern "C" {
#include <stb_image.h>
#include <stb_image_write.h>
}

namespace reel::image {

Result<Image> readPng(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return fail(path.string(), ": no such file");
  if (std::filesystem::is_directory(path, ec)) return fail(path.string(), ": is a directory, not a PNG file");
  std::ifstream file(path, std::ios::binary);
  if (!file) return fail(path.string(), ": cannot open: ", std::strerror(errno));
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kSignature, 8) != 0) return fail(path.string(), ": not a PNG file");
  if (bytes.size() > INT32_MAX) return fail(path.string(), ": too large");
  int w = 0, h = 0, channels = 0;
  stbi_uc* pixels = stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &channels, 4);
  if (!pixels) return fail(path.string(), ": corrupt PNG (", stbi_failure_reason(), ")");
  Image image(static_cast<uint32_t>(w), static_cast<uint32_t>(h));
  std::memcpy(image.rgba.data(), pixels, image.rgba.size());
  stbi_image_free(pixels);
  return image;
}

Result<void> writePng(const std::filesystem::path& path, const Image& image) {
  if (image.empty() || image.rgba.size() != size_t{image.width} * image.height * 4) {
    return fail(path.string(), ": refusing to write an empty or inconsistent image");
  }
  std::filesystem::path temporary = path;
  temporary += ".tmp" + std::to_string(::getpid());
  std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
  if (!file) return fail(path.string(), ": cannot write: ", std::strerror(errno));
  struct Sink {
    std::ofstream* file;
  } sink{&file};
  const int ok = stbi_write_png_to_func(
      [](void* context, void* data, int size) {
        static_cast<Sink*>(context)->file->write(static_cast<const char*>(data), size);
      },
      &sink, static_cast<int>(image.width), static_cast<int>(image.height), 4, image.rgba.data(),
      static_cast<int>(image.width * 4));
  file.close();
  std::error_code ec;
  if (!ok || !file) {
    std::filesystem::remove(temporary, ec);
    return fail(path.string(), ": writing the PNG failed");
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return fail(path.string(), ": cannot rename into place: ", ec.message());
  }
  return {};
}

}  // namespace reel::image

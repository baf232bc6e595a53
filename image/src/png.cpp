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
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) return fail(path.string(), ": no such file");
  if (fs::is_directory(status)) return fail(path.string(), ": is a directory, not a PNG file");
  // A FIFO would block the open until someone writes to it, and a device like /dev/zero never ends.
  if (!fs::is_regular_file(status)) return fail(path.string(), ": not a regular file, not a PNG file");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return fail(path.string(), ": cannot read its size: ", ec.message());
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size < sizeof kSignature) return fail(path.string(), ": not a PNG file");
  if (size > INT32_MAX) return fail(path.string(), ": too large (", size, " bytes)");
  std::ifstream file(path, std::ios::binary);
  if (!file) return fail(path.string(), ": cannot open: ", std::strerror(errno));
  // The signature first: a large file of something else is not read whole.
  unsigned char signature[sizeof kSignature] = {};
  if (!file.read(reinterpret_cast<char*>(signature), sizeof signature) ||
      std::memcmp(signature, kSignature, sizeof kSignature) != 0) {
    return fail(path.string(), ": not a PNG file");
  }
  std::vector<unsigned char> bytes(static_cast<size_t>(size));
  std::memcpy(bytes.data(), signature, sizeof signature);
  file.read(reinterpret_cast<char*>(bytes.data() + sizeof signature),
            static_cast<std::streamsize>(size - sizeof signature));
  if (static_cast<uintmax_t>(file.gcount()) != size - sizeof signature) {
    return fail(path.string(), ": cannot read it whole (it changed while being read)");
  }
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

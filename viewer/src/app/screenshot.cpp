#include "app/screenshot.h"

#include <GL/gl.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "reel/json/json.h"

namespace reel::viewer {
namespace {

std::string rect(const Rect& r) {
  return "{\"x\":" + std::to_string(r.x) + ",\"y\":" + std::to_string(r.y) +
         ",\"width\":" + std::to_string(r.width) + ",\"height\":" + std::to_string(r.height) + "}";
}

}  // namespace

image::Image readBackBuffer(int width, int height) {
  image::Image out(static_cast<uint32_t>(width), static_cast<uint32_t>(height));
  std::vector<uint8_t> rows(out.rgba.size());
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
  const size_t pitch = size_t{out.width} * 4;
  for (uint32_t y = 0; y < out.height; ++y) {
    std::memcpy(out.rgba.data() + y * pitch, rows.data() + (out.height - 1 - y) * pitch, pitch);
  }
  return out;
}

Result<void> writeScreenshotInfo(const std::string& path, const ScreenshotInfo& info) {
  std::string j = "{\n";
  j += "  \"width\": " + std::to_string(info.width) + ",\n";
  j += "  \"height\": " + std::to_string(info.height) + ",\n";
  j += "  \"trace\": " + jsonString(info.trace) + ",\n";
  j += "  \"open_error\": " + jsonString(info.openError) + ",\n";
  j += "  \"device\": " + jsonString(info.device) + ",\n";
  j += "  \"device_errors\": [";
  for (size_t i = 0; i < info.deviceErrors.size(); ++i)
    j += (i ? ", " : "") + jsonString(info.deviceErrors[i]);
  j += "],\n";
  j += "  \"timed_out\": " + std::string(info.timedOut ? "true" : "false") + ",\n";
  j += "  \"frame\": " + std::to_string(info.frame) + ",\n";
  j += "  \"selected_row\": " + std::to_string(info.selectedRow) + ",\n";
  j += "  \"selected_sorted\": " + std::to_string(info.selectedSorted) + ",\n";
  j += "  \"panels\": {";
  for (size_t i = 0; i < info.panels.size(); ++i) {
    j += (i ? ", " : "") + jsonString(info.panels[i].name) + ": " + rect(info.panels[i].rect);
  }
  j += "},\n";
  j += "  \"image\": {\"shown\": " + std::string(info.imageShown ? "true" : "false") +
       ", \"rect\": " + rect(info.image) + ", \"zoom\": " + std::to_string(info.zoom) +
       ", \"image_width\": " + std::to_string(info.imageWidth) +
       ", \"image_height\": " + std::to_string(info.imageHeight) +
       ", \"source\": " + jsonString(info.imageSource) + ", \"error\": " + jsonString(info.imageError) +
       ", \"stop_after_packets\": " + std::to_string(info.stopAfterPackets) + "},\n";
  j += "  \"resource\": {\"name\": " + jsonString(info.resource) +
       ", \"error\": " + jsonString(info.resourceError) + ", \"images\": [";
  for (size_t i = 0; i < info.resourceImages.size(); ++i) {
    const auto& r = info.resourceImages[i];
    j += std::string(i ? ", " : "") + "{\"source\": " + jsonString(r.source) + ", \"rect\": " + rect(r.rect) +
         ", \"zoom\": " + std::to_string(r.zoom) + ", \"image_width\": " + std::to_string(r.imageWidth) +
         ", \"image_height\": " + std::to_string(r.imageHeight) + "}";
  }
  j += "]},\n";
  j += "  \"stats\": {\"tab\": " + jsonString(info.statsTab) +
       ", \"passes\": " + std::to_string(info.statsPasses) +
       ", \"dependencies\": " + std::to_string(info.statsDependencies) +
       ", \"queues\": " + std::to_string(info.statsQueues) +
       ", \"semaphores\": " + std::to_string(info.statsSemaphores) +
       ", \"transients\": " + std::to_string(info.statsTransients) +
       ", \"aliased_bytes_saved\": " + std::to_string(info.statsAliasedBytesSaved) +
       ", \"stores_discarded\": " + std::to_string(info.statsStoresDiscarded) + "}\n";
  j += "}\n";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail(path, ": cannot write");
    out << j;
    if (!out) return fail(path, ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return fail(path, ": cannot rename ", tmp);
  return {};
}

}  // namespace reel::viewer

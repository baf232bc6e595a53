#include "manifest.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace reel::cli {
namespace {

std::string trim(std::string s) {
  const auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
  s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
  return s;
}

}  // namespace

const GoldenEntry* Manifest::find(const std::string& name) const {
  for (const GoldenEntry& e : entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Result<Manifest> readManifest(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return fail(path.string(), ": cannot open the manifest");
  Manifest manifest;
  manifest.path = path;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = path.string() + ":" + std::to_string(number);
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) return fail(where, ": a section is [name]");
      GoldenEntry entry;
      entry.name = trim(line.substr(1, line.size() - 2));
      if (manifest.find(entry.name)) return fail(where, ": [", entry.name, "] appears twice");
      manifest.entries.push_back(std::move(entry));
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string::npos) return fail(where, ": expected key = value");
    if (manifest.entries.empty()) return fail(where, ": a key before the first [section]");
    GoldenEntry& entry = manifest.entries.back();
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "file") {
      entry.file = path.parent_path() / value;
    } else if (key == "frames") {
      entry.frames = value;
    } else if (key == "target") {
      entry.target = value;
    } else if (key == "labels") {
      std::istringstream words(value);
      for (std::string w; words >> w;) entry.labels.push_back(w);
    } else if (key.rfind("tolerance.", 0) == 0) {
      std::istringstream numbers(value);
      image::Tolerance t;
      if (!(numbers >> t.threshold >> t.maxDiffFraction) || t.threshold > 255 || t.maxDiffFraction < 0 ||
          t.maxDiffFraction > 1) {
        return fail(where, ": tolerance is 'THRESHOLD FRACTION' (0-255, 0-1)");
      }
      entry.tolerance[key.substr(10)] = t;
    } else {
      return fail(where, ": unknown key '", key, "'");
    }
  }
  for (const GoldenEntry& e : manifest.entries) {
    if (e.file.empty()) return fail(path.string(), ": [", e.name, "] has no file");
  }
  return manifest;
}

std::string deviceClass(const std::string& deviceName) {
  std::string lower = deviceName;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.find("llvmpipe") != std::string::npos || lower.find("lavapipe") != std::string::npos) return "lavapipe";
  if (lower.find("nvidia") != std::string::npos) return "nvidia";
  if (lower == "null") return "null";
  std::string safe;
  for (const char c : lower) safe += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return safe;
}

}  // namespace reel::cli

#pragma once
// traces/manifest.ini: the golden-image regression suite, one section per trace.
//
//   [cubes]                       # the test's name: ctest runs it as golden.cubes
//   file = cubes.reel             # relative to the manifest
//   frames = 1-2                  # frames whose images are checked (A-B, A or A-)
//   target = last                 # what to read back (reel replay --target)
//   labels = cubes sample         # ctest labels
//   tolerance.lavapipe = 0 0      # per device class: per-channel threshold, share of differing pixels
//   tolerance.nvidia = 2 0.0005
//
// Goldens live beside it: golden/<device class>/<test name>/frame_<n>.png. A device class is a short
// name for a family of devices that render alike: "lavapipe" (Mesa's llvmpipe), "nvidia", else the
// device name made file-safe.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "reel/image/compare.h"
#include "reel/runtime/result.h"

namespace reel::cli {

struct GoldenEntry {
  std::string name;
  std::filesystem::path file;
  std::string frames = "";  // empty: every frame
  std::string target = "last";
  std::vector<std::string> labels;
  std::map<std::string, image::Tolerance> tolerance;  // by device class
};

struct Manifest {
  std::filesystem::path path;
  std::vector<GoldenEntry> entries;

  std::filesystem::path goldenFolder(const std::string& deviceClass, const std::string& entry) const {
    return path.parent_path() / "golden" / deviceClass / entry;
  }
  const GoldenEntry* find(const std::string& name) const;
};

// Errors name the manifest and the line.
Result<Manifest> readManifest(const std::filesystem::path& path);

// "lavapipe" for llvmpipe, "nvidia" for NVIDIA devices, else the name made file-safe.
std::string deviceClass(const std::string& deviceName);

}  // namespace reel::cli

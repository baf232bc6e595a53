#!/usr/bin/env bash
# Builds what a device run needs (../shared/device/README.md) and gathers it into one folder to carry:
#   bash scripts/device-build.sh [BIN]     # default BIN: build-device/bin
# A Release build in build-device/ (tools, samples, benchmarks; no tests, viewer or fuzzers), then BIN
# holds reel, reel-sample and the benchmarks, BIN/lib the shared libraries they link that the GPU
# machine (Ubuntu 24.04, no X11 or GLFW) lacks, and BIN/layer the Khronos validation layer with its
# manifest, which the device scripts put on VK_LAYER_PATH. Carry `.gl` and BIN (64 MiB at most in all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${1:-build-device/bin}
grep -qx '/build-device/' .git/info/exclude 2>/dev/null || echo '/build-device/' >> .git/info/exclude

cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DREEL_BUILD_TESTS=OFF \
  -DREEL_BUILD_VIEWER=OFF -DREEL_BUILD_FUZZERS=OFF -DREEL_BUILD_BENCHMARKS=ON >/dev/null
cmake --build build-device -j "${REEL_JOBS:-$(nproc)}" --target reel reel-sample reel_runtime_bench \
  reel_vulkan_bench reel_writer_bench reel_capture_bench reel_cpu_siblings

rm -rf "$bin"
mkdir -p "$bin/lib" "$bin/layer"
for t in cli/reel samples/reel-sample bench/reel_runtime_bench bench/reel_vulkan_bench bench/reel_writer_bench \
  bench/reel_capture_bench bench/reel_cpu_siblings; do
  cp "build-device/$t" "$bin/"
  strip "$bin/$(basename "$t")"
done
# What the binaries link beyond glibc, libstdc++, libgcc and libzstd, which the GPU machine has.
for f in "$bin"/reel*; do ldd "$f"; done | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libzstd)\.so' |
  while read -r lib; do cp -L "$lib" "$bin/lib/"; done
layer=$(dpkg -L vulkan-validationlayers | grep 'libVkLayer_khronos_validation.so$')
cp "$layer" "$bin/layer/"
strip "$bin/layer/libVkLayer_khronos_validation.so"
# The manifest names the library by file name: the loader looks for it beside the manifest.
sed 's#"library_path": *"[^"]*"#"library_path": "./libVkLayer_khronos_validation.so"#' \
  /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json > "$bin/layer/VkLayer_khronos_validation.json"
du -sh "$bin" .gl

#!/usr/bin/env bash
# Installs the Debian 12 packages reel builds and tests with, when any is missing.
# Usage: scripts/install-deps.sh        (uses sudo when not root)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers vulkan-validationlayers glslc
  libflatbuffers-dev flatbuffers-compiler libzstd-dev zstd libcli11-dev
  libimgui-dev libglfw3-dev libgl-dev libgl1-mesa-dri libglx-mesa0 xauth libgtest-dev libgmock-dev libbenchmark-dev libstb-dev xvfb
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"

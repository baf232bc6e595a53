#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh) and builds the given CMake presets (default: default).
# Usage: scripts/build.sh [preset ...]       presets: default, release, asan, tsan (CMakePresets.json)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "${REEL_SKIP_DEPS:-0}" != 1 ]; then bash scripts/install-deps.sh; fi

jobs=${REEL_JOBS:-$(nproc)}
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(default)
for preset in "${presets[@]}"; do
  echo "build: preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
done

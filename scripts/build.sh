#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh) and builds the given CMake presets (default: default).
# Usage: scripts/build.sh [--targets "T1 T2 ..."] [preset ...]
#        presets: default, release, asan, tsan (CMakePresets.json); --targets builds only those targets
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "${REEL_SKIP_DEPS:-0}" != 1 ]; then bash scripts/install-deps.sh; fi

jobs=${REEL_JOBS:-$(nproc)}
targets=()
if [ "${1:-}" = --targets ]; then
  read -r -a targets <<<"$2"
  shift 2
fi
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(default)
for preset in "${presets[@]}"; do
  echo "build: preset $preset"
  cmake --preset "$preset" >/dev/null
  if [ ${#targets[@]} -gt 0 ]; then
    cmake --build --preset "$preset" -j "$jobs" --target "${targets[@]}"
  else
    cmake --build --preset "$preset" -j "$jobs"
  fi
done

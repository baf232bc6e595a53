#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test with ctest, first in the
# default build, then under AddressSanitizer + UndefinedBehaviorSanitizer. With --tsan, also the
# threaded tests under ThreadSanitizer. Exits non-zero if any test fails.
# Usage: scripts/test.sh [--no-asan] [--tsan]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

asan=1
tsan=0
for arg in "$@"; do
  case "$arg" in
    --no-asan) asan=0 ;;
    --tsan) tsan=1 ;;
    *) echo "test.sh: unknown option '$arg' (known: --no-asan, --tsan)" >&2; exit 2 ;;
  esac
done

presets=(default)
[ $asan = 1 ] && presets+=(asan)
[ $tsan = 1 ] && presets+=(tsan)
bash scripts/build.sh "${presets[@]}"

# Tests render on lavapipe (a CPU Vulkan driver) with the Khronos validation layer on.
export REEL_VALIDATE=1
# Under ASan, what the Vulkan driver and layer keep until exit is not reported as reel's leak.
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
status=0
for preset in "${presets[@]}"; do
  echo
  echo "test: preset $preset"
  labels=()
  # ThreadSanitizer runs the threaded parts only: the runtime and capture.
  [ "$preset" = tsan ] && labels=(-L 'runtime|capture')
  ctest --preset "$preset" -j 2 --timeout 600 "${labels[@]}" || status=1
done
exit $status

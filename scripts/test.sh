#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test with ctest, first in the
# default build, then under AddressSanitizer + UndefinedBehaviorSanitizer, then the threaded tests that
# need no Vulkan driver (runtime, capture, and capture + replay on the null device) under
# ThreadSanitizer. Exits non-zero if any test fails.
# Usage: scripts/test.sh [--no-asan] [--no-tsan]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

asan=1
tsan=1
for arg in "$@"; do
  case "$arg" in
    --no-asan) asan=0 ;;
    --no-tsan) tsan=0 ;;
    --tsan) tsan=1 ;;
    *) echo "test.sh: unknown option '$arg' (known: --no-asan, --no-tsan)" >&2; exit 2 ;;
  esac
done

presets=(default)
[ $asan = 1 ] && presets+=(asan)
bash scripts/build.sh "${presets[@]}"
# Under ThreadSanitizer only what its tests need: the Vulkan driver's threads are not instrumented, so
# the test executables that drive it are not built there (and ctest lists no test of theirs).
tsan_targets=(reel_runtime_tests reel_capture_tests reel_capture_failure_tests reel_capture_fault_tests reel_replay_tests)
if [ $tsan = 1 ]; then
  REEL_SKIP_DEPS=1 bash scripts/build.sh --targets "${tsan_targets[*]}" tsan
  presets+=(tsan)
fi

# Tests render on lavapipe (a CPU Vulkan driver) with the Khronos validation layer on.
export REEL_VALIDATE=1
# Under ASan, what the Vulkan driver and layer keep until exit is not reported as reel's leak.
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
status=0
for preset in "${presets[@]}"; do
  echo
  echo "test: preset $preset"
  labels=()
  # Only the targets above are built under TSan: the tests that drive Vulkan are not among them.
  [ "$preset" = tsan ] && labels=(-L 'runtime|capture|replay')
  ctest --preset "$preset" -j 2 --timeout 600 "${labels[@]}" || status=1
done
exit $status

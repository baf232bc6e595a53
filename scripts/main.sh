#!/usr/bin/env bash
# The main job: installs what is missing, builds (Release), and runs what reel can do end to end.
# Today that is the runtime core on its null device: its benchmarks print the figures the README
# quotes. As the Vulkan device, capture and replay land, this script grows into "capture frames from
# the sample app, replay them headless, write the images, print a summary".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/build.sh release
out=${REEL_OUT:-$root/out}
mkdir -p "$out"

echo
echo "main: runtime benchmarks (null device) -> $out/runtime_bench.json"
build/release/bench/reel_runtime_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/runtime_bench.json" --benchmark_out_format=json

#!/usr/bin/env bash
# The measurements and checks that need a real GPU, in one batch (for the device machine of
# ../shared/device/README.md). Run from the repository root with the Release binaries in BIN:
#   bash scripts/device-run.sh BIN OUT
# It writes everything under OUT: device list, sample images, capture -> replay comparison, the golden
# suite on this device (new goldens for its device class, and how they differ from lavapipe's), and
# the benchmark figures (JSON).
set -uo pipefail
bin=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
log() { echo "== $*" | tee -a "$out/summary.txt"; }

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee "$out/devices.txt"

log "sample scenes, headless, 1280x720, 3 frames each"
for scene in default cubes transparency post compute stress; do
  "$bin/reel-sample" --scene "$scene" --frames 3 --headless --out "$out/sample/$scene" 2>&1 | tail -2 | tee -a "$out/summary.txt"
done

log "capture frames 5-7 of the default scene, replay them, compare with the direct render"
"$bin/reel-sample" --scene default --frames 8 --headless --width 640 --height 360 --out "$out/direct" \
  --capture 5-7 --capture-out "$out/default.reel" 2>&1 | tail -2 | tee -a "$out/summary.txt"
"$bin/reel" replay "$out/default.reel" --out "$out/replayed" 2>&1 | tee -a "$out/summary.txt"
for f in 5 6 7; do
  "$bin/reel" compare "$out/replayed/frame_$f.png" "$out/direct/frame_$f.png" 2>&1 | tee -a "$out/summary.txt"
done
for k in 1 3 4; do
  "$bin/reel" replay "$out/default.reel" --frames-in-flight $k --out "$out/replayed_fif$k" > /dev/null 2>&1
  "$bin/reel" compare "$out/replayed_fif$k" "$out/replayed" --json > "$out/fif$k.json" 2>&1
  echo "frames in flight $k vs 2: exit $?" | tee -a "$out/summary.txt"
done

log "golden suite on this device: new goldens for its class, then the suite against them"
cp -r traces "$out/traces"
"$bin/reel" golden update --manifest "$out/traces/manifest.ini" 2>&1 | tee -a "$out/summary.txt"
"$bin/reel" golden run --manifest "$out/traces/manifest.ini" --output "$out/golden-output" 2>&1 | tee -a "$out/summary.txt"
cls=$(ls "$out/traces/golden" | grep -v lavapipe | head -1)
for t in "$out"/traces/golden/lavapipe/*; do
  name=$(basename "$t")
  "$bin/reel" compare "$out/traces/golden/$cls/$name" "$t" --json > "$out/lavapipe_vs_${cls}_$name.json" 2>&1
  echo "$name: $cls vs lavapipe: $(grep -o '"result":"[a-z]*"' "$out/lavapipe_vs_${cls}_$name.json")" | tee -a "$out/summary.txt"
done

log "benchmarks"
"$bin/reel-sample" --scene stress --frames 30 --headless --stats > "$out/sample_stress_stats.json" 2>&1
"$bin/reel-sample" --scene cubes --frames 60 --headless --stats > "$out/sample_cubes_stats.json" 2>&1
"$bin/reel-sample" --scene stress --frames 12 --headless --capture 2-11 --capture-out "$out/stress.reel" \
  > "$out/sample_stress_capture.txt" 2>&1
"$bin/reel-sample" --scene cubes --frames 32 --headless --capture 2-31 --capture-out "$out/cubes.reel" \
  > "$out/sample_cubes_capture.txt" 2>&1
"$bin/reel" replay "$out/stress.reel" --loop 3 --json > "$out/replay_stress.json" 2>&1
"$bin/reel" replay "$out/cubes.reel" --loop 3 --json > "$out/replay_cubes.json" 2>&1
# GPU times from timestamp queries, and the share of replay CPU that reading the trace costs.
"$bin/reel" replay traces/cubes.reel --json --loop 50 > "$out/replay_trace_cubes.json" 2>&1
"$bin/reel" replay traces/stress_small.reel --json --loop 10 > "$out/replay_trace_stress_small.json" 2>&1
"$bin/reel_vulkan_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/vulkan_bench.json" --benchmark_out_format=json > "$out/vulkan_bench.txt" 2>&1
"$bin/reel_runtime_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/runtime_bench.json" --benchmark_out_format=json > "$out/runtime_bench.txt" 2>&1
rm -f "$out"/*.reel  # large; the summary and JSON carry the figures
log "done"

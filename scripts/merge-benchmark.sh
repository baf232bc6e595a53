#!/usr/bin/env bash
# Instance merging on the `stress` scene (issue 14, docs/instance-merging.md): API draws per frame and the
# render thread's CPU time per frame, merged vs unmerged, on one render thread (reel_vulkan_bench
# BM_StressMerge, 100k draws at 1280x720, medians of 3), plus the runs of one material in stress's sorted
# frame; then a small stress capture replayed by `reel replay --json` with merging on and off
# (REEL_MERGE_INSTANCES=0), to show that a replay merges again. Writes JSON, the console output and
# summary.md into OUT.
#   bash scripts/merge-benchmark.sh BIN OUT    # BIN: reel, reel-sample, reel_vulkan_bench (scripts/device-build.sh)
#   REEL_DEVICE=NVIDIA bash scripts/merge-benchmark.sh BIN OUT    # a named device (default: automatic)
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
[ -d "$bin/lib" ] && export LD_LIBRARY_PATH="$bin/lib:$LD_LIBRARY_PATH"
mkdir -p "$out"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; } > "$out/machine.txt"

"$bin/reel_vulkan_bench" --benchmark_filter='BM_StressMerge' --benchmark_repetitions=3 \
  --benchmark_min_time=0.5 --benchmark_out="$out/stress_merge.json" --benchmark_out_format=json \
  | tee "$out/stress_merge.txt"

# A stress capture (frames 1-10 of 3,000 draws) replayed with merging on and off.
trace="$out/stress_3000.reel"
"$bin/reel-sample" --headless --scene stress --draws 3000 --width 320 --height 180 --frames 11 \
  --render-workers 1 --capture 1-10 --capture-out "$trace" > "$out/capture.txt" 2>&1
REEL_RENDER_WORKERS=1 REEL_MERGE_INSTANCES=1 "$bin/reel" replay "$trace" --json > "$out/replay_merged.json"
REEL_RENDER_WORKERS=1 REEL_MERGE_INSTANCES=0 "$bin/reel" replay "$trace" --json > "$out/replay_unmerged.json"
rm -f "$trace"

python3 "$(dirname "$0")/merge-summary.py" "$out" > "$out/summary.md"
cat "$out/summary.md"

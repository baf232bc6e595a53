#!/usr/bin/env bash
# Wide translation on one machine (the GPU machine of ../shared/device/README.md, or any): the `stress`
# frame at 1, 2, 4, 8 and 16 render workers, directly (reel-sample --stats) and as a replay of a capture
# (reel replay --json: the render thread's phases, sweep / translate / wait included), and the golden
# suite at 1, 2, 4 and 8 workers with validation on (synchronization validation included) and jobs cut
# at 8 keys so that every trace goes wide. Run from the repository root:
#   bash scripts/device-wide.sh BIN OUT
# BIN holds reel and reel-sample, and optionally layer/ (the Khronos validation layer and its manifest)
# for a machine that has none, reel_runtime_bench (the sorts: serial and parallel radix sort against
# std::stable_sort and memcpy, medians of 3) and reel_vulkan_bench (translation per packet at one worker
# against the direct-Vulkan loop, medians of 3). scripts/wide-summary.py turns OUT into the table of
# docs/measurements.
set -uo pipefail
source "$(dirname "$0")/device-env.sh"

log "machine"
{ nproc; "$bin/reel-sample" --list-devices; } 2>&1 | tee -a "$out/summary.txt"

log "golden suite at 1, 2, 4, 8 workers, REEL_VALIDATE=1, jobs of 8 keys"
for w in 1 2 4 8; do
  REEL_VALIDATE=1 REEL_RENDER_WORKERS=$w REEL_RENDER_JOB_KEYS=8 \
    "$bin/reel" golden run --manifest traces/manifest.ini --output "$out/golden-output-$w" > "$out/golden_workers$w.txt" 2>&1
  echo "workers $w: exit $?" | tee -a "$out/summary.txt"
  tail -9 "$out/golden_workers$w.txt" >> "$out/summary.txt"
done

# Instance merging off (REEL_MERGE_INSTANCES=0: every recorded draw reaches Vulkan) and on
# (REEL_MERGE_INSTANCES=1): files *_merged.json for the latter.
log "stress, 1280x720, direct: reel-sample --stats (frames 2-9 measured), merging off and on"
for merge in 0 1; do
  suffix=""
  [ $merge = 1 ] && suffix=_merged
  for w in 1 2 4 8 16; do
    REEL_MERGE_INSTANCES=$merge "$bin/reel-sample" --scene stress --frames 10 --headless --stats --render-workers $w \
      > "$out/sample_workers$w$suffix.json" 2>/dev/null
    echo "workers $w merge $merge: exit $?" | tee -a "$out/summary.txt"
  done
done

log "stress capture (frames 2-4), replayed with --loop 3 at each worker count, merging off and on"
"$bin/reel-sample" --scene stress --frames 5 --headless --capture 2-4 --capture-out "$out/stress.reel" \
  2>&1 | tail -1 | tee -a "$out/summary.txt"
for merge in 0 1; do
  suffix=""
  [ $merge = 1 ] && suffix=_merged
  for w in 1 2 4 8 16; do
    REEL_MERGE_INSTANCES=$merge "$bin/reel" replay "$out/stress.reel" --loop 3 --json --render-workers $w \
      > "$out/replay_workers$w$suffix.json" 2>/dev/null
    echo "workers $w merge $merge: exit $?" | tee -a "$out/summary.txt"
  done
done
if [ -x "$bin/reel_runtime_bench" ]; then
  log "sorts: BM_RadixSort, BM_RadixSortParallel (medians of 3)"
  "$bin/reel_runtime_bench" --benchmark_filter='BM_RadixSort' --benchmark_repetitions=3 \
    --benchmark_min_time=0.2 --benchmark_format=json > "$out/sort_bench.json" 2> "$out/sort_bench.err"
  echo "exit $?" | tee -a "$out/summary.txt"
fi
if [ -x "$bin/reel_vulkan_bench" ]; then
  log "translation at one worker vs the direct-Vulkan loop: BM_StressRenderThread/100000 (medians of 3)"
  REEL_DEVICE=NVIDIA "$bin/reel_vulkan_bench" --benchmark_filter='BM_StressRenderThread/100000' \
    --benchmark_repetitions=3 --benchmark_format=json > "$out/vulkan_bench.json" 2> "$out/vulkan_bench.err"
  echo "exit $?" | tee -a "$out/summary.txt"
fi
rm -f "$out"/*.reel
rm -rf "$out"/golden-output-*
log "done"
# One file back (the device tool returns a handful of files per call).
tar -C "$out" -czf "$out.tgz" . && rm -rf "$out"

#!/usr/bin/env bash
# The render graph in wide frames on the GPU machine (../shared/device/README.md): the golden suite with
# every frame cut into jobs of 8 keys on 8 render workers, validation (synchronization included) on,
# with the device's queues and with one; the `deferred_transient` golden trace on one worker and wide,
# with what its transient targets' sharing saves each way, the attachments stored DONT_CARE and the
# images compared; a 1920x1080 `deferred` capture replayed on every core, one worker against 16, for the
# memory sharing saves in the frames as they are cut by default, and its first two frames wide with
# validation on (its start uploads on the transfer queue); and what building the graph costs the sweep of
# a 100k-key frame
# (BM_SweepStress, 16 workers, medians of 3). Each step's exit code is in OUT/summary.txt; OUT/wide.tgz
# holds the outputs. Run from the repository root:
#   bash scripts/device-wide-graph.sh BIN OUT
set -uo pipefail
source "$(dirname "$0")/device-env.sh"

# The device_memory, queues and render_passes of a `reel replay --json` output (after its log lines).
memory() {
  python3 - "$1" <<'PY' | tee -a "$out/summary.txt"
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("{"):])
m = d["device_memory"]
q = d["queues"]
p = d["render_passes"]
print("  transient_bytes %d, aliased_bytes_saved %d, barriers %d, transfer submits %d, device errors %d" %
      (m["transient_bytes"], m["aliased_bytes_saved"], q["barriers"], q["transfer_submits"], d["device_errors"]))
print("  render passes begun %d, suspended %d, attachment stores discarded %d" %
      (p["begun"], p["suspensions"], p["stores_discarded"]))
PY
}

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee -a "$out/summary.txt"

log "golden suite, 8 render workers, jobs of 8 keys, validation on: several queues, then one"
for mode in several one; do
  queues=""; [ "$mode" = one ] && queues=1
  REEL_VALIDATE=1 REEL_QUEUES=$queues REEL_RENDER_WORKERS=8 REEL_RENDER_JOB_KEYS=8 \
    "$bin/reel" golden run --manifest traces/manifest.ini --output "$out/golden-$mode" > "$out/golden_$mode.txt" 2>&1
  echo "golden suite wide ($mode queues) exit: $?" | tee -a "$out/summary.txt"
  tail -14 "$out/golden_$mode.txt" >> "$out/summary.txt"
done

log "deferred_transient: one render worker, then 8 with jobs of 8 keys (validation on); images compared"
REEL_VALIDATE=1 "$bin/reel" replay traces/deferred_transient.reel --render-workers 1 --json \
  --out "$out/transient_one" > "$out/transient_one.json" 2>&1
echo "replay on one worker exit: $?" | tee -a "$out/summary.txt"
memory "$out/transient_one.json"
REEL_VALIDATE=1 REEL_RENDER_JOB_KEYS=8 "$bin/reel" replay traces/deferred_transient.reel --render-workers 8 --json \
  --out "$out/transient_wide" > "$out/transient_wide.json" 2>&1
echo "replay wide exit: $?" | tee -a "$out/summary.txt"
memory "$out/transient_wide.json"
for f in "$out"/transient_one/frame_*.png; do
  compare_exact "$f" "$out/transient_wide/$(basename "$f")" "$(basename "$f") one worker vs wide"
done

log "deferred at 1920x1080 (frames 10-29 captured): replay on 1 render worker and on 16, validation off"
"$bin/reel-sample" --scene deferred --frames 30 --headless --width 1920 --height 1080 --capture 10-29 \
  --capture-out "$out/deferred_1080p.reel" > /dev/null 2>&1
echo "capture exit: $?" | tee -a "$out/summary.txt"
# Its start uploads every target (16 MB each) on the transfer queue, then the frame is cut into jobs of 8
# keys on 8 workers: validation on.
REEL_VALIDATE=1 REEL_RENDER_JOB_KEYS=8 "$bin/reel" replay "$out/deferred_1080p.reel" --frames 10-11 --render-workers 8 \
  --json > "$out/deferred_wide_start_validated.json" 2>&1
echo "replay of its first 2 frames wide (jobs of 8 keys, validation on) exit: $?" | tee -a "$out/summary.txt"
memory "$out/deferred_wide_start_validated.json"
for workers in 1 16; do
  "$bin/reel" replay "$out/deferred_1080p.reel" --render-workers $workers --json \
    > "$out/deferred_w$workers.json" 2> "$out/deferred_w$workers.err"
  echo "replay on $workers render workers exit: $?" | tee -a "$out/summary.txt"
  memory "$out/deferred_w$workers.json"
done

log "BM_SweepStress: the sweep of a 100k-key frame without and with its graph, 16 workers, medians of 3"
"$bin/reel_runtime_bench" --benchmark_filter='BM_SweepStress/.*/workers:16' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/sweep.json" --benchmark_out_format=json \
  > "$out/sweep.txt" 2>&1
echo "BM_SweepStress exit: $?" | tee -a "$out/summary.txt"
grep median "$out/sweep.txt" | tee -a "$out/summary.txt"

tar -czf "$out/wide.tgz" -C "$out" --exclude wide.tgz --exclude '*.reel' --exclude 'golden-*' .

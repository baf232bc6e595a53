#!/usr/bin/env bash
# Wide frames on several queues on the GPU machine (../shared/device/README.md): a wide frame's jobs inside
# a pass the graph puts on async compute record for the compute queue. With the Khronos validation layer
# and its synchronization checks on (REEL_VALIDATE=1): the golden suite with every frame cut into jobs of
# 8 keys on 8 render workers passes against the committed goldens with the device's queues and with one
# (REEL_QUEUES=1); every sample scene, wide the same way, renders the same images both ways, with the
# compute submissions its jobs made; then the GPU frame time of a 1920x1080 `deferred` capture replayed
# wide (jobs of 8 keys, 16 workers), one queue against several (validation off; 3 interleaved runs of
# each). Each step's exit code is in OUT/summary.txt; OUT/wide_queues.tgz holds the outputs. Run from the
# repository root:
#   bash scripts/device-wide-queues.sh BIN OUT
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
export REEL_RENDER_JOB_KEYS=8

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee -a "$out/summary.txt"

log "golden suite, 8 render workers, jobs of 8 keys, validation on: several queues, then one"
for mode in several one; do
  queues=""; [ "$mode" = one ] && queues=1
  REEL_VALIDATE=1 REEL_QUEUES=$queues REEL_RENDER_WORKERS=8 \
    "$bin/reel" golden run --manifest traces/manifest.ini --output "$out/golden-$mode" > "$out/golden_$mode.txt" 2>&1
  echo "golden suite wide ($mode queues) exit: $?" | tee -a "$out/summary.txt"
  tail -14 "$out/golden_$mode.txt" >> "$out/summary.txt"
done
log "golden traces whose passes prefer async compute, replayed wide with several queues (validation on)"
for trace in deferred_declared default_declared deferred_transient; do
  REEL_VALIDATE=1 "$bin/reel" replay "traces/$trace.reel" --render-workers 8 --json > "$out/replay_$trace.json" 2>&1
  echo "$trace replay exit: $?" | tee -a "$out/summary.txt"
  report queues "$out/replay_$trace.json"
done

log "every sample scene, 4 frames at 320x240, 8 workers, jobs of 8 keys, validation on: several queues, then one"
for scene in cubes transparency post compute stress default passes deferred; do
  both_ways "$scene" --scene "$scene" --render-workers 8
done

log "deferred at 1920x1080: capture frames 10-69, replay wide x5 with GPU times, one queue vs several, 3 rounds"
REEL_RENDER_JOB_KEYS= "$bin/reel-sample" --scene deferred --frames 70 --headless --width 1920 --height 1080 \
  --capture 10-69 --capture-out "$out/deferred_1080p.reel" > /dev/null 2>&1
echo "capture exit: $?" | tee -a "$out/summary.txt"
REEL_VALIDATE=1 "$bin/reel" replay "$out/deferred_1080p.reel" --frames 10-13 --render-workers 16 --json \
  > "$out/deferred_validated.json" 2>&1
echo "replay of its first 4 frames wide (several queues, validation on) exit: $?" | tee -a "$out/summary.txt"
for round in 1 2 3; do
  for mode in one several; do
    queues=""; [ "$mode" = one ] && queues=1
    REEL_QUEUES=$queues "$bin/reel" replay "$out/deferred_1080p.reel" --loop 5 --render-workers 16 --json \
      > "$out/deferred_${mode}_$round.json" 2> "$out/deferred_${mode}_$round.err"
    echo "replay ($mode queues, round $round) exit: $?" | tee -a "$out/summary.txt"
  done
done
report rounds "$out" "deferred 1920x1080 replayed wide (16 workers, jobs of 8 keys), 60 frames x5 per replay" \
  deferred one several | tee "$out/deferred_wide_queues.txt"
rm -f "$out"/*.reel
# The replays' summaries without their per-frame lists (the figures above come from the summaries).
python3 "$scripts/device_report.py" trim "$out"/deferred_*_?.json "$out"/deferred_validated.json "$out"/replay_*.json
log "done"
tar czf "$out/wide_queues.tgz" -C "$out" summary.txt deferred_wide_queues.txt golden_several.txt golden_one.txt \
  $(cd "$out" && ls stats_*.json deferred_*.json replay_*.json) 2>/dev/null

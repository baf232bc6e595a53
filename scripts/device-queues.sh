#!/usr/bin/env bash
# Several queues on the GPU machine (../shared/device/README.md), with the Khronos validation layer and
# its synchronization checks on (REEL_VALIDATE=1): every sample scene renders the same images with the
# device's queues (async compute, transfer) as with one (REEL_QUEUES=1); the golden suite passes against
# the committed goldens on both paths; then the GPU frame time and the replay rate of a 1920x1080
# `deferred` capture, one queue against several (validation off; 3 interleaved runs of each), with the
# memory its transient targets take and what sharing it saves, and its first two frames with validation on
# (the replay's start uploads every target, 16 MB each: on the transfer queue). Each step's
# exit code is in OUT/summary.txt; OUT/queues.tgz holds the outputs. Run from the repository root:
#   bash scripts/device-queues.sh BIN OUT
set -uo pipefail
source "$(dirname "$0")/device-env.sh"

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee -a "$out/summary.txt"
log "every sample scene, 4 frames at 320x240, validation on: several queues, then one; images compared"
for scene in cubes transparency post compute stress default passes deferred; do
  both_ways "$scene" --scene "$scene"
done
log "default (every scene in viewports) on one render worker, so that its frames stay on the render thread"
both_ways default_1 --scene default --render-workers 1
log "what the golden traces with passes that prefer other queues submitted there (several queues)"
for trace in deferred_declared default_declared; do
  REEL_VALIDATE=1 "$bin/reel" replay "traces/$trace.reel" --json > "$out/replay_$trace.json" 2>&1
  echo "$trace replay exit: $?" | tee -a "$out/summary.txt"
  report queues "$out/replay_$trace.json"
done
log "golden suite against the committed goldens, validation on: several queues, then one"
for mode in several one; do
  queues=""; [ "$mode" = one ] && queues=1
  REEL_VALIDATE=1 REEL_QUEUES=$queues "$bin/reel" golden run --manifest traces/manifest.ini \
    --output "$out/golden-$mode" > "$out/golden_$mode.txt" 2>&1
  echo "golden suite ($mode queues) exit: $?" | tee -a "$out/summary.txt"
  tail -14 "$out/golden_$mode.txt" >> "$out/summary.txt"
done
log "deferred at 1920x1080: capture frames 10-69, replay x5 with GPU times, one queue vs several, 3 rounds"
"$bin/reel-sample" --scene deferred --frames 70 --headless --width 1920 --height 1080 --capture 10-69 \
  --capture-out "$out/deferred_1080p.reel" > /dev/null 2>&1
echo "capture exit: $?" | tee -a "$out/summary.txt"
# Its start uploads every target's contents (16 MB each): on the transfer queue, validation on.
REEL_VALIDATE=1 "$bin/reel" replay "$out/deferred_1080p.reel" --frames 10-11 --json > "$out/deferred_start_validated.json" 2>&1
echo "replay of its first 2 frames (several queues, validation on) exit: $?" | tee -a "$out/summary.txt"
report queues "$out/deferred_start_validated.json"
for round in 1 2 3; do
  for mode in one several; do
    queues=""; [ "$mode" = one ] && queues=1
    REEL_QUEUES=$queues "$bin/reel" replay "$out/deferred_1080p.reel" --loop 5 --json \
      > "$out/deferred_${mode}_$round.json" 2> "$out/deferred_${mode}_$round.err"
    echo "replay ($mode queues, round $round) exit: $?" | tee -a "$out/summary.txt"
  done
done
report rounds "$out" "deferred 1920x1080, 60 frames x5 per replay" deferred one several | tee "$out/deferred_queues.txt"
rm -f "$out"/*.reel
# The replays' summaries without their per-frame lists (the figures above come from the summaries).
python3 "$scripts/device_report.py" trim "$out"/deferred_*_?.json "$out"/replay_*.json
log "done"
tar czf "$out/queues.tgz" -C "$out" summary.txt deferred_queues.txt golden_several.txt golden_one.txt \
  $(cd "$out" && ls stats_*.json deferred_*.json replay_*.json) 2>/dev/null

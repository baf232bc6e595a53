#!/usr/bin/env bash
# What concurrent sharing costs on the GPU machine (../shared/device/README.md). With several queues every
# buffer and image is created VK_SHARING_MODE_CONCURRENT over the queues' families (queues.h), so no
# ownership moves; the alternative, exclusive resources, needs a release and an acquire barrier wherever a
# resource changes queue. Both replays here run on the graphics queue alone, so they differ only in the
# sharing mode: REEL_QUEUES=1 (one queue, exclusive) against REEL_QUEUES=shared (every queue opened and
# resources concurrent, all work on graphics). GPU frame time of 1920x1080 captures of `deferred` and
# `cubes` (60 frames replayed 5 times a run, 3 runs of each alternating; validation off), and the images
# of each compared. OUT/summary.txt holds every step's exit code and the table; OUT/sharing.tgz the
# replays' summaries. Run from the repository root:
#   bash scripts/device-sharing.sh BIN OUT
set -uo pipefail
source "$(dirname "$0")/device-env.sh"

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee -a "$out/summary.txt"
for scene in deferred cubes; do
  log "$scene at 1920x1080: capture frames 10-69, replay x5 with GPU times, exclusive vs concurrent, 3 rounds"
  "$bin/reel-sample" --scene "$scene" --frames 70 --headless --width 1920 --height 1080 --capture 10-69 \
    --capture-out "$out/$scene.reel" > /dev/null 2>&1
  echo "$scene capture exit: $?" | tee -a "$out/summary.txt"
  for mode in exclusive concurrent; do
    queues=1; [ "$mode" = concurrent ] && queues=shared
    REEL_VALIDATE=1 REEL_QUEUES=$queues "$bin/reel" replay "$out/$scene.reel" --frames 10-12 \
      --out "$out/images/$scene/$mode" > /dev/null 2>&1
    echo "$scene first 3 frames ($mode, validation on) exit: $?" | tee -a "$out/summary.txt"
  done
  for f in 10 11 12; do
    compare_exact "$out/images/$scene/exclusive/frame_$f.png" "$out/images/$scene/concurrent/frame_$f.png" \
      "$scene frame $f exclusive vs concurrent"
  done
  for round in 1 2 3; do
    for mode in exclusive concurrent; do
      queues=1; [ "$mode" = concurrent ] && queues=shared
      REEL_QUEUES=$queues "$bin/reel" replay "$out/$scene.reel" --loop 5 --json \
        > "$out/${scene}_${mode}_$round.json" 2> "$out/${scene}_${mode}_$round.err"
      echo "$scene replay ($mode, round $round) exit: $?" | tee -a "$out/summary.txt"
    done
  done
done
for scene in deferred cubes; do
  report rounds "$out" "$scene 1920x1080, 60 frames x5 per replay, graphics queue only" $scene exclusive concurrent
done | tee "$out/sharing.txt"
rm -f "$out"/*.reel
python3 "$scripts/device_report.py" trim "$out"/*_?.json
log "done"
tar czf "$out/sharing.tgz" -C "$out" summary.txt sharing.txt $(cd "$out" && ls *_?.json) 2>/dev/null

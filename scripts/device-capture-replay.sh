#!/usr/bin/env bash
# Every sample scene captured and replayed on the GPU machine (../shared/device/README.md) or any, with
# the Khronos validation layer on: frames 2-4 captured at 320x240 beside the app's own images, the trace
# replayed headless, and each replayed frame compared with the app's, pixel for pixel (they must be
# identical). Each step's exit code and each comparison are in OUT/summary.txt. Run from the repository
# root:
#   bash scripts/device-capture-replay.sh BIN OUT
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
export REEL_VALIDATE=1
for scene in ${SCENES:-cubes transparency post compute stress default passes deferred}; do
  log "$scene: capture frames 2-4, replay, compare with the app's images"
  "$bin/reel-sample" --scene "$scene" --frames 5 --headless --width 320 --height 240 --out "$out/$scene/direct" \
    --capture 2-4 --capture-out "$out/$scene.reel" 2>&1 | tail -1 | tee -a "$out/summary.txt"
  echo "$scene capture exit: ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
  "$bin/reel" replay "$out/$scene.reel" --out "$out/$scene/replayed" 2>&1 | tail -1 | tee -a "$out/summary.txt"
  echo "$scene replay exit: ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
  for f in 2 3 4; do
    compare_exact "$out/$scene/direct/frame_$f.png" "$out/$scene/replayed/frame_$f.png" "$scene frame $f"
  done
  rm -f "$out/$scene.reel"
done

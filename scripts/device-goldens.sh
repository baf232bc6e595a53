#!/usr/bin/env bash
# On the GPU machine (../shared/device/README.md): the golden suite on that device, with the Khronos
# validation layer on throughout (REEL_VALIDATE=1; BIN/layer holds the layer for a machine that has
# none). Renders every sample scene, makes goldens for its device class into a copy of traces/ (new ones
# for traces that have none; existing ones are compared), runs the suite against them, and captures +
# replays the `passes` scene (a material binder's packets) to check the replay against the app's own
# render. Each step's exit code is in OUT/summary.txt. Run from the repository root:
#   bash scripts/device-goldens.sh BIN OUT
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
export REEL_VALIDATE=1

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee -a "$out/summary.txt"
log "every sample scene, 3 frames, validation on"
for scene in cubes transparency post compute stress default passes deferred; do
  "$bin/reel-sample" --scene "$scene" --frames 3 --headless 2>&1 | tail -1 | tee -a "$out/summary.txt"
  echo "$scene exit: ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
done
log "golden suite: goldens for this device class (existing ones are checked, missing ones made)"
cp -r traces "$out/traces"
"$bin/reel" golden update --manifest "$out/traces/manifest.ini" 2>&1 | tee -a "$out/summary.txt"
"$bin/reel" golden run --manifest "$out/traces/manifest.ini" --output "$out/golden-output" 2>&1 | tee -a "$out/summary.txt"
echo "golden run exit: ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
log "passes scene: capture frames 2-4, replay, compare with the app's images"
"$bin/reel-sample" --scene passes --frames 5 --headless --width 320 --height 240 --out "$out/direct" \
  --capture 2-4 --capture-out "$out/passes.reel" 2>&1 | tail -2 | tee -a "$out/summary.txt"
"$bin/reel" replay "$out/passes.reel" --out "$out/replayed" 2>&1 | tee -a "$out/summary.txt"
echo "replay exit: ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
for f in 2 3 4; do
  "$bin/reel" compare "$out/replayed/frame_$f.png" "$out/direct/frame_$f.png" --threshold 0 2>&1 | tee -a "$out/summary.txt"
done
rm -f "$out"/*.reel
log "done"

#!/usr/bin/env bash
# On the GPU machine (../shared/device/README.md): the `nvidia` goldens of one new trace of the suite, then
# the whole suite against the goldens with validation (synchronization included) on, with the device's
# queues and with one (REEL_QUEUES=1), on the render thread and wide (8 workers, jobs of 8 keys). OUT/golden
# holds the new trace's goldens; OUT/summary.txt each step's exit code. Run from the repository root:
#   bash scripts/device-golden-new.sh BIN OUT SECTION
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
section=$3
export REEL_VALIDATE=1

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee -a "$out/summary.txt"
log "goldens of $section for this device class"
"$bin/reel" golden update --manifest traces/manifest.ini --only "$section" 2>&1 | tee -a "$out/summary.txt"
echo "golden update exit: ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
mkdir -p "$out/golden" && cp -r traces/golden/nvidia/"$section" "$out/golden/"
log "golden suite: several queues and one, on the render thread and wide"
for mode in several one; do
  queues=""; [ "$mode" = one ] && queues=1
  for workers in 1 8; do
    REEL_QUEUES=$queues REEL_RENDER_WORKERS=$workers REEL_RENDER_JOB_KEYS=8 "$bin/reel" golden run \
      --manifest traces/manifest.ini --output "$out/golden-$mode-$workers" > "$out/golden_${mode}_$workers.txt" 2>&1
    echo "golden suite ($mode queues, $workers workers) exit: $?" | tee -a "$out/summary.txt"
    grep "$section" "$out/golden_${mode}_$workers.txt" >> "$out/summary.txt"
  done
done
log "done"

#!/usr/bin/env bash
# Whether the render thread waits for a capture that starts mid-run (its resources go into the file
# before its frames): one capture of frames FROM..FROM+FRAMES-1 in each run of reel-sample, on the GPU
# machine (../shared/device/README.md) or any:
#   bash scripts/device-capture-start.sh BIN OUT [OLD]
# SCENES (default "post deferred cubes"), REPS (3); with OLD (another build's folder holding reel-sample)
# both builds run, interleaved. OUT/start_<scene>_<build>_<rep>.txt keeps each run's capture summary
# (render-thread waits, with how many were for gathering); OUT/summary.txt the waits of every run.
set -uo pipefail
source "$(dirname "$0")/device-env.sh" "$1" "$2"
builds="new"
[ $# -ge 3 ] && old=$(cd "$3" && pwd) && builds="new old"
from=${FROM:-500}
frames=${FRAMES:-1000}
for rep in $(seq 1 "${REPS:-3}"); do
  for scene in ${SCENES:-post deferred cubes}; do
    for build in $builds; do
      dir=$bin
      [ "$build" = old ] && dir=$old
      REEL_CAPTURE="$out/start.reel" REEL_CAPTURE_FRAMES="$from-$((from + frames - 1))" \
        "$dir/reel-sample" --scene "$scene" --headless --frames $((from + frames)) 2>&1 |
        grep -E "capture:|error" > "$out/start_${scene}_${build}_$rep.txt"
      rm -f "$out/start.reel"
      echo "$scene $build $rep: $(grep -o 'render thread waited [^)]*)' "$out/start_${scene}_${build}_$rep.txt")" |
        tee -a "$out/summary.txt"
    done
  done
done

#!/usr/bin/env bash
# Declared passes on the GPU machine (../shared/device/README.md): every sample scene and the golden suite
# with validation on (scripts/device-goldens.sh, which makes the goldens of traces that have none for
# this device class), then the golden suite with those goldens at 1, 2, 4 and 8 render workers with jobs
# cut at 8 keys, so that passes are resumed across job boundaries, and the comparison of the
# declared-pass traces' goldens with those of the same frames recorded with pass packets. Each step's
# exit code is in OUT/summary.txt; OUT/passes.tgz holds everything. Run from the repository root:
#   bash scripts/device-passes.sh BIN OUT
set -uo pipefail
source "$(dirname "$0")/device-env.sh"

bash scripts/device-goldens.sh "$bin" "$out/goldens"
cat "$out/goldens/summary.txt" >> "$out/summary.txt"
cp -r "$out/goldens/traces" "$out/traces"
log "golden suite at 1, 2, 4, 8 workers, REEL_VALIDATE=1, jobs of 8 keys"
for w in 1 2 4 8; do
  REEL_VALIDATE=1 REEL_RENDER_WORKERS=$w REEL_RENDER_JOB_KEYS=8 \
    "$bin/reel" golden run --manifest "$out/traces/manifest.ini" --output "$out/golden-output-$w" \
    > "$out/golden_workers$w.txt" 2>&1
  echo "workers $w: exit $?" | tee -a "$out/summary.txt"
  tail -12 "$out/golden_workers$w.txt" >> "$out/summary.txt"
done
log "declared passes against pass packets: the same frames' goldens"
golden="$out/traces/golden/nvidia"
for pair in deferred:deferred_declared default_from_start:default_declared; do
  old=${pair%%:*} new=${pair##*:}
  for image in "$golden/$new"/frame_*.png; do
    f=$(basename "$image")
    "$bin/reel" compare "$golden/$old/$f" "$image" --threshold 0 2>&1 | tee -a "$out/summary.txt"
    echo "$old/$f vs $new/$f exit: ${PIPESTATUS[0]}" | tee -a "$out/summary.txt"
  done
done
log "done"
tar czf "$out/passes.tgz" -C "$out" summary.txt goldens/summary.txt traces/golden/nvidia \
  golden_workers1.txt golden_workers2.txt golden_workers4.txt golden_workers8.txt 2>/dev/null

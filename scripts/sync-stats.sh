#!/usr/bin/env bash
# Barriers, render passes and render-pass suspensions per frame of every sample scene, in steady state:
# the Vulkan device's counters after 6 frames minus those after 2, over those 4 frames (the first frames
# also upload every resource). Counts, not times: any machine under any load gives the same figures for
# one driver. One render worker: translation jobs would each add a rendering instance. The "before" of
# whole-frame barriers (docs/passes-and-graph.md, step 2). Run from the repository root:
#   bash scripts/sync-stats.sh [BIN] > OUT     # BIN holds reel-sample (default: build/default/samples)
set -euo pipefail
bin=${1:-build/default/samples}
size="--width 320 --height 240 --render-workers 1"
echo "# $("$bin/reel-sample" --list-devices 2>/dev/null | head -1); $size; per frame, frames 2-5"
printf '%-14s %10s %14s %12s\n' scene barriers render_passes suspensions
for scene in cubes transparency post compute stress default passes deferred; do
  a=$("$bin/reel-sample" --scene "$scene" --frames 2 --headless $size --stats 2>/dev/null)
  b=$("$bin/reel-sample" --scene "$scene" --frames 6 --headless $size --stats 2>/dev/null)
  python3 - "$scene" "$a" "$b" <<'PY'
import json, sys
scene, a, b = sys.argv[1], json.loads(sys.argv[2])["device_counters"], json.loads(sys.argv[3])["device_counters"]
per = lambda k: (b[k] - a[k]) / 4
print(f"{scene:<14} {per('barriers'):10.1f} {per('render_passes'):14.1f} {per('render_pass_suspensions'):12.1f}")
PY
done

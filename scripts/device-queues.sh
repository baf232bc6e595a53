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

# The queue counters of a reel-sample --stats output (after its log lines).
counters() {
  python3 - "$1" <<'PY' | tee -a "$out/summary.txt"
import json, sys
text = open(sys.argv[1]).read()
c = json.loads(text[text.index("{"):])["device_counters"]
print("  queues %d, compute submits %d, transfer submits %d, queue waits %d, wait splits %d, barriers %d, dispatches %d" %
      (c["queues"], c["compute_submits"], c["transfer_submits"], c["queue_waits"], c["wait_splits"], c["barriers"],
       c["dispatches"]))
PY
}

log "devices"
"$bin/reel-sample" --list-devices 2>&1 | tee -a "$out/summary.txt"
# reel-sample NAME ARGS... with several queues, then one (validation on), and their frames 1-3 compared.
both_ways() {
  local name=$1 mode queues f
  shift
  for mode in several one; do
    queues=""; [ "$mode" = one ] && queues=1
    REEL_VALIDATE=1 REEL_QUEUES=$queues "$bin/reel-sample" "$@" --frames 4 --headless --width 320 --height 240 \
      --stats --out "$out/images/$mode/$name" > "$out/stats_${name}_$mode.json" 2>&1
    echo "$name ($mode queues) exit: $?" | tee -a "$out/summary.txt"
    counters "$out/stats_${name}_$mode.json"
  done
  for f in 1 2 3; do
    "$bin/reel" compare "$out/images/several/$name/frame_$f.png" "$out/images/one/$name/frame_$f.png" \
      --threshold 0 > /dev/null 2>&1
    echo "  $name frame $f several vs one queue: compare exit $?" | tee -a "$out/summary.txt"
  done
}

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
  python3 -c "import json,sys; t=open(sys.argv[1]).read(); print('  queues:', json.loads(t[t.index('{'):])['queues'])" \
    "$out/replay_$trace.json" | tee -a "$out/summary.txt"
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
python3 -c "import json,sys; t=open(sys.argv[1]).read(); print('  queues:', json.loads(t[t.index('{'):])['queues'])" \
  "$out/deferred_start_validated.json" | tee -a "$out/summary.txt"
for round in 1 2 3; do
  for mode in one several; do
    queues=""; [ "$mode" = one ] && queues=1
    REEL_QUEUES=$queues "$bin/reel" replay "$out/deferred_1080p.reel" --loop 5 --json \
      > "$out/deferred_${mode}_$round.json" 2> "$out/deferred_${mode}_$round.err"
    echo "replay ($mode queues, round $round) exit: $?" | tee -a "$out/summary.txt"
  done
done
python3 - "$out" <<'PY' | tee "$out/deferred_queues.txt" | tee -a "$out/summary.txt"
import json, statistics, sys
out = sys.argv[1]
print("deferred 1920x1080, 60 frames x5 per replay; per run: median GPU frame time (ms), replay frames/s")
rows = {}
for mode in ("one", "several"):
    for r in (1, 2, 3):
        s = json.load(open(f"{out}/deferred_{mode}_{r}.json"))
        gpu = s["gpu_ms"]["median"] if s.get("gpu_ms") else float("nan")
        q = s.get("queues", {})
        m = s.get("device_memory", {})
        rows.setdefault(mode, []).append((gpu, s["fps"]))
        print(f"  {mode:8} round {r}: gpu median {gpu:.4f} ms, {s['fps']:.1f} frames/s, "
              f"compute submits {q.get('compute_submits')}, queue waits {q.get('waits')}, barriers {q.get('barriers')}, "
              f"transient bytes {m.get('transient_bytes')}, aliased bytes saved {m.get('aliased_bytes_saved')}")
for mode, v in rows.items():
    print(f"{mode:8} median of 3: gpu {statistics.median(g for g, _ in v):.4f} ms, "
          f"{statistics.median(f for _, f in v):.1f} frames/s")
one = statistics.median(g for g, _ in rows["one"]); sev = statistics.median(g for g, _ in rows["several"])
print(f"several / one (GPU median of medians): {sev / one:.3f}")
PY
rm -f "$out"/*.reel
# The replays' summaries without their per-frame lists (the figures above come from the summaries).
for f in "$out"/deferred_*_?.json "$out"/replay_*.json; do
  python3 - "$f" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
s = json.loads(text[text.index("{"):])
for k in ("frames_replayed", "render_thread"):
    s.pop(k, None)
json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
done
log "done"
tar czf "$out/queues.tgz" -C "$out" summary.txt deferred_queues.txt golden_several.txt golden_one.txt \
  $(cd "$out" && ls stats_*.json deferred_*.json replay_*.json) 2>/dev/null

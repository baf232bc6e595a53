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

# The queue counters of a reel-sample --stats output (after its log lines).
counters() {
  python3 - "$1" <<'PY' | tee -a "$out/summary.txt"
import json, sys
text = open(sys.argv[1]).read()
c = json.loads(text[text.index("{"):])["device_counters"]
print("  queues %d, compute submits %d, transfer submits %d, queue waits %d, barriers %d, dispatches %d" %
      (c["queues"], c["compute_submits"], c["transfer_submits"], c["queue_waits"], c["barriers"], c["dispatches"]))
PY
}

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
  python3 -c "import json,sys; t=open(sys.argv[1]).read(); d=json.loads(t[t.index('{'):]); print('  queues:', d['queues'], 'device errors:', d['device_errors'], 'jobs per frame:', [len(f.get('jobs', [])) for f in d['render_thread']])" \
    "$out/replay_$trace.json" | tee -a "$out/summary.txt"
done

log "every sample scene, 4 frames at 320x240, 8 workers, jobs of 8 keys, validation on: several queues, then one"
for scene in cubes transparency post compute stress default passes deferred; do
  for mode in several one; do
    queues=""; [ "$mode" = one ] && queues=1
    REEL_VALIDATE=1 REEL_QUEUES=$queues "$bin/reel-sample" --scene "$scene" --render-workers 8 --frames 4 \
      --headless --width 320 --height 240 --stats --out "$out/images/$mode/$scene" > "$out/stats_${scene}_$mode.json" 2>&1
    echo "$scene ($mode queues) exit: $?" | tee -a "$out/summary.txt"
    counters "$out/stats_${scene}_$mode.json"
  done
  for f in 1 2 3; do
    "$bin/reel" compare "$out/images/several/$scene/frame_$f.png" "$out/images/one/$scene/frame_$f.png" \
      --threshold 0 > /dev/null 2>&1
    echo "  $scene frame $f several vs one queue: compare exit $?" | tee -a "$out/summary.txt"
  done
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
python3 - "$out" <<'PY' | tee "$out/deferred_wide_queues.txt" | tee -a "$out/summary.txt"
import json, statistics, sys
out = sys.argv[1]
print("deferred 1920x1080 replayed wide (16 workers, jobs of 8 keys), 60 frames x5 per replay;")
print("per run: median GPU frame time (ms), replay frames/s")
rows = {}
for mode in ("one", "several"):
    for r in (1, 2, 3):
        s = json.load(open(f"{out}/deferred_{mode}_{r}.json"))
        gpu = s["gpu_ms"]["median"] if s.get("gpu_ms") else float("nan")
        q = s.get("queues", {})
        rows.setdefault(mode, []).append((gpu, s["fps"]))
        print(f"  {mode:8} round {r}: gpu median {gpu:.4f} ms, {s['fps']:.1f} frames/s, "
              f"compute submits {q.get('compute_submits')}, queue waits {q.get('waits')}, barriers {q.get('barriers')}, "
              f"device errors {s.get('device_errors')}")
for mode, v in rows.items():
    print(f"{mode:8} median of 3: gpu {statistics.median(g for g, _ in v):.4f} ms, "
          f"{statistics.median(f for _, f in v):.1f} frames/s")
one = statistics.median(g for g, _ in rows["one"]); sev = statistics.median(g for g, _ in rows["several"])
print(f"several / one (GPU median of medians): {sev / one:.3f}")
PY
rm -f "$out"/*.reel
# The replays' summaries without their per-frame lists (the figures above come from the summaries).
for f in "$out"/deferred_*_?.json "$out"/deferred_validated.json "$out"/replay_*.json; do
  python3 - "$f" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
try:
    s = json.loads(text[text.index("{"):])
except ValueError:
    sys.exit(0)  # not JSON: a failed run's output, kept as it is
for k in ("frames_replayed", "render_thread"):
    s.pop(k, None)
json.dump(s, open(sys.argv[1], "w"), indent=1)
PY
done
log "done"
tar czf "$out/wide_queues.tgz" -C "$out" summary.txt deferred_wide_queues.txt golden_several.txt golden_one.txt \
  $(cd "$out" && ls stats_*.json deferred_*.json replay_*.json) 2>/dev/null

#!/usr/bin/env bash
# Key frames (CaptureOptions::keyFrames): what they cost a capture and what they save a seek.
# Captures the same 1,000 frames of a small scene (reel-sample on the default Vulkan device, lavapipe on
# the VM) twice: without key frames (REEL_CAPTURE_KEY_FRAMES=0) and with them (every $interval), and
# states for each: trace size, key frames, capture wall time, and the seek time to frame 1,000: what
# `reel replay --frames 999` reports for reaching and replaying that frame (the replay starts at the
# capture start without key frames, at the nearest key frame with them; opening the trace and creating
# the device are not in it), and that process's wall time, on the null device and on the default
# device. Medians of 3 runs of each, from this one run.
# Writes OUT/keyframes.json (and keyframes.txt, the same as a table).
# Usage: scripts/keyframes.sh [--build DIR] [--scene NAME] [--draws N] [--interval 1000ms|30f]
#                             [--devices "null default"] [--out DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/release
scene=cubes
draws=200
interval=1000ms
devices="null default"
out=$root/docs/measurements/vm-$(date +%Y-%m-%d)
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --scene) scene=$2; shift 2 ;;
    --draws) draws=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --devices) devices=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "keyframes.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
reel=$build/cli/reel
sample=$build/samples/reel-sample
for exe in "$reel" "$sample"; do
  [ -x "$exe" ] || { echo "keyframes.sh: $exe not built" >&2; exit 2; }
done
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
median() { sort -g | sed -n 2p; }  # of exactly 3 values

rows=()
for mode in none keyed; do
  keys=0; [ "$mode" = keyed ] && keys=$interval
  trace=$work/$mode.reel
  captures=()
  for run in 1 2 3; do
    rm -f "$trace"
    t0=$(now)
    REEL_CAPTURE=$trace REEL_CAPTURE_KEY_FRAMES=$keys \
      "$sample" --headless --scene "$scene" --draws "$draws" --frames 1000 >/dev/null 2>"$work/capture.err"
    t1=$(now)
    captures+=("$(echo "$t1 - $t0" | bc -l)")
  done
  bytes=$(stat -c %s "$trace")
  keyframes=$("$reel" info "$trace" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['key_frames'])")
  for device in $devices; do
    seeks=()
    walls=()
    for run in 1 2 3; do
      args=(--frames 999)
      [ "$device" = null ] && args+=(--device null)
      t0=$(now)
      "$reel" replay "$trace" "${args[@]}" >"$work/replay.out" 2>"$work/replay.err" ||
        { cat "$work/replay.err" >&2; exit 1; }
      t1=$(now)
      # "replayed 1 frame (999-999) on null in 73.0 ms (...)"
      seeks+=("$(sed -n 's/^replayed .* in \([0-9.]*\) ms.*/\1/p' "$work/replay.out")")
      walls+=("$(echo "$t1 - $t0" | bc -l)")
    done
    seek=$(printf '%s\n' "${seeks[@]}" | median)
    wall=$(printf '%s\n' "${walls[@]}" | median)
    capture=$(printf '%s\n' "${captures[@]}" | median)
    rows+=("{\"key_frames_setting\":\"$keys\",\"device\":\"$device\",\"trace_bytes\":$bytes,\"key_frames\":$keyframes,\"capture_s\":$capture,\"seek_to_frame_1000_ms\":$seek,\"replay_process_s\":$wall}")
  done
done
machine="$(uname -n) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
{
  echo "{\"machine\":\"$machine\",\"scene\":\"$scene\",\"draws\":$draws,\"frames\":1000,\"statistic\":\"median of 3\","
  echo "\"rows\":[$(IFS=,; echo "${rows[*]}")]}"
} >"$out/keyframes.json"
python3 - "$out/keyframes.json" >"$out/keyframes.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{d['machine']}: {d['scene']} ({d['draws']} draws), {d['frames']} frames, {d['statistic']}")
print(f"{'setting':>8} {'device':>8} {'trace MB':>9} {'key frames':>10} {'capture s':>10} "
      f"{'seek to frame 1000 ms':>22} {'process s':>10}")
for r in d["rows"]:
    print(f"{r['key_frames_setting']:>8} {r['device']:>8} {r['trace_bytes']/1e6:9.2f} {r['key_frames']:10d} "
          f"{r['capture_s']:10.2f} {r['seek_to_frame_1000_ms']:22.1f} {r['replay_process_s']:10.2f}")
PY
cat "$out/keyframes.txt"

#!/usr/bin/env bash
# Key frames (CaptureOptions::keyFrames): what they cost a capture and what they save a seek.
# Captures the same 1,000 frames of a small scene (reel-sample on the default Vulkan device, lavapipe on
# the VM) without key frames (REEL_CAPTURE_KEY_FRAMES=0) and with them at each interval of --intervals,
# and states for each: trace size, key frames, the render thread's time reading them back (from the
# capture's summary line), the capture's wall time (noisy on a shared machine), and the seek time to
# frame 1,000: what
# `reel replay --frames 999` reports for reaching and replaying that frame (the replay starts at the
# capture start without key frames, at the nearest key frame with them; opening the trace and creating
# the device are not in it), and that process's wall time, on the null device and on the default
# device. Medians of 3 runs of each, from this one run.
# Writes OUT/keyframes.json (and keyframes.txt, the same as a table).
# Usage: scripts/keyframes.sh [--build DIR] [--scene NAME] [--draws N] [--intervals "1000ms 5000ms 30f"]
#                             [--devices "null default"] [--out DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/release
scene=cubes
draws=200
intervals="1000ms"
devices="null default"
out=$root/docs/measurements/vm-$(date +%Y-%m-%d)
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --scene) scene=$2; shift 2 ;;
    --draws) draws=$2; shift 2 ;;
    --intervals) intervals=$2; shift 2 ;;
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
seconds() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.4f}')" "$1" "$2"; }
median() { sort -g | sed -n 2p; }  # of exactly 3 values

rows=()
for keys in 0 $intervals; do
  trace=$work/keys-$keys.reel
  captures=()
  readbacks=()
  for run in 1 2 3; do
    rm -f "$trace"
    t0=$(now)
    REEL_CAPTURE=$trace REEL_CAPTURE_KEY_FRAMES=$keys \
      "$sample" --headless --scene "$scene" --draws "$draws" --frames 1000 >"$work/capture.err" 2>&1
    t1=$(now)
    captures+=("$(seconds "$t0" "$t1")")
    # reel-sample prints the capture summary: "reel capture: ... 2 key frames (12.34 ms), ..."
    readbacks+=("$(sed -n 's/.* key frames (\([0-9.]*\) ms).*/\1/p' "$work/capture.err")")
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
      walls+=("$(seconds "$t0" "$t1")")
    done
    seek=$(printf '%s\n' "${seeks[@]}" | median)
    wall=$(printf '%s\n' "${walls[@]}" | median)
    capture=$(printf '%s\n' "${captures[@]}" | median)
    readback=$(printf '%s\n' "${readbacks[@]}" | median)
    rows+=("{\"key_frames_setting\":\"$keys\",\"device\":\"$device\",\"trace_bytes\":$bytes,\"key_frames\":$keyframes,\"capture_s\":$capture,\"key_frame_readback_ms\":$readback,\"seek_to_frame_1000_ms\":$seek,\"replay_process_s\":$wall}")
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
print(f"{'setting':>8} {'device':>8} {'trace MB':>9} {'key frames':>10} {'readback ms':>12} {'capture s':>10} "
      f"{'seek to frame 1000 ms':>22} {'process s':>10}")
for r in d["rows"]:
    print(f"{r['key_frames_setting']:>8} {r['device']:>8} {r['trace_bytes']/1e6:9.2f} {r['key_frames']:10d} "
          f"{r['key_frame_readback_ms']:12.2f} {r['capture_s']:10.2f} {r['seek_to_frame_1000_ms']:22.1f} "
          f"{r['replay_process_s']:10.2f}")
PY
cat "$out/keyframes.txt"

#!/usr/bin/env bash
# Soak: replays a trace in a loop and samples the process's resident memory, to show whether memory grows
# with the number of replayed frames. Two runs:
#   null      `reel replay --device null --loop N` of a small trace: N * frames replayed frames (one
#             million by default) with no GPU; the render thread, feeder, request streams and trace
#             reading run as in any replay.
#   lavapipe  the same trace on the default Vulkan device (lavapipe in CI) for a shorter loop.
# Writes OUT/soak_<run>.json: RSS samples (seconds, KiB) and a summary (RSS after warm-up, at the end,
# growth per million frames over the second half), and prints the summaries.
# Usage: scripts/soak.sh [--build DIR] [--trace FILE] [--null-frames N] [--vulkan-frames N] [--out DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/release
trace=$root/traces/cubes.reel
null_frames=1000000
vulkan_frames=3000
out=$root/docs/measurements/vm-$(date +%Y-%m-%d)
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --trace) trace=$2; shift 2 ;;
    --null-frames) null_frames=$2; shift 2 ;;
    --vulkan-frames) vulkan_frames=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "soak.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
reel=$build/cli/reel
[ -x "$reel" ] || { echo "soak.sh: $reel not built (cmake --build --preset release)" >&2; exit 2; }
mkdir -p "$out"
frames_in_trace=$("$reel" info "$trace" | awk '/^frames/ {print $2; exit}')
[ -n "$frames_in_trace" ] && [ "$frames_in_trace" -gt 0 ] || { echo "soak.sh: no frames in $trace" >&2; exit 2; }

# run NAME FRAMES DEVICE: replays, sampling VmRSS every 0.5 s, then writes the JSON.
run() {
  local name=$1 frames=$2 device=$3
  local loops=$(( (frames + frames_in_trace - 1) / frames_in_trace ))
  [ $loops -le 1000000 ] || loops=1000000
  local samples=$out/soak_${name}.samples
  : >"$samples"
  local start=$(date +%s.%N)
  local args=(replay "$trace" --loop "$loops")
  [ -n "$device" ] && args+=(--device "$device")
  "$reel" "${args[@]}" >"$out/soak_${name}.stdout" 2>"$out/soak_${name}.stderr" &
  local pid=$!
  while kill -0 $pid 2>/dev/null; do
    local rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN {print a - b}') $rss" >>"$samples"
    sleep 0.5
  done
  local status=0
  wait $pid || status=$?
  python3 - "$samples" "$name" "$device" "$trace" $(( loops * frames_in_trace )) $status "$out/soak_${name}.stdout" \
    >"$out/soak_${name}.json" <<'EOF'
import json, sys
path, name, device, trace, frames, status, stdout = sys.argv[1:]
lines = [l.strip() for l in open(stdout) if l.strip()]
rows = [tuple(map(float, l.split())) for l in open(path) if l.strip()]
n = len(rows)
summary = {"run": name, "device": device or "default", "trace": trace.split("/")[-1], "frames": int(frames),
           "exit_code": int(status), "reel_says": lines[-1] if lines else "", "samples": n}
if n >= 4:
    seconds = rows[-1][0]
    warm = rows[n // 4][1]   # after the first quarter of the run
    half = rows[n // 2]
    end = rows[-1]
    per_second = (end[1] - half[1]) / max(end[0] - half[0], 1e-9)
    frames_per_second = int(frames) / max(seconds, 1e-9)
    summary.update({
        "seconds": round(seconds, 1),
        "rss_kib_max": int(max(r[1] for r in rows)),
        "rss_kib_after_warmup": int(warm),
        "rss_kib_end": int(end[1]),
        "growth_kib_per_million_frames_second_half": round(per_second / frames_per_second * 1e6, 1),
    })
summary["rss_kib"] = [[round(t, 1), int(r)] for t, r in rows]
json.dump(summary, sys.stdout, indent=1)
print()
EOF
  rm -f "$samples" "$out/soak_${name}.stdout"
  [ -s "$out/soak_${name}.stderr" ] || rm -f "$out/soak_${name}.stderr"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('rss_kib'); print(json.dumps(d))" "$out/soak_${name}.json"
}

run null "$null_frames" null
run lavapipe "$vulkan_frames" "${REEL_DEVICE:-}"

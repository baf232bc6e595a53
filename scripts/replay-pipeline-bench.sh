#!/usr/bin/env bash
# Pipelined replay (issue 15): replay frames/s and where the render thread's wait comes from, for a cubes
# capture and a short stress one, on the null device and on a Vulkan device. Run from the repository root:
#   bash scripts/replay-pipeline-bench.sh BUILD OUT [LABEL]
# BUILD is a build folder (cli/reel and samples/reel-sample in it, or both at its top); OUT collects the
# runs; LABEL names this build's runs (default: after). The traces are captured once, into OUT/traces/,
# by the first build that runs, and replayed by every later one, so that builds compare on the same
# bytes. A build whose reel has no --lookahead (before pipelining) runs its default mode only.
# Writes OUT/LABEL/<trace>_<device>_<mode>_<run>.json: `reel replay --json`'s summary (the per-frame
# array dropped), three runs each; then: python3 scripts/replay-pipeline-summary.py OUT > OUT/summary.md
# Environment:
#   DEVICES   devices to replay on (default "null default"; default: no --device, the machine's pick)
#   MODES     read-ahead modes (default "default 0": reel's default --lookahead, and reading in line);
#             also "N" for --lookahead N, "wW" (e.g. w1) for --read-workers W with the default look-ahead
#   FRAMES, STRESS_FRAMES   frames captured (300, 30); SIZE   reel-sample's size ("" = its default)
#   RUNS      runs per mode (3); RUN_IDS   the runs' numbers instead ("2": a second run alone, so that
#             two builds can take turns on a busy machine: A 1, B 1, A 2, B 2, ...)
# On this 2-core VM (docs/measurements/vm-2026-11-25-replay/): SIZE="--width 64 --height 64"
# STRESS_FRAMES=6 DEVICES="null llvmpipe". On the H100 host: the defaults, BUILD a Release build.
set -uo pipefail
build=$(cd "$1" && pwd)
out=$2
label=${3:-after}
devices=${DEVICES:-null default}
modes=${MODES:-default 0}
frames=${FRAMES:-300}
stress_frames=${STRESS_FRAMES:-30}
size=${SIZE:-}
runs=${RUNS:-3}
run_ids=${RUN_IDS:-$(seq 1 "$runs")}
mkdir -p "$out/traces" "$out/$label"
reel=$build/cli/reel
[ -x "$reel" ] || reel=$build/reel
sample=$build/samples/reel-sample
[ -x "$sample" ] || sample=$build/reel-sample
log() { echo "== $*" | tee -a "$out/$label/run.log"; }

log "$label: $reel, runs $run_ids, $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
for scene in cubes stress; do
  trace=$out/traces/$scene.reel
  [ -s "$trace" ] && continue
  n=$frames
  [ $scene = stress ] && n=$stress_frames
  # Key frames off: every build replays the frames alone, with no key frame's resources in between.
  # shellcheck disable=SC2086
  REEL_CAPTURE_KEY_FRAMES=0 "$sample" --scene $scene --headless $size --frames $((n + 2)) --capture 2-$((n + 1)) \
    --capture-out "$trace" 2>&1 | tail -1 | tee -a "$out/$label/run.log"
done

has_lookahead=0
"$reel" replay --help 2>&1 | grep -q -- --lookahead && has_lookahead=1
has_workers=0
"$reel" replay --help 2>&1 | grep -q -- --read-workers && has_workers=1

for scene in cubes stress; do
  trace=$out/traces/$scene.reel
  for device in $devices; do
    device_arg=(--device "$device")
    [ "$device" = default ] && device_arg=()
    for mode in $modes; do
      mode_arg=()
      case $mode in
        default) ;;
        w*) [ $has_workers = 1 ] || continue; mode_arg=(--read-workers "${mode#w}") ;;
        *) [ $has_lookahead = 1 ] || continue; mode_arg=(--lookahead "$mode") ;;
      esac
      for run in $run_ids; do
        file=$out/$label/${scene}_${device}_${mode}_$run.json
        "$reel" replay "$trace" "${device_arg[@]}" "${mode_arg[@]}" --json 2>/dev/null |
          python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("frames_replayed",None); d.pop("render_thread",None); print(json.dumps(d))' \
            > "$file" || log "failed: $file"
      done
      log "$scene $device $mode: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("fps"))' "$file" 2>/dev/null) frames/s (last run)"
    done
  done
done
log "$label: done"

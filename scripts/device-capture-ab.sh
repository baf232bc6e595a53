#!/usr/bin/env bash
# What a capture costs the app, measured inside each process (reel-sample --ab, samples/src/ab_blocks.h):
# blocks of frames come without and with a capture (or the frame tap, or nothing: the method's own
# noise) in the order off, on, on, off, so that where a process's memory and threads landed, which moves a
# run's frame time by several percent on the GPU machine, is the same for both sides. On the GPU machine
# (../shared/device/README.md) or any:
#   bash scripts/device-capture-ab.sh BIN OUT
#   python3 scripts/capture-ab-summary.py OUT > OUT/summary.md
# VARIANTS (default below) lists name=ENV,ENV...: names starting "nothing" or "tap" capture nothing (a
# tap passes ARG= tokens to reel-sample, as scripts/device-capture-cost.sh does), the others capture
# into OUT/ab.reel; each runs with its ENV (REEL_CAPTURE_PRIORITY=idle, REEL_RENDER_WORKERS=4, ...), and
# BIN=DIR runs DIR's reel-sample instead of BIN's (another version, side by side in the same call).
# Each run is REPS times, variants interleaved; blocks of AB_FRAMES (cubes 200, stress 40) frames,
# BLOCKS of them each way (10; an even number, so that the order off, on, on, off ends balanced).
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
reps=${REPS:-3}
scenes=${SCENES:-cubes stress}
blocks=${BLOCKS:-10}
variants=${VARIANTS:-nothing tapread=ARG=--frame-tap,ARG=read tapcopy=ARG=--frame-tap,ARG=copy normal=REEL_CAPTURE_PRIORITY=normal idle=REEL_CAPTURE_PRIORITY=idle}
block_of() { [ "$1" = stress ] && echo "${STRESS_AB_FRAMES:-40}" || echo "${AB_FRAMES:-200}"; }

log "machine"
{ nproc; uname -r; lscpu | grep -E "Model name|Thread|Core|Socket|MHz|L2|L3"; "$bin/reel-sample" --list-devices; } 2>&1 | tee -a "$out/summary.txt"
for scene in $scenes; do
  k=$(block_of "$scene")
  frames=$((2 + 2 * blocks * k))
  log "$scene: $blocks blocks of $k frames each way, $reps runs of: $variants"
  for rep in $(seq 1 "$reps"); do
    for v in $variants; do
      name=${v%%=*}
      envs=() extra=() args=() runbin=$bin
      [ "$v" != "$name" ] && IFS=, read -ra extra <<< "${v#*=}"
      [[ "$name" != nothing* && "$name" != tap* ]] && envs=(REEL_CAPTURE="$out/ab.reel")
      for e in "${extra[@]}"; do
        case "$e" in
          ARG=*) args+=("${e#ARG=}") ;;
          BIN=*) runbin=$(cd "${e#BIN=}" && pwd) ;;
          *) envs+=("$e") ;;
        esac
      done
      { TIMEFORMAT="process cpu: user %U s, sys %S s"
        time env "${envs[@]}" "$runbin/reel-sample" --scene "$scene" --headless --frames "$frames" --ab "$k" \
          "${args[@]}" 2>&1 | grep -E "ms/frame|A/B|error|while behind"; } > "$out/run_${scene}_${name}_$rep.txt" 2>&1
      rm -f "$out/ab.reel"
    done
  done
done

#!/usr/bin/env bash
# What a capture costs the app (issue 15: <= 2% frame time, no render-thread waits), by the capture
# threads' priority and count, on the GPU machine (../shared/device/README.md) or any:
#   bash scripts/device-capture-cost.sh BIN OUT
#   python3 scripts/capture-cost-summary.py OUT > OUT/summary.md
# On the GPU machine, with BIN from scripts/device-build.sh (and GFXReconstruct from .gl/gfxr):
#   source .gl/on-device.sh; bash scripts/device-capture-cost.sh build-device/bin /tmp/cc; tar czf $OUT/cc.tgz -C /tmp cc
#   mkdir -p /tmp/gfxr && for f in .gl/gfxr/*.deb; do dpkg -x "$f" /tmp/gfxr; done  # then a variant gfxr=GFXR=/tmp/gfxr
# Each run is reel-sample headless at its default size, its frames 2.. captured (its first two warm the
# device up, as in scripts/capture-benchmarks.sh); variants run interleaved, REPS times each, so that
# the host's drift spreads over all of them. Writes OUT/run_<scene>_<variant>_<rep>.txt: reel-sample's
# ms/frame line (mean and median kick-to-kick), the capture's summary line, the process's CPU time and
# its peak resident memory (where /usr/bin/time exists).
# VARIANTS (default below) lists name=ENV,ENV...; "off" and names starting "off" capture nothing. Two
# settings are the script's own: SPIN=N runs N busy loops beside the app (what other CPU work on the host
# costs it: clocks, shared cores), COPY=N runs N memory-copying loops (what memory traffic costs it),
# IDLE_SPIN=N and IDLE_COPY=N run them under SCHED_IDLE (chrt --idle: only on cores nothing else wants),
# BIN=DIR runs DIR/reel-sample instead of BIN's (another version, built from an earlier commit), ARG=X
# passes X to reel-sample (one token each: ARG=--frame-tap,ARG=copy runs the frame tap, the least a
# capture does, instead of a capture; variants named tap* capture nothing either), and
# GFXR=DIR captures with GFXReconstruct's layer instead of reel (DIR: Debian's gfxreconstruct package
# unpacked, as scripts/capture-benchmarks.sh takes it; the file's size is added to the run's file).
# SAMPLE_ARGS goes to every reel-sample run: --stats adds the app's and the render thread's phases.
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
reps=${REPS:-5}
scenes=${SCENES:-cubes stress}
variants=${VARIANTS:-off normal=REEL_CAPTURE_PRIORITY=normal background=REEL_CAPTURE_PRIORITY=background idle=REEL_CAPTURE_PRIORITY=idle background_2x2=REEL_CAPTURE_PRIORITY=background,REEL_CAPTURE_ENCODE_THREADS=2,REEL_CAPTURE_COMPRESS_THREADS=2}
sample_args=${SAMPLE_ARGS:-}  # e.g. --stats: the app's and the render thread's phases, medians a frame
frames_of() { [ "$1" = stress ] && echo "${STRESS_FRAMES:-100}" || echo "${FRAMES:-1000}"; }

log "machine"
{ nproc; uname -r; lscpu | grep -E "Model name|Thread|Core|Socket|MHz|L2|L3"; "$bin/reel-sample" --list-devices; } 2>&1 | tee -a "$out/summary.txt"
for scene in $scenes; do
  n=$(frames_of "$scene")
  log "$scene: $n frames captured, $reps runs of: $variants"
  for rep in $(seq 1 "$reps"); do
    for v in $variants; do
      name=${v%%=*}
      envs=() extra=() args=() sample="$bin/reel-sample"
      [ "$v" != "$name" ] && IFS=, read -ra extra <<< "${v#*=}"
      [[ "$name" != off* && "$name" != tap* && "$v" != *GFXR=* ]] && envs=(REEL_CAPTURE="$out/cap.reel" REEL_CAPTURE_FRAMES=2-$((n + 1)))
      for e in "${extra[@]}"; do
        case "$e" in
          GFXR=*)
            gfxr=$(cd "${e#GFXR=}" && pwd)
            envs+=(LD_LIBRARY_PATH="$gfxr/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH"
                   VK_LAYER_PATH="$gfxr/usr/share/vulkan/explicit_layer.d" VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct
                   GFXRECON_CAPTURE_FILE="$out/cap.gfxr" GFXRECON_CAPTURE_FILE_TIMESTAMP=false) ;;
          SPIN=*|COPY=*|IDLE_SPIN=*|IDLE_COPY=*) kind=${e%%=*}; start_loads "${kind,,}" "${e#*=}" ;;
          BIN=*) sample="$(cd "${e#BIN=}" && pwd)/reel-sample" ;;
          ARG=*) args+=("${e#ARG=}") ;;
          *) envs+=("$e") ;;
        esac
      done
      # The process's CPU time (every thread: the app's, the renderer's, the capture's) and, where
      # /usr/bin/time exists, its peak resident memory, each on a line of its own.
      rm -f "$out/rss.tmp"
      { TIMEFORMAT="process cpu: user %U s, sys %S s"
        time "${peak_rss[@]}" env "${envs[@]}" "$sample" --scene "$scene" --headless --frames $((n + 2)) "${args[@]}" $sample_args 2>&1 |
          grep -E "ms/frame|reel capture:|frame tap:|_ms_median"; } > "$out/run_${scene}_${name}_$rep.txt" 2>&1
      [ -f "$out/rss.tmp" ] && cat "$out/rss.tmp" >> "$out/run_${scene}_${name}_$rep.txt"
      stop_loads
      [ -f "$out/cap.gfxr" ] && echo "gfxr file $(stat -c %s "$out/cap.gfxr") bytes" >> "$out/run_${scene}_${name}_$rep.txt"
      rm -f "$out/cap.reel" "$out/cap.gfxr" "$out/rss.tmp"
    done
  done
done

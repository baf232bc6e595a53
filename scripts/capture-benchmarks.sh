#!/usr/bin/env bash
# Capture and replay at speed (issue 15), on one machine (the GPU machine of ../shared/device/README.md,
# or this VM with --quick). Run from the repository root:
#   bash scripts/capture-benchmarks.sh BIN BEFORE OUT [--quick]
# then: python3 scripts/capture-summary.py OUT > OUT/summary.md (and gzip OUT/replay_*.json to keep them).
# On the GPU machine (docs/measurements/h100-2026-11-25-capture/), with BIN and BEFORE Release builds
# carried in build-speed-dev/ and Debian's gfxreconstruct and liblz4-1 packages in .gl/gfxr/:
#   source .gl/on-device.sh; mkdir -p /tmp/gfxr && for f in .gl/gfxr/*.deb; do dpkg -x "$f" /tmp/gfxr; done
#   GFXR=/tmp/gfxr bash scripts/capture-benchmarks.sh build-speed-dev/new build-speed-dev/before $OUT/h100
# BIN holds reel, reel-sample and reel_writer_bench of this version; BEFORE holds reel and reel-sample
# built from commit 6f43339 (before the parallel writer, the predicted frames and the pipelined replay).
# With GFXR=DIR in the environment, DIR holds GFXReconstruct's capture layer unpacked from Debian's
# gfxreconstruct package (usr/lib/..., usr/share/vulkan/explicit_layer.d), the anchor for capture cost.
# Writes into OUT, for scripts/capture-summary.py:
#  - onoff_<scene>_<mode>_<n>.txt: reel-sample's ms/frame line and the capture's summary (render-thread
#    waits, encode threads), modes off / reel (frames encoded on the default encode threads) / reel1
#    (encoded on the writer thread, REEL_CAPTURE_ENCODE_THREADS=0, as before parallel encoding) / before /
#    gfxr, three runs each;
#  - breakdown_<scene>.jsonl: where the capture's time goes per frame (reel_writer_bench breakdown: the
#    writer's stages on one thread, the render thread's cost and waits with 0 and the default encode
#    threads), for the cubes and stress traces of the writer benchmark;
#  - size_<scene>_<version>.json: `reel info --json` of a 300-frame capture and of a 1-frame one (what the
#    capture start costs, taken off for bytes per draw), per sample scene, this version and before;
#  - writer_<scene>.jsonl: the writer's raw MB/s at 1, 2, 4, 8 compression threads (chunks in parallel)
#    and of zstd's own workers; ratio_<scene>.jsonl: frames per chunk, prediction on and off;
#  - replay_<scene>_<mode>_<n>.json: `reel replay --json` three times, modes after (reading ahead),
#    inline (--lookahead 0) and before, of the 300-frame cubes capture and of a 30-frame stress one
#    (the writer benchmark uses the same two traces).
#
# Parts of a run: ONOFF_SCENES="cubes" (default "cubes stress"), ONLY_ONOFF=1 stops after the on/off runs,
# SKIP_ONOFF=1 leaves them out, ONLY_SIZES=1 stops after the trace sizes (BEFORE then needs only its
# reel-sample); BEFORE "-" leaves out the version before (its on/off mode and sizes).
# The 2-core VM's on/off run of cubes (docs/measurements/vm-2026-11-25-encode/):
#   ONOFF_SCENES=cubes ONLY_ONOFF=1 bash scripts/capture-benchmarks.sh BIN - OUT --quick
set -uo pipefail
bin=$(cd "$1" && pwd)
before=-
[ "$2" != "-" ] && before=$(cd "$2" && pwd)
out=$3
quick=${4:-}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
# BIN from scripts/device-build.sh carries the libraries the GPU machine lacks.
[ -d "$bin/lib" ] && export LD_LIBRARY_PATH="$bin/lib:$LD_LIBRARY_PATH"
log() { echo "== $*" | tee -a "$out/summary.txt"; }

if [ "$quick" = "--quick" ]; then
  # The 2-core VM, on lavapipe: small frames, stress cut down.
  size="--width 64 --height 64"
  frames=${FRAMES:-300}
  stress_frames=${STRESS_FRAMES:-12}
  stress_short=${STRESS_SHORT:-6}
  scenes="default cubes transparency post compute passes stress"
else
  size=""
  frames=${FRAMES:-300}
  stress_frames=${STRESS_FRAMES:-300}
  stress_short=${STRESS_SHORT:-30}
  scenes="default cubes transparency post compute passes stress"
fi

log "machine"
{ nproc; uname -r; "$bin/reel-sample" --list-devices; } 2>&1 | tee -a "$out/summary.txt"

n_of() { [ "$1" = stress ] && echo "$stress_frames" || echo "$frames"; }

log "capture on/off: frame time and render-thread waits (3 runs each; stress: $stress_short frames)"
onoff_scenes=${ONOFF_SCENES:-cubes stress}
[ "${SKIP_ONOFF:-0}" = 1 ] && onoff_scenes=""  # a run that goes on after them (their files kept)
# reel-sample's frame time and the capture's summary line, wherever they come in its output.
keep() { grep -E "ms/frame|reel capture:" || true; }
for scene in $onoff_scenes; do
  n=$(n_of $scene)
  [ $scene = stress ] && n=$stress_short
  total=$((n + 2))
  for run in 1 2 3; do
    "$bin/reel-sample" --scene $scene --headless $size --frames $total 2>&1 | tail -1 > "$out/onoff_${scene}_off_$run.txt"
    # Through the environment, so that the two reel modes differ in REEL_CAPTURE_ENCODE_THREADS alone.
    REEL_CAPTURE="$out/cap.reel" REEL_CAPTURE_FRAMES=2-$((n + 1)) \
      "$bin/reel-sample" --scene $scene --headless $size --frames $total 2>&1 | keep > "$out/onoff_${scene}_reel_$run.txt"
    REEL_CAPTURE="$out/cap.reel" REEL_CAPTURE_FRAMES=2-$((n + 1)) REEL_CAPTURE_ENCODE_THREADS=0 \
      "$bin/reel-sample" --scene $scene --headless $size --frames $total 2>&1 | keep > "$out/onoff_${scene}_reel1_$run.txt"
    if [ "$before" != - ]; then
      "$before/reel-sample" --scene $scene --headless $size --frames $total --capture 2-$((n + 1)) \
        --capture-out "$out/cap.reel" 2>&1 | tail -2 > "$out/onoff_${scene}_before_$run.txt"
    fi
    if [ -n "${GFXR:-}" ]; then
      LD_LIBRARY_PATH="$GFXR/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH" \
        VK_LAYER_PATH="$GFXR/usr/share/vulkan/explicit_layer.d" VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct \
        GFXRECON_CAPTURE_FILE="$out/cap.gfxr" GFXRECON_CAPTURE_FILE_TIMESTAMP=false \
        "$bin/reel-sample" --scene $scene --headless $size --frames $total 2>&1 | tail -1 > "$out/onoff_${scene}_gfxr_$run.txt"
      stat -c %s "$out/cap.gfxr" >> "$out/onoff_${scene}_gfxr_$run.txt" 2>/dev/null
      rm -f "$out/cap.gfxr"
    fi
  done
  rm -f "$out/cap.reel"
  echo "$scene: $(cat "$out/onoff_${scene}_reel_1.txt" | tail -1)" | tee -a "$out/summary.txt"
done

if [ "${ONLY_ONOFF:-0}" = 1 ]; then
  log "done (on/off only)"
  exit 0
fi
versions="reel before"
[ "$before" = - ] && versions=reel

log "trace size per scene: $frames-frame captures (stress: $stress_frames), and 1-frame ones"
for scene in $scenes; do
  n=$(n_of $scene)
  for version in $versions; do
    b=$bin
    [ $version = before ] && b=$before
    # Through the environment, with key frames off (REEL_CAPTURE_KEY_FRAMES=0; the version before has
    # none): the frames' own encoding alone. A 300-frame stress capture lasts 17 s on the H100, and
    # every key frame (by default one a second) writes every live resource again.
    REEL_CAPTURE="$out/${scene}_$version.reel" REEL_CAPTURE_FRAMES=2-$((n + 1)) REEL_CAPTURE_KEY_FRAMES=0 \
      "$b/reel-sample" --scene $scene --headless $size --frames $((n + 2)) > /dev/null 2>&1
    REEL_CAPTURE="$out/one.reel" REEL_CAPTURE_FRAMES=2-2 REEL_CAPTURE_KEY_FRAMES=0 \
      "$b/reel-sample" --scene $scene --headless $size --frames 3 > /dev/null 2>&1
    "$bin/reel" info "$out/${scene}_$version.reel" --json > "$out/size_${scene}_$version.json" 2>&1
    "$bin/reel" info "$out/one.reel" --json > "$out/size1_${scene}_$version.json" 2>&1
    rm -f "$out/one.reel"
  done
  echo "$scene: $(stat -c %s "$out/${scene}_reel.reel") bytes, before $(stat -c %s "$out/${scene}_before.reel" 2>/dev/null)" | tee -a "$out/summary.txt"
done
if [ "${ONLY_SIZES:-0}" = 1 ]; then
  rm -f "$out"/*.reel
  log "done (sizes only)"
  exit 0
fi

# The traces of the writer and replay benchmarks: the 300-frame cubes captures, and shorter stress ones.
for version in $versions; do
  b=$bin
  [ $version = before ] && b=$before
  "$b/reel-sample" --scene stress --headless $size --frames $((stress_short + 2)) --capture 2-$((stress_short + 1)) \
    --capture-out "$out/stressshort_$version.reel" > /dev/null 2>&1
  cp "$out/cubes_$version.reel" "$out/cubesbench_$version.reel"
done

log "writer throughput (raw MB/s, medians of 3) and ratio by frames per chunk"
for scene in cubesbench stressshort; do
  "$bin/reel_writer_bench" throughput "$out/${scene}_reel.reel" > "$out/writer_$scene.jsonl" 2>&1
  "$bin/reel_writer_bench" ratio "$out/${scene}_reel.reel" > "$out/ratio_$scene.jsonl" 2>&1
  tail -1 "$out/writer_$scene.jsonl" | tee -a "$out/summary.txt"
done

log "where the capture's time goes per frame (breakdown: stages on one thread; 0 and default encode threads)"
for scene in cubesbench stressshort; do
  "$bin/reel_writer_bench" breakdown "$out/${scene}_reel.reel" > "$out/breakdown_$scene.jsonl" 2>&1
  cat "$out/breakdown_$scene.jsonl" | tee -a "$out/summary.txt"
done

log "replay: frames/s and the render thread's wait for frames (3 runs each)"
for scene in cubesbench stressshort; do
  for run in 1 2 3; do
    "$bin/reel" replay "$out/${scene}_reel.reel" --json > "$out/replay_${scene}_after_$run.json" 2>/dev/null
    "$bin/reel" replay "$out/${scene}_reel.reel" --json --lookahead 0 > "$out/replay_${scene}_inline_$run.json" 2>/dev/null
    if [ "$before" != - ]; then
      "$before/reel" replay "$out/${scene}_before.reel" --json > "$out/replay_${scene}_before_$run.json" 2>/dev/null
    fi
  done
done
rm -f "$out"/*.reel
log "done"
# TAR=1 (the GPU machine): one file back, since the device tool returns a handful of files per call.
if [ "${TAR:-0}" = 1 ]; then tar -C "$out" -czf "$out.tgz" . && rm -rf "$out"; fi

# Sourced by the writer benchmarks' scripts (encode-breakdown.sh, codec-benchmark.sh): the two traces
# they measure, captured on this machine with key frames off (the frames' own cost alone).
#   for_each_bench_trace BIN OUT QUICK COMMAND...
# captures cubes (300 frames) and stress (40: three chunks of the default size; QUICK = --quick: every
# scene at 64x64, for the 2-core VM on lavapipe) into OUT/<scene>.reel one at a time, runs COMMAND...
# SCENE TRACE for each, and removes the trace.
for_each_bench_trace() {
  local bin=$1 out=$2 quick=$3
  shift 3
  local size="" stress_frames=40
  [ "$quick" = "--quick" ] && size="--width 64 --height 64"
  local scene n
  for scene in cubes stress; do
    n=300
    [ $scene = stress ] && n=$stress_frames
    # shellcheck disable=SC2086  # $size is two arguments or none
    REEL_CAPTURE="$out/$scene.reel" REEL_CAPTURE_FRAMES=2-$((n + 1)) REEL_CAPTURE_KEY_FRAMES=0 \
      "$bin/reel-sample" --scene $scene --headless $size --frames $((n + 2)) > /dev/null 2>&1
    "$@" "$scene" "$out/$scene.reel"
    rm -f "$out/$scene.reel"
  done
}

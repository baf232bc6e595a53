#!/usr/bin/env bash
# The capture's CPU, this build against an earlier one, on the GPU machine (../shared/device/README.md)
# or any:
#   bash scripts/device-capture-cpu.sh BIN OLD OUT
# BIN and OLD each hold scripts/device-build.sh's binaries (OLD: an earlier commit's, its
# reel_capture_bench built with this commit's bench/capture_bench.cpp so that both have the same
# benchmarks). PARTS (default "steps stages ab"; "runtime" besides) picks:
#  - steps: BM_Gather and BM_Encode (reel_capture_bench: one leased stress frame gathered, three encoded,
#    again and again on one thread), each build REPS times, interleaved: OUT/steps_<build>_<rep>.json;
#  - stages: reel_writer_bench breakdown (the writer's stages on one thread, and the capture's threads'
#    CPU) on a cubes and a stress capture, each build REPS times, interleaved:
#    OUT/stages_<scene>_<build>_<rep>.jsonl;
#  - ab: the capture's cost in one process with each build (scripts/device-capture-ab.sh, AB_VARIANTS),
#    OUT/ab/summary.md;
#  - runtime: the runtime core's benchmark (scripts/vm-runtime-bench.sh: add, two threads, the radix sort,
#    kick; medians of 3 each run) of each build, REPS runs interleaved: OUT/runtime_<build>_<rep>/.
# OUT/steps.md, OUT/stages.md and OUT/runtime.md: the medians of each build (scripts/capture-cpu-summary.py).
set -uo pipefail
old=$(cd "$2" && pwd)
source "$(dirname "$0")/device-env.sh" "$1" "$3"  # bin, out, scripts and the library paths
reps=${REPS:-3}
parts=${PARTS:-steps stages ab}
dir_of() { [ "$1" = old ] && echo "$old" || echo "$bin"; }

if [[ " $parts " == *" steps "* ]]; then
  for rep in $(seq 1 "$reps"); do
    for build in new old; do
      "$(dir_of $build)/reel_capture_bench" --benchmark_filter='BM_Gather/|BM_Encode' \
        --benchmark_format=json > "$out/steps_${build}_$rep.json" 2> "$out/steps_${build}_$rep.err"
    done
  done
fi
if [[ " $parts " == *" stages "* ]]; then
  stages() {
    local scene=$1 trace=$2 rep build
    for rep in $(seq 1 "$reps"); do
      for build in new old; do
        "$(dir_of $build)/reel_writer_bench" breakdown "$trace" > "$out/stages_${scene}_${build}_$rep.jsonl" 2>&1
      done
    done
  }
  source "$scripts/bench-traces.sh"
  for_each_bench_trace "$bin" "$out" "${QUICK:-}" stages
fi
if [[ " $parts " == *" runtime "* ]]; then
  for rep in $(seq 1 "$reps"); do
    for build in new old; do
      bash "$scripts/vm-runtime-bench.sh" "$(dir_of $build)" "$out/runtime_${build}_$rep" > /dev/null
    done
  done
fi
if [[ " $parts " == *" ab "* ]]; then
  SCENES=${AB_SCENES:-cubes stress} REPS=$reps \
    VARIANTS="${AB_VARIANTS:-normal old_normal=BIN=$old idle=REEL_CAPTURE_PRIORITY=idle old_idle=BIN=$old,REEL_CAPTURE_PRIORITY=idle}" \
    bash "$scripts/device-capture-ab.sh" "$bin" "$out/ab" > "$out/ab.log" 2>&1 &&
    python3 "$scripts/capture-ab-summary.py" "$out/ab" > "$out/ab/summary.md"
fi

for kind in steps stages runtime; do
  ls "$out"/${kind}_* > /dev/null 2>&1 && python3 "$scripts/capture-cpu-summary.py" "$out" $kind > "$out/$kind.md"
done
for f in steps.md stages.md runtime.md ab/summary.md; do
  if [ -f "$out/$f" ]; then cat "$out/$f"; fi
done

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
# OUT/steps.md, OUT/stages.md and OUT/runtime.md: the medians of each build.
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

PYTHONPATH="$scripts" python3 - "$out" <<'PY'
import collections, glob, json, re, statistics, sys
from md_table import print_table
out = sys.argv[1]
med = lambda values: statistics.median(values)
steps = collections.defaultdict(list)
for f in sorted(glob.glob(out + "/steps_*.json")):
    build = f.rsplit("/", 1)[1].split("_")[1]
    try:
        for b in json.load(open(f))["benchmarks"]:
            steps[(b["name"], build)].append(b["ns_per_packet"] * 1e9)  # JSON: seconds a packet
    except (ValueError, KeyError):
        print(f"{f}: no benchmark output (see the .err beside it)")
if steps:
    with open(out + "/steps.md", "w") as md:
        sys.stdout = md
        print_table("One capture step on one thread, ns a packet (medians of the runs)",
                    ["benchmark", "build", "runs", "ns/packet"],
                    [[n, b, len(v), f"{med(v):.3f}"] for (n, b), v in sorted(steps.items())])
        sys.stdout = sys.__stdout__
runtime = collections.defaultdict(list)  # (counter, build) -> the runs' medians
runtime_counters = {"ns_per_packet", "scaling", "x_faster_than_stable_sort", "x_memcpy_time", "kick_median_us",
                    "kick_minus_wake_us", "wake_baseline_us"}
for f in sorted(glob.glob(out + "/runtime_*/runtime_bench.txt")):
    build = f.rsplit("/", 2)[1].split("_")[1]
    for line in open(f):
        if "_median " not in line:
            continue
        name = line.split()[0][: -len("_median")].split("/iterations")[0].split("/real_time")[0]
        for key, value in re.findall(r"(\w+)=([\d.]+)", line):
            if key in runtime_counters:
                runtime[(f"{name} {key}", build)].append(float(value))
if runtime:
    with open(out + "/runtime.md", "w") as md:
        sys.stdout = md
        print_table("The runtime core's benchmark, each build's runs (each a median of 3) and their median",
                    ["counter", "build", "runs", "median"],
                    [[c, b, ", ".join(f"{x:g}" for x in v), f"{med(v):g}"] for (c, b), v in sorted(runtime.items())])
        sys.stdout = sys.__stdout__
stage_fields = ["gather_ms", "encode_ms", "append_ms", "compress_ms_one_thread"]
capture_fields = ["writer_thread_cpu_ms", "encode_cpu_ms", "observer_cpu_us", "render_waits"]
stages, capture = collections.defaultdict(list), collections.defaultdict(list)
for f in sorted(glob.glob(out + "/stages_*.jsonl")):
    scene, build = f.rsplit("/", 1)[1].split("_")[1:3]
    for line in open(f):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("bench") == "breakdown_stages":
            stages[(scene, build)].append(r)
        elif r.get("bench") == "breakdown_capture":
            capture[(scene, build, r["encode_threads"])].append(r)
if stages:
    with open(out + "/stages.md", "w") as md:
        sys.stdout = md
        print_table("The writer's stages on one thread, ms a frame (medians of the runs)",
                    ["scene", "build", "runs"] + stage_fields,
                    [[s, b, len(r)] + [f"{med([x[k] for x in r]):.3f}" for k in stage_fields]
                     for (s, b), r in sorted(stages.items())])
        print_table("The capture's threads, frames replayed on the null device (medians of the runs)",
                    ["scene", "build", "encode threads", "runs"] + capture_fields,
                    [[s, b, t, len(r)] + [f"{med([x[k] for x in r]):.3f}" for k in capture_fields]
                     for (s, b, t), r in sorted(capture.items())])
        sys.stdout = sys.__stdout__
PY
for f in steps.md stages.md runtime.md ab/summary.md; do [ -f "$out/$f" ] && cat "$out/$f"; done

#!/usr/bin/env bash
# The render workers' fork-join (WorkerPool) against an earlier build's, on the GPU machine
# (../shared/device/README.md) or any:
#   bash scripts/device-worker-pool.sh BIN OLD OUT
# BIN and OLD each hold reel-sample and reel_runtime_bench (OLD: an earlier commit's, built with this
# commit's bench/runtime_bench.cpp so that both have the batch benchmark). Writes
# OUT/bench_<side>_<rep>.json (BM_WorkerPoolBatch and the parallel sort: REPS runs of each side,
# interleaved), then the app alone, each side in its own processes, interleaved
# (scripts/device-capture-cost.sh with ALONE_VARIANTS), and a capture's cost in one process on each side
# (scripts/device-capture-ab.sh on cubes with AB_VARIANTS). SIDES lists name=ENV,... for the benchmark
# runs of BIN ("old" runs OLD's).
set -uo pipefail
old=$(cd "$2" && pwd)
source "$(dirname "$0")/device-env.sh" "$1" "$3"  # bin, out, scripts and the library paths
reps=${REPS:-3}
for rep in $(seq 1 "$reps"); do
  for side in ${SIDES:-new old}; do
    name=${side%%=*} envs=() dir=$bin
    [ "$side" != "$name" ] && IFS=, read -ra envs <<< "${side#*=}"
    [ "$name" = old ] && dir=$old
    env "${envs[@]}" "$dir/reel_runtime_bench" --benchmark_filter='BM_WorkerPoolBatch|BM_RadixSortParallel/131072' \
      --benchmark_min_time=0.5 --benchmark_format=json > "$out/bench_${name}_$rep.json" 2> "$out/bench_${name}_$rep.err"
  done
done
SCENES="cubes default stress" REPS=4 VARIANTS="${ALONE_VARIANTS:-off off_old=BIN=$old}" \
  bash "$scripts/device-capture-cost.sh" "$bin" "$out/alone" > "$out/alone.log" 2>&1
SCENES=cubes AB_FRAMES=1000 BLOCKS=6 REPS=3 \
  VARIANTS="${AB_VARIANTS:-normal old_normal=BIN=$old idle=REEL_CAPTURE_PRIORITY=idle old_idle=BIN=$old,REEL_CAPTURE_PRIORITY=idle}" \
  bash "$scripts/device-capture-ab.sh" "$bin" "$out/ab" > "$out/ab.log" 2>&1
python3 "$scripts/capture-cost-summary.py" "$out/alone" > "$out/alone/summary.md"
python3 "$scripts/capture-ab-summary.py" "$out/ab" > "$out/ab/summary.md"
PYTHONPATH="$scripts" python3 - "$out" > "$out/bench.md" <<'PY'
import collections, glob, json, statistics, sys
from md_table import print_table
times = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/bench_*.json")):
    side = f.rsplit("/", 1)[1][len("bench_"):].rsplit("_", 1)[0]
    try:
        for b in json.load(open(f))["benchmarks"]:
            times[(b["name"], side, b["time_unit"])].append(b["real_time"])
    except ValueError:
        print(f"{f}: no JSON (see the .err beside it)")
print_table("Each side's runs of the runtime benchmark, median real time.",
            ["benchmark", "side", "runs", "real time (median)", "unit"],
            [[name, side, len(v), f"{statistics.median(v):.3f}", unit]
             for (name, side, unit), v in sorted(times.items())])
PY

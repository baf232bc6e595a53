#!/usr/bin/env bash
# The parallel sort (BM_RadixSortParallel) of two builds side by side, alone and beside SCHED_IDLE busy
# loops, on the GPU machine (../shared/device/README.md) or any:
#   bash scripts/device-sort-barrier.sh BIN OUT OLD_BENCH [IDLE_LOOPS] > OUT/sort.md
# BIN/reel_runtime_bench (from scripts/device-build.sh) against OLD_BENCH, one built at an earlier
# commit: REPS runs (default 5) of each, the two builds alternating, first alone, then beside IDLE_LOOPS
# (default 4) `chrt --idle 0` busy loops. FILTER picks the benchmarks (by default BM_RadixSortParallel's
# large sizes and BM_RadixSortBarrierSpin, which the old build may lack). OUT/sort_<build>_
# <load>_<rep>.json holds Google Benchmark's JSON; the medians over the runs go to stdout.
set -euo pipefail
source "$(dirname "$0")/device-env.sh"
new=$bin/reel_runtime_bench old=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") loops=${4:-4}
filter=${FILTER:-'BM_RadixSort(Parallel/(131072|1000000)/(8|16)/|BarrierSpin/)'}
reps=${REPS:-5}
for load in alone idle$loops; do
  [ "$load" != alone ] && start_loads idle_spin "$loops"
  for rep in $(seq 1 "$reps"); do
    for build in new old; do
      binary=$new && [ $build = old ] && binary=$old
      "$binary" --benchmark_filter="$filter" --benchmark_format=json > "$out/sort_${build}_${load}_$rep.json"
    done
  done
  stop_loads
done
python3 - "$out" <<'PY'
import json, pathlib, statistics, sys
runs = {}
for f in sorted(pathlib.Path(sys.argv[1]).glob("sort_*_*_*.json")):
    build, load, _ = f.stem.split("_")[1:4]
    for b in json.loads(f.read_text())["benchmarks"]:
        runs.setdefault((b["run_name"], load), {}).setdefault(build, []).append(b["sorter_ms"])
print("| benchmark (sorter_ms, median of the runs) | load | runs | new | old | new / old |")
print("|---|---|---|---|---|---|")
for (name, load), v in sorted(runs.items()):
    new = statistics.median(v["new"])
    if "old" not in v:  # a benchmark the old build does not have
        print(f"| {name} | {load} | {len(v['new'])} | {new:.3f} | | |")
        continue
    old = statistics.median(v["old"])
    print(f"| {name} | {load} | {len(v['new'])} | {new:.3f} | {old:.3f} | {new / old:.2f} |")
PY

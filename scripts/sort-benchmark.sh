#!/usr/bin/env bash
# The frame sort on this machine: the serial radix sort and RadixSorter at 2 threads against
# std::stable_sort and memcpy (reel_runtime_bench BM_RadixSort*, medians of 3), as JSON and a table.
#   bash scripts/sort-benchmark.sh BUILD OUT     # BUILD: a build folder with REEL_BUILD_BENCHMARKS=ON
set -euo pipefail
build=$1
out=$2
mkdir -p "$out"
"$build/bench/reel_runtime_bench" --benchmark_filter='BM_RadixSort(/|Parallel/.*/2/)' --benchmark_repetitions=3 \
  --benchmark_min_time=0.2 --benchmark_format=json > "$out/sort_bench.json"
{ nproc; grep -m1 'model name' /proc/cpuinfo; } > "$out/machine.txt"
python3 "$(dirname "$0")/wide-summary.py" "$out" --sorts-only > "$out/sorts.md"

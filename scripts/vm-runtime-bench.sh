#!/usr/bin/env bash
# The runtime core's benchmarks (reel_runtime_bench: add, two threads into one bucket, the radix sort,
# kick) on this machine, medians of 3, as the README's 2-core VM column reports them. Run from the
# repository root after building the benchmarks (cmake --build --preset release --target reel_runtime_bench):
#   bash scripts/vm-runtime-bench.sh [BUILD] [OUT]
# BUILD may also be a folder of binaries (scripts/device-build.sh's build-device/bin on the GPU machine);
# BENCH_FILTER picks fewer benchmarks.
set -euo pipefail
build=${1:-build/release}
out=${2:-docs/measurements/vm-$(date +%Y-%m-%d)}
bench=$build/bench/reel_runtime_bench
[ -x "$build/reel_runtime_bench" ] && bench=$build/reel_runtime_bench
[ -x "$bench" ] || { echo "vm-runtime-bench.sh: $bench is not built" >&2; exit 2; }
mkdir -p "$out"
{ echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), build $build"; } \
  >"$out/runtime_bench.txt"
filter=${BENCH_FILTER:-'BM_AddPacket$|BM_AddTwoThreadsScaling|BM_RadixSort/|BM_KickWhenRenderThreadKeepsUp'}
"$bench" --benchmark_filter="$filter" \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true >>"$out/runtime_bench.txt" 2>&1
grep -E "median" "$out/runtime_bench.txt"

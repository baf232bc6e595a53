#!/usr/bin/env bash
# What building the frame's render graph costs the translation sweep (BM_SweepStress: a 100k-key
# `stress`-like frame in one declared pass against the same frame in none), medians of 3, on this machine's
# cores. Run from the repository root after `bash scripts/build.sh release`:
#   bash scripts/sweep-graph.sh [WORKERS] > OUT      # WORKERS: render workers (default: 2)
set -euo pipefail
workers=${1:-2}
bench=build/release/bench/reel_runtime_bench
date -Iseconds
echo "Running $bench --benchmark_filter='BM_SweepStress/.*/workers:$workers/' --benchmark_repetitions=3"
"$bench" --benchmark_filter="BM_SweepStress/.*/workers:$workers/" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true 2>&1

#!/usr/bin/env bash
# The viewer's speed targets (bench/viewer_bench.cpp): opening a 1,000,000-packet trace to a usable
# window, scrolling its command table, stepping command by command; three runs under Xvfb (the UI on
# Mesa's llvmpipe GL), with the machine's load average beside each, since a busy 2-core VM changes them.
#   bash scripts/viewer-benchmark.sh BENCH OUT    # BENCH: a build's tests/viewer/reel_viewer_bench
# Writes OUT/viewer_<n>.json (one JSON object a run) and OUT/load.txt.
set -euo pipefail
bench=$1
out=$2
mkdir -p "$out"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; } > "$out/machine.txt"
: > "$out/load.txt"
for n in 1 2 3; do
  echo "run $n: load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
  xvfb-run -a "$bench" > "$out/viewer_$n.json"
done
cat "$out/load.txt" "$out"/viewer_*.json

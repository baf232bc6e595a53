#!/usr/bin/env bash
# Where a capture's time goes (issue 15), per frame, on this machine. Run from the repository root:
#   bash scripts/encode-breakdown.sh BIN OUT [--quick]
# BIN holds reel-sample and reel_writer_bench. Captures the cubes sample (300 frames) and stress (40
# frames; --quick: every scene at 64x64, for the 2-core VM on lavapipe), then, for each trace,
# `reel_writer_bench breakdown` (bench/writer_bench.cpp) replays it on the null device:
#  - breakdown_stages: the writer's stages on one thread: gathering a frame's columns out of its leased
#    streams, encoding its message, appending it to the open chunk, compressing the chunks;
#  - breakdown_capture: the capture itself with encoding on the writer thread (encode_threads 0, as
#    before parallel encoding) and on the default encode threads: the render thread's CPU in the
#    capture's calls, its waits for the capture, the writer and encode threads' CPU.
# Writes OUT/breakdown_<scene>.jsonl and OUT/breakdown.md.
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
quick=${3:-}
mkdir -p "$out"
{ echo "machine: $(nproc) cores, $(uname -r)"; "$bin/reel-sample" --list-devices 2>&1 | head -3; } > "$out/machine.txt"
source "$(dirname "$0")/bench-traces.sh"
breakdown() { "$bin/reel_writer_bench" breakdown "$2" > "$out/breakdown_$1.jsonl"; }
for_each_bench_trace "$bin" "$out" "$quick" breakdown
python3 "$(dirname "$0")/breakdown_summary.py" "$out" > "$out/breakdown.md"
cat "$out/breakdown.md"

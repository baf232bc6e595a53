#!/usr/bin/env bash
# The trace codec's settings on this machine (issue 15): captures cubes (300 frames) and stress (30 frames;
# --quick: 12, every scene at 64x64 for the 2-core VM on lavapipe) with key frames off, then
# `reel_writer_bench codec` (bench/writer_bench.cpp) writes each trace's messages again on one thread at
# zstd levels 1 (with and without long-distance matching), 2, 3, -1 and -3: raw MB/s and ratio, medians of 3.
#   bash scripts/codec-benchmark.sh BIN OUT [--quick]    # BIN: reel-sample, reel_writer_bench (device-build.sh)
# Writes OUT/codec_<scene>.jsonl and OUT/codec.md.
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
quick=${3:-}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
[ -d "$bin/lib" ] && export LD_LIBRARY_PATH="$bin/lib:$LD_LIBRARY_PATH"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; } > "$out/machine.txt"
source "$(dirname "$0")/bench-traces.sh"
codec() { "$bin/reel_writer_bench" codec "$2" > "$out/codec_$1.jsonl"; }
for_each_bench_trace "$bin" "$out" "$quick" codec
python3 - "$out" > "$out/codec.md" <<'PY'
import json, sys
out = sys.argv[1]
rows = {}
for scene in ["cubes", "stress"]:
    for line in open(f"{out}/codec_{scene}.jsonl"):
        r = json.loads(line)
        rows.setdefault(r["mode"], {})[scene] = r
print("| zstd settings (one thread, medians of 3) | cubes raw MB/s | cubes ratio | stress raw MB/s | stress ratio |")
print("|---|---|---|---|---|")
for mode, by in rows.items():
    c, s = by["cubes"], by["stress"]
    print(f"| {mode} | {c['raw_MBps']:.0f} | {c['ratio']:.2f} | {s['raw_MBps']:.0f} | {s['ratio']:.2f} |")
PY
cat "$out/codec.md"

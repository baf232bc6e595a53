#!/usr/bin/env bash
# The trace codec's settings on this machine (issue 15): captures cubes (300 frames) and stress (40 frames;
# --quick: every scene at 64x64, for the 2-core VM on lavapipe) with key frames off, then for each:
#  - `reel_writer_bench codec` (bench/writer_bench.cpp) writes the trace's messages again on one thread at
#    zstd levels 1 (the match table chosen chunk by chunk, the default; with long-distance matching, with
#    its own match table and with tables of 2^16 to 2^18 entries), 2, 3, -1 and -3: raw MB/s and ratio, medians of 3;
#  - `reel_writer_bench chunks` captures the trace again (replayed on the null device) at chunk sizes of
#    32 to 256 MiB: frames a chunk, message and file MB a frame, the writer's stages' CPU on one thread.
#   bash scripts/codec-benchmark.sh BIN OUT [--quick]    # BIN: reel-sample, reel_writer_bench (device-build.sh)
# Writes OUT/codec_<scene>.jsonl, OUT/chunks_<scene>.jsonl, OUT/codec.md and OUT/chunks.md.
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
quick=${3:-}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
[ -d "$bin/lib" ] && export LD_LIBRARY_PATH="$bin/lib:$LD_LIBRARY_PATH"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; } > "$out/machine.txt"
source "$(dirname "$0")/bench-traces.sh"
codec() {
  "$bin/reel_writer_bench" codec "$2" > "$out/codec_$1.jsonl"
  "$bin/reel_writer_bench" chunks "$2" > "$out/chunks_$1.jsonl"
}
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
python3 - "$out" > "$out/chunks.md" <<'PY'
import json, sys
out = sys.argv[1]
print("| scene | chunk MiB | frames a chunk | message MB/frame | file MB/frame | encode ms | append ms | compress ms (one thread) |")
print("|---|---|---|---|---|---|---|---|")
for scene in ["cubes", "stress"]:
    for line in open(f"{out}/chunks_{scene}.jsonl"):
        r = json.loads(line)
        print(f"| {scene} | {r['chunk_MiB']} | {r['frames_per_chunk']:.1f} | {r['message_MB_per_frame']:.3f} | "
              f"{r['file_MB_per_frame']:.3f} | {r['encode_ms']:.3f} | {r['append_ms']:.3f} | {r['compress_ms_one_thread']:.3f} |")
PY
cat "$out/codec.md" "$out/chunks.md"

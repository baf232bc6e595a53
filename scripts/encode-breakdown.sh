#!/usr/bin/env bash
# Where a capture's time goes (issue 15), per frame, on this machine. Run from the repository root:
#   bash scripts/encode-breakdown.sh BIN OUT [--quick]
# BIN holds reel-sample and reel_writer_bench. Captures the cubes sample (300 frames) and stress (30
# frames; --quick: 12, and every scene at 64x64, for the 2-core VM on lavapipe), then, for each trace,
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
python3 - "$out" > "$out/breakdown.md" <<'PY'
import json, sys
out = sys.argv[1]
print("## Where a capture's time goes, per frame (thread CPU; medians of 3; the trace replayed on the null device)\n")
print("| scene | raw MB/frame | gather ms | encode ms | append ms | compress ms (1 thread) |")
print("|---|---|---|---|---|---|")
captures = []
for scene in ["cubes", "stress"]:
    for line in open(f"{out}/breakdown_{scene}.jsonl"):
        r = json.loads(line)
        if r["bench"] == "breakdown_stages":
            print(f"| {scene} | {r['packet_MB_per_frame']:.3f} | {r['gather_ms']:.3f} | {r['encode_ms']:.3f} | {r['append_ms']:.3f} | {r['compress_ms_one_thread']:.3f} |")
        else:
            captures.append((scene, r))
print("\n## The capture, frames replayed as fast as the null device takes them (medians of 3)\n")
print("| scene | encode threads | render thread in the capture's calls (us CPU) | render waits (median run) | wait ms/frame | writer thread ms CPU/frame | encode threads ms CPU/frame | frames/s |")
print("|---|---|---|---|---|---|---|---|")
for scene, r in captures:
    print(f"| {scene} | {r['encode_threads']} | {r['observer_cpu_us']:.1f} | {r['render_waits']} | {r['render_wait_ms_per_frame']:.3f} | {r['writer_thread_cpu_ms']:.3f} | {r['encode_cpu_ms']:.3f} | {r['frames_per_s']:.1f} |")
PY
cat "$out/breakdown.md"

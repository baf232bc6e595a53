#!/usr/bin/env python3
"""Tables of `reel_writer_bench breakdown` output (OUT/breakdown_<trace>.jsonl): where a capture's time goes,
per frame. scripts/encode-breakdown.sh writes them alone; scripts/capture-summary.py within its summary.
    python3 scripts/breakdown_summary.py OUT"""
import glob
import json
import os
import sys


def print_breakdown(out):
    breakdowns = sorted(glob.glob(f"{out}/breakdown_*.jsonl"))
    if not breakdowns:
        return
    print("\n## Where the capture's time goes, per frame (reel_writer_bench breakdown; thread CPU, medians of 3)\n")
    print("The writer's stages on one thread: gathering a frame's columns out of its leased streams, encoding its"
          " message, appending it to the open chunk, compressing the chunks.\n")
    print("| trace | raw MB/frame | gather ms | encode ms | append ms | compress ms (1 thread) |")
    print("|---|---|---|---|---|---|")
    captures = []
    for path in breakdowns:
        name = os.path.basename(path)[len("breakdown_"):-len(".jsonl")]
        with open(path) as f:
            lines = f.read().splitlines()
        for line in lines:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("bench") == "breakdown_stages":
                print(f"| {name} | {r['packet_MB_per_frame']:.3f} | {r['gather_ms']:.3f} | {r['encode_ms']:.3f} | {r['append_ms']:.3f} | {r['compress_ms_one_thread']:.3f} |")
            elif r.get("bench") == "breakdown_capture":
                captures.append((name, r))
    print("\nThe capture, frames replayed on the null device as fast as it takes them:\n")
    print("| trace | encode threads | render thread in the capture's calls (us CPU) | render waits (median run) | wait ms/frame | writer thread ms CPU/frame | encode threads ms CPU/frame | frames/s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in captures:
        print(f"| {name} | {r['encode_threads']} | {r['observer_cpu_us']:.1f} | {r['render_waits']} | {r['render_wait_ms_per_frame']:.3f} | {r['writer_thread_cpu_ms']:.3f} | {r['encode_cpu_ms']:.3f} | {r['frames_per_s']:.1f} |")


if __name__ == "__main__":
    print_breakdown(sys.argv[1])

#!/usr/bin/env python3
"""Tables of scripts/replay-pipeline-bench.sh's output: python3 scripts/replay-pipeline-summary.py OUT > OUT/summary.md

Medians of the runs of each build (label), trace, device and read-ahead mode. Where the time goes: the
CPU of the thread that plays (replay_thread_ms: feeding the buckets, and reading when it reads in line),
of the read-ahead workers (read_ahead_thread_ms), of the render thread (render_thread_ms); the render
thread's wait for the next frame (render_wait_ms, and its share of the render thread's span:
critical_path_decode_share) and the playing thread's wait for frames read ahead (fetch_wait_ms)."""
import glob
import json
import os
import re
import statistics
import sys

out = sys.argv[1]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*", "*.json"))):
    label = os.path.basename(os.path.dirname(path))
    m = re.match(r"(.+)_(.+)_(.+)_(\d+)\.json$", os.path.basename(path))
    if not m:
        continue
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        continue
    runs.setdefault((m.group(1), m.group(2), label, m.group(3)), []).append(d)


def med(ds, *keys):
    values = []
    for d in ds:
        for k in keys:
            d = d.get(k) if isinstance(d, dict) else None
        if isinstance(d, (int, float)):
            values.append(d)
    return statistics.median(values) if values else None


def fmt(v, digits=1):
    return "n/a" if v is None else f"{v:.{digits}f}"


def mode_name(mode):
    if mode == "default":
        return "default"
    if mode.startswith("w"):
        return f"--read-workers {mode[1:]}"
    return "in line (--lookahead 0)" if mode == "0" else f"--lookahead {mode}"


print("# Replay pipeline: frames/s and where the render thread's wait comes from (medians of runs)\n")
print("| trace | device | build | mode | runs | frames/s | critical_path_decode_share | decode_share |"
      " render wait ms | fetch wait ms | playing thread ms | read-ahead ms | render thread ms |"
      " read ms | decompress ms | feed ms |")
print("|" + "---|" * 16)
for (trace, device, label, mode), ds in sorted(runs.items()):
    print(f"| {trace} | {device} | {label} | {mode_name(mode)} | {len(ds)} | {fmt(med(ds, 'fps'))} |"
          f" {fmt(med(ds, 'critical_path_decode_share'), 3)} | {fmt(med(ds, 'decode_share'), 3)} |"
          f" {fmt(med(ds, 'render_wait_ms'))} | {fmt(med(ds, 'fetch_wait_ms'))} |"
          f" {fmt(med(ds, 'cpu_time', 'replay_thread_ms'))} | {fmt(med(ds, 'cpu_time', 'read_ahead_thread_ms'))} |"
          f" {fmt(med(ds, 'cpu_time', 'render_thread_ms'))} | {fmt(med(ds, 'cpu_time', 'read_ms'))} |"
          f" {fmt(med(ds, 'cpu_time', 'decompress_ms'))} | {fmt(med(ds, 'cpu_time', 'feed_ms'))} |")

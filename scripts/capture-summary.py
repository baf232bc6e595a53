#!/usr/bin/env python3
"""Tables of scripts/capture-benchmarks.sh's output:
    python3 scripts/capture-summary.py OUT [BEFORE] > OUT/summary.md
BEFORE names the build capture-benchmarks.sh ran as its BEFORE (a commit; default 6f43339, the first one).

Medians of the three runs of each mode; ratios and sizes from one run."""
import glob
import gzip
import json
import os
import re
import statistics
import sys

out = sys.argv[1]
before = sys.argv[2] if len(sys.argv) > 2 else "6f43339"


def read(path):
    # The replay JSON (a line per frame) is kept gzipped in docs/measurements.
    for name, opener in ((path, open), (path + ".gz", gzip.open)):
        try:
            with opener(name, "rt") as f:
                return f.read()
        except OSError:
            pass
    return ""


def ms_per_frame(text):
    m = re.search(r"\(([\d.]+) ms/frame", text)
    return float(m.group(1)) if m else None


def median_frame_ms(text):
    # reel-sample's median kick-to-kick time (builds from before it printed one have none)
    m = re.search(r"ms/frame, median ([\d.]+) ms", text)
    return float(m.group(1)) if m else None


def waits(text):
    m = re.search(r"render thread waited (\d+) times \(([\d.]+) ms(?:, frames (\d+-\d+))?\)", text)
    return (int(m.group(1)), float(m.group(2)), m.group(3)) if m else None


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    return "n/a" if v is None else f"{v:.{digits}f}"


def encode_threads(text):
    m = re.search(r"encoded on (\d+) threads", text)
    return int(m.group(1)) if m else None


print("## Capture on/off (ms per frame, medians of 3; render-thread waits of the median run)\n")
print("reel: frames encoded on the default encode threads; reel, writer thread: REEL_CAPTURE_ENCODE_THREADS=0"
      " (one thread gathers, encodes and appends every frame, as before parallel encoding).\n")
print(f"| scene | app alone | reel capture | reel, writer thread encodes | reel before ({before}) | GFXReconstruct | waits reel | waits reel, writer thread | waits before | encode threads | GFXReconstruct file |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for scene in ["cubes", "stress"]:
    row = {}
    w = {}
    threads = None
    for mode in ["off", "reel", "reel1", "before", "gfxr"]:
        runs = [read(f"{out}/onoff_{scene}_{mode}_{r}.txt") for r in (1, 2, 3)]
        row[mode] = med([ms_per_frame(t) for t in runs])
        ws = [waits(t) for t in runs if waits(t)]
        mid = ws[len(ws) // 2] if ws else None
        w[mode] = (f"{mid[0]} ({mid[1]:.1f} ms" + (f", frames {mid[2]})" if mid[2] else ")")) if mid else "n/a"
        if mode == "reel":
            threads = med([encode_threads(t) for t in runs])
    off = row["off"]
    if off is None:
        continue
    def rel(v):
        return "n/a" if v is None or not off else f"{v:.3f} ({(v / off - 1) * 100:+.1f}%)"
    sizes = [l for l in read(f"{out}/onoff_{scene}_gfxr_1.txt").splitlines() if l.strip().isdigit()]
    gfxr = f"{int(sizes[0]) / 1e6:.1f} MB (all frames of the run)" if sizes else "n/a"
    print(f"| {scene} | {fmt(off, 3)} | {rel(row['reel'])} | {rel(row['reel1'])} | {rel(row['before'])} | {rel(row['gfxr'])} | {w['reel']} | {w['reel1']} | {w['before']} | {'n/a' if threads is None else int(threads)} | {gfxr} |")

# The same runs' steady frame time: each run's median kick-to-kick interval (one-off stalls, such as the
# capture's start, leave it alone), then the median of the three runs.
steady = {}
for scene in ["cubes", "stress"]:
    steady[scene] = {mode: med([median_frame_ms(read(f"{out}/onoff_{scene}_{mode}_{r}.txt")) for r in (1, 2, 3)])
                     for mode in ["off", "reel", "reel1", "before", "gfxr"]}
if any(v["off"] is not None for v in steady.values()):
    print("\n## Capture on/off, steady frame time (median kick-to-kick ms of each run, median of 3)\n")
    print(f"| scene | app alone | reel capture | reel, writer thread encodes | reel before ({before}) | GFXReconstruct |")
    print("|---|---|---|---|---|---|")
    for scene, row in steady.items():
        off = row["off"]
        if off is None:
            continue
        def rel(v):
            return "n/a" if v is None or not off else f"{v:.4f} ({(v / off - 1) * 100:+.1f}%)"
        print(f"| {scene} | {fmt(off, 4)} | {rel(row['reel'])} | {rel(row['reel1'])} | {rel(row['before'])} | {rel(row['gfxr'])} |")

# The breakdown's tables (reel_writer_bench breakdown), as scripts/encode-breakdown.sh writes them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from breakdown_summary import print_breakdown  # noqa: E402

print_breakdown(out)

print("\n## Trace size per sample scene (one run each)\n")
print("Bytes per draw of the frames: (file of the N-frame capture - file of a 1-frame capture) / draws of N-1 frames;"
      " the 1-frame capture is the header and the resources alive at the start (the capture start's cost, paid once).\n")
print("| scene | frames | draws/frame | file | B/draw (frames) | B/draw (whole file) | ratio | before: B/draw (frames) | before: whole | before: ratio |")
print("|---|---|---|---|---|---|---|---|---|---|")


def draws(info):
    return sum(v for k, v in info.get("packets_per_type", {}).items() if k.startswith("Draw") or k.startswith("Dispatch"))


for path in sorted(glob.glob(f"{out}/size_*_reel.json")):
    scene = os.path.basename(path)[len("size_"):-len("_reel.json")]
    cells = []
    for version in ["reel", "before"]:
        try:
            info = json.loads(read(f"{out}/size_{scene}_{version}.json"))
            one = json.loads(read(f"{out}/size1_{scene}_{version}.json"))
        except ValueError:
            cells.append(None)
            continue
        n = info["frames"]
        d = draws(info)
        per_frame = d / n if n else 0
        frames_bytes = info["file_bytes"] - one["file_bytes"]
        bpd = frames_bytes / (per_frame * (n - 1)) if per_frame and n > 1 else None
        cells.append((n, per_frame, info["file_bytes"], bpd, info["file_bytes"] / d if d else None,
                      info["raw_bytes"] / info["file_bytes"]))
    a, b = cells
    if not a:
        continue
    bb = b or (None,) * 6
    print(f"| {scene} | {a[0]} | {a[1]:.0f} | {a[2] / 1e6:.2f} MB | {fmt(a[3], 1)} | {fmt(a[4], 1)} | {a[5]:.1f}x | "
          f"{fmt(bb[3], 1)} | {fmt(bb[4], 1)} | {fmt(bb[5], 1)}x |")

print("\n## Writer throughput (raw MB/s of messages, medians of 3)\n")
print("| trace | inline (no threads) | 1 | 2 | 4 | 8 | zstd workers 1 | 2 | 4 | 8 |")
print("|---|---|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(f"{out}/writer_*.jsonl")):
    lines = [json.loads(l) for l in read(path).splitlines() if l.startswith("{")]
    if not lines:
        continue
    by = {(l["mode"], l["threads"]): l for l in lines}
    cells = [by.get(("inline", 0))]
    cells += [by.get(("chunks_in_parallel", t)) for t in (1, 2, 4, 8)]
    cells += [by.get(("zstd_workers", t)) for t in (1, 2, 4, 8)]
    name = os.path.basename(path)[len("writer_"):-len(".jsonl")]
    print(f"| {name} ({lines[0]['raw_MB']:.0f} MB raw) | " + " | ".join(
        "n/a" if c is None else f"{c['raw_MBps']:.0f} ({c['ratio']:.1f}x)" for c in cells) + " |")

print("\n## Ratio by frames per chunk (the trace captured again on the null device; one run)\n")
print("| trace | predicted, frames/chunk 1 | 2 | 4 | 8 | 16 | whole frames, 8 | whole frames, 16 |")
print("|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(f"{out}/ratio_*.jsonl")):
    lines = [json.loads(l) for l in read(path).splitlines() if l.startswith("{")]
    if not lines:
        continue
    by = {(l["predict"], l["frames_per_chunk"]): l for l in lines}
    cells = [by.get((True, n)) for n in (1, 2, 4, 8, 16)] + [by.get((False, 8)), by.get((False, 16))]
    name = os.path.basename(path)[len("ratio_"):-len(".jsonl")]
    print(f"| {name} | " + " | ".join(
        "n/a" if c is None else f"{c['ratio']:.1f}x, {c['bytes_per_draw']:.1f} B/draw" for c in cells) + " |")

print("\n## Replay (medians of 3): frames/s, render-thread wait share (critical path), decode_share (CPU total)\n")
print("| trace | mode | frames/s | critical_path_decode_share | decode_share | fetch wait ms |")
print("|---|---|---|---|---|---|")
for scene in ["cubesbench", "stressshort"]:
    for mode in ["before", "inline", "after"]:
        runs = []
        for r in (1, 2, 3):
            try:
                runs.append(json.loads(read(f"{out}/replay_{scene}_{mode}_{r}.json")))
            except ValueError:
                pass
        if not runs:
            continue
        fps = med([j.get("fps") for j in runs])
        cp = med([j.get("critical_path_decode_share") for j in runs])
        ds = med([j.get("decode_share") for j in runs])
        fw = med([j.get("fetch_wait_ms") for j in runs])
        label = {"before": f"before ({before})", "inline": "read in line (--lookahead 0)", "after": "read ahead (default)"}[mode]
        print(f"| {scene} | {label} | {fmt(fps, 1)} | {fmt(cp, 3)} | {fmt(ds, 3)} | {fmt(fw, 1)} |")

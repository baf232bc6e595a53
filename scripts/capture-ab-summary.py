#!/usr/bin/env python3
"""The table of scripts/device-capture-ab.sh's runs: per scene and variant, each run's ratio of its
median frame time with the capture (or tap, or nothing) to its median without, measured in one process
(reel-sample --ab), and the median of those ratios over the runs; the ratios of the blocks side by side
(each on-block's median over the off-block's next to it), pooled over the runs, and their median; the
capture's render-thread waits and CPU a frame where it gives them.
Usage: capture-ab-summary.py OUT"""
import collections
import pathlib
import re
import statistics
import sys

from md_table import print_table

out = pathlib.Path(sys.argv[1])
runs = collections.defaultdict(list)  # (scene, variant) -> [(ratio, off ms, on ms, waits, cpu ms)]
pairs = collections.defaultdict(list)  # (scene, variant) -> every run's block pairs' on/off ratios
order = []
# Where the difference lands: each run's "A/B breakdown" line gives the medians, off and on, of the kick
# thread's recording and kicking and of the render thread's phases; the second table gives, per variant,
# the median over the runs of on minus off, in microseconds.
deltas = collections.defaultdict(lambda: collections.defaultdict(list))  # (scene, variant) -> part -> [us]
parts = []
for path in sorted(out.glob("run_*_*_*.txt"), key=lambda p: p.name):
    scene, variant = re.match(r"run_([^_]+)_(.+)_\d+\.txt$", path.name).groups()
    text = path.read_text()
    breakdown = re.search(r"A/B breakdown \(median ms off -> on\):(.*)", text)
    for name, off, on in re.findall(r"([a-z ]+) ([\d.]+) -> ([\d.]+)", breakdown.group(1) if breakdown else ""):
        name = name.strip()
        deltas[(scene, variant)][name].append((float(on) - float(off)) * 1000)
        if name not in parts:
            parts.append(name)
    ab = re.search(r"median ms/frame off ([\d.]+), on ([\d.]+) \(([\d.]+)x", text)
    if not ab:
        print(f"{path}: no A/B line", file=sys.stderr)
        continue
    pair_line = re.search(r"A/B block pairs \(on/off of blocks side by side, medians\):([\d., ]*)\(", text)
    if pair_line:
        pairs[(scene, variant)] += [float(x) for x in pair_line.group(1).replace(",", " ").split()]
    waits = re.search(r"render thread waited (\d+) times", text)
    cpu = re.search(r"([\d.]+) ms capture CPU a frame", text)
    wakes = re.search(r"woke the capture's threads (\d+) times; (\d+) frames captured", text)
    runs[(scene, variant)].append((float(ab.group(3)), float(ab.group(1)), float(ab.group(2)),
                                   int(waits.group(1)) if waits else None, float(cpu.group(1)) if cpu else None,
                                   int(wakes.group(1)) / max(int(wakes.group(2)), 1) if wakes else None))
    if (scene, variant) not in order:
        order.append((scene, variant))

print("| scene | variant | runs | on/off a run (ratios of the run's medians) | median ratio | block pairs "
      "(all runs): median ratio, middle half | off ms/frame (median run) | render-thread waits (all runs) | "
      "capture CPU ms/frame (median run) | render-thread wakes a captured frame (median run) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for key in sorted(order):
    r = runs[key]
    ratios = sorted(x[0] for x in r)
    median = statistics.median(ratios)
    waits = [x[3] for x in r if x[3] is not None]
    cpu = [x[4] for x in r if x[4] is not None]
    wakes = [x[5] for x in r if x[5] is not None]
    p = pairs[key]
    if len(p) >= 2:
        low, pair_median, high = statistics.quantiles(p, n=4)
        pair_text = (f"{pair_median:.3f}x ({(pair_median - 1) * 100:+.1f}%), "
                     f"{low:.3f}-{high:.3f} ({len(p)} pairs)")
    else:
        pair_text = ""
    print(f"| {key[0]} | {key[1]} | {len(r)} | {', '.join(f'{x:.3f}' for x in ratios)} | "
          f"{median:.3f}x ({(median - 1) * 100:+.1f}%) | {pair_text} | {statistics.median(x[1] for x in r):.4f} | "
          f"{sum(waits) if waits else ''} | {f'{statistics.median(cpu):.2f}' if cpu else ''} | "
          f"{f'{statistics.median(wakes):.3f}' if wakes else ''} |")

if deltas:
    print_table("On minus off, median over the runs, microseconds a frame (kick thread: record, kick; render "
                "thread and its phases):", ["scene", "variant"] + parts,
                [[scene, variant] + [f"{statistics.median(deltas[(scene, variant)][p]):+.1f}"
                                     if deltas[(scene, variant)][p] else "" for p in parts]
                 for scene, variant in sorted(deltas)])

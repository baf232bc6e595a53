#!/usr/bin/env python3
# Turns the output folder of scripts/device-wide.sh into a Markdown table (stdout): the `stress` frame's
# render-thread wall time per worker count (replay of a capture, medians over every replayed frame with
# packets), its sweep / translate / wait phases, the app's own frame time, and the golden suite's results.
#   python3 scripts/wide-summary.py OUT > docs/measurements/<machine>-<date>/wide.md
import json, statistics, sys
from pathlib import Path

out = Path(sys.argv[1])
print("| workers | render thread ms/frame (replay) | sweep | translate (own job) | wait | vs 1 worker | app ms/frame (reel-sample) |")
print("|---|---|---|---|---|---|---|")
base = None
for w in [1, 2, 4, 8, 16]:
    replay = json.loads((out / f"replay_workers{w}.json").read_text())
    frames = [f for f in replay["render_thread"] if f["packets"] > 0]
    total = statistics.median(sum(p["wall_ms"] for p in f["phases"].values()) for f in frames)
    phase = lambda name: statistics.median(f["phases"][name]["wall_ms"] for f in frames)
    base = base or total
    sample = json.loads((out / f"sample_workers{w}.json").read_text())
    print(f"| {w} | {total:.1f} | {phase('sweep'):.1f} | {phase('translate'):.1f} | {phase('wait'):.1f} | "
          f"{base / total:.2f}x | {sample['ms_per_frame']:.1f} |")
print()
for w in [1, 2, 4, 8]:
    lines = (out / f"golden_workers{w}.txt").read_text().splitlines()
    results = [l.split()[0] + " " + l.split()[2] for l in lines if l and l.split()[0] != "trace" and len(l.split()) > 3]
    print(f"- golden suite at {w} workers (REEL_VALIDATE=1, jobs of 8 keys): " + ", ".join(results))

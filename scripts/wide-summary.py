#!/usr/bin/env python3
# Turns the output folder of scripts/device-wide.sh into a Markdown table (stdout): the `stress` frame's
# render-thread wall time per worker count (replay of a capture, medians over every replayed frame with
# packets), its sweep / translate / wait phases, the app's own frame time, and the golden suite's results.
#   python3 scripts/wide-summary.py OUT > docs/measurements/<machine>-<date>/wide.md
import json, statistics, sys
from pathlib import Path

out = Path(sys.argv[1])
sorts_only = "--sorts-only" in sys.argv[2:]  # scripts/sort-benchmark.sh: no device-wide.sh files
def workers_table(suffix):
    print("| workers | render thread ms/frame (replay) | merge+sort | sweep | translate (own job) | wait | slowest job / mean | vs 1 worker | app ms/frame (reel-sample) | API draws/frame |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    base = None
    for w in [1, 2, 4, 8, 16]:
        replay = json.loads((out / f"replay_workers{w}{suffix}.json").read_text())
        frames = [f for f in replay["render_thread"] if f["packets"] > 0]
        total = statistics.median(sum(p["wall_ms"] for p in f["phases"].values()) for f in frames)
        phase = lambda name: statistics.median(f["phases"][name]["wall_ms"] for f in frames)
        base = base or total
        sample = json.loads((out / f"sample_workers{w}{suffix}.json").read_text())
        draws = (f"{statistics.median(f['draws_submitted'] for f in frames):,.0f}"
                 if "draws_submitted" in frames[0] else "-")
        sort = statistics.median(f["phases"]["merge"]["wall_ms"] + f["phases"]["sort"]["wall_ms"] for f in frames)
        # Per-job wall times (reel replay --json "jobs", where the replay reports them).
        spread = [max(j["wall_ms"] for j in f["jobs"]) / statistics.mean(j["wall_ms"] for j in f["jobs"])
                  for f in frames if f.get("jobs")]
        imbalance = f"{statistics.median(spread):.2f}" if spread else "-"
        print(f"| {w} | {total:.1f} | {sort:.1f} | {phase('sweep'):.1f} | {phase('translate'):.1f} | {phase('wait'):.1f} | "
              f"{imbalance} | {base / total:.2f}x | {sample['ms_per_frame']:.1f} | {draws} |")


if not sorts_only:
    # Older runs have no merged files: instance merging did not exist then.
    print("Instance merging off (REEL_MERGE_INSTANCES=0):\n")
    workers_table("")
    if (out / "replay_workers1_merged.json").exists():
        print("\nInstance merging on (REEL_MERGE_INSTANCES=1):\n")
        workers_table("_merged")
    print()
    for w in [1, 2, 4, 8]:
        lines = (out / f"golden_workers{w}.txt").read_text().splitlines()
        results = [l.split()[0] + " " + l.split()[2] for l in lines if l and l.split()[0] != "trace" and len(l.split()) > 3]
        print(f"- golden suite at {w} workers (REEL_VALIDATE=1, jobs of 8 keys): " + ", ".join(results))

# Google Benchmark JSON (medians of the repetitions).
def medians(path):
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):  # not run, or the benchmark died before writing its results
        print(f"\n- {path.name}: no results")
        return {}
    return {b["run_name"]: b for b in data["benchmarks"] if b.get("aggregate_name") == "median"}

sorts = medians(out / "sort_bench.json")
if sorts:
    print()
    print("| sort (medians of 3) | keys | threads | ms | serial radix ms | std::stable_sort ms | memcpy ms | x stable_sort | x memcpy time | x serial radix |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, b in sorts.items():
        parts = name.split("/")
        if parts[0] == "BM_RadixSort":
            print(f"| serial radix | {parts[1]} | 1 | {b['radix_ms']:.2f} | {b['radix_ms']:.2f} | {b['stable_sort_ms']:.2f} | "
                  f"{b['memcpy_ms']:.3f} | {b['x_faster_than_stable_sort']:.2f} | {b['x_memcpy_time']:.1f} | 1.00 |")
        else:
            print(f"| RadixSorter | {parts[1]} | {parts[2]} | {b['sorter_ms']:.2f} | {b['serial_radix_ms']:.2f} | "
                  f"{b['stable_sort_ms']:.2f} | {b['memcpy_ms']:.3f} | {b['x_faster_than_stable_sort']:.2f} | "
                  f"{b['x_memcpy_time']:.1f} | {b['x_faster_than_serial_radix']:.2f} |")

vk = {} if sorts_only else medians(out / "vulkan_bench.json")
for name, b in vk.items():
    print()
    print(f"- {name} (one worker, medians of 3): translation {b['translate_ns_per_packet']:.1f} ns/packet, "
          f"{b['translate_us'] / 1e3:.2f} ms/frame against the direct-Vulkan loop's {b['direct_us'] / 1e3:.2f} ms: "
          f"{b['translate_over_direct']:.2f}x (target <= 1.5x); API draws {b['vk_draws_per_frame']:.0f}/frame")

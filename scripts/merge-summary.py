#!/usr/bin/env python3
# The summary of an output folder of scripts/merge-benchmark.sh (Markdown on stdout):
#   python3 scripts/merge-summary.py OUT > OUT/summary.md
import json, statistics, sys, os
out = sys.argv[1]
bench = json.load(open(os.path.join(out, "stress_merge.json")))
runs = {}
for b in bench["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    merge = "merge:1" in b["name"]
    runs.setdefault(merge, []).append(b)
def med(merge, key):
    return statistics.median(float(b[key]) for b in runs[merge])
device = runs[False][0].get("label", "?")
print(f"# Instance merging on stress (100k draws, 1280x720, one render thread), medians of 3")
print()
print(f"Device: {device}; host: {open(os.path.join(out, 'machine.txt')).read().split(chr(10))[1]} "
      f"({open(os.path.join(out, 'machine.txt')).read().split(chr(10))[0]} threads)")
print()
print("| | unmerged | merged | merged / unmerged |")
print("|---|---|---|---|")
for key, label in [("draws_recorded_per_frame", "draws recorded per frame"),
                   ("vk_draws_per_frame", "Vulkan draws per frame"),
                   ("merged_runs_per_frame", "merged runs per frame"),
                   ("vk_pipeline_binds_per_frame", "pipeline binds per frame"),
                   ("vk_descriptor_pushes_per_frame", "descriptor pushes per frame"),
                   ("translate_cpu_ms", "translate CPU ms per frame"),
                   ("render_thread_cpu_ms", "render-thread CPU ms per frame")]:
    a, b = med(False, key), med(True, key)
    ratio = f"{b / a:.3f}" if a else "-"
    print(f"| {label} | {a:,.2f} | {b:,.2f} | {ratio} |")
b = runs[False][0]
print()
print(f"Sorted frame: {b['runs']:,.0f} runs of one material (pipeline and texture) for 100,000 draws "
      f"(mean {b['mean_run']:.2f}); {b['runs_2plus']:,.0f} runs of 2 or more hold {b['draws_in_runs_2plus']:,.0f} draws; "
      f"the opaque quarter is {b['opaque_runs']:.0f} runs (longest {b['longest_run']:,.0f}).")
print()
for name in ("replay_merged", "replay_unmerged"):
    r = json.load(open(os.path.join(out, name + ".json")))
    frames = r["render_thread"]
    rec = statistics.median(f["draws_recorded"] for f in frames)
    sub = statistics.median(f["draws_submitted"] for f in frames)
    cpu = statistics.median(f["cpu_ms"] for f in frames)
    print(f"- `reel replay --json` of a 10-frame stress capture (3,000 draws), {name.split('_')[1]}: "
          f"draws recorded {rec:.0f}, submitted {sub:.0f} per frame; render-thread CPU {cpu:.2f} ms (median frame)")

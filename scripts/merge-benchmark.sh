#!/usr/bin/env bash
# Instance merging on the `stress` scene (issue 14, docs/instance-merging.md): API draws per frame and the
# render thread's CPU time per frame, merged vs unmerged, on one render thread (reel_vulkan_bench
# BM_StressMerge, 100k draws at 1280x720, medians of 3), plus the runs of one material in stress's sorted
# frame; then a small stress capture replayed by `reel replay --json` with merging on and off
# (REEL_MERGE_INSTANCES=0), to show that a replay merges again. Writes JSON, the console output and
# summary.md into OUT.
#   bash scripts/merge-benchmark.sh BIN OUT    # BIN: reel, reel-sample, reel_vulkan_bench (scripts/device-build.sh)
#   REEL_DEVICE=NVIDIA bash scripts/merge-benchmark.sh BIN OUT    # a named device (default: automatic)
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
[ -d "$bin/lib" ] && export LD_LIBRARY_PATH="$bin/lib:$LD_LIBRARY_PATH"
mkdir -p "$out"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; } > "$out/machine.txt"

"$bin/reel_vulkan_bench" --benchmark_filter='BM_StressMerge' --benchmark_repetitions=3 \
  --benchmark_min_time=0.5 --benchmark_out="$out/stress_merge.json" --benchmark_out_format=json \
  | tee "$out/stress_merge.txt"

# A stress capture (frames 1-10 of 3,000 draws) replayed with merging on and off.
trace="$out/stress_3000.reel"
"$bin/reel-sample" --headless --scene stress --draws 3000 --width 320 --height 180 --frames 11 \
  --render-workers 1 --capture 1-10 --capture-out "$trace" > "$out/capture.txt" 2>&1
REEL_RENDER_WORKERS=1 "$bin/reel" replay "$trace" --json > "$out/replay_merged.json"
REEL_RENDER_WORKERS=1 REEL_MERGE_INSTANCES=0 "$bin/reel" replay "$trace" --json > "$out/replay_unmerged.json"
rm -f "$trace"

python3 - "$out" > "$out/summary.md" <<'PY'
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
PY
cat "$out/summary.md"

#!/usr/bin/env python3
"""The table of scripts/device-capture-cost.sh's runs: per scene and variant, the medians over the runs
of reel-sample's mean frame time and of its median kick-to-kick interval (the steady frame time), each
against the same statistic of the runs without a capture; the capture's render-thread waits, its encode
threads' CPU and all its threads' (where the summary line gives it); the whole process's CPU per frame
(every thread; where the run logged it) and what it adds to the runs without a capture. A capture
variant NAME_SUFFIX is set against off_SUFFIX where there is one (a capture with REEL_RENDER_WORKERS=8
against the app alone with 8), every other variant (the app alone beside a load, off_spin1, included)
against off. A frame tap's run (reel-sample --frame-tap, the least a capture does) shows its threads' CPU
as the capture threads' and the render thread's waits for leases as its waits. Then, where the runs
logged them, the process's peak resident memory and the app thread's and render thread's phases.
Usage: capture-cost-summary.py OUT"""
import collections
import pathlib
import re
import statistics
import sys

from md_table import print_table

out = pathlib.Path(sys.argv[1])
# (scene, variant) -> [(mean, median, waits, wait_ms, encode cpu, process cpu, capture threads' cpu)]
runs = collections.defaultdict(list)
order = []
for path in sorted(out.glob("run_*_*_*.txt"), key=lambda p: (not p.name.split("_")[2].startswith("off"), p.name)):
    scene, variant = re.match(r"run_([^_]+)_(.+)_\d+\.txt$", path.name).groups()
    text = path.read_text()
    frame = re.search(r"ms/frame, median ([\d.]+) ms", text)
    mean = re.search(r"\(([\d.]+) ms/frame", text)
    if not frame or not mean:
        print(f"{path}: no frame time", file=sys.stderr)
        continue
    waits = re.search(r"render thread waited (\d+) times \(([\d.]+) ms", text)
    cpu = re.search(r"\(([\d.]+) ms CPU a frame[;)]", text)
    threads = re.search(r"; ([\d.]+) ms with compressing and writing\)", text)
    gfxr = "gfxr file" in text
    # reel-sample --frame-tap (the least a capture does): its CPU, and the render thread's lease waits.
    tap = re.search(r"frame tap: .*, ([\d.]+) ms CPU a frame, render thread waited (\d+) times for leases", text)
    frames = re.search(r"reel-sample: \S+, (\d+) frames in", text)
    process = re.search(r"process cpu: user ([\d.]+) s, sys ([\d.]+) s", text)
    process_ms = (float(process.group(1)) + float(process.group(2))) * 1000 / int(frames.group(1)) \
        if process and frames else None
    if not variant.startswith("off") and not waits and not gfxr and not tap:
        print(f"{path}: no capture summary", file=sys.stderr)
        continue
    if tap:
        runs[(scene, variant)].append((float(mean.group(1)), float(frame.group(1)), int(tap.group(2)), 0.0, 0.0,
                                       process_ms, float(tap.group(1))))
    else:
        runs[(scene, variant)].append((float(mean.group(1)), float(frame.group(1)),
                                       int(waits.group(1)) if waits else 0,
                                       float(waits.group(2)) if waits else 0.0,
                                       float(cpu.group(1)) if cpu else 0.0, process_ms,
                                       float(threads.group(1)) if threads else None))
    if (scene, variant) not in order:
        order.append((scene, variant))

print("| scene | variant | against | runs | mean ms/frame | vs it | steady ms/frame | vs it | render-thread waits "
      "(median run) | encode CPU ms/frame | capture threads CPU ms/frame | process CPU ms/frame | vs it |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for scene, variant in order:
    r = runs[(scene, variant)]
    base = "off"  # the app alone, or alone with the variant's own settings (off_SUFFIX)
    if "_" in variant and not variant.startswith("off"):
        suffixed = "off_" + variant.split("_", 1)[1]
        if (scene, suffixed) in runs:
            base = suffixed
    off = runs.get((scene, base))
    mean = statistics.median(x[0] for x in r)
    steady = statistics.median(x[1] for x in r)
    waits = statistics.median(x[2] for x in r)
    wait_ms = statistics.median(x[3] for x in r)
    cpu = statistics.median(x[4] for x in r)

    def vs(value, index):
        if not off or variant == "off":
            return ""
        base = statistics.median(x[index] for x in off)
        return f"{value / base:.3f}x ({(value / base - 1) * 100:+.1f}%)"

    waits_text = "" if variant.startswith(("off", "gfxr")) else f"{waits:g} ({wait_ms:.1f} ms)"
    cpu_text = "" if variant.startswith(("off", "gfxr", "tap")) else f"{cpu:.2f}"
    all_threads = [x[6] for x in r if x[6] is not None]
    threads_text = f"{statistics.median(all_threads):.2f}" if all_threads else ""
    process = [x[5] for x in r if x[5] is not None]
    process_text = added = ""
    if process:
        process_ms = statistics.median(process)
        process_text = f"{process_ms:.2f}"
        off_process = [x[5] for x in off or [] if x[5] is not None]
        if off_process and variant != "off":
            added = f"{process_ms - statistics.median(off_process):+.2f} ms"
    against = "" if variant == "off" else base
    print(f"| {scene} | {variant} | {against} | {len(r)} | {mean:.3f} | {vs(mean, 0)} | {steady:.4f} | {vs(steady, 1)} | "
          f"{waits_text} | {cpu_text} | {threads_text} | {process_text} | {added} |")

# Peak resident memory of the whole process (where the runs logged it): what a capture's buffers add.
rss = collections.defaultdict(list)  # (scene, variant) -> [MB]
for path in out.glob("run_*_*_*.txt"):
    scene, variant = re.match(r"run_([^_]+)_(.+)_\d+\.txt$", path.name).groups()
    peak = re.search(r"peak rss: (\d+) KB", path.read_text())
    if peak:
        rss[(scene, variant)].append(int(peak.group(1)) / 1024)


def rss_row(scene, variant):
    values, off_values = rss[(scene, variant)], rss.get((scene, "off"))
    added = f"{statistics.median(values) - statistics.median(off_values):+.0f} MB" \
        if off_values and variant != "off" else ""
    return [scene, variant, len(values), f"{statistics.median(values):.0f}", added]


if rss:
    print_table("Peak resident memory of the process, MB (medians over the runs).",
                ["scene", "variant", "runs", "peak RSS MB", "vs off"],
                [rss_row(scene, variant) for scene, variant in order if rss.get((scene, variant))])

# With SAMPLE_ARGS=--stats the runs carry the app thread's and the render thread's phases (medians a
# frame): which side of the frame a capture (or a load) slows down.
phases = collections.defaultdict(list)  # (scene, variant) -> [{phase: ms}]
for path in out.glob("run_*_*_*.txt"):
    scene, variant = re.match(r"run_([^_]+)_(.+)_\d+\.txt$", path.name).groups()
    text = path.read_text()
    app = re.search(r'"app_thread_ms_median": \{"record": ([\d.]+), "kick": ([\d.]+)\}', text)
    render = re.search(r'"render_thread_phase_ms_median": \{([^}]*)\}', text)
    if not app or not render:
        continue
    row = {"record": float(app.group(1)), "kick": float(app.group(2))}
    row.update({k: float(v) for k, v in re.findall(r'"(\w+)": ([\d.]+)', render.group(1))})
    phases[(scene, variant)].append(row)
if phases:
    names = list(next(iter(phases.values()))[0].keys())
    print_table("Medians over the runs of each run's median a frame, ms: the app thread's recording and kick, "
                "the render thread's phases (FramePhase).", ["scene", "variant", "runs"] + names,
                [[scene, variant, len(phases[(scene, variant)])] +
                 [f"{statistics.median(r[n] for r in phases[(scene, variant)]):.3f}" for n in names]
                 for scene, variant in order if phases.get((scene, variant))])

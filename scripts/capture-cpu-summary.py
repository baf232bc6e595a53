#!/usr/bin/env python3
"""Tables of the capture's CPU runs that scripts/device-capture-cpu.sh and scripts/device-hugepages.sh
leave in OUT, one kind at a time, medians over the runs of each variant (a build, or a malloc setting):
  steps    OUT/steps_<variant>_<rep>.json: BM_Gather and BM_Encode (reel_capture_bench), ns a packet;
  stages   OUT/stages_<scene>_<variant>_<rep>.jsonl: reel_writer_bench breakdown, the writer's stages on
           one thread and the capture's threads' CPU;
  runtime  OUT/runtime_<variant>_<rep>/runtime_bench.txt: scripts/vm-runtime-bench.sh's medians.
Usage: capture-cpu-summary.py OUT steps|stages|runtime"""
import collections
import glob
import json
import re
import statistics
import sys

from md_table import print_table

out, kind = sys.argv[1], sys.argv[2]
median = statistics.median


def steps():
    runs = collections.defaultdict(list)  # (benchmark, variant) -> ns a packet
    for f in sorted(glob.glob(out + "/steps_*.json")):
        variant = f.rsplit("/", 1)[1].split("_")[1]
        try:
            for b in json.load(open(f))["benchmarks"]:
                runs[(b["name"], variant)].append(b["ns_per_packet"] * 1e9)  # JSON: seconds a packet
        except (ValueError, KeyError):
            print(f"{f}: no benchmark output (see the .err beside it)")
    print_table("One capture step on one thread, ns a packet (medians of the runs)",
                ["benchmark", "variant", "runs", "ns/packet"],
                [[n, v, len(x), f"{median(x):.3f}"] for (n, v), x in sorted(runs.items())])


def stages():
    stage_fields = ["gather_ms", "encode_ms", "append_ms", "compress_ms_one_thread"]
    capture_fields = ["writer_thread_cpu_ms", "encode_cpu_ms", "observer_cpu_us", "render_waits"]
    staged, captured = collections.defaultdict(list), collections.defaultdict(list)
    for f in sorted(glob.glob(out + "/stages_*.jsonl")):
        scene, variant = f.rsplit("/", 1)[1].split("_")[1:3]
        for line in open(f):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("bench") == "breakdown_stages":
                staged[(scene, variant)].append(r)
            elif r.get("bench") == "breakdown_capture":
                captured[(scene, variant, r["encode_threads"])].append(r)
    of = lambda runs, k: median(r[k] for r in runs)
    print_table("The writer's stages on one thread, ms a frame (medians of the runs)",
                ["scene", "variant", "runs"] + stage_fields + ["sum"],
                [[s, v, len(r)] + [f"{of(r, k):.3f}" for k in stage_fields] +
                 [f"{sum(of(r, k) for k in stage_fields):.3f}"] for (s, v), r in sorted(staged.items())])
    print_table("The capture's threads, frames replayed on the null device (medians of the runs)",
                ["scene", "variant", "encode threads", "runs"] + capture_fields,
                [[s, v, t, len(r)] + [f"{of(r, k):.3f}" for k in capture_fields]
                 for (s, v, t), r in sorted(captured.items())])


def runtime():
    counters = {"ns_per_packet", "scaling", "x_faster_than_stable_sort", "x_memcpy_time", "kick_median_us",
                "kick_minus_wake_us", "wake_baseline_us"}
    runs = collections.defaultdict(list)  # (counter, variant) -> each run's median
    for f in sorted(glob.glob(out + "/runtime_*/runtime_bench.txt")):
        variant = f.rsplit("/", 2)[1].split("_")[1]
        for line in open(f):
            if "_median " not in line:
                continue
            name = line.split()[0][: -len("_median")].split("/iterations")[0].split("/real_time")[0]
            for key, value in re.findall(r"(\w+)=([\d.]+)", line):
                if key in counters:
                    runs[(f"{name} {key}", variant)].append(float(value))
    print_table("The runtime core's benchmark, each variant's runs (each a median of 3) and their median",
                ["counter", "variant", "runs", "median"],
                [[c, v, ", ".join(f"{x:g}" for x in r), f"{median(r):g}"] for (c, v), r in sorted(runs.items())])


{"steps": steps, "stages": stages, "runtime": runtime}[kind]()

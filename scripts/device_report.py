#!/usr/bin/env python3
"""What the device scripts (scripts/device-*.sh) print from the JSON of `reel replay --json` and
`reel-sample --stats`; both may have log lines before the JSON object.

  device_report.py counters STATS        reel-sample's queue counters, one line
  device_report.py queues REPLAY         a replay's queue counters, device errors and jobs per frame
  device_report.py rounds OUT TITLE PREFIX MODE_A MODE_B
                                         OUT/PREFIX_MODE_R.json for R in 1..3: each run's median GPU
                                         frame time and replay rate, the medians of 3 per mode and
                                         MODE_B / MODE_A (GPU, median of medians)
  device_report.py trim REPLAY...        drops the per-frame lists from replay outputs (kept: the
                                         summary the figures come from); a file that is no JSON stays
"""
import json
import statistics
import sys


def load(path):
    text = open(path).read()
    return json.loads(text[text.index("{"):])


def counters(path):
    c = load(path)["device_counters"]
    print("  queues %d, compute submits %d, transfer submits %d, queue waits %d, wait splits %d, barriers %d, "
          "dispatches %d" % (c["queues"], c["compute_submits"], c["transfer_submits"], c["queue_waits"],
                             c["wait_splits"], c["barriers"], c["dispatches"]))


def queues(path):
    d = load(path)
    jobs = [len(f.get("jobs", [])) for f in d.get("render_thread", [])]
    print("  queues:", d["queues"], "device errors:", d["device_errors"], "jobs per frame:", jobs)


def rounds(out, title, prefix, a, b):
    print(title)
    print("per run: median GPU frame time (ms), replay frames/s")
    gpu = {}
    for mode in (a, b):
        for r in (1, 2, 3):
            s = load(f"{out}/{prefix}_{mode}_{r}.json")
            g = s["gpu_ms"]["median"] if s.get("gpu_ms") else float("nan")
            q = s.get("queues", {})
            m = s.get("device_memory", {})
            gpu.setdefault(mode, []).append((g, s["fps"]))
            print(f"  {mode:10} round {r}: gpu median {g:.4f} ms, {s['fps']:.1f} frames/s, queues opened "
                  f"{q.get('opened')}, compute submits {q.get('compute_submits')}, queue waits {q.get('waits')}, "
                  f"barriers {q.get('barriers')}, transient bytes {m.get('transient_bytes')}, aliased bytes saved "
                  f"{m.get('aliased_bytes_saved')}, device errors {s.get('device_errors')}")
    for mode in (a, b):
        v = gpu[mode]
        print(f"{mode:10} median of 3: gpu {statistics.median(g for g, _ in v):.4f} ms, "
              f"{statistics.median(f for _, f in v):.1f} frames/s")
    ga = statistics.median(g for g, _ in gpu[a])
    gb = statistics.median(g for g, _ in gpu[b])
    print(f"{b} / {a} (GPU median of medians): {gb / ga:.3f}")


def trim(paths):
    for path in paths:
        try:
            s = load(path)
        except ValueError:
            continue  # a failed run's output, kept as it is
        for k in ("frames_replayed", "render_thread"):
            s.pop(k, None)
        json.dump(s, open(path, "w"), indent=1)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "counters":
        counters(*args)
    elif command == "queues":
        queues(*args)
    elif command == "rounds":
        rounds(*args)
    elif command == "trim":
        trim(args)
    else:
        sys.exit(f"device_report.py: unknown command {command}")

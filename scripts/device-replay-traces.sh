#!/usr/bin/env bash
# How fast one `reel` replays traces written by different builds (issue 15: what a writer's chunking costs
# the replay), on the GPU machine (../shared/device/README.md) or any:
#   bash scripts/device-replay-traces.sh BIN OUT NAME=DIR [NAME=DIR...]
#   e.g. source .gl/on-device.sh; bash scripts/device-replay-traces.sh build-device/bin /tmp/rt \
#          new=build-device/bin old=build-device/old
# Each DIR's reel-sample captures every scene of SCENES (default "stress cubes"; FRAMES frames, default
# 300, key frames off) into OUT/<scene>_<NAME>.reel; then BIN's reel replays every trace RUNS times
# (default 3) on each device of DEVICES (default "null default": the null device, then the machine's
# pick), the traces taking turns run by run. Writes OUT/replay_<scene>_<NAME>_<device>_<run>.json
# (`reel replay --json`, per-frame array dropped, with the process's peak resident memory added as
# "max_rss_mb" where /usr/bin/time exists) and OUT/summary.md (medians).
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
shift 2
scenes=${SCENES:-stress cubes}
frames=${FRAMES:-300}
runs=${RUNS:-3}
devices=${DEVICES:-null default}
names=()
for spec in "$@"; do
  name=${spec%%=*}
  dir=$(cd "${spec#*=}" && pwd)
  names+=("$name")
  for scene in $scenes; do
    REEL_CAPTURE="$out/${scene}_$name.reel" REEL_CAPTURE_FRAMES=2-$((frames + 1)) REEL_CAPTURE_KEY_FRAMES=0 \
      "$dir/reel-sample" --scene "$scene" --headless --frames $((frames + 2)) > /dev/null 2>&1
    log "$scene by $name: $(stat -c %s "$out/${scene}_$name.reel") bytes, $("$bin/reel" info "$out/${scene}_$name.reel" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["chunks"], "chunks")')"
  done
done
for run in $(seq 1 "$runs"); do
  for scene in $scenes; do
    for device in $devices; do
      for name in "${names[@]}"; do
        args=()
        [ "$device" != default ] && args=(--device "$device")
        result=$out/replay_${scene}_${name}_${device}_$run.json
        rm -f "$out/rss.tmp"
        "${peak_rss[@]}" "$bin/reel" replay "$out/${scene}_$name.reel" --json "${args[@]}" > "$result.full" 2>/dev/null
        python3 - "$result.full" "$out/rss.tmp" > "$result" <<'PY'
import json, pathlib, sys
r = json.loads(pathlib.Path(sys.argv[1]).read_text())
r.pop("frame_list", None)
r = {k: v for k, v in r.items() if not isinstance(v, list)}
rss = pathlib.Path(sys.argv[2])
if rss.exists():
    r["max_rss_mb"] = int(rss.read_text().split()[2]) / 1024  # "peak rss: N KB"
print(json.dumps(r))
PY
        rm -f "$result.full"
      done
    done
  done
done
python3 - "$out" "$scenes" "$devices" "${names[@]}" > "$out/summary.md" <<'PY'
import json, pathlib, statistics, sys
out, scenes, devices, names = pathlib.Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3].split(), sys.argv[4:]
print("| scene | device | trace by | runs | frames/s | critical_path_decode_share | decode_share | fetch wait ms | peak RSS MB |")
print("|---|---|---|---|---|---|---|---|---|")
for scene in scenes:
    for device in devices:
        for name in names:
            rs = [json.loads(p.read_text()) for p in sorted(out.glob(f"replay_{scene}_{name}_{device}_*.json"))
                  if p.read_text().strip()]
            if not rs:
                print(f"| {scene} | {device} | {name} | 0 | | | | | |")
                continue
            med = lambda k: statistics.median(r[k] for r in rs) if all(k in r and r[k] is not None for r in rs) else float("nan")
            print(f"| {scene} | {device} | {name} | {len(rs)} | {med('fps'):.1f} | {med('critical_path_decode_share'):.3f} | "
                  f"{med('decode_share'):.3f} | {med('fetch_wait_ms'):.1f} | {med('max_rss_mb'):.0f} |")
PY
rm -f "$out"/*.reel "$out/rss.tmp"
cat "$out/summary.md"

#!/usr/bin/env bash
# Memory sub-allocation: device memory when replaying traces of 1,000 and 10,000 live resources (60% small
# storage buffers, 40% sampled textures of up to 16x16 or 128x128 texels; every frame after the first replaces a tenth of them), read
# from `reel replay --json`'s device_memory: VkDeviceMemory objects (live and peak), blocks, dedicated
# allocations, bytes allocated, in use and wasted (free space and padding inside blocks). Without
# sub-allocation every resource (and each staging chunk) was one VkDeviceMemory, so `resources` is what
# the allocation count used to be. Run from the repository root:
#   bash scripts/suballoc-benchmark.sh BUILD OUT       (BUILD holds cli/reel and tests/vulkan/...)
# e.g. bash scripts/suballoc-benchmark.sh build/suballoc docs/measurements/vm-$(date +%F)
# Uses the device REEL_DEVICE names, else the first the loader finds (lavapipe on a machine without GPU).
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
reel="$build/cli/reel"
writer="$build/tests/vulkan/reel_many_resources_trace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

summary="$out/suballoc.txt"
{
  echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "date: $(date -u +%FT%TZ); commit $(git rev-parse --short HEAD)"
} > "$summary"
results=()
# total:largest texture side. The small textures (up to 16x16) fit 10,000 resources in one block; up to
# 128x128 they need several, and the run shows how blocks grow and how much of them stays free.
for run in 1000:16 10000:16 10000:128; do
  total=${run%%:*}
  side=${run##*:}
  buffers=$((total * 6 / 10))
  textures=$((total - buffers))
  "$writer" "$tmp/many_${total}_${side}.reel" "$buffers" "$textures" 8 "$side" > /dev/null
  REEL_VALIDATE=1 "$reel" replay "$tmp/many_${total}_${side}.reel" --json > "$tmp/replay_${total}_${side}.json"
  results+=("$total:$side:$tmp/replay_${total}_${side}.json")
done
python3 - "$out/suballoc.json" "$summary" "${results[@]}" <<'EOF'
import json, sys
out, summary, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = []
for run in runs:
    total, side, path = run.split(":", 2)
    with open(path) as f:
        replay = json.load(f)
    m = replay["device_memory"]
    rows.append({"resources_in_trace": int(total), "largest_texture_side": int(side), "device": replay.get("device", ""), **m,
                 "waste_share": m["waste_bytes"] / m["bytes_allocated"] if m["bytes_allocated"] else 0.0})
with open(out, "w") as f:
    json.dump(rows, f, indent=2)
    f.write("\n")
with open(summary, "a") as f:
    f.write("device: %s\n" % rows[0]["device"])
    f.write("resources in trace (largest texture) | holding memory (= allocations without sub-allocation) | live allocations "
            "(peak) | blocks | dedicated | MiB allocated | MiB in use | waste\n")
    for r in rows:
        f.write("%18d (%4dx%-4d)   | %54d | %10d (%d) | %6d | %9d | %13.1f | %10.2f | %4.1f%%\n" % (
            r["resources_in_trace"], r["largest_texture_side"], r["largest_texture_side"], r["resources"], r["allocations"], r["peak_allocations"], r["blocks"],
            r["dedicated"],
            r["bytes_allocated"] / 2**20, r["bytes_in_use"] / 2**20, 100 * r["waste_share"]))
print(open(summary).read(), end="")
EOF

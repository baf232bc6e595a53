#!/usr/bin/env bash
# Would 2 MiB pages for the capture's memory lower what it costs the app? On the GPU machine
# (../shared/device/README.md) or any:
#   bash scripts/device-hugepages.sh BIN OUT
# BIN from scripts/device-build.sh. glibc's malloc asks the kernel for transparent huge pages on every
# mapping it makes when GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc 2.35+), so the capture's gathered
# columns, messages and chunk buffers (and every other allocation of the process) may use them; the
# bucket streams' arenas ask for them already (VirtualArena). Writes:
#  - OUT/machine.txt: CPU flags, caches, the kernel's transparent-huge-page settings;
#  - OUT/stages_<scene>_<variant>_<rep>.jsonl: the writer's stages on one thread and the capture's
#    threads' CPU (reel_writer_bench breakdown) on a cubes and a stress capture, each way, REPS times;
#  - OUT/ab/: the capture's cost in one process each way (scripts/device-capture-ab.sh, AB_VARIANTS),
#    OUT/ab/summary.md its table;
#  - OUT/stages.md: the stages' medians each way (scripts/capture-cpu-summary.py).
# PARTS (default "stages ab") picks the parts; QUICK=--quick captures the traces at 64x64 (a smoke test
# on lavapipe).
set -uo pipefail
source "$(dirname "$0")/device-env.sh" "$1" "$2"  # bin, out, scripts and the library paths
reps=${REPS:-3}
huge=GLIBC_TUNABLES=glibc.malloc.hugetlb=1
{
  nproc
  uname -r
  lscpu | grep -E "Model name|Thread|Core|Socket|MHz|L1d|L2|L3|Flags"
  for f in enabled defrag khugepaged/defrag; do
    echo "transparent_hugepage/$f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>&1)"
  done
  grep -E "AnonHugePages|Hugepagesize" /proc/meminfo
  ldd --version | head -1
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

# The two traces the writer benchmarks measure (scripts/bench-traces.sh), kept for every run.
stages() {
  local scene=$1 trace=$2 rep v
  for rep in $(seq 1 "$reps"); do
    for v in plain huge; do
      if [ $v = huge ]; then
        env "$huge" "$bin/reel_writer_bench" breakdown "$trace" > "$out/stages_${scene}_${v}_$rep.jsonl" 2>&1
      else
        "$bin/reel_writer_bench" breakdown "$trace" > "$out/stages_${scene}_${v}_$rep.jsonl" 2>&1
      fi
    done
  done
}
parts=${PARTS:-stages ab}
if [[ " $parts " == *" stages "* ]]; then
  source "$scripts/bench-traces.sh"
  for_each_bench_trace "$bin" "$out" "${QUICK:-}" stages
fi

[[ " $parts " == *" ab "* ]] && SCENES=${AB_SCENES:-cubes stress} REPS=$reps \
  VARIANTS="${AB_VARIANTS:-nothing nothing_huge=$huge normal huge=$huge idle=REEL_CAPTURE_PRIORITY=idle huge_idle=$huge,REEL_CAPTURE_PRIORITY=idle}" \
  bash "$scripts/device-capture-ab.sh" "$bin" "$out/ab" > "$out/ab.log" 2>&1 &&
  python3 "$scripts/capture-ab-summary.py" "$out/ab" > "$out/ab/summary.md"

python3 "$scripts/capture-cpu-summary.py" "$out" stages > "$out/stages.md"
cat "$out/stages.md"
if [ -f "$out/ab/summary.md" ]; then cat "$out/ab/summary.md"; fi

# Sourced by scripts that take BIN and OUT as their first two arguments and run on the GPU machine (or
# any): BIN and OUT resolved, the carried loader (.gl/lib), BIN/lib (libraries the machine may lack) and
# BIN/layer (the Khronos validation layer) on their paths, log() for OUT/summary.txt, report() for what
# device_report.py makes of the tools' JSON, both_ways() for a sample scene on several queues and one,
# compare_exact() for two images that must be identical, start_loads()/stop_loads() for work beside
# a measured program, and the array peak_rss for its peak resident memory.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
rm -f "$out/summary.txt"  # a machine kept warm between runs keeps /tmp: each run's summary starts afresh
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
[ -d "$bin/lib" ] && export LD_LIBRARY_PATH="$bin/lib:$LD_LIBRARY_PATH"
[ -d "$bin/layer" ] && export VK_LAYER_PATH="$bin/layer"
log() { echo "== $*" | tee -a "$out/summary.txt"; }
report() { python3 "$scripts/device_report.py" "$@" | tee -a "$out/summary.txt"; }
# reel-sample NAME ARGS... with several queues, then one (validation on), and their frames 1-3 compared.
both_ways() {
  local name=$1 mode queues f
  shift
  for mode in several one; do
    queues=""; [ "$mode" = one ] && queues=1
    REEL_VALIDATE=1 REEL_QUEUES=$queues "$bin/reel-sample" "$@" --frames 4 --headless --width 320 --height 240 \
      --stats --out "$out/images/$mode/$name" > "$out/stats_${name}_$mode.json" 2>&1
    echo "$name ($mode queues) exit: $?" | tee -a "$out/summary.txt"
    report counters "$out/stats_${name}_$mode.json"
  done
  for f in 1 2 3; do
    compare_exact "$out/images/several/$name/frame_$f.png" "$out/images/one/$name/frame_$f.png" \
      "$name frame $f several vs one queue"
  done
}
# `reel compare` of two images, exact: its exit code goes into the summary after LABEL.
compare_exact() {
  "$bin/reel" compare "$1" "$2" --threshold 0 > /dev/null 2>&1
  echo "  $3: compare exit $?" | tee -a "$out/summary.txt"
}

# Starts N loads beside a measured program, their pids appended to the array `loads`:
#   start_loads KIND N   KIND: spin (a busy loop), copy (a memory-copying loop), or idle_spin and
#                        idle_copy, the same under SCHED_IDLE (chrt --idle: only on cores nothing else wants)
# stop_loads ends them and empties `loads`.
loads=()
start_loads() {
  local kind=$1 n=$2 i run=()
  [[ $kind == idle_* ]] && run=(chrt --idle 0)
  for ((i = 0; i < n; i++)); do
    case ${kind#idle_} in
      spin) "${run[@]}" sh -c 'while :; do :; done' & ;;
      copy) "${run[@]}" dd if=/dev/zero of=/dev/null bs=32M count=100000000 2>/dev/null & ;;
      *) echo "start_loads: unknown load '$kind' (spin, copy, idle_spin, idle_copy)" >&2; return 1 ;;
    esac
    loads+=($!)
  done
}
stop_loads() {
  [ ${#loads[@]} -eq 0 ] && return 0
  kill "${loads[@]}" 2>/dev/null || true
  wait "${loads[@]}" 2>/dev/null || true  # their status is the signal's: not a failure here
  loads=()
  return 0
}

# Put before a command, "${peak_rss[@]}" writes its peak resident memory to $out/rss.tmp as one line,
# "peak rss: N KB", where /usr/bin/time exists (empty otherwise: the command runs as it is).
peak_rss=()
[ -x /usr/bin/time ] && peak_rss=(/usr/bin/time -f "peak rss: %M KB" -o "$out/rss.tmp")

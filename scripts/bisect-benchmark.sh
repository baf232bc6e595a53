#!/usr/bin/env bash
# One `reel bisect` of traces/stress_small.reel's frame, timed two ways, from the repository root:
#   before: every probe replayed from the capture start (`--from-capture-start`, how bisect ran before
#           checkpoints)
#   after:  every probe resumed from the checkpoint at the frame's start (restored, or continued forward)
#   bash scripts/bisect-benchmark.sh [REEL] [REPETITIONS] [OUT]
# REEL: the reel binary (default build/release/cli/reel: Release, as the README's figures); REPETITIONS:
# runs of each mode, interleaved so that a busy machine slows both alike (default 5, at least 3); OUT:
# where the runs and the summary go (default docs/measurements/vm-<date>). The bisect runs against the
# golden of the other device class than this machine's (lavapipe's image differs from NVIDIA's in 27% of
# the pixels), so it searches the whole frame. The figures are the bisect's own time from an open device to
# the answer (`reel bisect --json`'s seconds), and the probes' part of it (search_seconds, after the
# frame's end was replayed and compared); medians of the repetitions, and their ratios.
set -euo pipefail
reel=${1:-build/release/cli/reel}
reps=${2:-5}
out=${3:-docs/measurements/vm-$(date +%Y-%m-%d)}
trace=traces/stress_small.reel
frame=1
if (( reps < 3 )); then echo "at least 3 repetitions" >&2; exit 2; fi
[[ -x $reel ]] || { echo "$reel: no reel binary there (build it: cmake --preset release && cmake --build --preset release --target reel)" >&2; exit 2; }
mkdir -p "$out"

# The golden that differs from this device's image: the other class's, normally.
"$reel" replay "$trace" --frames $frame --out "$out/.probe" > /dev/null
golden=""
for cls in nvidia lavapipe; do
  candidate=traces/golden/$cls/stress_small/frame_$frame.png
  if ! "$reel" compare "$candidate" "$out/.probe/frame_$frame.png" > /dev/null 2>&1; then
    golden=$candidate
    break
  fi
done
rm -rf "$out/.probe"
[[ -n $golden ]] || { echo "this device's image matches every golden: nothing to bisect" >&2; exit 1; }

runs=$out/bisect_stress_small_runs.jsonl
: > "$runs"
for ((i = 1; i <= reps; ++i)); do
  for mode in before after; do
    flag=""
    [[ $mode == before ]] && flag=--from-capture-start
    # Exit 1: the frame differs and a command is named, which is what is measured.
    set +e
    line=$("$reel" bisect "$trace" --frame $frame --golden "$golden" --json $flag)
    rc=$?
    set -e
    if (( rc != 1 )); then echo "reel bisect exited $rc: $line" >&2; exit 1; fi
    echo "{\"mode\":\"$mode\",\"run\":$i,\"result\":$line}" >> "$runs"
  done
done

field() { grep "\"mode\":\"$1\"" "$runs" | grep -o "\"$2\":[0-9.e+-]*" | cut -d: -f2; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
before=$(field before seconds | median)
after=$(field after seconds | median)
ratio=$(awk -v b="$before" -v a="$after" 'BEGIN {printf "%.2f", b / a}')
searchBefore=$(field before search_seconds | median)
searchAfter=$(field after search_seconds | median)
searchRatio=$(awk -v b="$searchBefore" -v a="$searchAfter" 'BEGIN {printf "%.1f", b / a}')
probes=$(field after probes | head -1)
packets=$(field after packets | head -1)
framesBefore=$(field before frames_replayed | head -1)
framesAfter=$(field after frames_replayed | head -1)
device=$("$reel" replay "$trace" --frames $frame --json | grep -o '"device":"[^"]*"' | cut -d'"' -f4)
summary=$out/bisect_stress_small.txt
{
  echo "reel bisect $trace --frame $frame --golden $golden ($packets sorted packets, $probes probes)"
  echo "device: $device; $(nproc) cores; $(uname -r); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "reel: $reel; $reps repetitions of each mode, interleaved; seconds from an open device to the answer"
  echo "before (every probe from the capture start): median $before s, $framesBefore trace frames replayed"
  echo "after  (probes resume from the checkpoint):   median $after s, $framesAfter trace frames replayed"
  echo "ratio before / after: $ratio"
  echo "the probes alone (search_seconds, after the frame's end): before $searchBefore s, after $searchAfter s," \
    "ratio $searchRatio"
  echo "runs (seconds): before $(field before seconds | tr '\n' ' ')| after $(field after seconds | tr '\n' ' ')"
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$summary"

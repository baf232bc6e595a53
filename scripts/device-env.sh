# Sourced by scripts that take BIN and OUT as their first two arguments and run on the GPU machine (or
# any): BIN and OUT resolved, the carried loader (.gl/lib), BIN/lib (libraries the machine may lack) and
# BIN/layer (the Khronos validation layer) on their paths, and log() for OUT/summary.txt.
bin=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
rm -f "$out/summary.txt"  # a machine kept warm between runs keeps /tmp: each run's summary starts afresh
export LD_LIBRARY_PATH="$PWD/.gl/lib:${LD_LIBRARY_PATH:-}"
[ -d "$bin/lib" ] && export LD_LIBRARY_PATH="$bin/lib:$LD_LIBRARY_PATH"
[ -d "$bin/layer" ] && export VK_LAYER_PATH="$bin/layer"
log() { echo "== $*" | tee -a "$out/summary.txt"; }

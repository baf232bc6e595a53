#!/usr/bin/env bash
# Runs the trace reader's fuzzers for longer than the test suite does (fuzz.run.*: REEL_FUZZ_SECONDS):
# seeds from the corpus kept in fuzz/corpus/, the traces of traces/compat/ (format 1.0), and what the
# reader tests write (fresh traces, a copy without its index, a cut one, the decompressed messages);
# then fuzzes each target for SECONDS. New inputs go to BUILD_DIR/fuzz-work, crashes to
# BUILD_DIR/fuzz-findings; a finding, once fixed, belongs in fuzz/corpus/<target>/.
#   fuzz/run.sh BUILD_DIR [SECONDS]     (BUILD_DIR configured with clang, as fuzz/CMakeLists.txt says)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
seconds=${2:-120}
seeds=$build/fuzz-seeds
mkdir -p "$seeds/trace" "$seeds/messages" "$build/fuzz-findings"
if [ -x "$build/tests/trace/reel_trace_tests" ]; then
  REEL_FUZZ_CORPUS_DIR=$seeds "$build/tests/trace/reel_trace_tests" --gtest_filter='*WritesTheFuzzCorpus*' >/dev/null
fi
cp "$root"/traces/compat/*.reel "$seeds/trace/"
for target in trace messages; do
  mkdir -p "$build/fuzz-work/$target"
  ASAN_OPTIONS=detect_leaks=0 "$build/fuzz/reel_fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix="$build/fuzz-findings/$target-" \
    "$build/fuzz-work/$target" "$root/fuzz/corpus/$target" "$seeds/$target"
done

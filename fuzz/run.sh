#!/usr/bin/env bash
# Runs the trace reader's fuzzers: writes seeds with the reader tests (real traces, a copy without its
# index, a cut one, the decompressed messages), then fuzzes each target for SECONDS.
#   fuzz/run.sh BUILD_DIR [SECONDS]     (BUILD_DIR configured as fuzz/CMakeLists.txt says)
set -euo pipefail
build=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
seconds=${2:-120}
corpus=$build/fuzz-corpus
mkdir -p "$corpus/trace" "$corpus/messages" "$build/fuzz-findings"
REEL_FUZZ_CORPUS_DIR=$corpus "$build/tests/trace/reel_trace_tests" --gtest_filter='*WritesTheFuzzCorpus*' >/dev/null
for target in trace messages; do
  mkdir -p "$build/fuzz-work/$target"
  "$build/fuzz/reel_fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$build/fuzz-findings/$target-" "$build/fuzz-work/$target" "$corpus/$target"
done

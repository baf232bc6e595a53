#!/usr/bin/env bash
# expect_exit.sh CODE STREAM REGEX COMMAND [ARGS...]
# Runs COMMAND and passes only when it exits with CODE and what it printed on STREAM (stdout or stderr)
# matches the extended regular expression REGEX. ctest's PASS_REGULAR_EXPRESSION alone passes whatever
# the exit code; this checks both.
set -u
if [ $# -lt 4 ]; then
  echo "usage: expect_exit.sh CODE stdout|stderr REGEX COMMAND [ARGS...]" >&2
  exit 2
fi
code=$1 stream=$2 regex=$3
shift 3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
status=$?
cat "$out"
cat "$err" >&2
if [ "$status" -ne "$code" ]; then
  echo "expect_exit: exit code $status, expected $code" >&2
  exit 1
fi
case $stream in
  stdout) file=$out ;;
  stderr) file=$err ;;
  *) echo "expect_exit: STREAM is stdout or stderr, not '$stream'" >&2; exit 2 ;;
esac
# -z: the whole output is one record, so that REGEX may span lines.
if ! grep -Ezq -- "$regex" "$file"; then
  echo "expect_exit: $stream does not match: $regex" >&2
  exit 1
fi

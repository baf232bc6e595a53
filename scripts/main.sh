#!/usr/bin/env bash
# The main job: installs what is missing, builds (Release), then
#   1. renders the sample's default scene headless on the default device (a GPU, else lavapipe),
#      capturing frames 2-4 into out/default.reel and writing the app's own images to out/direct/;
#   2. replays the trace with `reel replay` into out/replayed/;
#   3. compares the replayed images with the app's and prints a summary.
# Exits non-zero when anything fails or the images differ.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/build.sh release
bin=build/release
out=${REEL_OUT:-$root/out}
rm -rf "$out/direct" "$out/replayed" "$out/default.reel"
mkdir -p "$out"

echo
echo "main: 1. reel-sample renders 6 frames of the default scene, capturing frames 2-4"
"$bin/samples/reel-sample" --scene default --frames 6 --headless --width 640 --height 360 \
  --out "$out/direct" --capture 2-4 --capture-out "$out/default.reel"

echo
echo "main: 2. reel replay"
"$bin/cli/reel" info "$out/default.reel"
"$bin/cli/reel" replay "$out/default.reel" --out "$out/replayed"

echo
echo "main: 3. replayed images against the app's own"
status=0
for f in 2 3 4; do
  "$bin/cli/reel" compare "$out/replayed/frame_$f.png" "$out/direct/frame_$f.png" || status=1
done
echo
if [ $status = 0 ]; then
  echo "main: done. The trace is $out/default.reel; the app's images are in $out/direct/, the replay's in"
  echo "      $out/replayed/ (frame_<n>.png), and the replayed frames match the app's bit for bit."
else
  echo "main: the replayed images differ from the app's (see above)"
fi
exit $status

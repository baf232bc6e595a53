#!/usr/bin/env bash
# Re-renders the golden images of traces/manifest.ini for the device this machine picks (or --device
# NAME), into traces/golden/<device class>/, and lists which images are new or changed and by how much.
# Look at the changed ones (reel compare OLD NEW --diff d.png helps) before committing them.
# Usage: scripts/update-goldens.sh [--device NAME] [--only SECTION]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
reel=${REEL_BIN:-build/default/cli/reel}
if [ ! -x "$reel" ]; then bash scripts/build.sh default; fi
"$reel" golden update --manifest traces/manifest.ini "$@"
echo
git status --short traces/golden || true

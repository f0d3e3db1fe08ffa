#!/usr/bin/env bash
# tools/run-demo.sh: installs what is missing, builds, runs the demo. The
# README's demo command. Arguments go to the demo, e.g.
#   tools/run-demo.sh --backend glfw --seconds 30
# Without a display ($DISPLAY empty) the demo runs headless under Xvfb, for
# 20 s unless --seconds, --frames or --scenario says otherwise, and prints its
# statistics at exit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Only what the library and the demo need (tools/setup.sh says what and why).
bash tools/setup.sh demo

# Configure only once: build/ is shared with tools/test.sh (the release
# preset), which turns the tests and the bench on when it runs. Here they
# stay off: their packages are not installed.
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake --preset release -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF
fi
demo=build/demo/pacer-demo

cmake --build build -j2 --target pacer-demo
if [[ -n "${DISPLAY:-}" ]]; then
  exec "$demo" "$@"
fi
# Headless, nobody sees the window: stop on our own unless told how long
# (a scenario ends by itself), and print the statistics at exit.
args=("$@")
has_end=0
has_summary=0
for arg in "$@"; do
  case "$arg" in
    --seconds|--seconds=*|--frames|--frames=*|--scenario|--scenario=*) has_end=1 ;;
    --summary) has_summary=1 ;;
  esac
done
if ((has_end == 0)); then args+=(--seconds 20); fi
if ((has_summary == 0)); then args+=(--summary); fi
echo "run-demo: \$DISPLAY is empty, so the demo runs headless under xvfb-run" \
     "(Mesa software GL) and stops on its own: $demo ${args[*]}"
exec xvfb-run -a -s "-screen 0 1280x720x24" "$demo" "${args[@]}"

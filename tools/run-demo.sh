#!/usr/bin/env bash
# tools/run-demo.sh: installs what is missing, builds, runs the demo. The
# README's demo command. Arguments go to the demo, e.g.
#   tools/run-demo.sh --backend glfw --seconds 30
# Without a display ($DISPLAY empty) the demo runs headless under Xvfb, for
# 20 s unless --seconds, --frames or --scenario says otherwise, prints a short
# summary at exit, and leaves a screenshot and plots in build/run-demo/.
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
# (a scenario ends by itself), print the short summary, and keep pictures in
# build/run-demo/: the plots of the run's trace, and a screenshot of frame 300
# of the default 20 s run.
out=build/run-demo
args=()   # this script's own first, so a flag of the caller's left without its value is the demo's error, not ours
has_end=0
has_summary=0
has_screenshot=0
has_trace=0
for arg in "$@"; do
  case "$arg" in
    --seconds|--seconds=*|--frames|--frames=*|--scenario|--scenario=*) has_end=1 ;;
    --summary) has_summary=1 ;;
    --screenshot|--screenshot=*) has_screenshot=1 ;;
    --trace|--trace=*) has_trace=1 ;;
  esac
done
mkdir -p "$out"
if ((has_end == 0)); then args+=(--seconds 20); fi
if ((has_summary == 0)); then args+=(--summary); fi
# The screenshot only where this script picks the run's length: a shorter
# run of the caller's could end before the frame.
shot=0
if ((has_screenshot == 0 && has_end == 0)); then
  shot=1
  args+=(--screenshot "$out/screenshot.png" --screenshot-frame 300)
fi
if ((has_trace == 0)); then args+=(--trace "$out/trace.csv"); fi
args+=("$@")
# A run that fails must not leave the last run's pictures to be taken for its own.
rm -f "$out/trace.csv" "$out/screenshot.png" "$out/run-timeline.png" "$out/run-histogram.png" "$out/run-percentiles.png"
echo "run-demo: \$DISPLAY is empty, so the demo runs headless (tools/headless.sh: Xvfb, Mesa software GL)" \
     "and stops on its own: $demo ${args[*]}"
set +e
bash tools/headless.sh "$demo" "${args[@]}"
status=$?
set -e
if ((status != 0)); then
  echo "run-demo: the demo exited with status $status (its message is above); no plots" >&2
  exit "$status"
fi
if ((shot == 1)) && [[ -f "$out/screenshot.png" ]]; then
  echo "run-demo: screenshot: $out/screenshot.png"
fi
if ((has_trace == 0)) && [[ -f "$out/trace.csv" ]]; then
  if /usr/bin/python3 tools/plots.py trace "$out/trace.csv" --out "$out" --name run >/dev/null; then
    echo "run-demo: plots: $out/run-timeline.png (frame times over the run), $out/run-percentiles.png"
  fi
fi
exit "$status"

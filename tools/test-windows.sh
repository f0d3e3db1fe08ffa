#!/usr/bin/env bash
# Cross-builds pacer for Windows with MinGW-w64 into build-mingw/ (the mingw
# preset of CMakePresets.json: library, unit tests, bench; warnings are
# errors, as in tools/test.sh) and runs it under
# Wine: the unit tests through ctest, then pacer-bench --quick. The windowed
# demo is not cross-built, but its window-less core (the load threads,
# scenarios, traces) is, with its unit tests (the top CMakeLists.txt adds
# them to a cross-build without the demo). Needs no display. Wine's prefix
# lives in the build folder (build-mingw/wine), so only the first run pays
# for creating it.
#
#   tools/test-windows.sh          BUILD_DIR=... to build elsewhere
#
# Wine is started once before the tests and always stopped after, even on
# failure: otherwise its service processes outlive the run and ctest hangs.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build-mingw}
[[ $build == /* ]] || build="$PWD/$build"
started=$SECONDS

for tool in x86_64-w64-mingw32-g++-posix wine wineserver wineboot; do
  if ! command -v "$tool" >/dev/null; then
    echo "test-windows: $tool not found (tools/setup.sh installs it)" >&2
    exit 1
  fi
done

# --- build ---------------------------------------------------------------
cmake --preset mingw -B "$build"
cmake --build "$build" -j2

# --- Wine ----------------------------------------------------------------
export WINEPREFIX="$build/wine"
export WINEDEBUG=-all              # no fixme/err chatter in the test output
export WINEDLLOVERRIDES="mscoree=;mshtml="   # no Mono/Gecko installers: console programs only
unset DISPLAY                      # console programs: never open a window

stop_wine() { wineserver -k 2>/dev/null || true; }
trap stop_wine EXIT

mkdir -p "$WINEPREFIX"
wineserver -p                      # persistent until -k: one server for every test
boot_started=$SECONDS
# wineboot's notes on a 64-bit-only Wine (no syswow64) are harmless; keep them out.
wineboot -i 2>/dev/null
echo "test-windows: Wine prefix ready in $((SECONDS - boot_started)) s ($WINEPREFIX)"

# --- run -----------------------------------------------------------------
# Two at a time, as the native run: the unit tests are one process here, and
# alone they left the second core idle for half a minute (ctest 60 s at -j1,
# 30-33 s at -j2 in three runs, all passed).
ctest --test-dir "$build" --output-on-failure --timeout 300 -j2

# The bench under Wine is a smoke test of the Windows path end to end (every
# strategy on the real OsSleeper), not a measurement: Wine's timers are not
# Windows'. So few frames and two rates, and not the tuning experiment, which
# ctest ran above (bench_tuning_quick, as the trade-off); the timeout keeps a
# hang from stalling CI.
bench_report="$build/bench-quick.md"
if ! timeout 300 wine "$build/bench/pacer-bench.exe" --quick --frames 20 --hz 60,240 \
     --experiments accuracy,sleep,cpu,heatmap >"$bench_report"; then
  echo "test-windows: pacer-bench.exe --quick failed (report so far: $bench_report)" >&2
  exit 1
fi
echo "test-windows: pacer-bench.exe --quick ran; report in $bench_report"

echo "test-windows: passed in $((SECONDS - started)) s"

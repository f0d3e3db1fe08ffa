#!/usr/bin/env bash
# Cross-builds pacer for Windows with MinGW-w64 into build-mingw/ (the mingw
# preset of CMakePresets.json: library, unit tests, bench; warnings are
# errors, as in tools/test.sh) and runs it under Wine: pacer-bench --quick
# while the rest builds, then the tests through ctest. The windowed
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

# --- build, with the bench's smoke run beside it ---------------------------
# The bench under Wine is a smoke test of the Windows path end to end (every
# strategy on the real OsSleeper), not a measurement: Wine's timers are not
# Windows'. So few frames and two rates, and not the tuning experiment, which
# ctest runs (bench_tuning_quick, as the trade-off); the timeout keeps a hang
# from stalling CI. It needs only pacer-bench.exe and takes ~45 s mostly
# asleep, so it runs while the rest builds; the tests wait for it, since
# those do judge time.
cmake --preset mingw -B "$build"
cmake --build "$build" -j2 --target pacer-bench

export WINEPREFIX="$build/wine"
export WINEDEBUG=-all              # no fixme/err chatter in the test output
export WINEDLLOVERRIDES="mscoree=;mshtml="   # no Mono/Gecko installers: console programs only
unset DISPLAY                      # console programs: never open a window

bench_pid=""
stop_wine() {
  [[ -z "$bench_pid" ]] || kill "$bench_pid" 2>/dev/null || true
  wineserver -k 2>/dev/null || true
}
trap stop_wine EXIT

mkdir -p "$WINEPREFIX"
wineserver -p                      # persistent until -k: one server for every test
boot_started=$SECONDS
# wineboot's notes on a 64-bit-only Wine (no syswow64) are harmless; keep them out.
wineboot -i 2>/dev/null
echo "test-windows: Wine prefix ready in $((SECONDS - boot_started)) s ($WINEPREFIX)"

bench_report="$build/bench-quick.md"
timeout 300 wine "$build/bench/pacer-bench.exe" --quick --frames 20 --hz 60,240 \
  --experiments accuracy,sleep,cpu,heatmap >"$bench_report" 2>"$build/bench-quick.log" &
bench_pid=$!
cmake --build "$build" -j2
bench_rc=0
wait "$bench_pid" || bench_rc=$?
bench_pid=""
if ((bench_rc != 0)); then
  cat "$build/bench-quick.log" >&2
  echo "test-windows: pacer-bench.exe --quick failed, exit $bench_rc (report so far: $bench_report)" >&2
  exit 1
fi
echo "test-windows: pacer-bench.exe --quick ran; report in $bench_report"

# --- tests ---------------------------------------------------------------
# Two at a time, as the native run: the unit tests in shards
# (tests/unit/CMakeLists.txt), beside the bench's tests.
ctest --test-dir "$build" --output-on-failure --timeout 300 -j2

echo "test-windows: passed in $((SECONDS - started)) s"

#!/usr/bin/env bash
# wine-run.sh WINE PROGRAM [ARGS...]: how ctest and gtest_discover_tests run
# the Windows binaries (cmake/toolchain-mingw64.cmake names it the emulator).
# Now and then Wine fails to start a program at all: it exits at once with
# nothing on stdout or stderr, on a test that passes. A test binary always
# prints before it can fail, so a run that failed with no output at all is
# started once more. It says so on stderr after that run's own output, never
# before it: tests match the output's first line (`^pacer-bench: --variants`),
# and a note ahead of it failed one in CI. Every other run is passed through
# as it is.
set -u
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
status=$?
note=
if [[ $status -ne 0 && ! -s $out && ! -s $err ]]; then
  note="wine-run: ${2:-?} exited $status with no output; started it once more"
  "$@" >"$out" 2>"$err"
  status=$?
fi
cat "$out"
cat "$err" >&2
[[ -z $note ]] || echo "$note" >&2
exit "$status"

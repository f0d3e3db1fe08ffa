#!/usr/bin/env bash
# tools/test.sh: builds everything and runs every test. The README's test
# command, and all that CI runs (.ci/run).
#
#   tools/test.sh           everything
#   tools/test.sh --quick   skip the sanitizer build and the Windows cross-build
#
# Sections run in order and the first failure stops the run. The last line is
# always "N passed, M failed" (CI reads it). Build directories: build/,
# build-asan/, build-consumer-subdirectory/, build-consumer-package/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "tools/test.sh: unknown argument '$arg' (known: --quick, --help)" >&2; exit 2 ;;
  esac
done

jobs=2   # the machine has 2 cores, shared
# Warnings are errors here: the project keeps zero warnings in its own code.
# tools/run-demo.sh reuses build/ as configured here.
warning_flags="-Wall -Wextra -Werror"

prefix="$(mktemp -d)"   # where the find_package consumer finds pacer installed
trap 'rm -rf "$prefix"' EXIT

passed=0
failed=0
started_s=$SECONDS

# CPU seconds used so far by this script's finished children (user + system,
# from /proc): next to wall time it tells a slow machine from a busy one.
cpu_s() {
  local stat fields
  stat="$(cat /proc/$$/stat 2>/dev/null)" || { echo 0; return; }
  read -r -a fields <<< "${stat##*) }"   # fields from the 3rd (state) on
  echo $(( (fields[13] + fields[14]) / $(getconf CLK_TCK) ))
}

# Runs one section in a subshell with errexit in force (errexit is ignored in
# a function called from an `if`, so no `if` here), stops at the first failure.
section() {
  local name="$1"; shift
  local t0=$SECONDS c0
  c0=$(cpu_s)
  printf '\n==== %s ====\n' "$name"
  set +e
  ( set -euo pipefail; "$@" )
  local rc=$?
  set -e
  local took
  took="$((SECONDS - t0))s, $(( $(cpu_s) - c0 ))s CPU"
  if ((rc == 0)); then
    passed=$((passed + 1))
    printf -- '---- %s: passed (%s)\n' "$name" "$took"
  else
    failed=$((failed + 1))
    printf -- '---- %s: FAILED (exit %d, %s)\n' "$name" "$rc" "$took"
    finish
  fi
}

skip() {
  printf '\n==== %s ====\n---- %s: skipped (%s)\n' "$1" "$1" "$2"
}

finish() {
  printf '\ntotal %ds, %ds CPU\n%d passed, %d failed\n' $((SECONDS - started_s)) "$(cpu_s)" "$passed" "$failed"
  if ((failed > 0)); then exit 1; fi
  exit 0
}

setup() {
  bash tools/setup.sh
}

build_release() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$warning_flags" -DCMAKE_C_FLAGS="$warning_flags"
  cmake --build build -j"$jobs"
}

# Unit tests, and the demo's headless runs under Xvfb where the demo is built.
ctest_release() {
  ctest --test-dir build --output-on-failure -j"$jobs"
}

# Debug with AddressSanitizer and UndefinedBehaviorSanitizer, library and unit
# tests only (the demo and bench add build time, not library coverage).
asan() {
  local san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DPACER_BUILD_DEMO=OFF -DPACER_BUILD_BENCH=OFF -DPACER_BUILD_TESTS=ON \
    -DCMAKE_CXX_FLAGS="$san $warning_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
  cmake --build build-asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs"
}

# An out-of-tree project that pulls pacer in with add_subdirectory.
consumer_subdirectory() {
  cmake -S tests/consumer -B build-consumer-subdirectory -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$warning_flags" \
    -DPACER_CONSUME=subdirectory -DPACER_SOURCE_DIR="$root"
  cmake --build build-consumer-subdirectory -j"$jobs"
  build-consumer-subdirectory/pacer-consumer
}

# The same project against an installed pacer, found with find_package.
consumer_package() {
  cmake --install build --prefix "$prefix"
  # An installed package must not point back into the source or build tree.
  if grep -rl -e "$root/pacer" -e "$root/build" "$prefix"; then
    echo "the installed files above refer to $root" >&2
    return 1
  fi
  rm -rf build-consumer-package
  cmake -S tests/consumer -B build-consumer-package -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$warning_flags" \
    -DPACER_CONSUME=package -DCMAKE_PREFIX_PATH="$prefix"
  local found
  found="$(sed -n 's/^pacer_DIR:PATH=//p' build-consumer-package/CMakeCache.txt)"
  if [[ "$found" != "$prefix"/* ]]; then
    echo "find_package found pacer in '$found', not under the install prefix $prefix" >&2
    return 1
  fi
  cmake --build build-consumer-package -j"$jobs"
  build-consumer-package/pacer-consumer
}

# The bench is for figures, not a test; this only checks that it starts.
bench_help() {
  build/bench/pacer-bench --help >/dev/null
  echo "build/bench/pacer-bench --help: exit 0"
}

windows() {
  bash tools/test-windows.sh
}

section "setup (tools/setup.sh)" setup
section "build (build/, Release)" build_release
section "tests (ctest, build/)" ctest_release
if ((quick)); then
  skip "sanitizers (build-asan/)" "--quick"
else
  section "sanitizers (build-asan/, ASan+UBSan, unit tests)" asan
fi
section "consumer via add_subdirectory" consumer_subdirectory
section "consumer via find_package after install" consumer_package
if [[ -f bench/CMakeLists.txt ]]; then
  section "bench starts (pacer-bench --help)" bench_help
else
  skip "bench starts (pacer-bench --help)" "no bench/ yet"
fi
if ((quick)); then
  skip "windows (tools/test-windows.sh)" "--quick"
elif [[ -f tools/test-windows.sh ]]; then
  section "windows (tools/test-windows.sh)" windows
else
  skip "windows (tools/test-windows.sh)" "no tools/test-windows.sh yet"
fi
finish

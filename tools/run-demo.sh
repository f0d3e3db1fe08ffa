#!/usr/bin/env bash
# tools/run-demo.sh: installs what is missing, builds, runs the demo. The
# README's demo command. Arguments go to the demo, e.g.
#   tools/run-demo.sh --backend glfw --seconds 30
# Without a display ($DISPLAY empty) the demo runs headless under Xvfb for a
# finite time (20 s unless --seconds is given).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash tools/setup.sh

# Configure only once: build/ is shared with tools/test.sh, which configures
# it with its own flags, and reconfiguring here would rebuild everything.
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="-Wall -Wextra" -DCMAKE_C_FLAGS="-Wall -Wextra"
fi
cmake --build build -j2

demo=build/demo/pacer-demo
if [[ -x "$demo" ]]; then
  if [[ -n "${DISPLAY:-}" ]]; then
    exec "$demo" "$@"
  fi
  args=("$@")
  has_seconds=0
  for arg in "$@"; do
    case "$arg" in --seconds|--seconds=*) has_seconds=1 ;; esac
  done
  if ((has_seconds == 0)); then args+=(--seconds 20); fi
  echo "run-demo: no \$DISPLAY, so the demo runs headless under xvfb-run (software GL)" \
       "and ends on its own: $demo ${args[*]}"
  exec xvfb-run -a -s "-screen 0 1280x720x24" "$demo" "${args[@]}"
fi

bench=build/bench/pacer-bench
if [[ -x "$bench" ]]; then
  echo "run-demo: the demo is not built yet, so this runs the bench instead: $bench --quick $*"
  exec "$bench" --quick "$@"
fi

echo "run-demo: neither $demo nor $bench was built" >&2
exit 1

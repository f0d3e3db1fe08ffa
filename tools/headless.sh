#!/usr/bin/env bash
# tools/headless.sh: runs a command on a virtual X display of its own.
#
#   tools/headless.sh [--size WxH] [--xvfb-arg ARG]... COMMAND [ARG...]
#
# Starts Xvfb (Mesa's software GL; 1280x720x24 unless --size; each
# --xvfb-arg passed on to it, e.g. --xvfb-arg -extension --xvfb-arg Present
# for a server without Present), which picks a
# free display number itself and reports it (-displayfd), so that runs in
# parallel never race for one; runs COMMAND with DISPLAY set; then stops that
# Xvfb by its PID and waits for it. Exits with COMMAND's status (xvfb-run can
# lose it, and leave its server running when the command is killed). SIGINT
# and SIGTERM are passed on to COMMAND.
set -uo pipefail

size=1280x720
xvfb_args=()
while [[ "${1:-}" == --size || "${1:-}" == --xvfb-arg ]]; do
  if (($# < 2)); then
    echo "headless: $1 needs a value" >&2
    exit 2
  fi
  if [[ "$1" == --size ]]; then size="$2"; else xvfb_args+=("$2"); fi
  shift 2
done
if [[ ! "$size" =~ ^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$ ]]; then
  echo "headless: --size: '$size' is not WIDTHxHEIGHT in pixels" >&2
  exit 2
fi
if (($# == 0)); then
  echo "headless: no command (usage: tools/headless.sh [--size WxH] [--xvfb-arg ARG]... COMMAND [ARG...])" >&2
  exit 2
fi
if ! command -v Xvfb >/dev/null; then
  echo "headless: Xvfb not found (Debian package xvfb; tools/setup.sh demo installs it)" >&2
  exit 127
fi

dir="$(mktemp -d)"
xvfb_pid=""
child_pid=""
cleanup() {
  if [[ -n "$xvfb_pid" ]]; then
    kill -TERM "$xvfb_pid" 2>/dev/null
    wait "$xvfb_pid" 2>/dev/null
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap '[[ -n "$child_pid" ]] && kill -TERM "$child_pid" 2>/dev/null' TERM
trap '[[ -n "$child_pid" ]] && kill -INT "$child_pid" 2>/dev/null' INT

Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp -noreset "${xvfb_args[@]}" 3>"$dir/display" 2>"$dir/xvfb.log" &
xvfb_pid=$!
display=""
for _ in $(seq 200); do   # 10 s
  read -r display 2>/dev/null <"$dir/display"
  [[ -n "$display" ]] && break
  if ! kill -0 "$xvfb_pid" 2>/dev/null; then break; fi
  sleep 0.05
done
if [[ -z "$display" ]]; then
  echo "headless: Xvfb did not start: $(tail -n 3 "$dir/xvfb.log" | tr '\n' ' ')" >&2
  exit 1
fi

# Started with job control on, so that the command does not inherit the
# SIGINT and SIGQUIT that bash ignores in background commands (a forwarded
# SIGINT would do nothing), then off again: no job notices on stderr.
set -m
DISPLAY=":$display" "$@" &
child_pid=$!
set +m
# wait returns early when a trapped signal arrives: wait again until the
# command has really ended, then take its status.
while kill -0 "$child_pid" 2>/dev/null; do
  wait "$child_pid"
done
wait "$child_pid"   # bash keeps an ended job's status
exit $?

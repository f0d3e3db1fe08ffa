#!/usr/bin/env bash
# tools/wayland.sh: headless Wayland compositors for the tests and QA runs.
#
#   tools/wayland.sh start sway   [--hz N] [--size WxH] [--name NAME]
#   tools/wayland.sh start weston [--size WxH] [--seat-module PATH] [--repaint-window-ms N] [--xwayland] [--name NAME]
#   tools/wayland.sh start mutter [--hz N] [--size WxH] [--xwayland] [--name NAME]
#   tools/wayland.sh start kwin   [--size WxH] [--name NAME]
#   tools/wayland.sh env    [--name NAME]     the lines a client needs: eval "$(tools/wayland.sh env)"
#                                             (--xwayland: DISPLAY, and mutter's XAUTHORITY, too)
#   tools/wayland.sh set-hz N [--name NAME]   sway only: change the output's rate live
#   tools/wayland.sh status [--name NAME]     exit 0 when the instance runs
#   tools/wayland.sh stop   [--name NAME]
#   tools/wayland.sh glfw-wayland             unpack Debian's Wayland build of GLFW (prints its lib dir)
#
# Each instance (NAME, default: the compositor's name) lives in
# /tmp/pacer-wayland-NAME: its PID file, its log, its config and the 0700
# XDG_RUNTIME_DIR that holds its socket. start is a no-op when the instance
# already runs, stop when it does not, and stop ends only the PID it recorded.
#
# sway 1.7 refuses to run as root, so every compositor runs as nobody; a root
# client can still connect to the socket. sway's headless output takes any
# mode ("60 Hz" ticks on a whole-millisecond timer, so it runs at about
# 60.8 Hz). weston's headless backend reports 60 Hz and repaints on its own
# slower clock (docs/wayland.md): kept as the "display lies about its refresh"
# case. weston sends wp_presentation feedback, sway (wlroots 0.15) does not.
# mutter (GNOME) runs headless with a virtual monitor at the asked rate and
# sends feedback dated in software (no hardware-clock flag), with jitter.
# --xwayland (mutter, weston) also starts the compositor's Xwayland, for X11
# clients as most games run on GNOME. KWin (KDE) runs its virtual backend at 60 Hz and sends no feedback.
# Both want a session bus: each gets its own (dbus-run-session).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
me="tools/wayland.sh"
die() { echo "$me: $*" >&2; exit 2; }

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }

# --- the GLFW Wayland build ---------------------------------------------------
# Debian builds GLFW 3.3 for X11 or for Wayland, and libglfw3-wayland conflicts
# with libglfw3 (the X11 build the demo links). The Wayland build is unpacked
# into the project instead and put first on LD_LIBRARY_PATH for Wayland runs.
glfw_wayland() {
  local dest="${PACER_GLFW_WAYLAND_DIR:-$root/build/glfw-wayland}"
  local lib="$dest/usr/lib/x86_64-linux-gnu"
  if [[ -f "$lib/libglfw.so.3" ]]; then echo "$lib"; return 0; fi
  command -v apt-get >/dev/null || die "glfw-wayland: apt-get not found (Debian's libglfw3-wayland is unpacked from its .deb)"
  local tmp
  tmp="$(mktemp -d)"
  # apt-get download writes into the current directory, as the _apt user when
  # it can: the directory must be writable by it.
  chmod 0777 "$tmp"
  if ! (cd "$tmp" && apt-get download -qq libglfw3-wayland >/dev/null 2>"$tmp/err"); then
    cat "$tmp/err" >&2; rm -rf "$tmp"
    die "glfw-wayland: 'apt-get download libglfw3-wayland' failed (see above)"
  fi
  mkdir -p "$dest.tmp"
  dpkg-deb -x "$tmp"/libglfw3-wayland_*.deb "$dest.tmp"
  rm -rf "$tmp" "$dest"
  mv "$dest.tmp" "$dest"
  [[ -f "$lib/libglfw.so.3" ]] || die "glfw-wayland: no libglfw.so.3 in $lib after unpacking"
  echo "$lib"
}

# --- instances ----------------------------------------------------------------
state_dir() { echo "/tmp/pacer-wayland-$1"; }

# The PID recorded for NAME when that process still runs the compositor it
# started (a PID reused by another program does not count).
running_pid() {
  local dir pid
  dir="$(state_dir "$1")"
  [[ -f "$dir/pid" ]] || return 1
  pid="$(cat "$dir/pid")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -e "^sway " -e "^/usr/bin/sway " -e "weston" -e "^mutter " \
    -e "/kwin_wayland " || return 1
  echo "$pid"
}

# True while PID has not ended. The compositor outlives the script that
# started it and is then PID 1's child, which some inits reap only a second
# or more later: a zombie has ended.
alive() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"   # fields from the state on (the name may hold spaces)
  [[ "${stat:0:1}" != Z ]]
}

# The socket's name in the instance's runtime dir (sway picks its own).
socket_name() {
  local run="$1/run" s
  for s in "$run"/wayland-[0-9]*; do
    [[ -S "$s" ]] && { basename "$s"; return 0; }
  done
  return 1
}

# The compositor's Xwayland: its display (":N", from mutter's log or
# weston's) and the auth file mutter made, kept in the instance's dir once
# there. weston's Xwayland has no auth file and lets in only its own user
# (nobody): xhost, run as nobody, lets root's clients in too (the first
# client also starts that Xwayland, which weston does on demand).
x_display() {
  local dir="$1" number auth
  if [[ "$(cat "$dir/kind")" == weston ]]; then
    number="$(sed -n 's/.*xserver listening on display \(:[0-9]*\).*/\1/p' "$dir/weston.log" | head -n 1)"
    [[ -n "$number" ]] || return 1
    command -v xhost >/dev/null || die "start: xhost not found (x11-xserver-utils; tools/setup.sh installs it)"
    as_nobody env DISPLAY="$number" xhost +si:localuser:root >/dev/null 2>&1 || return 1
    echo "$number" > "$dir/x-display"
    return 0
  fi
  number="$(sed -n 's/.*Using public X11 display \(:[0-9]*\).*/\1/p' "$dir/log" | head -n 1)"
  [[ -n "$number" ]] || return 1
  for auth in "$dir"/run/.mutter-Xwaylandauth.*; do
    [[ -f "$auth" ]] || return 1
    echo "$number" > "$dir/x-display"
    echo "$auth" > "$dir/x-auth"
    return 0
  done
  return 1
}

print_env() {
  local name="$1" dir sock
  dir="$(state_dir "$name")"
  running_pid "$name" >/dev/null || die "env: '$name' is not running (start it first)"
  sock="$(socket_name "$dir")" || die "env: '$name' runs but has no socket in $dir/run"
  echo "export XDG_RUNTIME_DIR=$dir/run"
  echo "export WAYLAND_DISPLAY=$sock"
  [[ -f "$dir/kind" && "$(cat "$dir/kind")" == sway ]] && echo "export SWAYSOCK=$dir/run/sway-ipc.sock"
  if [[ -f "$dir/x-display" ]]; then
    echo "export DISPLAY=$(cat "$dir/x-display")"
    [[ -f "$dir/x-auth" ]] && echo "export XAUTHORITY=$(cat "$dir/x-auth")"
  fi
  return 0
}

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# The command that starts the compositor, in cmd, with its configuration
# written into $dir. Called by start(), whose locals it reads (kind, dir, run,
# size, hz, seat, window_ms, xwayland) and whose cmd it sets: bash's
# functions see their caller's locals.
compositor_command() {
  case "$kind" in
    sway)
      # No bar, no idle, no input devices: one output at the asked rate.
      printf 'output HEADLESS-1 mode --custom %s@%sHz\n' "$size" "$hz" > "$dir/sway.conf"
      chmod 0644 "$dir/sway.conf"
      cmd=(env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$run" SWAYSOCK="$run/sway-ipc.sock"
           WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1
           sway --config "$dir/sway.conf")
      ;;
    weston)
      cp "$seat" "$dir/pacer-weston-seat.so"
      chmod 0644 "$dir/pacer-weston-seat.so"
      {
        echo "[core]"
        echo "idle-time=0"
        [[ -n "$window_ms" ]] && echo "repaint-window=$window_ms"
        # desktop-shell, not kiosk: kiosk makes windows fullscreen, and GLFW's
        # own decorations then exceed the output (a protocol error).
        echo "[shell]"
        echo "panel-position=none"
        echo "background-color=0xff202020"
      } > "$dir/weston.ini"
      chmod 0644 "$dir/weston.ini"
      touch "$dir/weston.log"
      chown nobody:nogroup "$dir/weston.log"   # weston opens it as nobody
      cmd=(env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$run"
           weston --backend=headless-backend.so --shell=desktop-shell.so --width="${size%x*}" --height="${size#*x}"
           --socket=wayland-0 --idle-time=0 --config="$dir/weston.ini"
           --modules="$dir/pacer-weston-seat.so" --log="$dir/weston.log")
      if [[ "$xwayland" == 1 ]]; then
        [[ -d /tmp/.X11-unix ]] || install -d -m 1777 /tmp/.X11-unix
        cmd+=(--xwayland)
      fi
      ;;
    mutter|kwin)
      # The compositor itself records its PID (stop ends it, and then
      # dbus-run-session ends its bus). Its Xwayland puts its socket in
      # /tmp/.X11-unix, which must exist as X servers make it (root, 1777)
      # or mutter refuses to start it.
      local -a program_cmd
      if [[ "$kind" == mutter ]]; then
        program_cmd=(mutter --headless --wayland --virtual-monitor "${size}@${hz}" --wayland-display wayland-0)
        if [[ "$xwayland" == 1 ]]; then
          [[ -d /tmp/.X11-unix ]] || install -d -m 1777 /tmp/.X11-unix
        else
          program_cmd+=(--no-x11)
        fi
      else
        # Debian installs kwin_wayland with a file capability
        # (cap_sys_resource), which a container refuses to execute; a copy
        # has none.
        cp "$(command -v kwin_wayland)" "$dir/kwin_wayland"
        chmod 0755 "$dir/kwin_wayland"
        program_cmd=("$dir/kwin_wayland" --virtual --width "${size%x*}" --height "${size#*x}"
                     --socket wayland-0 --no-lockscreen)
      fi
      cmd=(env -i PATH=/usr/bin:/bin HOME="$dir/home" XDG_RUNTIME_DIR="$run" QT_QPA_PLATFORM=offscreen
           dbus-run-session -- sh -c 'echo $$ > "$0"; exec "$@"' "$run/compositor.pid" "${program_cmd[@]}")
      ;;
    *) die "start: unknown compositor '$kind' (known: sway, weston, mutter, kwin)" ;;
  esac
}

start() {
  local kind="$1" name="$2" hz="$3" seat="$4" window_ms="$5" size="$6" xwayland="$7"
  local dir run pid
  dir="$(state_dir "$name")"
  run="$dir/run"
  if pid="$(running_pid "$name")"; then
    echo "$me: '$name' already runs (pid $pid)"
    print_env "$name"
    return 0
  fi
  local program="$kind"
  [[ "$kind" == kwin ]] && program=kwin_wayland
  command -v "$program" >/dev/null || die "start: '$program' not found (tools/setup.sh installs it)"
  if [[ "$xwayland" == 1 ]]; then
    command -v Xwayland >/dev/null || die "start: Xwayland not found (tools/setup.sh installs it)"
  fi
  command -v setpriv >/dev/null || die "start: setpriv not found (util-linux)"
  if [[ "$kind" == weston ]]; then
    # Headless has no wl_seat, and SDL2 2.26 crashes in SDL_Init without
    # one: the seat module (tests/wayland/weston_seat.c) adds it.
    [[ -n "$seat" ]] || seat="$root/build/tests/wayland/pacer-weston-seat.so"
    [[ -f "$seat" && -r "$seat" ]] || die "start: weston's seat module '$seat' not found (build the target pacer-weston-seat, or pass --seat-module)"
  fi
  rm -rf "$dir"
  mkdir -p "$run"
  chmod 0755 "$dir"
  chmod 0700 "$run"
  chown nobody:nogroup "$run"
  mkdir -p "$dir/home"   # mutter and KWin keep settings under HOME
  chown nobody:nogroup "$dir/home"
  echo "$kind" > "$dir/kind"
  echo "$size" > "$dir/size"

  local -a cmd
  compositor_command   # sets cmd

  # setsid: the compositor outlives this script and gets no terminal signals.
  # SCHED_FIFO 10 (set as root, kept through setpriv), else nice -10: the
  # compositor stands in for a display, whose clock should not stretch when
  # the machine is busy. It sleeps between frames, so it takes little CPU.
  local -a priority=(chrt --fifo 10)
  "${priority[@]}" true 2>/dev/null || priority=(nice -n -10)
  "${priority[@]}" setpriv --reuid=nobody --regid=nogroup --clear-groups setsid "${cmd[@]}" \
    >"$dir/log" 2>&1 < /dev/null &
  pid=$!
  echo "$pid" > "$dir/pid"
  local i
  for i in $(seq 1 100); do
    if ! alive "$pid"; then
      tail -n 20 "$dir/log" >&2 || true
      [[ -f "$dir/weston.log" ]] && tail -n 20 "$dir/weston.log" >&2
      die "start: $kind exited at start (its log's end above; all of it in $(keep_log "$dir" "$name"))"
    fi
    if socket_name "$dir" >/dev/null && { [[ "$kind" != sway ]] || [[ -S "$run/sway-ipc.sock" ]]; } &&
       { [[ "$xwayland" != 1 ]] || x_display "$dir"; }; then
      if [[ -f "$run/compositor.pid" ]]; then
        pid="$(cat "$run/compositor.pid")"
        echo "$pid" > "$dir/pid"
      fi
      echo "$me: $kind '$name' runs (pid $pid)"
      print_env "$name"
      return 0
    fi
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  sleep 0.5
  die "start: $kind made no socket within 10 s (its log: $(keep_log "$dir" "$name"))"
}

# A compositor that failed to start: its logs move to one file beside the
# instances, named in the error, and its folder goes.
keep_log() {
  local dir="$1" saved
  saved="$(dirname "$dir")/pacer-wayland-$2.log"
  cat "$dir/log" "$dir/weston.log" > "$saved" 2>/dev/null || true
  rm -rf "$dir"
  echo "$saved"
}

stop() {
  local name="$1" dir pid i
  dir="$(state_dir "$name")"
  if ! pid="$(running_pid "$name")"; then
    echo "$me: '$name' is not running"
    rm -rf "$dir"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 250); do   # 5 s, then SIGKILL
    alive "$pid" || break
    sleep 0.02
  done
  if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
  echo "$me: '$name' stopped (pid $pid)"
}

set_hz() {
  local name="$1" hz="$2" dir
  dir="$(state_dir "$name")"
  running_pid "$name" >/dev/null || die "set-hz: '$name' is not running"
  [[ "$(cat "$dir/kind")" == sway ]] || die "set-hz: '$name' is not sway (weston's headless rate is fixed)"
  as_nobody env XDG_RUNTIME_DIR="$dir/run" SWAYSOCK="$dir/run/sway-ipc.sock" \
    swaymsg -q -- output HEADLESS-1 mode --custom "$(cat "$dir/size")@${hz}Hz" \
    || die "set-hz: swaymsg refused ${hz} Hz"
  echo "$me: '$name' set to ${hz} Hz"
}

# --- arguments ----------------------------------------------------------------
[[ $# -ge 1 ]] || { usage >&2; exit 2; }
verb="$1"; shift
kind=""
set_hz_value=""
case "$verb" in
  start) [[ $# -ge 1 ]] || die "start: which compositor? (sway, weston, mutter or kwin)"; kind="$1"; shift
         [[ "$kind" =~ ^(sway|weston|mutter|kwin)$ ]] || die "start: unknown compositor '$kind' (known: sway, weston, mutter, kwin)" ;;
  set-hz) [[ $# -ge 1 ]] || die "set-hz: which rate?"; set_hz_value="$1"; shift ;;
  -h|--help) usage; exit 0 ;;
  stop|env|status|glfw-wayland) ;;
  *) die "unknown command '$verb' (start, stop, env, status, set-hz, glfw-wayland)" ;;
esac
name=""
hz=60
seat=""
window_ms=""
xwayland=0
size=1280x720
while [[ $# -gt 0 ]]; do
  case "$1" in
    --hz) [[ $# -ge 2 ]] || die "--hz needs a value"; hz="$2"; shift 2 ;;
    --size) [[ $# -ge 2 ]] || die "--size needs a value"; size="$2"; shift 2 ;;
    --name) [[ $# -ge 2 ]] || die "--name needs a value"; name="$2"; shift 2 ;;
    --seat-module) [[ $# -ge 2 ]] || die "--seat-module needs a path"; seat="$2"; shift 2 ;;
    --repaint-window-ms) [[ $# -ge 2 ]] || die "--repaint-window-ms needs a value"; window_ms="$2"; shift 2 ;;
    --xwayland) xwayland=1; shift ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
positive_number() { [[ "$1" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v v="$1" 'BEGIN { exit !(v > 0) }'; }
positive_number "$hz" || die "--hz: '$hz' is not a positive number"
[[ -z "$set_hz_value" ]] || positive_number "$set_hz_value" || die "set-hz: '$set_hz_value' is not a positive number"
[[ -z "$window_ms" ]] || [[ "$window_ms" =~ ^[0-9]+$ ]] || die "--repaint-window-ms: '$window_ms' is not a whole number of ms"
[[ "$size" =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "--size: '$size' is not WIDTHxHEIGHT in pixels"
[[ -z "$name" ]] || [[ "$name" =~ ^[A-Za-z0-9_-]+$ ]] || die "--name: '$name' may hold only letters, digits, '-' and '_'"
[[ "$xwayland" == 0 || "$kind" == mutter || "$kind" == weston ]] || die "--xwayland: only mutter and weston start an Xwayland here"

if [[ -z "$name" ]]; then
  # Unnamed: the compositor started, sway for set-hz, else the one default
  # instance that runs.
  running=()
  for k in sway weston mutter kwin; do running_pid "$k" >/dev/null && running+=("$k"); done
  if [[ -n "$kind" ]]; then name="$kind"
  elif [[ "$verb" == set-hz ]]; then name=sway
  elif ((${#running[@]} == 1)); then name="${running[0]}"
  elif [[ "$verb" == stop && ${#running[@]} == 0 ]]; then echo "$me: no instance of ours runs"; exit 0
  elif [[ "$verb" == status && ${#running[@]} == 0 ]]; then echo "$me: no instance of ours runs"; exit 1
  elif [[ "$verb" != glfw-wayland ]]; then die "$verb: which instance? (--name NAME: ${running[*]:-none runs})"
  fi
fi

case "$verb" in
  start) [[ "$(id -u)" -eq 0 ]] || die "start: run as root (the compositor is started as nobody through setpriv)"
         start "$kind" "$name" "$hz" "$seat" "$window_ms" "$size" "$xwayland" ;;
  stop) stop "$name" ;;
  env) print_env "$name" ;;
  status) if pid="$(running_pid "$name")"; then echo "$me: '$name' runs (pid $pid)"; else echo "$me: '$name' is not running"; exit 1; fi ;;
  set-hz) set_hz "$name" "$set_hz_value" ;;
  glfw-wayland) glfw_wayland ;;
  *) die "unknown command '$verb' (start, stop, env, status, set-hz, glfw-wayland)" ;;
esac

#!/usr/bin/env bash
# Installs the system packages a part of pacer needs on Debian 12 / Ubuntu
# (apt), and says what and why. Idempotent: packages already present are
# skipped, so running it again is quick and changes nothing.
#   tools/setup.sh library   the compiler and the build: the library needs nothing else
#   tools/setup.sh tools     and what pacer-run, pacer-replay and their packages build
#                            against (a player's build: cmake --preset tools)
#   tools/setup.sh demo      and the demo: its window systems, UI and headless GL (run-demo.sh)
#   tools/setup.sh [all]     and the tests: compositors, sanitizers' Clang, Wine (test.sh)
set -euo pipefail

part="${1:-all}"
library=(build-essential cmake ninja-build pkg-config)
tools=(
  # pacer::vulkan and pacer-run's Vulkan layer on it; the X11 window state and X11's
  # display clock (XCB's headers); Wayland's present feedback (pacer::wayland)
  libvulkan-dev libxcb1-dev libxcb-present-dev libwayland-dev libwayland-bin wayland-protocols
  # the command lines and pacer-replay's CapFrameX captures
  libcli11-dev nlohmann-json3-dev
  # the packages: their dependencies (dpkg-shlibdeps, and file, which CPack
  # asks first) and the man pages written from each tool's --help
  dpkg-dev file help2man
)
demo=(
  # windowing (and pacer's GLFW and SDL2 backends), GL loader generator, UI,
  # image writer (the tools' part brings the CLI and JSON libraries, Wayland's
  # and XCB's headers)
  libsdl2-dev libglfw3-dev libgl-dev libimgui-dev python3-glad libstb-dev
  # the X11 Hosts' VRR range (RandR's vrr_capable and the EDID): headers only
  libxrandr-dev
  # headless GL, so the demo runs without a display (tools/headless.sh)
  xvfb libgl1-mesa-dri libglx-mesa0 mesa-utils
  # the plots of a headless run, and the QA tool's (tools/plots.py, tools/qa.py)
  python3 python3-matplotlib
  # Mesa's EGL for Wayland windows
  libegl-mesa0
)
tests=(
  libgtest-dev libgmock-dev
  # headless Wayland (tools/wayland.sh, tests/wayland): compositors whose swaps
  # block (sway) and that report present times (weston, plus libweston-10-dev
  # for the seat module)
  sway weston libweston-10-dev
  # the desktops players run, headless (tools/wayland.sh): GNOME's mutter with
  # its Xwayland, KDE's KWin, each on a session bus of its own (dbus-run-session);
  # xhost (x11-xserver-utils) lets root's clients into weston's Xwayland
  mutter kwin-wayland xwayland dbus-daemon x11-xserver-utils
  # Windows cross-build, run under Wine
  g++-mingw-w64-x86-64-posix wine wine64
  # libFuzzer and Clang's sanitizers (tests/fuzz)
  clang libclang-rt-14-dev
  # programs nobody here wrote, for pacer-run to pace (tests/run) and Vulkan
  # on Mesa's software driver (lavapipe); MangoHud, the limiter players use,
  # for the bench beside it (tools/pace_any.py)
  libsdl2-tests glmark2-x11 glmark2-es2-wayland vulkan-tools mesa-vulkan-drivers mangohud
  # Khronos' validation layer, under which examples/glfw_vulkan is resized
  # (tests/examples)
  vulkan-validationlayers
  # the Debian packages (tools/package.sh): lintian to judge them
  lintian
  # a window in the background under Xvfb (tests/background): a window
  # manager to minimize it (openbox), xdotool to drive it, and xmessage and
  # xprop (x11-utils): a window to take the focus, and the manager's check
  openbox xdotool x11-utils
)
case "$part" in
  library) packages=("${library[@]}"); why="the library's build" ;;
  tools) packages=("${library[@]}" "${tools[@]}"); why="the library and the player's tools" ;;
  demo) packages=("${library[@]}" "${tools[@]}" "${demo[@]}"); why="the library, the tools and the demo" ;;
  all) packages=("${library[@]}" "${tools[@]}" "${demo[@]}" "${tests[@]}"); why="the library, the demo and every test" ;;
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup: unknown part '$part' (library, tools, demo or all)" >&2; exit 2 ;;
esac

# Debian's GLFW is built for X11 or for Wayland, and the Wayland build
# conflicts with libglfw3-dev: it is unpacked into build/glfw-wayland instead
# (tools/wayland.sh glfw-wayland), for the Wayland runs only.
glfw_wayland() {
  bash "$(dirname "${BASH_SOURCE[0]}")/wayland.sh" glfw-wayland >/dev/null
}

# Debian's and Ubuntu's package tools: without them every package would read
# as missing, and apt-get fail for a reason this script never named.
for tool in dpkg-query apt-get; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "setup: $tool is not on PATH: this script installs Debian/Ubuntu packages with apt; elsewhere install" \
         "the README's Dependencies by hand (for $why: ${packages[*]})" >&2
    exit 2
  fi
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: the ${#packages[@]} packages for $why are present"
  if [[ "$part" == all ]]; then glfw_wayland; fi
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "setup: installing, for $why (the README's Dependencies says why each): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
if [[ "$part" == all ]]; then glfw_wayland; fi
echo "setup: done"

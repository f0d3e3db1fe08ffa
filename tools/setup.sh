#!/usr/bin/env bash
# Installs every system package pacer needs on Debian 12 / Ubuntu (apt). Idempotent:
# packages already present are skipped, so running it again is quick and changes nothing.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config
  # tests
  libgtest-dev libgmock-dev
  # demo: windowing, GL loader generator, UI, image writer, CLI, JSON
  libsdl2-dev libglfw3-dev libgl-dev libimgui-dev python3-glad libstb-dev libcli11-dev nlohmann-json3-dev
  # headless GL for CI and QA runs
  xvfb xauth libgl1-mesa-dri libglx-mesa0 mesa-utils
  # headless Wayland (tools/wayland.sh, tests/wayland): compositors whose swaps
  # block (sway) and that report present times (weston, plus libweston-10-dev
  # for the seat module); wp_presentation's client code, generated at build time
  sway weston libweston-10-dev libwayland-dev libwayland-bin wayland-protocols libegl-mesa0
  # plots
  python3 python3-matplotlib
  # Windows cross-build, run under Wine
  g++-mingw-w64-x86-64-posix wine wine64
  # libFuzzer on the scenario parser (tests/fuzz): Clang and its runtimes
  clang libclang-rt-14-dev
)

# Debian's GLFW is built for X11 or for Wayland, and the Wayland build
# conflicts with libglfw3-dev: it is unpacked into build/glfw-wayland instead
# (tools/wayland.sh glfw-wayland), for the Wayland runs only.
glfw_wayland() {
  bash "$(dirname "${BASH_SOURCE[0]}")/wayland.sh" glfw-wayland >/dev/null
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  glfw_wayland
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
glfw_wayland
echo "setup: done"

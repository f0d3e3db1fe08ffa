#!/usr/bin/env bash
# tools/package.sh: builds the Debian packages (cmake/package.cmake) from the
# release build and checks them as a player's machine would take them:
#   1. cpack writes libpacer-dev and pacer-tools into build/packages/;
#   2. lintian reports no error on either;
#   3. dpkg -i installs both (root), and from the installed files alone, with
#      the build tree moved out of reach: find_package(pacer) and
#      pkg-config pacer build tests/consumer's program, whose version must be
#      the project's; pacer-run, pacer-replay and pacer-demo's --version say
#      it too; `pacer-run -- glxgears` paces under Xvfb and writes its trace;
#      pacer-replay reads a shared capture; the loader lists the Vulkan layer;
#   4. dpkg --purge removes them and leaves none of their files behind.
# Called by tools/test.sh; needs root (dpkg -i), as CI has. Packages that
# were installed before are refused rather than replaced.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

die() { echo "tools/package.sh: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || die "needs root (dpkg -i); CI runs as root"
[[ -f build/CPackConfig.cmake ]] || die "build/CPackConfig.cmake missing: configure build/ with PACER_INSTALL on (the release preset)"
for package in libpacer-dev pacer-tools; do
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "installed"; then
    die "$package is already installed: remove it first (dpkg --purge $package)"
  fi
done

version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' build/CMakeCache.txt)"
[[ -n "$version" ]] || die "no CMAKE_PROJECT_VERSION in build/CMakeCache.txt"
grep -q "^## \[$version\]" CHANGELOG.md || die "CHANGELOG.md has no '## [$version]' entry for the project's version"

# 1. The packages.
rm -rf build/packages
cpack --config build/CPackConfig.cmake -B build/packages >/dev/null
mapfile -t debs < <(find build/packages -maxdepth 1 -name '*.deb' | sort)
((${#debs[@]} == 2)) || die "expected 2 .deb files in build/packages, found ${#debs[@]}"
for deb in "${debs[@]}"; do
  echo "$(basename "$deb"): $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version), $(dpkg-deb -c "$deb" | grep -vc '/$') files"
done

# 2. lintian: no errors (warnings are printed, not fatal).
lintian_out="$(lintian --no-tag-display-limit "${debs[@]}" 2>&1 || true)"
[[ -z "$lintian_out" ]] || echo "$lintian_out"
if grep -q '^E: ' <<<"$lintian_out"; then
  die "lintian reports errors (above)"
fi
echo "lintian: no errors ($(grep -c '^W: ' <<<"$lintian_out" || true) warnings)"

# 3. Installed, with the build tree out of reach.
work="$(mktemp -d)"
cp "${debs[@]}" "$work/"
hidden="$root/build.package-check"
mv "$root/build" "$hidden"
restore() {
  [[ -d "$hidden" ]] && mv "$hidden" "$root/build"
  dpkg --purge libpacer-dev pacer-tools >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap restore EXIT
dpkg -i "$work"/*.deb >/dev/null
echo "installed: $(dpkg-query -W -f='${Package} ${Version}  ' libpacer-dev pacer-tools)"
dpkg -L libpacer-dev pacer-tools | sort -u >"$work/files"

for tool in pacer-run pacer-replay; do
  said="$("$tool" --version)"
  [[ "$said" == "$tool $version" ]] || die "$tool --version says '$said', the project $version"
  echo "$said ($(command -v "$tool"))"
done
pc_version="$(pkg-config --modversion pacer)"
[[ "$pc_version" == "$version" ]] || die "pkg-config says pacer $pc_version, the project $version"
echo "pkg-config: pacer $pc_version"

# find_package from the system's own paths (no CMAKE_PREFIX_PATH), and
# pkg-config, each building the consumer, which checks the version itself.
cp -r tests/consumer "$work/consumer"
cmake -S "$work/consumer" -B "$work/consumer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPACER_CONSUME=package >"$work/cmake.log" || { cat "$work/cmake.log"; die "find_package(pacer) failed"; }
grep -o "pacer $version from [^ ]*" "$work/cmake.log" || die "find_package did not find pacer $version"
cmake --build "$work/consumer-build" >/dev/null
"$work/consumer-build/pacer-consumer"
# shellcheck disable=SC2046  # the flags are words
c++ -std=c++17 -O2 -Wall -Wextra -Werror -fno-exceptions "$work/consumer/main.cpp" $(pkg-config --cflags --libs pacer) \
  -o "$work/pacer-consumer-pc"
"$work/pacer-consumer-pc"

# pacer-run on a program nobody rebuilt, under Xvfb, from /usr alone: 3 s
# of glxgears at 60 Hz, stopped by SIGINT through pacer-run, its trace whole.
cat >"$work/glxgears.sh" <<EOF
exec timeout -s INT 3 pacer-run --hz 60 --trace "$work/glxgears.csv" -- glxgears
EOF
set +e
bash tools/headless.sh bash "$work/glxgears.sh" >"$work/glxgears.log" 2>&1
rc=$?
set -e
rows=$(( $(wc -l <"$work/glxgears.csv" 2>/dev/null || echo 1) - 1 ))
((rows >= 60)) || { cat "$work/glxgears.log"; die "pacer-run -- glxgears: $rows trace rows in 3 s (exit $rc)"; }
echo "pacer-run -- glxgears (installed, Xvfb): $rows frames traced in 3 s, exit $rc"
python3 - "$work/glxgears.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
intervals = [float(r["MsBetweenSimulationStart"]) for r in rows[10:] if r["MsBetweenSimulationStart"] != "NA"]
median = statistics.median(intervals)
if abs(median - 1000 / 60) > 1.0:
    sys.exit(f"pacer-run -- glxgears: median wake interval {median:.3f} ms, not 16.667")
print(f"pacer-run -- glxgears: median wake interval {median:.3f} ms")
PY

# pacer-replay on a capture the repository shares.
capture="$root/tests/replay/data/test_case_0.csv"   # PresentMon's own test capture (data/README.md)
pacer-replay "$capture" --refresh 60 --strategy timer >"$work/replay.txt"
grep -q "| timer at " "$work/replay.txt" || { cat "$work/replay.txt"; die "pacer-replay gave no timer row for $capture"; }
echo "pacer-replay (installed) on $(basename "$capture"): a timer row"

# The Vulkan loader finds the layer from the system's manifest alone.
if command -v vulkaninfo >/dev/null; then
  vulkaninfo --summary 2>/dev/null | grep -q VK_LAYER_PACER_frame_pacing ||
    VK_LOADER_DEBUG=layer vulkaninfo 2>&1 | grep -q "VK_LAYER_PACER_frame_pacing" ||
    die "the Vulkan loader does not list VK_LAYER_PACER_frame_pacing from /usr/share/vulkan/explicit_layer.d"
  echo "vulkan loader: VK_LAYER_PACER_frame_pacing listed"
fi

# 4. Removal leaves nothing of theirs behind.
dpkg --purge libpacer-dev pacer-tools >/dev/null
left=0
while read -r path; do
  [[ -z "$path" || -d "$path" ]] && continue
  if [[ -e "$path" || -L "$path" ]]; then echo "left behind: $path" >&2; left=1; fi
done <"$work/files"
while read -r path; do   # their own folders (those no other package holds)
  [[ -d "$path" && "$path" == */pacer* ]] && { echo "left behind: $path/" >&2; left=1; }
done <"$work/files"
((left == 0)) || die "dpkg --purge left files behind (above)"
echo "dpkg --purge: none of their $(grep -c . "$work/files") paths left"

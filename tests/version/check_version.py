#!/usr/bin/env python3
"""check_version.py: one version, said everywhere, with a changelog entry.

  check_version.py --version X.Y.Z --changelog CHANGELOG.md TOOL...

Fails unless X.Y.Z (CMake's project version, the one source) is a semantic
version, CHANGELOG.md has a '## [X.Y.Z] - YYYY-MM-DD' entry with an Added,
Changed, Removed or Fixed section, and each TOOL's --version prints
'NAME X.Y.Z' (pacer-demo, pacer-replay and pacer-run take it from
pacer::version()). The installed package's pkg-config and CMake package are
checked by tools/package.sh; pacer::version() against the headers and the
CMake package by tests/consumer."""
import argparse
import os
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", required=True)
    parser.add_argument("--changelog", required=True)
    parser.add_argument("tools", nargs="*")
    args = parser.parse_args()
    problems = []
    if not re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", args.version):
        problems.append(f"the project version '{args.version}' is not MAJOR.MINOR.PATCH")
    text = open(args.changelog, encoding="utf-8").read()
    entry = re.search(r"^## \[" + re.escape(args.version) + r"\] - \d{4}-\d{2}-\d{2}\n(.*?)(?=^## \[|\Z)", text,
                      re.M | re.S)
    if not entry:
        problems.append(f"{args.changelog}: no '## [{args.version}] - YYYY-MM-DD' entry for the project's version")
    elif not re.search(r"^### (Added|Changed|Removed|Fixed)$", entry.group(1), re.M):
        problems.append(f"{args.changelog}: the {args.version} entry has no Added, Changed, Removed or Fixed section")
    for tool in args.tools:
        name = os.path.basename(tool)
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30)
        said = out.stdout.strip()
        if out.returncode != 0 or said != f"{name} {args.version}":
            problems.append(f"{name} --version: '{said}' (exit {out.returncode}), not '{name} {args.version}'")
        else:
            print(f"check_version: {said}")
    for problem in problems:
        print(f"check_version: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_version: {args.version} everywhere, with its changelog entry")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

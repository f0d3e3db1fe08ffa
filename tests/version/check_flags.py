#!/usr/bin/python3
"""check_flags.py: pacer-run's flags, one source: its --help (which its man
page is written from, cmake/man.cmake) against docs/pacer-run.md's flag
table and the PACER_RUN keys that table gives.

  check_flags.py --pacer-run BIN --doc docs/pacer-run.md

Fails, naming the flag, where one is in --help and not in the table, or the
other way round (--help and --version left out), or where a key the table
names is not one pacer-run's settings take (its error for an unknown key
lists them). Prints "check_flags: ok" and what it compared.
"""

import argparse
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pacer-run", required=True)
    parser.add_argument("--doc", required=True)
    args = parser.parse_args()
    helped = subprocess.run([args.pacer_run, "--help"], capture_output=True, text=True, timeout=30).stdout
    in_help = set(re.findall(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", helped, re.M)) - {"--help", "--version"}
    with open(args.doc, encoding="utf-8") as f:
        doc = f.read()
    section = doc.split("## Flags", 1)[-1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `--")]
    in_table = {flag for row in rows for flag in re.findall(r"`(--[a-z][a-z0-9-]*)", row.split("|")[1])}
    keys = {key for row in rows for key in re.findall(r"`([a-z_]+)=", row.split("|")[2])}
    problems = [f"{flag} is in pacer-run --help but not in the doc's table" for flag in sorted(in_help - in_table)]
    problems += [f"{flag} is in the doc's table but not in pacer-run --help" for flag in sorted(in_table - in_help)]
    unknown = subprocess.run([args.pacer_run, "--", "true"], capture_output=True, text=True, timeout=30,
                             env={"PACER_RUN": "no_such_key=1", "PATH": "/usr/bin:/bin"}).stderr
    known = set(re.findall(r"[a-z_]+", unknown.split("unknown key", 1)[-1].split(")", 1)[0]))
    problems += [f"the doc's key {key}= is not one of PACER_RUN's ({', '.join(sorted(known))})"
                 for key in sorted(keys - known)]
    for problem in problems:
        print("check_flags: " + problem, file=sys.stderr)
    if problems:
        return 1
    print(f"check_flags: ok: {len(in_help)} flags in --help and the doc's table, {len(keys)} PACER_RUN keys")
    return 0


if __name__ == "__main__":
    sys.exit(main())

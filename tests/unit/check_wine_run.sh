#!/usr/bin/env bash
# check_wine_run.sh WINE_RUN: tools/wine-run.sh starts a program once more
# when its first start printed nothing and failed, and its note comes after
# that run's own output. A note ahead of the output failed the Windows run's
# bench_tradeoff_bad_variant, whose regex is anchored at the first line.
set -u
wine_run=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A program that fails silently on its first start, then fails with its error.
cat >"$dir/flaky" <<'PROGRAM'
#!/usr/bin/env bash
count="$(dirname "$0")/count"
[[ -e $count ]] || { touch "$count"; exit 1; }
echo "pacer-bench: --variants: no variant 'nope'" >&2
exit 1
PROGRAM
chmod +x "$dir/flaky"
fail() { echo "check_wine_run: $1" >&2; exit 1; }

out=$(bash "$wine_run" env "$dir/flaky" 2>&1)
status=$?
[[ $status -eq 1 ]] || fail "exit $status, wanted the second run's 1"
[[ $(head -n1 <<<"$out") == "pacer-bench: --variants: no variant 'nope'" ]] ||
  fail "first line is not the program's own: $(head -n1 <<<"$out")"
[[ $(tail -n1 <<<"$out") == *"started it once more"* ]] || fail "no note that it started it again"

# A run that prints is passed through once, as it is.
out=$(bash "$wine_run" sh -c 'echo once; exit 3' 2>&1)
status=$?
[[ $status -eq 3 && $out == once ]] || fail "a run with output was changed: exit $status, '$out'"
echo "check_wine_run: ok"

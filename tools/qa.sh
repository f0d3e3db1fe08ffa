#!/usr/bin/env bash
# tools/qa.sh: the visual QA suite (tools/qa.py, run by Debian's Python so that
# python3-matplotlib is found). Usage: tools/qa.sh --help
set -euo pipefail
exec /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/qa.py" "$@"

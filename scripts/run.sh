#!/usr/bin/env bash
# Sets everything up, then opens the tsch REPL (or, when stdin is not a terminal, runs the
# demo script examples/demo.tsch).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >&2
if [ -t 0 ]; then
  exec build/tsch "$@"
else
  exec build/tsch examples/demo.tsch "$@"
fi

#!/usr/bin/env bash
# Sets everything up, then opens the tsch REPL (its banner offers `:tour`), or, when stdin is
# not a terminal, plays the tour examples/tour.tsch as a REPL session: a schedule applied
# step by step with its IR diffs, built, checked, timed, searched, a Relax MLP, CUDA C.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >&2
if [ -t 0 ]; then
  exec build/tsch "$@"
else
  exec build/tsch --steps examples/tour.tsch "$@"
fi

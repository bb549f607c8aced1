#!/usr/bin/env bash
# Differential schedule fuzzer: N random sequences of schedule primitives (seeds FIRST ..
# FIRST+N-1) on the workloads of tests/fuzz/schedules/workloads.tsch; every accepted step is
# checked for well-formedness, print->parse round trip and trace replay, and built and compared
# with the unscheduled module; every refused step must leave the schedule unchanged.
#
# usage: scripts/fuzz-schedules.sh [N=1000] [FIRST=0|rotate] [STEPS=10]
#        scripts/fuzz-schedules.sh --hours H [STEPS=16]
# FIRST "rotate" draws the first seed from the clock (printed). --hours runs batches of 1000
# rotating sequences until H hours have passed (a nightly run), stopping at the first batch
# with a failure. Builds tsch first if needed (scripts/setup.sh). Exits 1 when any check
# fails, printing the failing sequences' traces and the command that reproduces them.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/tsch ] || bash scripts/setup.sh
if [ "${1:-}" = "--hours" ]; then
  hours=${2:?usage: fuzz-schedules.sh --hours H [STEPS]}
  steps=${3:-16}
  end=$(( $(date +%s) + $(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }') ))
  batches=0
  while [ "$(date +%s)" -lt "$end" ]; do
    TSCH_CHECK_REFUSALS=1 build/tsch tests/fuzz/schedules/fuzz_schedules.tsch rotate 1000 "$steps"
    batches=$((batches + 1))
    echo "fuzz-schedules: $batches batch(es) of 1000 sequences passed"
  done
  exit 0
fi
count=${1:-1000}
first=${2:-0}
steps=${3:-10}
TSCH_CHECK_REFUSALS=1 exec build/tsch tests/fuzz/schedules/fuzz_schedules.tsch "$first" "$count" "$steps"

#!/usr/bin/env bash
# Differential schedule fuzzer: N random sequences of schedule primitives (seeds FIRST ..
# FIRST+N-1) on the workloads of tests/fuzz/schedules/workloads.tsch; every accepted step is
# checked for well-formedness, print->parse round trip and trace replay, and built and compared
# with the unscheduled module; every refused step must leave the schedule unchanged.
#
# usage: scripts/fuzz-schedules.sh [N=1000] [FIRST=0] [STEPS=10]
# Builds tsch first if needed (scripts/setup.sh). Exits 1 when any check fails, printing the
# failing sequences' traces.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000}
first=${2:-0}
steps=${3:-10}
[ -x build/tsch ] || bash scripts/setup.sh
TSCH_CHECK_REFUSALS=1 exec build/tsch tests/fuzz/schedules/fuzz_schedules.tsch "$first" "$count" "$steps"

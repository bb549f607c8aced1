#!/usr/bin/env bash
# Runs one golden case: `tsch NAME.tsch` in the case's folder, stdout and stderr merged, and
# compares with NAME.expected. The expected exit status is given by a `# exit: N` line in the
# script (default 0); `# env: NAME=VALUE` lines set environment variables for the run (e.g.
# TSCH_CUDA_DRIVER=none where the output must not depend on the machine having a GPU);
# `# mask: REGEX` lines replace each match of the (extended) regex in the output by <masked>
# before the comparison (timings a tutorial prints).
# Usage: run_golden.sh TSCH CASE.tsch
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tsch=$1
case_path=$2
dir=$(dirname "$case_path")
base=$(basename "$case_path" .tsch)
cd "$dir" || exit 2
expected_exit=$(sed -n 's/^# exit: *\([0-9]*\).*/\1/p' "$base.tsch" | head -n 1)
expected_exit=${expected_exit:-0}
while IFS= read -r assignment; do
  export "${assignment?}"
done < <(sed -n 's/^# env: *\([A-Za-z_][A-Za-z0-9_]*=.*\)$/\1/p' "$base.tsch")
# A hang guard, generous: build-check runs of the random-sequence cases take ~50 s on an idle
# 2-core machine, the c-check of random_imperfect (a C compile per step) ~130-210 s, and more
# while other tests build beside them. TSCH_GOLDEN_TIMEOUT overrides it (the sanitizer job does).
actual=$(NO_COLOR=1 timeout "${TSCH_GOLDEN_TIMEOUT:-600}" "$tsch" "$base.tsch" 2>&1)
status=$?
actual=$(bash "$here/mask_output.sh" "$base.tsch" <<< "$actual")
fail=0
if [ "$status" != "$expected_exit" ]; then
  echo "exit status: expected $expected_exit, got $status"
  fail=1
fi
if [ ! -f "$base.expected" ]; then
  echo "missing $dir/$base.expected (run tests/golden/update.sh and review the diff)"
  exit 1
fi
if ! diff -u "$base.expected" <(printf '%s\n' "$actual"); then
  fail=1
fi
exit $fail

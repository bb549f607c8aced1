#!/usr/bin/env bash
# Runs launch.tsch with the stand-in driver and compares its output, then the launch log, with
# launch.expected. Usage: run.sh TSCH LIBFAKECUDA [--update]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tsch=$1
fake=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here" && FAKE_CUDA_LOG="$work/log" TSCH_CUDA_DRIVER="$fake" NO_COLOR=1 "$tsch" launch.tsch > "$work/out" 2>&1)
echo "rc=$?" >> "$work/out"
cat "$work/out" "$work/log" > "$work/actual"
if [ "${3:-}" == "--update" ]; then
  cp "$work/actual" "$here/launch.expected"
  exit 0
fi
diff -u "$here/launch.expected" "$work/actual"

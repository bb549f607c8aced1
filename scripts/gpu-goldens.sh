#!/usr/bin/env bash
# Runs the CUDA goldens (tests/golden/cuda) on a real GPU: each case again with its arrays on
# tvm.cuda() instead of tvm.cpu() (its `dev = tvm.cpu()` line), and its output compared with
# the case's .expected, which the CPU emulation produced. The warning that no GPU gave the
# architecture is left out of the comparison (with a GPU, the target takes the device's).
# Exits 77 (skipped) where there is no CUDA device, saying why.
# Usage: scripts/gpu-goldens.sh [path/to/tsch]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tsch=${1:-$root/build/tsch}
why=$("$tsch" -c 'import tvm
print("" if tvm.cuda().exist else "no CUDA device")' 2>&1)
if [ -n "$why" ]; then
  echo "gpu-goldens: skipped: $why"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root"/tests/golden/cuda/*.tsch "$root"/tests/golden/cuda/*.expected "$work"/
failed=0
total=0
for case in "$work"/*.tsch; do
  base=$(basename "$case" .tsch)
  grep -q '^dev = tvm.cpu()' "$case" || continue
  total=$((total + 1))
  sed -i 's/^dev = tvm.cpu()/dev = tvm.cuda()/' "$case"
  # The case's `# env: NAME=VALUE` lines, as run_golden.sh sets them.
  mapfile -t env_vars < <(sed -n 's/^# env: *\([A-Za-z_][A-Za-z0-9_]*=.*\)$/\1/p' "$case")
  out=$(cd "$work" && env ${env_vars[@]+"${env_vars[@]}"} NO_COLOR=1 timeout 300 "$tsch" "$base.tsch" 2>&1)
  expected=$(grep -v '^warning: Unable to detect CUDA version' "$work/$base.expected")
  if [ "$out" == "$expected" ]; then
    echo "PASS $base (on the GPU)"
  else
    failed=$((failed + 1))
    echo "FAIL $base (on the GPU): output differs from $base.expected"
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$out") | head -40
  fi
done
echo "gpu-goldens: $((total - failed))/$total cases ran on the GPU and matched"
[ "$failed" -eq 0 ]

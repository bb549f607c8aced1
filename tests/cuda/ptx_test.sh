#!/usr/bin/env bash
# The PTX of ptx_kernels.tsch (tsch's CUDA C compiled by NVRTC, or LLVM's NVPTX output), assembled by
# ptxas for sm_80. Where the CUDA toolkit is absent (a bare Debian), the test is skipped
# (exit 77) with the reason tsch gives. usage: ptx_test.sh TSCH
set -uo pipefail
tsch=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here" && "$tsch" ptx_kernels.tsch 2>&1)
status=$?
if [ $status -ne 0 ]; then
  printf '%s\n' "$out"
  echo "FAIL ptx_kernels.tsch exited with $status"
  exit 1
fi
if grep -q '^NO PTX:' <<< "$out"; then
  if grep -q 'NVRTC (libnvrtc.so) is not found' <<< "$out"; then
    echo "SKIP: $(grep -m1 '^NO PTX:' <<< "$out")"
    exit 77
  fi
  printf '%s\n' "$out"
  echo "FAIL: NVRTC is there but did not compile tsch's CUDA C"
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One file per kernel module.
awk -v dir="$work" '/^== PTX .* ==$/ { name = $3; file = dir "/" name ".ptx"; next } /^== END ==$/ { file = ""; next } file { print > file }' <<< "$out"
failed=0
for want in myadd:myadd_kernel math:main_kernel math:main_kernel_1 rowsum:rowsum_kernel matmul:mm_kernel nvptx_matmul:mm_kernel async_matmul:mm_kernel nvptx_async_matmul:mm_kernel warp:warp_reverse_kernel nvptx_warp:warp_reverse_kernel vector:axpy_kernel nvptx_vector:axpy_kernel half:scale_relu_kernel bf16:bf16_affine_kernel nvptx_math:nv_math_kernel wmma:wmma_mm_kernel mma:main_kernel mma_i8:main_kernel; do
  file="$work/${want%%:*}.ptx"
  if ! grep -q "\.entry ${want#*:}(" "$file" 2>/dev/null; then
    echo "FAIL ${want%%:*}: no .entry ${want#*:} in its PTX"
    failed=1
  fi
done
ptxas=""
for c in "${CUDA_HOME:-}/bin/ptxas" /usr/local/cuda/bin/ptxas "$(command -v ptxas 2>/dev/null)"; do
  if [ -n "$c" ] && [ -x "$c" ]; then ptxas=$c; break; fi
done
if [ -z "$ptxas" ]; then
  echo "note: ptxas not found: the PTX is not assembled"
else
  for f in "$work"/*.ptx; do
    if ! "$ptxas" -arch=sm_80 -o "$work/out.cubin" "$f"; then
      echo "FAIL ptxas rejected $(basename "$f")"
      failed=1
    fi
  done
fi
[ $failed -eq 0 ] && echo "ptx: $(ls "$work"/*.ptx | wc -l) modules of PTX (CUDA C through NVRTC, and LLVM NVPTX) assemble (${ptxas:-not assembled})"
exit $failed

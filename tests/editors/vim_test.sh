#!/usr/bin/env bash
# Vim syntax for .tsch, checked in headless Vim: groups at chosen places of sample.tsch,
# every builtin/decorator/primitive in examples/ highlighted, and the syntax file's
# primitive list equal to tsch's own tvm.tir.Schedule methods (so they cannot drift).
# usage: vim_test.sh TSCH
set -uo pipefail
tsch=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! command -v vim > /dev/null; then
  echo "SKIP vim tests: vim is not installed"
  exit 0
fi
failed=0
primitives=$(bash "$root/editors/list_primitives.sh" "$tsch" ' ')
in_syntax=$(sed -n 's/.*syn match tschPrimitive "\\\.\\zs\\(\(.*\)\\)\\ze.*/\1/p' "$root/editors/vim/syntax/tsch.vim" | sed 's/\\|/ /g')
if [ "$primitives" != "$in_syntax" ]; then
  failed=1
  printf 'FAIL the Vim primitive list differs from tvm.tir.Schedule (run editors/update_primitives.sh)\n  tsch: %s\n  vim:  %s\n' "$primitives" "$in_syntax"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
examples=$(printf "'%s'," "$root"/examples/*.tsch)
prims=$(printf "'%s'," $primitives)
HOME=/nonexistent vim -N -es -u NONE -i NONE \
  --cmd "set rtp^=$root/editors/vim" --cmd 'filetype plugin indent on' --cmd 'syntax on' \
  --cmd "let g:sample_file = '$here/sample.tsch'" --cmd "let g:out_file = '$out'" \
  --cmd "let g:example_files = [${examples%,}]" --cmd "let g:primitives = [${prims%,}]" \
  -S "$here/vim_checks.vim" < /dev/null
status=$?
if [ ! -s "$out" ] && [ "$status" -ne 0 ] && [ ! -e "$out" ]; then failed=1; echo "FAIL vim did not run the checks"; fi
if [ -s "$out" ]; then
  failed=1
  sed 's/^/FAIL /' "$out"
fi
[ "$failed" -eq 0 ] && echo "vim syntax: all checks passed"
[ "$failed" -eq 0 ]

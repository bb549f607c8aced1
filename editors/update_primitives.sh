#!/usr/bin/env bash
# Rewrites the schedule-primitive lists in the Vim syntax and the VS Code grammar from
# tsch's own tvm.tir.Schedule, so the plugins follow the primitive registry. The editor
# tests fail until this is re-run after a primitive is added or renamed.
# usage: editors/update_primitives.sh [TSCH]   (default: build/tsch)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tsch=${1:-$root/build/tsch}
list=$(bash "$root/editors/list_primitives.sh" "$tsch" '|')
vim_list=${list//|/\\\\|}
sed -i "s/^\(syn match tschPrimitive \"\\\\.\\\\zs\\\\(\).*\(\\\\)\\\\ze.*\)$/\1${vim_list}\2/" "$root/editors/vim/syntax/tsch.vim"
sed -i "s/\((?<=\\\\\\\\.)(\)[a-z_|]*\()\)/\1${list}\2/" "$root/editors/vscode/syntaxes/tsch.tmLanguage.json"
echo "primitives: ${list//|/ }"

#!/usr/bin/env bash
# Fails when a tracked C++ file (src/, tests/, bench/) differs from .clang-format, naming the
# files and how to fix them. clang-format-19 (Debian 12's, installed by scripts/setup.sh) is
# the one version used: each version formats a little differently.
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format-19}
command -v "$format" > /dev/null || { echo "check-format: $format not found (run scripts/setup.sh)"; exit 2; }
mapfile -t files < <(git ls-files '*.cc' '*.h')
bad=()
for f in "${files[@]}"; do
  "$format" --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} file(s) differ from .clang-format:"
  printf '  %s\n' "${bad[@]}"
  echo "fix: $format -i ${bad[*]}"
  exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"

#!/usr/bin/env bash
# The VS Code TextMate grammar, checked with vscode-tmgrammar-test (installed by
# scripts/setup.sh into build/npm-tools): the annotated sample, snapshots of every file in
# examples/ (regenerate with --update after reviewing the change), and the grammar's
# primitive list equal to tsch's own tvm.tir.Schedule methods.
# usage: vscode_test.sh TSCH [--update]
set -uo pipefail
tsch=$(realpath "$1")
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$root/build/npm-tools/node_modules/.bin
grammar=$root/editors/vscode/syntaxes/tsch.tmLanguage.json
failed=0
if [ ! -x "$bin/vscode-tmgrammar-test" ]; then
  echo "FAIL vscode-tmgrammar-test is not installed: run scripts/setup.sh"
  exit 1
fi

primitives=$(bash "$root/editors/list_primitives.sh" "$tsch" '|')
in_grammar=$(grep -o '(?<=\\\\.)([a-z_|]*)' "$grammar" | sed 's/.*(\([a-z_|]*\))$/\1/')
if [ "$primitives" != "$in_grammar" ]; then
  failed=1
  printf 'FAIL the grammar primitive list differs from tvm.tir.Schedule (run editors/update_primitives.sh)\n  tsch:    %s\n  grammar: %s\n' "$primitives" "$in_grammar"
fi

"$bin/vscode-tmgrammar-test" -g "$grammar" "$here/vscode/sample.test.tsch" || failed=1

# Snapshots: the tool keeps NAME.snap beside NAME, so compare in a scratch folder.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root"/examples/*.tsch "$work/"
mkdir -p "$here/vscode/snapshots"
if [ "$update" == "--update" ]; then
  "$bin/vscode-tmgrammar-snap" -g "$grammar" -s source.tsch --updateSnapshot "$work/*.tsch" > /dev/null || failed=1
  cp "$work"/*.snap "$here/vscode/snapshots/"
else
  cp "$here"/vscode/snapshots/*.snap "$work/" 2>/dev/null
  "$bin/vscode-tmgrammar-snap" -g "$grammar" -s source.tsch "$work/*.tsch" || failed=1
fi
# In every example, no builtin, decorator or primitive call is left with only the base scope.
for snap in "$here"/vscode/snapshots/*.snap; do
  awk -v prims="$primitives" -v file="$(basename "$snap" .snap)" '
    /^>/ { text = $0; lnum++; next }
    /^#/ {
      start = index($0, "^"); rest = substr($0, start); len = match(rest, /[^^]/) - 1
      scopes = substr(rest, len + 2); token = substr(text, start, len)
      if (scopes != "source.tsch") next
      if (token ~ /(^|[^A-Za-z0-9_])(T|R|I|te)\.[A-Za-z_]/ || token ~ /^[ \t]*@/ || token ~ ("\\.(" prims ")[ \t]*\\(")) {
        printf "FAIL %s:%d: unscoped: %s\n", file, lnum, token; bad = 1
      }
    }
    END { exit bad }' "$snap" || failed=1
done
[ "$failed" -eq 0 ] && echo "vscode grammar: all checks passed"
[ "$failed" -eq 0 ]

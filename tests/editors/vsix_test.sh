#!/usr/bin/env bash
# Packages editors/vscode as a .vsix with @vscode/vsce (offline once installed by
# scripts/setup.sh) and checks that the package holds the manifest, grammar, language
# configuration and snippets. usage: vsix_test.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vsce="$root/build/npm-tools/node_modules/.bin/vsce"
if [ ! -x "$vsce" ]; then
  echo "vsce is not installed: run scripts/setup.sh"
  exit 1
fi
source "$root/tests/cli/assert.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/editors/vscode" "$work/ext"
out=$(cd "$work/ext" && "$vsce" package --allow-missing-repository --skip-license -o "$work/tsch.vsix" 2>&1)
check "vsce package exit status" "0" "$?"
contains "vsce reports the package" "Packaged: $work/tsch.vsix" "$out"
listing=$(cd "$work/ext" && "$vsce" ls 2>&1)
for f in package.json language-configuration.json syntaxes/tsch.tmLanguage.json snippets/tsch.json; do
  contains "the package holds $f" "$f" "$listing"
done
# A .vsix is a zip archive: check the signature and the manifest entry inside.
check "zip signature" "504b0304" "$(head -c 4 "$work/tsch.vsix" | od -An -tx1 | tr -d ' \n')"
contains "zip holds the extension manifest" "extension/package.json" "$(strings "$work/tsch.vsix" 2>/dev/null || cat "$work/tsch.vsix")"
report

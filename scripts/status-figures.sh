#!/usr/bin/env bash
# The TVM-test figures of README's status table, counted from the transcription ledger (never
# typed by hand): the last line of each transcribed TVM test file's expected output,
# tests/golden/tvm_tests/<suite>/*.expected, counts it as
# `test_x: 30 transcribed, 29 pass, 1 fail[, K <reason>]`.
#   scripts/status-figures.sh            print the block
#   scripts/status-figures.sh --write    rewrite README.md's block between the markers
#   scripts/status-figures.sh --check    exit 1 when README.md's block differs (a ctest)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
begin='<!-- status-figures: begin -->'
end='<!-- status-figures: end -->'

suite_row() {  # suite_row FOLDER DESCRIPTION
  local files=("$root/tests/golden/tvm_tests/$1"/*.expected)
  for f in "${files[@]}"; do
    tail -n 1 "$f" | grep -Eq '^[^ ]+: [0-9]+ transcribed, [0-9]+ pass, [0-9]+ fail(, .*)?$' ||
      { echo "$f: the last line is not a ledger count" >&2; exit 1; }
  done
  for f in "${files[@]}"; do tail -n 1 "$f"; done | awk -v what="$2" -v files="${#files[@]}" '
    { t += $2; p += $4; f += $6
      n = split($0, parts, ", ")
      for (i = 4; i <= n; i++) { k = index(parts[i], " "); other[substr(parts[i], k + 1)] += substr(parts[i], 1, k - 1) } }
    END {
      extra = ""
      m = 0
      for (r in other) keys[++m] = r
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (keys[j] < keys[i]) { x = keys[i]; keys[i] = keys[j]; keys[j] = x }
      for (i = 1; i <= m; i++) extra = extra ", " other[keys[i]] " " keys[i]
      printf "| %s: %d files | %d of %d tests pass (%d%%); %d fail%s |\n", what, files, p, t, int(100 * p / t + 0.5), f, extra
    }'
}

block() {
  echo "$begin"
  echo "| TVM's own tests, transcribed as written | as of this commit |"
  echo "| --- | --- |"
  suite_row tir_schedule "TVM v0.23 \`tests/python/tir-schedule\`"
  suite_row tir_base "TVM v0.23 \`tests/python/tir-base\` (part)"
  echo "$end"
}

current() { awk -v b="$begin" -v e="$end" '$0 == b { on = 1 } on { print } $0 == e { on = 0 }' "$root/README.md"; }

case "${1:-}" in
  "") block ;;
  --check)
    if [ "$(current)" == "$(block)" ]; then
      echo "README.md's TVM-test figures match the ledger"
    else
      printf "README.md's TVM-test figures are stale; run scripts/status-figures.sh --write\n--- README.md\n%s\n--- the ledger says\n%s\n" "$(current)" "$(block)"
      exit 1
    fi ;;
  --write)
    new=$(block)
    awk -v b="$begin" -v e="$end" -v new="$new" '$0 == b { print new; skip = 1; next } $0 == e { skip = 0; next } !skip { print }' \
      "$root/README.md" > "$root/README.md.tmp" && mv "$root/README.md.tmp" "$root/README.md" ;;
  *) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Copies stdin to stdout with every match of the case's `# mask: REGEX` lines (extended
# regexes) replaced by <masked>: what a golden case prints that differs between runs, such as
# the timings of a tutorial. Usage: mask_output.sh CASE.tsch < output
set -uo pipefail
mapfile -t masks < <(sed -n 's/^# mask: *//p' "$1")
text=$(cat)
for m in ${masks[@]+"${masks[@]}"}; do
  text=$(printf '%s\n' "$text" | sed -E "s"$'\001'"$m"$'\001'"<masked>"$'\001'"g")
done
printf '%s\n' "$text"

#!/usr/bin/env bash
# Regenerates NAME.expected for golden cases (all, or the ones given). Review `git diff`
# afterwards: expectations are never accepted blindly. Usage: update.sh [CASE.tsch...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tsch=${TSCH:-$here/../../build/tsch}
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  mapfile -t cases < <(find "$here" -name '*.tsch' -not -path '*/lib/*' | sort)
fi
for c in "${cases[@]}"; do
  dir=$(dirname "$c")
  base=$(basename "$c" .tsch)
  # The case's `# env: NAME=VALUE` lines, as run_golden.sh sets them.
  mapfile -t env_vars < <(sed -n 's/^# env: *\([A-Za-z_][A-Za-z0-9_]*=.*\)$/\1/p' "$dir/$base.tsch")
  out=$(cd "$dir" && env ${env_vars[@]+"${env_vars[@]}"} NO_COLOR=1 timeout 60 "$tsch" "$base.tsch" 2>&1)
  bash "$here/mask_output.sh" "$dir/$base.tsch" <<< "$out" > "$dir/$base.expected"
  echo "updated $dir/$base.expected"
done

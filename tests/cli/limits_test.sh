#!/usr/bin/env bash
# Resource limits a user can hit: a stack smaller than the 512 MiB tsch asks for (low
# `ulimit -v`), deeply nested brackets, and thread counts the system cannot give.
# usage: limits_test.sh TSCH
set -uo pipefail
tsch=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
source "$here/assert.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

printf 'def f(n):\n    return f(n + 1)\nf(0)\n' > recurse.tsch
python3 -c "print('x = ' + '(' * 5000 + '1' + ')' * 5000)" > nested.tsch 2>/dev/null ||
  { printf 'x = '; for _ in $(seq 5000); do printf '('; done; printf 1; for _ in $(seq 5000); do printf ')'; done; echo; } > nested.tsch
printf 'x = %s1%s\nprint(x)\n' "$(printf '(%.0s' $(seq 199))" "$(printf ')%.0s' $(seq 199))" > nested_ok.tsch

# Millions of operators in one expression (a 2.6 MB line), never evaluated: the parser and the
# AST builder stop with a located SyntaxError on any stack, as CPython refuses them.
{ printf 'if False:\n    x = '; head -c 2600000 /dev/zero | tr '\0' '-'; printf '1\n'; } > unary.tsch
{ printf 'x = '; yes 1 | head -n 3000000 | paste -sd+; } > sum.tsch
{ printf 'x = '; yes 0 | head -n 3000000 | paste -sd'|' | sed 's/|/ or /g'; } > or_chain.tsch
printf 'x = %s 1\n' "$(yes 'lambda:' | head -n 1000000 | paste -sd' ')" > lambdas.tsch
indent=""
for _ in $(seq 120); do printf '%sif True:\n' "$indent"; indent="$indent "; done > blocks.tsch
printf '%spass\n' "$indent" >> blocks.tsch

for limit in unlimited 300000; do
  for case in unary sum or_chain lambdas; do
    out=$(ulimit -v "$limit"; "$tsch" $case.tsch 2>&1 | cut -c1-120)
    # With the address space limited, the tokens alone may not fit: MemoryError then.
    if [ "$limit" = unlimited ] || [[ "$out" != *"MemoryError: out of memory"* ]]; then
      contains "$case: a SyntaxError, not a crash (ulimit -v $limit)" "error: SyntaxError: too deeply nested expression" "$out"
    fi
    check "$case: exit status 1 (ulimit -v $limit)" "1" "$(ulimit -v "$limit"; "$tsch" $case.tsch > /dev/null 2>&1; echo $?)"
  done
  out=$(ulimit -v "$limit"; "$tsch" blocks.tsch 2>&1 | cut -c1-120)
  contains "120 nested blocks: an IndentationError (ulimit -v $limit)" "blocks.tsch:102:" "$out"
  contains "120 nested blocks: an IndentationError (ulimit -v $limit)" "error: IndentationError: too many levels of indentation" "$out"
  out=$(ulimit -v "$limit"; "$tsch" recurse.tsch 2>&1)
  status=$?
  check "deep recursion exits with 1 (ulimit -v $limit)" "1" "$status"
  contains "deep recursion is a RecursionError (ulimit -v $limit)" "RecursionError: maximum recursion depth exceeded" "$out"
  out=$(ulimit -v "$limit"; "$tsch" nested.tsch 2>&1 | cut -c1-120)
  contains "5000 nested parentheses are a SyntaxError (ulimit -v $limit)" "error: SyntaxError: too many nested parentheses" "$out"
  out=$(ulimit -v "$limit"; "$tsch" nested_ok.tsch 2>&1)
  check "199 nested parentheses parse (ulimit -v $limit)" "1" "$out"
done

# str() of a million nested lists: a RecursionError at once (it was quadratic: minutes).
printf 'a = []\nfor i in range(1000000):\n    a = [a]\ntry:\n    str(a)\nexcept RecursionError as e:\n    print("RecursionError:", e)\n' > deep_list.tsch
start=$(date +%s)
out=$(timeout 60 "$tsch" deep_list.tsch 2>&1)
contains "str() of a million nested lists is a RecursionError" "RecursionError: maximum recursion depth exceeded while getting the repr of an object" "$out"
check "... within seconds" "yes" "$([ $(( $(date +%s) - start )) -lt 20 ] && echo yes || echo no)"

cat > parallel.tsch <<'TSCH'
import tvm
from tvm.script import tir as T
import numpy as np

@T.prim_func
def fill(A: T.Buffer((256,), "float32")):
    for i in T.parallel(256):
        with T.block("A"):
            vi = T.axis.spatial(256, i)
            A[vi] = T.float32(vi)

a = tvm.nd.array(np.zeros(256, dtype="float32"))
tvm.build(fill, target="llvm")["fill"](a)
print(a.numpy().sum())
TSCH
out=$(TVM_NUM_THREADS=abc "$tsch" parallel.tsch 2>&1)
contains "a bad TVM_NUM_THREADS warns" "warning: TVM_NUM_THREADS=abc is not a positive thread count" "$out"
contains "and the kernel runs" "32640.0" "$out"
# 1000 threads of 8 MiB stacks do not fit in 3 GB of address space: the pool keeps the
# threads it could create.
out=$(ulimit -v 3000000; TVM_NUM_THREADS=1000 "$tsch" parallel.tsch 2>&1)
contains "too many threads: a warning" "tsch: warning: could create only" "$out"
contains "too many threads: the kernel still runs right" "32640.0" "$out"
report

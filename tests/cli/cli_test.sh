#!/usr/bin/env bash
# Command-line behaviour of `tsch`: options, -c, files, piped stdin, and the REPL driven
# through tmux (multi-line blocks, echo, errors that do not end the session).
# usage: cli_test.sh TSCH
set -uo pipefail
tsch=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"; tmux -L tsch_cli_test kill-server 2>/dev/null' EXIT
cd "$work"
source "$here/assert.sh"

check "--version" "tsch 0.1.0" "$("$tsch" --version)"
contains "--help" "usage: tsch" "$("$tsch" --help)"
check "-c" "6" "$("$tsch" -c 'print(1 + 2 + 3)')"
"$tsch" --bogus > /dev/null 2>&1
check "unknown option exits 2" "2" "$?"

cat > lower.tsch <<'EOF'
import tvm
from tvm.script import tir as T
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(1)
m = tvm.lower(f)
EOF
out=$("$tsch" --print-after-all lower.tsch 2>&1)
contains "--print-after-all logs each pass" "# IR after tir.LowerOpaqueBlock (f):" "$out"
contains "--print-after-all shows the flattened IR" "# IR after tir.FlattenBuffer (f):" "$out"
out=$(TSCH_PRINT_AFTER_ALL=1 "$tsch" lower.tsch 2>&1)
contains "TSCH_PRINT_AFTER_ALL=1" "# IR after tir.Simplify (f):" "$out"
check "passes stay quiet by default" "" "$("$tsch" lower.tsch 2>&1)"

cat > relax_build.tsch <<'EOF'
import tvm
from tvm import relax
from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        y = R.call_dps_packed("env.copy", (x,), R.Tensor((4,), "float32"))
        R.output(y)
    return y

ex = relax.build(main, "llvm")
EOF
out=$("$tsch" --print-after-all relax_build.tsch 2>&1)
contains "--print-after-all logs each Relax pass" "# IR after CallTIRRewrite:" "$out"
contains "--print-after-all shows the allocation" 'alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(' "$out"
contains "--print-after-all reaches VMShapeLower" "# IR after VMShapeLower:" "$out"

out=$("$tsch" missing.tsch 2>&1)
check "missing file exit status" "1" "$?"
check "missing file message" "missing.tsch: error: cannot open file: No such file or directory" "$out"

# --steps: a script played as a REPL session (the tour's mode): statements echoed after
# >>> / ..., blank lines inside a block kept in it, narration comments printed, schedule
# steps shown as diffs, the first error stops it with the file's own line.
cat > steps.tsch <<'EOF'
# narration
import tvm
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("A"):

            vi = T.axis.spatial(8, i)
            A[vi] = T.float32(1)
def g(x):
    if x:
        return 1
    else:
        return 2
g(0)
sch = tvm.tir.Schedule(f)
i0, i1 = sch.split(sch.get_loops(sch.get_block("A"))[0], factors=[2, 4])
print(undefined_name)
print("not reached")
EOF
out=$("$tsch" --steps steps.tsch 2>&1)
check "--steps stops at the first error" "1" "$?"
contains "--steps prints narration" "# narration
>>> import tvm" "$out"
contains "--steps keeps a blank line inside a block" '...         with T.block("A"):
... 
...             vi = T.axis.spatial(8, i)' "$out"
contains "--steps keeps else with its if" "...     else:
...         return 2
>>> g(0)
2" "$out"
contains "--steps shows a schedule step" "# sch.mod changed:" "$out"
contains "--steps: the step's diff" "+         for i_0, i_1 in T.grid(2, 4):" "$out"
contains "--steps reports the file's line" "steps.tsch:20:7: error: NameError: name 'undefined_name' is not defined" "$out"
lacks "--steps stops there" "not reached" "$out"
"$tsch" --steps > /dev/null 2>&1
check "--steps without a file exits 2" "2" "$?"
out=$("$tsch" --steps "$here/../../examples/tour.tsch" 2>&1)
check "the tour runs" "0" "$?"
contains "the tour shows schedule diffs" "# sch.mod changed:" "$out"
contains "the tour checks the GPU kernel" "the CUDA kernel on the CPU emulation matches numpy" "$out"

printf 'import sys\nprint(sys.argv)\n' > args.tsch
check "script arguments" "['args.tsch', 'a', '--b']" "$("$tsch" args.tsch a --b)"

out=$(printf 'x = 2\nprint(x * 21)\nprint(y)\nprint("not reached")\n' | "$tsch" 2>&1)
check "piped stdin runs as a script" "1" "$?"
check "piped stdin output" "42
<stdin>:3:7: error: NameError: name 'y' is not defined
    print(y)
          ^" "$out"

out=$(printf 'print("out")\nimport sys\nprint("err", file=sys.stderr)\nprint("out again")\n' | "$tsch" 2>&1)
check "stdout and stderr interleave in order" "out
err
out again" "$out"

mkdir -p extra && printf 'GREETING = "from TSCH_PATH"\n' > extra/extra_mod.tsch
check "TSCH_PATH is searched" "from TSCH_PATH" "$(TSCH_PATH=$work/extra "$tsch" -c 'import extra_mod; print(extra_mod.GREETING)')"

# The REPL, in a real terminal.
if command -v tmux > /dev/null; then
  T="tmux -L tsch_cli_test"
  $T new-session -d -s repl -x 120 -y 40 "$tsch"
  $T set-option -t repl remain-on-exit on > /dev/null
  send() { $T send-keys -t repl -l "$1"; $T send-keys -t repl Enter; sleep 0.2; }
  sleep 0.5
  send 'def square(n):'
  send '    return n * n'
  send ''
  send 'square(7)'
  send 'print(undefined)'
  send 'for i in range(2):'
  send '    print("row", i)'
  send ''
  send 'xs = [1,'
  send '      2]'
  send 'xs'
  $T send-keys -t repl C-d
  sleep 0.3
  screen=$($T capture-pane -p -t repl -S -100)
  contains "repl continuation prompt" "... " "$screen"
  contains "repl echoes expression values" ">>> square(7)
49" "$screen"
  contains "repl reports errors and goes on" "NameError: name 'undefined' is not defined" "$screen"
  contains "repl runs multi-line blocks" "row 0
row 1" "$screen"
  contains "repl joins open brackets" "[1, 2]" "$screen"
else
  echo "SKIP repl tests: tmux is not installed"
fi

# Output already written to a pipe survives a kill: it is flushed at each statement.
printf 'print("before the long loop")\nwhile True:\n    pass\n' > killed.tsch
"$tsch" killed.tsch > killed.out 2>&1 &
pid=$!
sleep 1.5
kill -9 "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
check "printed output reaches a pipe before a kill" "before the long loop" "$(cat killed.out)"

report

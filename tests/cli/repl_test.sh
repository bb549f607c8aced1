#!/usr/bin/env bash
# The REPL session (issue 6), driven through tmux in a real terminal: paste the seed
# mm_relu module, apply primitives one at a time and check the IR diffs, :undo / :redo,
# completion of attributes and block names, an error mid-session, Ctrl-C of the line being
# typed, of a running statement and of a long time_evaluator, :save and re-running the saved script, history.
# usage: repl_test.sh TSCH
set -uo pipefail
tsch=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v tmux > /dev/null; then
  echo "SKIP repl tests: tmux is not installed"
  exit 0
fi
work=$(mktemp -d)
T="tmux -L tsch_repl_test"
trap '$T kill-server 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
source "$here/assert.sh"
screen() { $T capture-pane -p -J -t repl -S -1000; }
# The screen from the last occurrence of the prompt line `>>> $1` on.
since() { screen | awk -v m=">>> $1" '$0 == m { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }'; }
prompts() { screen | grep -c '^>>>'; }
wait_prompt() {  # until more than $1 prompts are on screen and the last line is an empty one ($2 tenths of a second at most)
  for _ in $(seq "${2:-300}"); do
    if [ "$(prompts)" -gt "${1:-0}" ] && [ "$(screen | sed 's/ *$//' | grep -v '^$' | tail -1)" == ">>>" ]; then return; fi
    sleep 0.1
  done
  echo "timed out waiting for the prompt"
}
send() {
  local n
  n=$(prompts)
  $T send-keys -t repl -l "$1"
  $T send-keys -t repl Enter
  wait_prompt "$n"
}

# Pastes a file into the session (as a user pastes a block) and waits for the next prompt.
paste() {
  local n
  n=$(prompts)
  $T load-buffer "$1"
  $T paste-buffer -t repl
  wait_prompt "$n"
}

$T new-session -d -s repl -x 250 -y 60 "HOME=$work NO_COLOR=1 $tsch"
$T set-option -t repl remain-on-exit on > /dev/null
wait_prompt
paste "$here/mm_relu_module.tsch"
send 'sch = tvm.tir.Schedule(MyModule)'
send 'block_Y = sch.get_block("Y", func_name="mm_relu")'
send 'i, j, k = sch.get_loops(block_Y)'
send 'j0, j1 = sch.split(j, factors=[None, 4])'
out=$(since 'j0, j1 = sch.split(j, factors=[None, 4])')
contains "split shows what changed" "# sch.mod.changed:" "${out/mod changed/mod.changed}"
contains "split: old loop line" "-         for i, j, k in T.grid(128, 128, 128):" "$out"
contains "split: new loop line" "+         for i, j_0, j_1, k in T.grid(128, 32, 4, 128):" "$out"
contains "unchanged stretches fold" "  ..." "$out"
lacks "unchanged block C is folded away" 'with T.block("C")' "$out"

send 'sch.reorder(j0, k, j1)'
contains "reorder diff" "+         for i, j_0, k, j_1 in T.grid(128, 32, 128, 4):" "$(since 'sch.reorder(j0, k, j1)')"
send 'block_C = sch.get_block("C", "mm_relu")'
send 'sch.reverse_compute_at(block_C, j0)'
contains "reverse_compute_at diff" "+             for ax0 in range(4):" "$(since 'sch.reverse_compute_at(block_C, j0)')"
send ':undo'
out=$(since ':undo')
contains ":undo shows the step going away" "-             for ax0 in range(4):" "$out"
send ':redo'
contains ":redo brings it back" "+             for ax0 in range(4):" "$(since ':redo')"
send ':undo'
send 'sch.reverse_compute_at(block_C, j0)'

# An error mid-session leaves everything defined before.
send 'sch.get_block("nope")'
contains "error is reported" "error:" "$(since 'sch.get_block("nope")')"
send 'sch.decompose_reduction(block_Y, k)'
contains "decompose_reduction after an error" '+                 with T.block("Y_init"):' "$(since 'sch.decompose_reduction(block_Y, k)')"
send ':trace'
contains ":trace prints the trace" "sch.decompose_reduction(block=" "$(since ':trace')"
send ':help split'
out=$(since ':help split')
contains ":help gives the signature" "split(loop, factors" "$out"
contains ":help gives the checks" "checks: " "$out"
contains ":help gives an example" "example:" "$out"
send ':undi'
contains "unknown command suggests" "did you mean :undo?" "$(since ':undi')"

# Completion: attributes after a dot, block names inside get_block(".
$T send-keys -t repl -l 'sch.decompose_red'
$T send-keys -t repl Tab
sleep 0.3
contains "completes a primitive" ">>> sch.decompose_reduction" "$(screen)"
n=$(prompts)
$T send-keys -t repl C-c
wait_prompt "$n"
$T send-keys -t repl -l 'sch.get_block("'
$T send-keys -t repl Tab Tab
sleep 0.3
contains "completes block names" "Y_update" "$(screen | tail -4)"
n=$(prompts)
$T send-keys -t repl C-c
wait_prompt "$n"
# Ctrl-C cancels the line being typed and interrupts a running statement.
$T send-keys -t repl -l 'x = 1 +'
n=$(prompts)
$T send-keys -t repl C-c
wait_prompt "$n"
send 'x = 41'
send 'x + 1'
contains "Ctrl-C cancels the line" "42" "$(since 'x + 1')"
$T send-keys -t repl -l 'while True: pass'
$T send-keys -t repl Enter
sleep 0.5
n=$(prompts)
$T send-keys -t repl C-c
wait_prompt "$n"
send 'x'
contains "Ctrl-C interrupts a running statement" "KeyboardInterrupt" "$(screen)"
contains "state survives Ctrl-C" "41" "$(since 'x')"

# Ctrl-C stops a long time_evaluator between runs of the compiled function.
send 'import numpy as np'
send 'lib = tvm.build(MyModule, target="llvm")'
send 'a = tvm.nd.array(np.zeros((128, 128), dtype="float32"))'
send 'timer = lib.time_evaluator("mm_relu", tvm.cpu(), number=100000)'
$T send-keys -t repl -l 'timer(a, a, a)'
$T send-keys -t repl Enter
sleep 1
n=$(prompts)
$T send-keys -t repl C-c
wait_prompt "$n"
contains "Ctrl-C interrupts time_evaluator" "KeyboardInterrupt" "$(since 'timer(a, a, a)')"
send 'x'
contains "state survives an interrupted timing" "41" "$(since 'x')"

# Ctrl-C stops a compiled kernel in the middle (one call of ~10^12 steps) within a second;
# its output array survives, partly written.
cat > "$work/forever.tsch" <<'END'
@T.prim_func
def forever(A: T.Buffer((1,), "float32")):
    for i, j, k in T.grid(100000, 100000, 100000):
        with T.block("A"):
            vi, vj, vk = T.axis.remap("RRR", [i, j, k])
            A[0] = A[0] * T.float32(0.5) + T.float32(1)

END
paste "$work/forever.tsch"
# Runs CALL (a kernel that never ends) and presses Ctrl-C after a second: the kernel must
# stop with KeyboardInterrupt within 1.5 s. LABEL names the check.
interrupt_kernel() {
  local label=$1 call=$2
  $T send-keys -t repl -l "$call"
  $T send-keys -t repl Enter
  sleep 1
  local n started elapsed_ms
  n=$(prompts)
  started=$(date +%s%N)
  $T send-keys -t repl C-c
  wait_prompt "$n"
  elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
  contains "Ctrl-C interrupts $label" "KeyboardInterrupt" "$(since "$call")"
  if [ "$elapsed_ms" -lt 1500 ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $label stopped ${elapsed_ms} ms after Ctrl-C (more than 1.5 s)"; fi
}
send 'forever_lib = tvm.build(forever, target="llvm")'
send 'acc = tvm.nd.array(np.zeros((1,), dtype="float32"))'
interrupt_kernel "a compiled kernel" 'forever_lib(acc)'
send 'acc.numpy()[0] > 1.5'
contains "the kernel's output survives" "True" "$(since 'acc.numpy()')"
# The same for a kernel built as C (target "c"): it polls the flag its loader bound.
send 'forever_c = tvm.build(forever, target="c")'
interrupt_kernel "a kernel built as C" 'forever_c(acc)'
# A single loop of 2**40 iterations (no loop inside it to poll at): it runs in chunks of 2**16
# with a poll between them, so Ctrl-C stops it too (it ran on for minutes).
cat > "$work/one_loop.tsch" <<'END'
@T.prim_func
def one_loop(A: T.Buffer((1,), "float64"), n: T.int64):
    for i in range(n):
        A[0] = A[0] * T.float64(0.999999) + T.float64(1)

@T.prim_func
def one_parallel_loop(B: T.Buffer((1024,), "float64"), n: T.int64):
    for i in T.parallel(n):
        B[i % T.int64(1024)] = T.sqrt(T.Cast("float64", i))

@T.prim_func
def one_constant_loop(A: T.Buffer((1,), "float64")):
    for i in range(T.int64(1099511627776)):
        A[0] = A[0] * T.float64(0.999999) + T.float64(1)

END
paste "$work/one_loop.tsch"
send 'acc64 = tvm.nd.array(np.zeros((1,), dtype="float64"))'
send 'one_loop_lib = tvm.build(one_loop, target="llvm")'
interrupt_kernel "a single long loop" 'one_loop_lib(acc64, 2**40)'
send 'one_loop_c = tvm.build(one_constant_loop, target="c")'
interrupt_kernel "a single long loop built as C" 'one_loop_c(acc64)'
# The same loop run in parallel: each task polls between its chunks.
send 'par = tvm.build(one_parallel_loop, target="llvm")'
send 'b1024 = tvm.nd.array(np.zeros((1024,), dtype="float64"))'
interrupt_kernel "a single long parallel loop" 'par(b1024, 2**40)'

# :save writes a script that reproduces the session's final IR (undone steps commented out).
send ":save $work/session.tsch"
send 'print("BEGIN")'
send ':show'
repl_ir=$(since ':show' | sed '1d;/^>>>/,$d')
echo 'sch.mod.show()' >> session.tsch
script_ir=$("$tsch" session.tsch 2>&1)
if [ "$repl_ir" == "$script_ir" ] && [ -n "$script_ir" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); printf 'FAIL saved script reproduces the IR\n--- repl\n%s\n--- script\n%s\n' "$repl_ir" "$script_ir"; fi
contains "undone steps are commented out" "# undone: sch.reverse_compute_at(block_C, j0)" "$(cat session.tsch)"

# Ctrl-D at a continuation prompt drops the pending block and keeps the session (CPython).
n=$(prompts)
$T send-keys -t repl -l 'for q in range(3):'
$T send-keys -t repl Enter
sleep 0.3
$T send-keys -t repl C-d
wait_prompt "$n"
send 'x'
contains "Ctrl-D at ... keeps the session and its state" "41" "$(since 'x')"
# A line opening a triple-quoted string continues until the string closes.
n=$(prompts)
$T send-keys -t repl -l 's = """first'
$T send-keys -t repl Enter
sleep 0.3
contains "an open triple-quoted string continues" "... " "$(screen | tail -3)"
$T send-keys -t repl -l 'second"""'
$T send-keys -t repl Enter
wait_prompt "$n"
send 'print(s.split())'
contains "the string spans both lines" "['first', 'second']" "$(since 'print(s.split())')"

$T send-keys -t repl C-d
sleep 0.5
contains "history is kept" ":trace" "$(cat "$work/.tsch_history" 2>/dev/null)"

# The banner says what to type first; :tour plays examples/tour.tsch in the session, and
# its schedule steps are undone as typed ones are.
$T kill-session -t repl
$T new-session -d -s repl -x 200 -y 50 "HOME=$work NO_COLOR=1 $tsch"
wait_prompt
contains "the banner offers the tour" ":tour " "$(screen)"
n=$(prompts)
$T send-keys -t repl -l ':tour'
$T send-keys -t repl Enter
wait_prompt "$n" 900
out=$(screen)
contains ":tour shows schedule diffs" "# sch.mod changed:" "$out"
contains ":tour runs to its end" "the CUDA kernel on the CPU emulation matches numpy" "$out"
send ':undo'
contains ":undo takes back the tour's last step" '-                         with T.block("Y_init"):' "$(since ':undo')"

# :load runs a file statement by statement, so its schedule steps undo one at a time.
cat > "$work/steps.tsch" <<'EOF'
import tvm
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("A"):
            vi = T.axis.spatial(64, i)
            A[vi] = T.float32(1)

s2 = tvm.tir.Schedule(f)
(l,) = s2.get_loops(s2.get_block("A"))
l0, l1 = s2.split(l, factors=[None, 8])
s2.vectorize(l1)
EOF
send ":load $work/steps.tsch"
send ':undo'
out=$(since ':undo')
contains ":undo after :load takes back its last step" "-             for i_1 in T.vectorized(8):" "$out"
send ':undo'
contains "and the step before it" "+         for i in range(64):" "$(since ':undo')"
# A class whose methods are separated by blank lines, pasted without bracketed paste, arrives
# whole: the lines after a blank one are already there and indented, so the block goes on.
cat > "$work/paste.tsch" <<'EOF'
class Tiles:
    def __init__(self, n):
        self.n = n


    def count(self, k):
        return self.n // k

print(Tiles(16).count(4))
EOF
paste "$work/paste.tsch"
out=$(since 'class Tiles:')
contains "a pasted class keeps its second method" "
4
" "$out"
lacks "no IndentationError" "IndentationError" "$out"

# exit and quit typed alone say how to leave, as CPython's do.
send 'exit'
contains "exit alone" "Use exit() or Ctrl-D (i.e. EOF) to exit" "$(since 'exit')"

# exit(n) ends the session with that status, as in Python.
$T kill-session -t repl
$T new-session -d -s repl -x 100 -y 20 "HOME=$work NO_COLOR=1 $tsch; echo \"exit status \$?\"; sleep 5"
wait_prompt
$T send-keys -t repl -l 'exit(3)'
$T send-keys -t repl Enter
for _ in $(seq 50); do screen | grep -q "exit status" && break; sleep 0.1; done
contains "exit() ends the session" "exit status 3" "$(screen)"

report

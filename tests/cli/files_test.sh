#!/usr/bin/env bash
# Files a script can write or load: export_library and np.save never start a shell, never cut
# a path at a NUL byte, never touch a file beside the target, and replace the target only
# once the new file is complete; load_module checks the whole function table of a library.
# usage: files_test.sh TSCH
set -uo pipefail
tsch=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
source "$here/assert.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

cat > lib.tsch <<'TSCH'
import tvm
from tvm.script import tir as T
import numpy as np

@T.prim_func
def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi] + T.float32(1)

lib = tvm.build(add_one, target="llvm")

def works(path):
    m = tvm.runtime.load_module(path)
    b = tvm.nd.empty((4,), "float32")
    m["add_one"](tvm.nd.array(np.arange(4, dtype="float32")), b)
    return b.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
TSCH

run() { NO_COLOR=1 "$tsch" "$@" 2>&1; }

# 1. A path with shell syntax is only a file name.
cat > shell_path.tsch <<'TSCH'
from lib import lib, works
path = "x';id>INJECTED;echo '.so"
lib.export_library(path)
print("loads:", works(path))
TSCH
out=$(run shell_path.tsch)
check "export to a path with quotes and ;" "loads: True" "$out"
check "no command ran" "no" "$([ -e INJECTED ] && echo yes || echo no)"
check "the file has the literal name" "yes" "$([ -f "x';id>INJECTED;echo '.so" ] && echo yes || echo no)"

# 2. NUL bytes in paths are refused before anything is written.
echo "my notes" > notes.txt
echo "more notes" > notes2.txt
cat > nul_path.tsch <<'TSCH'
from lib import lib
import numpy as np
import tvm
for f in [lambda: lib.export_library("notes.txt\x00.so"),
          lambda: np.save("notes2.txt\x00.npy", np.zeros(3)),
          lambda: np.load("notes2.txt\x00.npy"),
          lambda: tvm.runtime.load_module("notes.txt\x00.so")]:
    try:
        f()
        print("accepted")
    except ValueError as e:
        print("ValueError:", e)
TSCH
out=$(run nul_path.tsch)
check "NUL in a path is a ValueError" "ValueError: embedded null byte
ValueError: embedded null byte
ValueError: embedded null byte
ValueError: embedded null byte" "$out"
check "notes.txt untouched" "my notes" "$(cat notes.txt)"
check "notes2.txt untouched" "more notes" "$(cat notes2.txt)"

# 3. No file beside the target is used or removed; a failed link leaves the target as it was.
echo "precious" > model.so.o
cat > beside.tsch <<'TSCH'
from lib import lib, works
lib.export_library("model.so")
print("loads:", works("model.so"))
TSCH
out=$(run beside.tsch)
check "export next to a same-named .o" "loads: True" "$out"
check "model.so.o untouched" "precious" "$(cat model.so.o)"

echo "old library" > kept.so
mkdir fakebin
printf '#!/bin/sh\necho "fake linker: cannot link" >&2\nexit 1\n' > fakebin/cc
chmod +x fakebin/cc
cat > failing_link.tsch <<'TSCH'
from lib import lib
lib.export_library("kept.so")
TSCH
out=$(PATH="$work/fakebin:$PATH" run failing_link.tsch)
contains "a failed link is a RuntimeError" "RuntimeError: export_library: linking kept.so with the system compiler (cc) failed" "$out"
contains "the linker's message is shown" "fake linker: cannot link" "$out"
check "the old target survives a failed link" "old library" "$(cat kept.so)"
check "no temporary is left beside it" "" "$(ls -A | grep -E '^\.tsch-tmp|kept\.so\.' )"

# 4. A library whose function table is malformed is refused at load, never run.
bad_lib() {  # bad_lib NAME C-SOURCE
  printf '%s\n' "$2" > "$1.c"
  cc -shared -fPIC -o "$1.so" "$1.c" || echo "cc failed for $1"
}
bad_lib bad_extent 'const char __tsch_signatures[] = "func f\nbuffer A A float32 12x\nend\n"; void f(void) {}'
bad_lib missing_entry 'const char __tsch_signatures[] = "func g\nbuffer A A float32 4\nend\n"; void f(void) {}'
bad_lib unterminated 'const char __tsch_signatures[4] = {0x66, 0x75, 0x6e, 0x63}; void f(void) {}'
bad_lib bad_dtype 'const char __tsch_signatures[] = "func f\nslot n notatype\nend\n"; void f(void) {}'
bad_lib no_end 'const char __tsch_signatures[] = "func f\nbuffer A A float32 4\n"; void f(void) {}'
bad_lib bad_slot 'const char __tsch_signatures[] = "func f\nscalar n m\nend\n"; void f(void) {}'
bad_lib no_table 'void f(void) {}'
bad_lib named_twice 'const char __tsch_signatures[] = "func f\nbuffer A A float32 4\nend\nfunc f\nbuffer A A float32 1024\nend\n"; void f(void) {}'
bad_lib spaced_name 'const char __tsch_signatures[] = "func f%20g\nend\n"; void f(void) {}'
bad_lib no_checksum 'const char __tsch_signatures[] = "func f\nbuffer A A float32 4\nend\n"; void f(void) {}'
# A library export_library wrote, with one number of its table changed (4 -> 9, same length).
cat > export_four.tsch <<'TSCH'
import tvm
from tvm.script import tir as T
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(1)
tvm.build(f, target="llvm").export_library("changed_number.so")
TSCH
run export_four.tsch > /dev/null
sed -i 's/float32 4/float32 9/' changed_number.so
cat > bad_tables.tsch <<'TSCH'
import tvm
for name in ["bad_extent", "missing_entry", "unterminated", "bad_dtype", "no_end", "bad_slot", "no_table", "does_not_exist",
             "named_twice", "spaced_name", "no_checksum", "changed_number"]:
    try:
        tvm.runtime.load_module(name + ".so")
        print(name, "loaded")
    except RuntimeError as e:
        print(name, "->", str(e).split(": ", 1)[1])
TSCH
out=$(run bad_tables.tsch)
check "malformed function tables are refused" "bad_extent -> malformed function table, line 2: bad extent '12x'
missing_entry -> the function table names g, which the library does not define
unterminated -> its function table is not a terminated string
bad_dtype -> malformed function table, line 2: unknown dtype 'notatype'
no_end -> malformed function table: the last function has no 'end'
bad_slot -> malformed function table, line 2: scalar parameter names an undeclared slot m
no_table -> it was not written by export_library (no function signatures)
does_not_exist -> cannot open shared object file: No such file or directory
named_twice -> malformed function table, line 4: the function f is named twice
spaced_name -> malformed function table, line 1: the function name \"f g\" is not a C identifier
no_checksum -> its function table does not match its checksum (the library was changed after export_library wrote it)
changed_number -> its function table does not match its checksum (the library was changed after export_library wrote it)" "$out"
report

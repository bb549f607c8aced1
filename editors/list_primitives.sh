#!/usr/bin/env bash
# Prints tsch's schedule primitives (the public methods of tvm.tir.Schedule that are not
# accessors or session helpers), joined by SEPARATOR (default: a space). The one source of
# the primitive lists in the editor plugins and their tests.
# usage: editors/list_primitives.sh TSCH [SEPARATOR]
set -euo pipefail
"$1" -c '
import sys
import tvm
helpers = ["copy", "fork_seed", "func_working_on", "get", "mod", "seed", "show", "trace", "work_on"]
print(sys.argv[1].join(n for n in dir(tvm.tir.Schedule) if not n.startswith("_") and n not in helpers))' "${2:- }"

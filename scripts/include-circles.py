#!/usr/bin/env python3
"""Lists include circles between files of src/ (a file is foo.h and foo.cc together).

  python3 scripts/include-circles.py [FOLDER...]   e.g. src/bindings src/values

A circle is a set of files each reaching the others through #include "..." (a strongly
connected component of the include graph). Only circles with a file under one of the given
folders (default src/) are printed; the exit status is 1 when there is one.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def graph():
    edges = {}
    for path in SRC.rglob("*"):
        if path.suffix not in (".cc", ".h"):
            continue
        unit = path.relative_to(SRC).with_suffix("").as_posix()
        out = edges.setdefault(unit, set())
        for line in path.read_text().splitlines():
            m = INCLUDE.match(line)
            if m and (SRC / m.group(1)).is_file():
                target = pathlib.PurePosixPath(m.group(1)).with_suffix("").as_posix()
                if target != unit:
                    out.add(target)
    return edges


def circles(edges):
    """Tarjan's strongly connected components of more than one file."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    folders = [pathlib.Path(f).resolve().relative_to(SRC).as_posix() for f in sys.argv[1:]] or [""]
    edges = graph()
    shown = [c for c in circles(edges) if any(u == f or u.startswith(f.rstrip("/") + "/") or not f for u in c for f in folders)]
    for comp in shown:
        members = set(comp)
        print("circle: " + ", ".join(comp))
        for u in comp:
            for w in sorted(edges[u] & members):
                print(f"  {u} -> {w}")
    print(f"include-circles: {len(shown)} circle(s)")
    sys.exit(1 if shown else 0)


if __name__ == "__main__":
    main()

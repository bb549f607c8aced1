#!/usr/bin/env python3
"""Fails when a file under src/ includes a header from a folder later in the folder order.

The order is the fenced `folder-order` block of src/README.md, first folder lowest: a file
may include headers of its own folder and of the folders above it. A sub-folder listed in the
order (bindings/python) is a unit of its own; one not listed (runtime/vm) belongs to its
parent. A folder of src/ missing from the order fails too, so the order stays complete.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_order():
    text = (SRC / "README.md").read_text()
    block = re.search(r"^```folder-order\n(.*?)^```", text, re.M | re.S)
    if not block:
        sys.exit("check-includes: no ```folder-order block in src/README.md")
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def unit_of(path, order):
    """The unit a path under src/ (a file, or an included header) belongs to, or None."""
    best = None
    for unit in order:
        if path == unit or path.startswith(unit + "/"):
            if best is None or len(unit) > len(best):
                best = unit
    return best


def main():
    order = folder_order()
    rank = {unit: i for i, unit in enumerate(order)}
    bad = []
    for folder in sorted(p.name for p in SRC.iterdir() if p.is_dir()):
        if folder not in rank:
            bad.append(f"src/{folder}/: not in the folder order of src/README.md")
    for path in sorted(SRC.rglob("*")):
        if path.suffix not in (".cc", ".h"):
            continue
        rel = path.relative_to(SRC).as_posix()
        unit = unit_of(rel, order)
        if unit is None:
            bad.append(f"src/{rel}: its folder is not in the folder order")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or not (SRC / m.group(1)).is_file():
                continue  # system and generated headers
            target = unit_of(m.group(1), order)
            if target is not None and rank[target] > rank[unit]:
                bad.append(f"src/{rel}:{number}: {unit}/ includes {m.group(1)} of {target}/, later in the order")
    if bad:
        print(f"check-includes: {len(bad)} problem(s) with the folder order (src/README.md):")
        for b in bad:
            print("  " + b)
        sys.exit(1)
    print(f"check-includes: {len(order)} folders in order, no include runs against it")


if __name__ == "__main__":
    main()

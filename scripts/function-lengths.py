#!/usr/bin/env python3
"""Lists C++ function bodies longer than a limit, longest first.

  scripts/function-lengths.py [--max N] [--fail] PATH...

A body is a brace block opened at namespace or class scope after a parameter list (so lambdas
and nested blocks count toward the function that holds them). Comments, strings and
preprocessor lines are skipped when matching braces. The count is the lines from the signature's
opening brace to its closing one, as `wc -l` of the body would say. With --fail the exit status
is 1 when any function is over the limit (a check for CI); files or functions can be exempted by
a `// function-length: table` comment on the line that opens the body (declarative tables).
"""
import argparse
import os
import re
import sys

SCOPE_WORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;(){}]*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else)\s*$")


def strip(text):
    """Blanks comments, string/char literals and preprocessor lines, keeping line breaks."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    out.append("\n")
                    continue
                j += 1
            i = j
            continue
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if c not in " \t":
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        m = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
        if m:
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(path):
    raw = open(path, encoding="utf-8", errors="replace").read()
    raw_lines = raw.split("\n")
    text = strip(raw)
    # Each open brace: (kind, start line, name) with kind 'scope', 'function' or 'block'.
    stack = []
    line = 1
    last = 0  # offset after the previous brace or semicolon at scope level
    results = []
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            head = text[last:i]
            in_function = any(k == "function" for k, _, _ in stack)
            if in_function:
                stack.append(("block", line, None))
            else:
                compact = " ".join(head.split())
                if SCOPE_WORDS.search(compact) and not compact.rstrip().endswith(")"):
                    stack.append(("scope", line, None))
                elif re.search(r"\)\s*(const|override|final|noexcept|mutable|->[^{]*|"
                               r":[^{]*|\s)*$", compact) and not CONTROL.search(
                                   compact.split("(")[0]):
                    name = re.findall(r"([~\w:<>]+)\s*\(", compact)
                    stack.append(("function", line, name[0] if name else "?"))
                else:
                    stack.append(("block", line, None))
            last = i + 1
        elif c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    exempt = "function-length: table" in raw_lines[start - 1]
                    results.append((line - start + 1, name, start, exempt))
            last = i + 1
        elif c == ";" and not any(k in ("function", "block") for k, _, _ in stack):
            last = i + 1
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=100)
    ap.add_argument("--fail", action="store_true")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    found = []
    for root in args.paths:
        files = [root] if os.path.isfile(root) else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
            if f.endswith((".cc", ".h", ".cpp"))]
        for f in sorted(files):
            for length, name, start, exempt in functions(f):
                if length > args.max:
                    found.append((length, f, start, name, exempt))
    found.sort(reverse=True)
    over = 0
    for length, f, start, name, exempt in found:
        print(f"{length:5d}  {f}:{start}  {name}{'  (table, exempt)' if exempt else ''}")
        over += not exempt
    print(f"{over} function(s) over {args.max} lines", file=sys.stderr)
    return 1 if args.fail and over else 0


if __name__ == "__main__":
    sys.exit(main())

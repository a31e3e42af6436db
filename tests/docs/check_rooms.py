#!/usr/bin/env python3
"""check_rooms.py - the rooms of server/ as the linker sees them.

  python3 tests/docs/check_rooms.py --build DIR [--src DIR]

Each .c of server/ is a node; A -> B when A's object file uses a global
symbol that B's defines (nm).  A room is a sub-folder of server/; the files
directly in server/ are the composition root.  Fails (exit 1, with the
reason) when:
  - the rooms' graph has a cycle (the CMake link order forbids most, not
    a cycle through symbols resolved at the final link);
  - a room uses a file of the root (the root may use every room);
  - a strongly connected set of files is larger than MAX_FILE_CYCLE;
  - a room holds more than MAX_ROOM_SHARE of server/'s lines of C;
  - there are fewer than MIN_ROOMS rooms.
Prints the rooms, their lines and their edges either way.
"""
import argparse
import os
import subprocess
import sys
from collections import defaultdict

MAX_FILE_CYCLE = 4
MAX_ROOM_SHARE = 0.35
MIN_ROOMS = 5


def objects(build, src):
    """{server/<...>.c: object path} from the build tree's CMakeFiles."""
    out = {}
    for dirpath, _, files in os.walk(build):
        if "CMakeFiles" not in dirpath:
            continue
        for f in files:
            if not f.endswith(".c.o"):
                continue
            path = os.path.join(dirpath, f)
            parts = os.path.relpath(path, build).split(os.sep)
            i = parts.index("CMakeFiles")
            rel = "/".join(parts[:i] + parts[i + 2:])[:-2]
            # objects of in-tree sources are named after their path below
            # the source dir (server/http/http.c.o)
            k = rel.find("server/")
            if k < 0:
                continue
            rel = rel[k:]
            if os.path.exists(os.path.join(src, rel)):
                out.setdefault(rel, path)
    return out


def symbols(path, flags):
    r = subprocess.run(["nm", "-P"] + flags + [path], capture_output=True, text=True)
    return {ln.split()[0] for ln in r.stdout.splitlines() if ln.strip()}


def room(f):
    rest = f[len("server/"):]
    return rest.split("/")[0] if "/" in rest else "."


def sccs(nodes, edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop()
                on.discard(w)
                c.append(w)
                if w == v:
                    break
            out.append(sorted(c))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--src", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    objs = objects(a.build, a.src)
    if not objs:
        print("check_rooms: no object files of server/ under %s" % a.build)
        return 1
    defs = {f: symbols(p, ["--defined-only", "-g"]) for f, p in objs.items()}
    owner = {}
    for f, ds in defs.items():
        for d in ds:
            owner.setdefault(d, f)
    edges = defaultdict(set)
    for f, p in objs.items():
        for u in symbols(p, ["-u"]):
            o = owner.get(u)
            if o and o != f:
                edges[f].add(o)
    lines = defaultdict(int)
    for f in objs:
        with open(os.path.join(a.src, f), encoding="utf-8", errors="replace") as fh:
            lines[room(f)] += fh.read().count("\n")
    total = sum(lines.values())
    room_edges = defaultdict(set)
    for f, ts in edges.items():
        for t in ts:
            if room(f) != room(t):
                room_edges[room(f)].add(room(t))
    problems = []
    rooms = sorted(r for r in lines if r != ".")
    for r in sorted(lines):
        share = lines[r] / total
        print("%-9s %5d lines %4.1f%%  -> %s" % (r, lines[r], 100 * share,
                                               ", ".join(sorted(room_edges[r])) or "-"))
        if r != "." and share > MAX_ROOM_SHARE:
            problems.append("room %s holds %.0f%% of server/'s lines (max %.0f%%)"
                            % (r, 100 * share, 100 * MAX_ROOM_SHARE))
    if len(rooms) < MIN_ROOMS:
        problems.append("%d rooms (at least %d)" % (len(rooms), MIN_ROOMS))
    for r in rooms:
        if "." in room_edges[r]:
            problems.append("room %s uses the composition root" % r)
    for c in sccs(lines.keys(), {r: room_edges[r] - {"."} for r in rooms}):
        if len(c) > 1:
            problems.append("rooms in a cycle: " + " -> ".join(c))
    biggest = max(sccs(objs.keys(), edges), key=len)
    print("largest cycle of files: %d%s" % (len(biggest), (": " + ", ".join(biggest))
                                            if len(biggest) > 1 else ""))
    if len(biggest) > MAX_FILE_CYCLE:
        problems.append("%d files form one cycle (max %d)" % (len(biggest), MAX_FILE_CYCLE))
    for p in problems:
        print("check_rooms: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

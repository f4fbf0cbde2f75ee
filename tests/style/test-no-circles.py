#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# No circles (HACKING.md "Rules of the house"): among the object files of the charm library
# (lib/, interfaces/) and of juju-sim, a file that calls a function of another file is never
# called back by it, directly or through others. Reads the undefined and defined symbols of each
# object with nm; prints every circle (its files and one call per step) and fails when there is one.
import collections
import glob
import os
import subprocess
import sys

# usage: test-no-circles.py BUILDDIR TARGETDIR=PREFIX[,PREFIX…] …: each target's object
# files (those whose names start with a prefix meson gives the sources of one source folder)
build = sys.argv[1]
groups = {}
for arg in sys.argv[2:]:
    tdir, _, prefixes = arg.partition('=')
    groups[tdir] = tuple(prefixes.split(','))
status = 0
checked = 0
for tdir, prefixes in groups.items():
    objs = [o for o in glob.glob(os.path.join(build, tdir, '*.o'))
            if os.path.basename(o).startswith(prefixes)]
    if not objs:
        print(f'no object files in {tdir}: build first', file=sys.stderr)
        sys.exit(1)
    defs, uses = {}, {}
    for o in objs:
        name = os.path.basename(o)[:-len('.c.o')]
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == 'U':
                uses.setdefault(name, set()).add(f[1])
            elif len(f) == 3 and f[1] in 'TDBR':
                defs[f[2]] = name
    edges = collections.defaultdict(dict)  # caller -> callee -> one symbol
    for n, syms in uses.items():
        for s in sorted(syms):
            t = defs.get(s)
            if t and t != n:
                edges[n].setdefault(t, s)
    # Tarjan's strongly connected components, iteratively
    index, low, onstack, stack, sccs = {}, {}, set(), [], []
    counter = 0
    for root in sorted(set(defs.values()) | set(uses)):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        onstack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in onstack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    onstack.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))
    checked += len(objs)
    for comp in sccs:
        status = 1
        print(f'circle in {tdir}: ' + ', '.join(comp))
        for a in comp:
            for b, s in sorted(edges[a].items()):
                if b in comp:
                    print(f'  {a} -> {b} ({s})')
print(f'{checked} object files read; ' + ('circles found' if status else 'no circles'))
sys.exit(status)

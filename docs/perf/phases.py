"""Reads `strace -f -tt -e trace=execve,exit_group -e signal=none` of one
warm check and prints when each process of interest started and ended,
relative to lab.sh's start."""
import re, sys
from datetime import datetime
starts, ends, names = {}, {}, {}
t0 = None
for line in open(sys.argv[1]):
    m = re.match(r'(\d+)\s+(\d\d:\d\d:\d\d\.\d+)\s+(.*)', line)
    if not m:
        continue
    pid, ts, rest = m.groups()
    t = datetime.strptime(ts, '%H:%M:%S.%f').timestamp()
    if t0 is None:
        t0 = t
    if rest.startswith('execve(') and 'ENOENT' not in rest:
        prog = re.match(r'execve\("([^"]+)"', rest).group(1).split('/')[-1]
        if prog == 'rustc':
            crate = re.search(r'--crate-name", "([^"]+)"', rest)
            prog = 'rustc ' + (crate.group(1) if crate else '?')
        names[pid] = prog
        starts.setdefault(pid, t)
    if '+++ exited' in rest or 'exit_group' in rest:
        ends[pid] = t
rows = sorted((starts[p], ends.get(p, float('nan')), names[p], p) for p in names)
for s, e, n, p in rows:
    print(f"{(s - t0) * 1000:8.1f} ms → {(e - t0) * 1000:8.1f} ms  ({(e - s) * 1000:7.1f} ms)  {n}")

#!/usr/bin/env bash
# Interleaved medians: a warm check 03, its cargo build alone (-p lab-deps
# beside the runner, as the judge builds), the bare floor, and a warm check
# of all eight steps. Run it in a copy of the kit whose student/ holds the
# reference answers, after one unmeasured ./lab.sh check:
#   KIT=/tmp/kit TARGET=/tmp/kit-target RUNS=9 bash docs/perf/interleaved.sh
cd "${KIT:-/tmp/perf/kit}"; export CARGO_TARGET_DIR="${TARGET:-/tmp/perf/target}"
ms() { local s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
for i in $(seq ${RUNS:-9}); do
  touch student/src/lib.rs; a=$(ms ./lab.sh check 03)
  touch student/src/lib.rs; d=$(ms cargo build --quiet -p lab-runner -p lab-deps)
  touch student/src/lib.rs; c=$(ms cargo build --quiet -p lab-runner)
  touch student/src/lib.rs; b=$(ms ./lab.sh check)
  echo "$a $d $c $b"
done | python3 -c '
import sys,statistics
rows=[list(map(int,l.split())) for l in sys.stdin if l.strip()]
for i,h in enumerate(["check 03","cargo build -p lab-runner -p lab-deps","floor: cargo build -p lab-runner","check (all 8)"]):
    xs=sorted(r[i] for r in rows)
    print(f"{h}: median {statistics.median(xs):.0f} ms (min {xs[0]}, max {xs[-1]}, n {len(xs)})")
'

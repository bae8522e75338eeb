#!/usr/bin/env bash
# Interleaved medians, each run after saving student/src/lib.rs with a
# change: a warm check 03, a warm check of all eight steps, and the
# physical floor — rustc on the learner's crate and rustc on the core
# runner's main with its link, run by hand with the judge's own arguments
# (from its recipe), unjailed, without the judge. Run it in a copy of the
# kit whose student/ holds the reference answers, after one unmeasured
# ./lab.sh check:
#   KIT=/tmp/kit TARGET=/tmp/kit-target RUNS=9 bash docs/perf/interleaved.sh
set -eu
cd "${KIT:-/tmp/perf/kit}"; export CARGO_TARGET_DIR="${TARGET:-/tmp/perf/target}"
recipe="$CARGO_TARGET_DIR/lab-recipe.json"
[ -f "$recipe" ] || { echo "no $recipe: run ./lab.sh check once first" >&2; exit 2; }
floor=$(mktemp -d)
trap 'rm -rf "$floor"' EXIT
# The two rustc commands a check runs, as the judge builds them (see
# build/direct.rs), writing into a folder of their own.
python3 - "$recipe" "$floor" > "$floor/floor.sh" <<'EOF'
import json, sys, shlex
r = json.load(open(sys.argv[1])); out = sys.argv[2]
lib = lambda n: r["libs"][n][0]
common = ["--edition=2021", "--emit=link,dep-info", "--color", "never", "-C", "opt-level=0",
          "-C", "debug-assertions=on", "-C", "overflow-checks=on", "-C", "embed-bitcode=no",
          "-C", "debuginfo=0", "-L", "dependency=" + r["deps"]]
student = [r["rustc"], "--crate-name", "student", "student/src/lib.rs", "--crate-type", "lib", *common,
           "--extern", "lab_api=" + lib("lab_api"), "--out-dir", out, "-C", "incremental=" + out + "/inc"]
main = [r["rustc"], "--crate-name", "lab_runner", "checks/runner/src/main.rs", "--crate-type", "bin", *common,
        "--extern", "lab_runner_core=" + lib("lab_runner_core"), "--extern", "student=" + out + "/libstudent.rlib",
        "-C", "strip=debuginfo", "-o", out + "/lab-runner"]
print(shlex.join(student) + " && " + shlex.join(main))
EOF
n=0
save() { n=$((n + 1)); sed -i '/^\/\/ perf edit /d' student/src/lib.rs; echo "// perf edit $n" >> student/src/lib.rs; }
ms() { local s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
bash "$floor/floor.sh" >/dev/null 2>&1  # its incremental cache, warm
for i in $(seq "${RUNS:-9}"); do
  save; a=$(ms ./lab.sh check 03)
  save; b=$(ms ./lab.sh check)
  save; c=$(ms bash "$floor/floor.sh")
  echo "$a $b $c"
done | python3 -c '
import sys, statistics
rows = [list(map(int, l.split())) for l in sys.stdin if l.strip()]
names = ["check 03", "check (all 8)", "floor: rustc of the crate, then of the main with its link"]
for i, h in enumerate(names):
    xs = sorted(r[i] for r in rows)
    print(f"{h}: median {statistics.median(xs):.0f} ms (min {xs[0]}, max {xs[-1]}, n {len(xs)})")
'
sed -i '/^\/\/ perf edit /d' student/src/lib.rs

#!/usr/bin/env bash
# Interleaved medians, each run after saving student/src/lib.rs with a
# change: a warm check 03, a warm check of all eight steps, and the
# physical floor — rustc on the learner's crate, then the link of the core
# runner (a linker command the judge keeps in lab-direct/core/link/, see
# compile/direct/relink.rs), run by hand with the judge's own arguments,
# unjailed, without the judge. Run it in a copy of the kit whose student/
# holds the reference answers, after one unmeasured ./lab.sh check:
#   KIT=/tmp/kit TARGET=/tmp/kit-target RUNS=9 bash docs/perf/interleaved.sh
set -eu
cd "${KIT:-/tmp/perf/kit}"; export CARGO_TARGET_DIR="${TARGET:-/tmp/perf/target}"
recipe="$CARGO_TARGET_DIR/lab-recipe.json"
# The newest link the judge keeps (one folder per set of the learner's
# symbols it needs).
link=$(ls -t "$CARGO_TARGET_DIR"/lab-direct/core/link/*/link.json 2>/dev/null | head -n 1)
[ -f "$recipe" ] && [ -n "$link" ] || { echo "no $recipe or kept link: run ./lab.sh check once first" >&2; exit 2; }
floor=$(mktemp -d)
trap 'rm -rf "$floor"' EXIT
# The rustc command and the link a check runs, as the judge builds them
# (see compile/direct/unit.rs and relink.rs), writing into a folder of
# their own.
python3 - "$recipe" "$floor" "$link" "$CARGO_TARGET_DIR" > "$floor/floor.sh" <<'EOF'
import json, sys, shlex
r = json.load(open(sys.argv[1])); out = sys.argv[2]
kept = json.load(open(sys.argv[3])); direct = sys.argv[4] + "/lab-direct"
lib = lambda n: r["libs"][n][0]
common = ["--edition=2021", "--emit=link,dep-info", "--color", "never", "-C", "opt-level=0",
          "-C", "debug-assertions=on", "-C", "overflow-checks=on", "-C", "embed-bitcode=no",
          "-C", "debuginfo=0", "-L", "dependency=" + r["deps"]]
student = [r["rustc"], "--crate-name", "student", "student/src/lib.rs", "--crate-type", "lib", *common,
           "--extern", "lab_api=" + lib("lab_api"), "--out-dir", out, "-C", "incremental=" + out + "/inc"]
args = [out + "/libstudent.rlib" if a == direct + "/libstudent.rlib" else a for a in kept["args"]]
args[args.index("-o") + 1] = out + "/lab-runner"
env = [k + "=" + v for k, v in kept["env"]]
print(shlex.join(student) + " && " + shlex.join(["env", *env, kept["program"], *args]))
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
names = ["check 03", "check (all 8)", "floor: rustc of the crate, then the link"]
for i, h in enumerate(names):
    xs = sorted(r[i] for r in rows)
    print(f"{h}: median {statistics.median(xs):.0f} ms (min {xs[0]}, max {xs[-1]}, n {len(xs)})")
'
sed -i '/^\/\/ perf edit /d' student/src/lib.rs

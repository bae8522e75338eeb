#!/usr/bin/env bash
# PrairieLearn runs this for every submission, in the image the Dockerfile
# beside it built: it grades the files PrairieLearn put in
# $RETRY_LAB_GRADE_ROOT/student (default /grade/student) with the kit in
# $RETRY_LAB_KIT (default /opt/retry-lab/kit) and always leaves
# $RETRY_LAB_GRADE_ROOT/results/results.json; it then exits 0 (the kit's
# own status is in the job's output).
set -uo pipefail
root="${RETRY_LAB_GRADE_ROOT:-/grade}"
kit="${RETRY_LAB_KIT:-/opt/retry-lab/kit}"
if [ -f "$HOME/.cargo/env" ]; then . "$HOME/.cargo/env"; fi
mkdir -p "$root/results"
rm -f "$root/results/results.json"
bash "$kit/lab.sh" --lang {lang} prairielearn-grade --root "$root"{options}
code=$?
if [ ! -s "$root/results/results.json" ]; then
  # The kit could not start at all: a result that says so, not none.
  printf '%s\n' '{no_kit}' > "$root/results/results.json"
fi
echo "retry-lab: the kit ended with status $code" >&2
exit 0

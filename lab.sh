#!/usr/bin/env bash
# The kit's one entry point. It builds the judge quietly and hands over to it.
# The maintainers' commands (selftest, bench, new-step) go to lab-dev
# (checks/dev), the judge with the maintainers' tools, built only when one of
# them is run; `selftest` also runs the project's format, lint and test gates
# first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LAB_ROOT="$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"

# The language of the few lines said here, by the checker's own rule
# (cli::language): the last well-formed --lang X or --lang=X, else LAB_LANG,
# else LANG, else English; a value is Chinese if it starts with zh, English
# if it starts with en or is C or POSIX, in any case, and is skipped if not.
pick_lang() {
  case "$1" in
    [zZ][hH]*) lang=zh ;;
    [eE][nN]*|[cC]|[pP][oO][sS][iI][xX]) lang=en ;;
  esac
}
lang=en
for v in "${LANG:-}" "${LAB_LANG:-}"; do pick_lang "$v"; done
prev=
for a in "$@"; do
  v=
  if [ "$prev" = --lang ]; then v=$a; fi
  case "$a" in --lang=*) v=${a#--lang=} ;; esac
  pick_lang "$v"
  prev=$a
done
say() { awk -F '\t' -v l="$lang" -v k="$1" '$1 == l && $2 == k { print $3; exit }' fixtures/i18n/shell.txt >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  say no_cargo
  exit 4
fi

# Builds the judge (with `dev`: lab-dev, the maintainers' tools, which a
# check never builds) when anything it is built from changed.
build_judge() {
  local package=lab-judge sources=()
  if [ "${1:-}" = dev ]; then
    package=lab-dev
    sources=(checks/dev/src checks/dev/Cargo.toml)
  fi
  local log bin="$CARGO_TARGET_DIR/debug/$package"
  # After a build, the judge is as new as what it was built from, even when
  # cargo found nothing to do (a file only the tests read changed): the
  # fast path below then holds until something changes again.
  built() { touch "$bin" 2>/dev/null || true; }
  # Fast path: nothing the judge is built from is newer than the judge.
  if [ -x "$bin" ] && [ -z "$(find Cargo.toml Cargo.lock checks/api checks/wire checks/scripts checks/judge/src \
      checks/judge/Cargo.toml fixtures/i18n fixtures/mistakes.json ${sources[@]+"${sources[@]}"} \
      -newer "$bin" -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  # lab-runner-core too, in the same cargo command: the checker's first
  # build needs it, and cargo compiles it beside the judge instead of after.
  if [ -t 2 ]; then
    # On a terminal the learner sees at once that something is happening,
    # and cargo's own progress bar (cargo draws it only on a terminal).
    say building
    cargo build -p "$package" -p lab-runner-core && { built; return 0; }
  fi
  log=$(mktemp)
  local shown=no
  if [ -t 2 ]; then
    # After a failure on a terminal: once more, quietly, to read the reason.
    cargo build --quiet -p "$package" -p lab-runner-core 2>"$log" && { rm -f "$log"; built; return 0; }
  else
    # Not a terminal (a pipe, a file, an editor's task runner): the notice
    # at once all the same, then cargo's progress as plain lines, one per
    # crate, without escape sequences (pipefail: cargo's status counts).
    say building
    cargo build --color never -p "$package" -p lab-runner-core 2>&1 | tee "$log" >&2 && { rm -f "$log"; built; return 0; }
    shown=yes
  fi
  # A manifest the learner broke is theirs to mend (status 3, as when
  # their code does not compile); anything else is the kit's (status 4).
  local status=4
  if grep -q 'student/Cargo.toml' "$log"; then say manifest; status=3; else say kit_failed; fi
  if [ "$shown" = no ]; then tail -n 30 "$log" >&2; fi
  rm -f "$log"
  exit "$status"
}

selftest=no
case "${1:-} ${3:-}" in
  "selftest "*) selftest=yes; shift ;;
esac
if [ "$selftest" = no ] && [ "${1:-}" = "--lang" ] && [ "${3:-}" = "selftest" ]; then
  selftest=yes; set -- "$1" "$2" "${@:4}"
fi
case "$selftest ${1:-} ${2:-}" in
  "no --lang="*" selftest") selftest=yes; set -- "$1" "${@:3}" ;;
esac
if [ "$selftest" = yes ]; then
  # `selftest --help` prints the command's options and runs nothing.
  for a in "$@"; do
    case "$a" in
      -h|--help) build_judge dev; exec "$CARGO_TARGET_DIR/debug/lab-dev" selftest "$@" ;;
    esac
  done
  if [ ! -d solutions ] || [ ! -d checks/judge/tests ]; then
    say no_solutions
    exit 2
  fi
  set -x
  cargo fmt --all -- --check
  # The steps' folders are declared inside the judge's steps! registry macro,
  # where cargo fmt does not look; check them by name.
  rustfmt --edition 2021 --check checks/judge/src/suites/s[0-9][0-9]/mod.rs
  cargo clippy --quiet --workspace --all-targets -- -D warnings
  # The advanced runner's glue, compiled against the reference answers.
  LAB_ADVANCED_REFERENCE=1 cargo clippy --quiet -p lab-runner-advanced --all-targets -- -D warnings
  cargo test --quiet --workspace --no-run
  { set +x; } 2>/dev/null
  # The judge as a check builds it (the end-to-end tests' target/e2e starts
  # from this build), then lab-dev, which runs the proof and the bench.
  build_judge
  build_judge dev
  # The checker's own proof (every mutant, alternative and the sample class,
  # in target/), then the bench's quick run (which proves the benchmark
  # still works; its figures are not asserted here), run beside the tests
  # (which build in target/e2e and other folders of their own): all of them
  # spend much of their time waiting on time limits, servers and the
  # browser. Their report is printed after the tests'; the first of them
  # to fail gives the selftest its status.
  proof=$(mktemp)
  dev="$CARGO_TARGET_DIR/debug/lab-dev"
  (
    # Stopped, it stops the one of them running.
    trap 'kill "$child" 2>/dev/null; exit 143' TERM
    "$dev" selftest "$@" &
    child=$!
    wait "$child" || exit $?
    # The same subjects on the portable layer (what macOS and Windows
    # learners run): stubs, solutions, alternatives and mutants; the
    # solutions under 3 seeds unless --seeds says otherwise (the Linux run
    # above has tried 20).
    seeds=(--seeds 3)
    for a in "$@"; do
      case "$a" in --seeds|--seeds=*) seeds=() ;; esac
    done
    LAB_PLATFORM=portable "$dev" selftest ${seeds[@]+"${seeds[@]}"} "$@" &
    child=$!
    wait "$child" || exit $?
    "$dev" bench --quick --target-dir "$CARGO_TARGET_DIR/e2e" &
    child=$!
    wait "$child"
  ) >"$proof" 2>&1 &
  proof_pid=$!
  trap 'kill "$proof_pid" 2>/dev/null; rm -f "$proof"' EXIT
  set -x
  cargo test --quiet --workspace
  { set +x; } 2>/dev/null
  status=0
  wait "$proof_pid" || status=$?
  trap - EXIT
  cat "$proof"
  rm -f "$proof"
  exit "$status"
fi

# The command: the first word that is neither an option nor --lang's value
# (the judge's rule). bench and new-step are lab-dev's, and so is a selftest
# not told above (after an option other than --lang: no gates, as the judge
# answered it before). lab-dev answers every other command as the judge
# does, so a word read differently here changes only which of the two builds.
command=
prev=
for a in "$@"; do
  if [ "$prev" != --lang ]; then
    case "$a" in
      -*) ;;
      *) command=$a; break ;;
    esac
  fi
  prev=$a
done
case "$command" in
  bench|new-step|selftest)
    build_judge dev
    exec "$CARGO_TARGET_DIR/debug/lab-dev" "$@"
    ;;
esac
build_judge
exec "$CARGO_TARGET_DIR/debug/lab-judge" "$@"

#!/usr/bin/env bash
# The kit's one entry point. It builds the judge quietly and hands over to it;
# `selftest` also runs the project's format, lint and test gates first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LAB_ROOT="$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"

if ! command -v cargo >/dev/null 2>&1; then
  echo "lab: cargo is not on PATH; install Rust (https://rustup.rs) and try again" >&2
  exit 4
fi

build_judge() {
  local log bin="$CARGO_TARGET_DIR/debug/lab-judge"
  # Fast path: nothing the judge is built from is newer than the judge.
  if [ -x "$bin" ] && [ -z "$(find Cargo.toml Cargo.lock checks/api checks/wire checks/judge/src \
      checks/judge/Cargo.toml fixtures/cases fixtures/i18n -newer "$bin" -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  log=$(mktemp)
  if ! cargo build --quiet -p lab-judge 2>"$log"; then
    echo "lab: the kit's checker failed to build (this is not your code):" >&2
    tail -n 30 "$log" >&2
    rm -f "$log"
    exit 4
  fi
  rm -f "$log"
}

selftest=no
case "${1:-} ${3:-}" in
  "selftest "*) selftest=yes; shift ;;
esac
if [ "$selftest" = no ] && [ "${1:-}" = "--lang" ] && [ "${3:-}" = "selftest" ]; then
  selftest=yes; set -- "$1" "$2" "${@:4}"
fi
if [ "$selftest" = yes ]; then
  if [ ! -d solutions ] || [ ! -d checks/judge/tests ]; then
    echo "lab: selftest needs the instructor's kit (this copy has no solutions/); learners use ./lab.sh check" >&2
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
  cargo test --quiet --workspace
  { set +x; } 2>/dev/null
  build_judge
  # Proves the benchmark still works; its figures are not asserted here.
  "$CARGO_TARGET_DIR/debug/lab-judge" bench --quick --target-dir "$CARGO_TARGET_DIR/e2e"
  exec "$CARGO_TARGET_DIR/debug/lab-judge" selftest "$@"
fi

build_judge
exec "$CARGO_TARGET_DIR/debug/lab-judge" "$@"

#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image
# (Ubuntu). It installs the pinned Rust toolchain, fetches the kit's crates
# and grades the kit's own stubs once, so that every later run compiles only
# the submission's code.
set -euxo pipefail
toolchain={toolchain}
source_dir=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends ca-certificates curl gcc libc6-dev
curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs \
  | sh -s -- -y --profile minimal --default-toolchain "$toolchain" --no-modify-path
. "$HOME/.cargo/env"
cd "$source_dir/kit"
cargo fetch
# Warm every build a grading run makes, in a throwaway autograder tree.
warm=$(mktemp -d)
mkdir -p "$warm/submission"
ln -s "$source_dir" "$warm/source"
cp fixtures/pristine/lib.rs "$warm/submission/lib.rs"
AUTOGRADER_ROOT="$warm" bash "$source_dir/run_autograder" || true
test -s "$warm/results/results.json"
rm -rf "$warm"

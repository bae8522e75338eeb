#!/usr/bin/env bash
# Checks step 12 against student/src/lib.rs. Extra options (--seed S, ...) pass through.
exec "$(dirname "${BASH_SOURCE[0]}")/../lab.sh" check 12 "$@"

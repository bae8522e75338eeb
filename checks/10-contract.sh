#!/usr/bin/env bash
# Checks step 10 against student/src/advanced.rs (the advanced track). Extra options (--seed S, ...) pass through.
exec "$(dirname "${BASH_SOURCE[0]}")/../lab.sh" check 10 "$@"

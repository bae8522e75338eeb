//! Step 13: script and observation shapes (none yet).

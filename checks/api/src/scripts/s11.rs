//! Step 11: script and observation shapes (none yet).

//! Step 10: script and observation shapes (none yet).

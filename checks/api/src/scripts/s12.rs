//! Step 12: script and observation shapes (none yet).

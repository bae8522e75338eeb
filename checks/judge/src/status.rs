//! Exit statuses, documented in docs/maintainers/reports.md ("Exit statuses").

pub const PASSED: u8 = 0;
pub const FAILED: u8 = 1;
pub const USAGE: u8 = 2;
pub const DOES_NOT_COMPILE: u8 = 3;
pub const KIT_ERROR: u8 = 4;
/// grade: every submission was graded, but some need a person's review.
pub const NEEDS_REVIEW: u8 = 5;

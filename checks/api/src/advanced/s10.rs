//! Step 10: a strict Retry-After parser.

/// Largest delay, in seconds, that a Retry-After may ask for (2^31 − 1).
pub const DELAY_LIMIT: u32 = 2_147_483_647;
/// Longest field value, in characters, after trimming spaces and tabs. (The
/// checker never sends a value that counting bytes instead would judge
/// differently.)
pub const FIELD_LIMIT: usize = 128;

/// Why a Retry-After cannot be used. A malformed value is never a zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RetryAfterError {
    /// No field at all.
    Missing,
    /// More than one field.
    Duplicate,
    /// Nothing left after trimming spaces and tabs.
    Empty,
    /// More than [`FIELD_LIMIT`] characters left after trimming.
    Oversized,
    /// Neither delay-seconds nor one of the three date forms.
    Syntax,
    /// The form is right, the date or time is not (a wrong weekday included).
    InvalidDate,
    /// The delay would exceed [`DELAY_LIMIT`].
    OverLimit,
}

//! Step 12: a sleeper that cannot wake early.

/// Most calls of the sleeper in one `sleep_at_least` call.
pub const SLEEP_LIMIT: u32 = 3;

/// Why `sleep_at_least` could not promise that the target was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SleepFault {
    InvalidArgument,
    UnrepresentableWait,
    NonFiniteReading,
    ClockWentBackwards,
    Cancelled,
    DeadlineReached,
    NoProgress,
    TooManyWakeUps,
}

//! What the scripts of steps 11 and 12 share, below both: step 12's
//! `sleep_at_least` ending is also the fault inside step 11's
//! `Reason::Guard` (`guarded_read` stops with it).

use serde::{Deserialize, Serialize};

/// How a `sleep_at_least` call ended: `Ok(())` or the fault, in kebab
/// case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    Ok,
    InvalidArgument,
    UnrepresentableWait,
    NonFiniteReading,
    ClockWentBackwards,
    Cancelled,
    DeadlineReached,
    NoProgress,
    TooManyWakeUps,
}

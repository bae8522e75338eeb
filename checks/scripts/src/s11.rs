//! Step 11 `admit` and `execute_admitted`: a script is either one pure
//! `admit` call, or one `execute_admitted` call in a scripted world of
//! virtual time (replies with costs, sleeps that may overrun, a cancel flag
//! that flips at a scripted point). The runner reports what it saw: the
//! decision, or the ordered events and the `Finish`.

use crate::s10::Kind;
use lab_wire::F64;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "kebab-case")]
pub enum Script {
    Admit(AdmitCall),
    Execute(Scenario),
}

/// The eight arguments of one `admit` call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdmitCall {
    pub method: String,
    pub status: u16,
    pub attempts: u32,
    pub limit: u32,
    pub left: F64,
    pub retry_after: Parsed,
    pub min_gap: F64,
    pub reserve: F64,
}

/// `Option<Result<u32, RetryAfterError>>` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "parsed", rename_all = "kebab-case")]
pub enum Parsed {
    None,
    Ok {
        delay: u32,
    },
    /// Step 10's error kinds, as step 10 carries them.
    Err {
        #[serde(with = "crate::named")]
        error: Kind,
    },
}

/// `Stop` itself: on the wire a kebab-case name, or `{"guard": {"fault":
/// name}}` for `Stop::Guard` (only from `guarded_read`, step 12); see
/// [`crate::named::stop`].
pub use lab_api::advanced::Stop as Reason;

/// What one `admit` call returned.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "kebab-case")]
pub enum Decision {
    Retry {
        wait: F64,
    },
    Refuse {
        #[serde(with = "crate::named::stop")]
        reason: Reason,
    },
    InvalidArgument,
}

/// One `execute_admitted` call and its world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub method: String,
    /// Absolute, on the clock's time line.
    pub deadline: F64,
    pub limit: u32,
    pub min_gap: F64,
    pub reserve: F64,
    /// The clock's reading until the first send.
    pub start: F64,
    /// The k-th send gets `replies[k]`, then the fallback for ever.
    pub replies: Vec<Reply>,
    /// A 200 with no Retry-After and a cost above 0.
    pub fallback: Reply,
    /// Added to the k-th non-zero sleep; 0 once they run out.
    pub overrun: Vec<F64>,
    /// Cancellation is visible once this many sends and non-zero sleeps
    /// have returned; `None`: never.
    pub cancel_after: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Vec<String>,
    pub received_at: i64,
    pub body: String,
    /// How long the send takes, in seconds (its timeout is ignored).
    pub cost: F64,
}

/// One thing the learner did to the world. `at` is the clock's time (from
/// the start) when it happened: shown, never judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    Send {
        method: String,
        timeout: F64,
        at: F64,
    },
    /// The response to send `reply` (from 0) was dropped.
    Close { reply: u32, at: F64 },
    /// A sleep of non-zero length.
    Sleep { seconds: F64, at: F64 },
}

/// A response handed back in the `Finish`, as the runner read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handed {
    /// Which send's response it is (by its close token), or `None` for a
    /// response the world never sent.
    pub reply: Option<u32>,
    pub status: u16,
    pub retry_after: Vec<String>,
    pub received_at: i64,
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "finish", rename_all = "kebab-case")]
pub enum Ending {
    Answer {
        response: Handed,
    },
    Stopped {
        #[serde(with = "crate::named::stop")]
        reason: Reason,
        last: Option<Handed>,
    },
    InvalidArgument,
    /// Only in `guarded_read`'s world (step 12): the sleeper's panic
    /// escaped the call.
    Panicked,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "kebab-case")]
pub enum Observed {
    Admit { decision: Decision },
    Execute { events: Vec<Event>, ending: Ending },
}

json_io!();

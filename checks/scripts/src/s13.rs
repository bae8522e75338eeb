//! Step 13: a script is a `Gate` script (ops on one gate, in order), a
//! fan-out scenario (a scripted `Env`, an inbound gate partly filled
//! beforehand, one `fan_out` call), or an HTTP mapping (one `to_http` call
//! on a given `fan_out` result).

use lab_wire::F64;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Script {
    Gate(GateScript),
    FanOut(FanOutScript),
    Http(HttpScript),
}

/// One `to_http(&result)` call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpScript {
    pub given: Given,
}

/// A `fan_out` result handed to `to_http`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Given {
    Ok { reports: Vec<Report> },
    InvalidArgument,
    Rejected,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateScript {
    /// The argument of `Gate::new`.
    pub capacity: u32,
    /// Run in order when `new` accepted.
    pub ops: Vec<GateOp>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum GateOp {
    /// `try_acquire()`; the pass (if any) is kept as number n, counting
    /// every `acquire` op from 0.
    Acquire,
    /// Drops pass number `pass` (nothing when that acquire got none).
    Drop {
        pass: usize,
    },
    /// `try_acquire()` inside `catch_unwind`, then a panic while the pass
    /// is held.
    PanicHolding,
    InUse,
    /// `threads` threads (2 or 3), each making one call (`try_acquire`,
    /// or dropping a pass it took beforehand), in every order of their
    /// steps on the gate's `Tally` with up to two stops (see the runner).
    Threads {
        threads: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum GateAnswer {
    Acquire {
        got: bool,
    },
    PanicHolding {
        got: bool,
    },
    InUse {
        value: u32,
    },
    Threads {
        /// More passes were alive at once than the capacity.
        over_capacity: bool,
        /// `in_use()` differed from the live passes when no call was in
        /// progress.
        in_use_off: bool,
        /// A `try_acquire` or a drop made no operation on a `Tally`.
        untallied: bool,
        /// A thread let go was held up twice: the gate waits for something
        /// beside its Tally (a lock, a sleep).
        #[serde(default)]
        waited: bool,
        /// At least one pass was granted.
        granted_any: bool,
        in_use_after: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: String,
    pub item: String,
    pub quantity: u32,
}

/// What a call answers (or, in an observation, what it answered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Answer {
    Offer {
        unit_cents: i64,
        quantity: u32,
        shipping_cents: i64,
        in_stock: bool,
    },
    Status {
        status: u16,
    },
    Connect,
    ConnectTimeout,
    Read,
    ReadTimeout,
    Write,
    WriteTimeout,
    RemoteProtocol,
    PoolTimeout,
    LocalProtocol,
    Decode,
    TimedOut,
    Panic,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// Seconds the call takes when its timeout allows.
    pub cost: F64,
    pub answer: Answer,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SupplierScript {
    pub name: String,
    /// One per call in order; calls beyond the list get the last again.
    pub attempts: Vec<Attempt>,
    /// `env.fraction(name)` in order, then 0.0.
    pub fractions: Vec<F64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FanOutScript {
    pub request: Request,
    /// In the order given to `fan_out`.
    pub suppliers: Vec<SupplierScript>,
    /// Outbound slots of the world.
    pub slots: u32,
    /// The inbound gate's capacity, and how many passes the runner holds
    /// while `fan_out` runs.
    pub capacity: u32,
    pub held: u32,
    pub start: F64,
    pub deadline: F64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "seen", rename_all = "kebab-case")]
pub enum Observed {
    /// `None` when `Gate::new` rejected, else one answer per op that has one.
    Gate {
        answers: Option<Vec<GateAnswer>>,
    },
    FanOut(FanOutSeen),
    /// What `to_http` answered.
    Http {
        status: u16,
        retry_after: Option<u32>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FanOutSeen {
    /// The suppliers' names in the order given (for display only).
    #[serde(default)]
    pub names: Vec<String>,
    pub result: Outcome,
    /// `inbound.in_use()` when `run_all` was first called; `None`: never.
    pub in_use_at_run_all: Option<u32>,
    /// `inbound.in_use()` after `fan_out` returned.
    pub in_use_after: u32,
    pub run_all_calls: u32,
    /// Virtual time when `fan_out` returned.
    pub returned_at: F64,
    /// One list per supplier, in the order given.
    pub timelines: Vec<Vec<Event>>,
    pub breaches: Vec<Breach>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Outcome {
    Ok {
        reports: Vec<Report>,
    },
    InvalidArgument,
    Rejected,
    /// `fan_out` unwound with the panic of a supplier's call.
    Panicked,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub supplier: String,
    pub outcome: SupplierOutcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum SupplierOutcome {
    Quote { total_cents: u64 },
    OutOfStock,
    NotFound,
    HttpStatus { status: u16 },
    TransportError,
    BadData,
    Protocol,
    Decode,
    TimedOut,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    Call {
        at: F64,
        timeout: F64,
        id: String,
        item: String,
        quantity: u32,
        /// When it returned (or its scripted panic unwound).
        ended: F64,
        answer: Answer,
    },
    Pause {
        at: F64,
        seconds: F64,
    },
    /// An `acquire` that had to wait, from `from` to `at`.
    SlotWait {
        from: F64,
        at: F64,
        got: bool,
    },
    /// Cancelled at `at` because another supplier's call panicked.
    Cancelled {
        at: F64,
    },
}

/// A broken rule of the world: `rule` is a kebab-case name
/// (`call-without-one-slot`, `sleep-holding-slot`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breach {
    pub rule: String,
    pub task: Option<usize>,
    pub at: F64,
}

json_io!();

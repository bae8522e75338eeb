//! Step 09 `Deadline`: a script is a start time, one `Deadline::new`, then
//! queries and clock moves in order; the runner answers every query.

use lab_wire::F64;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// The clock's reading when `new` is called.
    pub start: F64,
    /// The argument of `Deadline::new`.
    pub seconds: F64,
    /// Run in order when `new` accepted.
    pub ops: Vec<Op>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Op {
    /// Sets the shared clock (never backwards).
    At {
        t: F64,
    },
    Remaining,
    TimeoutFor {
        cap: F64,
    },
    Expired,
}

/// What the script saw: `None` when `new` rejected, else one answer per query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub answers: Option<Vec<Answer>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "query", rename_all = "kebab-case")]
pub enum Answer {
    Remaining {
        value: F64,
    },
    /// `None` stands for `Err(InvalidArgument)`.
    TimeoutFor {
        ok: Option<F64>,
    },
    Expired {
        value: bool,
    },
}

json_io!();

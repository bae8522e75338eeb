//! Step 10 `parse_retry_after`: a pure function, so a script is just the
//! call's two arguments and the observation is the whole `Result`.

use lab_api::advanced::RetryAfterError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Script {
    /// Every Retry-After field value of one response, in order.
    pub fields: Vec<String>,
    /// The time of receipt, in Unix seconds.
    pub received: i64,
}

/// What `parse_retry_after` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Observed {
    Ok { value: u32 },
    Err { error: Kind },
}

/// [`RetryAfterError`] on the wire, in kebab-case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Missing,
    Duplicate,
    Empty,
    Oversized,
    Syntax,
    InvalidDate,
    OverLimit,
}

impl Kind {
    /// Every kind, in the order of the contract's precedence.
    pub const ALL: [Kind; 7] = [
        Kind::Missing,
        Kind::Duplicate,
        Kind::Oversized,
        Kind::Empty,
        Kind::Syntax,
        Kind::InvalidDate,
        Kind::OverLimit,
    ];

    /// The variant's name, as in `RetryAfterError::InvalidDate`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Missing => "Missing",
            Kind::Duplicate => "Duplicate",
            Kind::Empty => "Empty",
            Kind::Oversized => "Oversized",
            Kind::Syntax => "Syntax",
            Kind::InvalidDate => "InvalidDate",
            Kind::OverLimit => "OverLimit",
        }
    }
}

impl From<RetryAfterError> for Kind {
    fn from(e: RetryAfterError) -> Kind {
        match e {
            RetryAfterError::Missing => Kind::Missing,
            RetryAfterError::Duplicate => Kind::Duplicate,
            RetryAfterError::Empty => Kind::Empty,
            RetryAfterError::Oversized => Kind::Oversized,
            RetryAfterError::Syntax => Kind::Syntax,
            RetryAfterError::InvalidDate => Kind::InvalidDate,
            RetryAfterError::OverLimit => Kind::OverLimit,
        }
    }
}

impl From<Kind> for RetryAfterError {
    fn from(k: Kind) -> RetryAfterError {
        match k {
            Kind::Missing => RetryAfterError::Missing,
            Kind::Duplicate => RetryAfterError::Duplicate,
            Kind::Empty => RetryAfterError::Empty,
            Kind::Oversized => RetryAfterError::Oversized,
            Kind::Syntax => RetryAfterError::Syntax,
            Kind::InvalidDate => RetryAfterError::InvalidDate,
            Kind::OverLimit => RetryAfterError::OverLimit,
        }
    }
}

impl From<Result<u32, RetryAfterError>> for Observed {
    fn from(r: Result<u32, RetryAfterError>) -> Observed {
        match r {
            Ok(value) => Observed::Ok { value },
            Err(e) => Observed::Err { error: e.into() },
        }
    }
}

json_io!();

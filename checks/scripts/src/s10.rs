//! Step 10 `parse_retry_after`: a pure function, so a script is just the
//! call's two arguments and the observation is the whole `Result`.

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
    Ok {
        value: u32,
    },
    Err {
        #[serde(with = "crate::named")]
        error: Kind,
    },
}

/// `RetryAfterError` itself, in kebab case on the wire (see
/// [`crate::named`]).
pub use lab_api::advanced::RetryAfterError as Kind;

impl From<Result<u32, Kind>> for Observed {
    fn from(r: Result<u32, Kind>) -> Observed {
        match r {
            Ok(value) => Observed::Ok { value },
            Err(error) => Observed::Err { error },
        }
    }
}

json_io!();

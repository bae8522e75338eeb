//! The types every learner's crate is written against (see CONTRACT.md in the
//! kit's root), and nothing else: `pub use lab_api::*;` brings a learner only
//! the types the contract names. The protocol between judge and runner lives
//! in its own crate, `lab-wire`.
//!
//! [`advanced`] holds the types of the advanced steps (learners bring them in
//! with `use lab_api::advanced::*;`).
//!
//! Learners never edit this crate; grading always builds the pristine copy.

pub mod advanced;

/// An argument outside a function's contract. The text is for humans; the checker ignores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidArgument(pub String);

/// Why `execute` gave up without a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecuteError {
    InvalidArgument(InvalidArgument),
    /// The budget was spent before a send could start.
    Timeout,
}

impl From<InvalidArgument> for ExecuteError {
    fn from(e: InvalidArgument) -> Self {
        ExecuteError::InvalidArgument(e)
    }
}

/// One HTTP response as the retry loop sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// The Retry-After header's raw value, if the server sent one.
    pub retry_after: Option<String>,
    /// Opaque to the loop; the checker puts a random id here.
    pub body: String,
}

/// How one `execute` call may spend its budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options<'a> {
    pub method: &'a str,
    /// Idempotency key.
    pub key: Option<&'a str>,
    /// Total budget of one execute call, in seconds.
    pub timeout: f64,
    /// Total sends allowed, the first one included.
    pub maximum: u32,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            method: "GET",
            key: None,
            timeout: 5.0,
            maximum: 3,
        }
    }
}

/// Backoff base used by `execute`, in seconds.
pub const BASE: f64 = 0.5;
/// Backoff cap used by `execute`, in seconds.
pub const CAP: f64 = 4.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_options_are_get_without_key_five_seconds_three_sends() {
        let o = Options::default();
        assert_eq!(
            (o.method, o.key, o.timeout, o.maximum),
            ("GET", None, 5.0, 3)
        );
    }

    #[test]
    fn invalid_argument_converts_into_execute_error() {
        let e: ExecuteError = InvalidArgument("x".into()).into();
        assert_eq!(
            e,
            ExecuteError::InvalidArgument(InvalidArgument("x".into()))
        );
    }
}

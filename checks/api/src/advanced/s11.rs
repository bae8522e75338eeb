//! Step 11: admission with a reserve, and the executor built on it.

use super::s12::SleepFault;

/// Why a call stops without an answer to hand back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stop {
    StatusNotAllowed,
    MethodNotAllowed,
    AttemptLimit,
    InvalidRetryAfter,
    InsufficientBudget,
    /// Only from `execute_admitted`.
    Cancelled,
    /// Only from `execute_admitted`.
    DeadlineReached,
    /// Only from `guarded_read`: the guard ended the read (a clock reading
    /// that is not finite or went backwards, or a not-before wait that failed).
    Guard(SleepFault),
}

/// The decision after one response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Admission {
    Retry { wait: f64 },
    Refuse(Stop),
}

/// How `execute_admitted` may spend its budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// Sends allowed in total, the first included.
    pub limit: u32,
    /// Shortest wait before a retry, in seconds.
    pub min_gap: f64,
    /// Budget kept back, in seconds.
    pub reserve: f64,
}

/// One response. Dropping it closes it; the checker notices when.
pub struct HttpResponse {
    pub status: u16,
    /// One entry per Retry-After field, in order; empty when there is none.
    pub retry_after: Vec<String>,
    /// Unix seconds (UTC) at receipt, by the local wall clock.
    pub received_at: i64,
    pub body: String,
    on_close: Option<Box<dyn FnOnce() + Send>>,
}

impl HttpResponse {
    /// A response nobody watches, for the learner's own tests.
    pub fn new(status: u16, retry_after: Vec<String>, received_at: i64, body: String) -> Self {
        HttpResponse {
            status,
            retry_after,
            received_at,
            body,
            on_close: None,
        }
    }

    /// A response that runs `on_close` when it is closed (the checker's).
    #[doc(hidden)]
    pub fn watched(
        status: u16,
        retry_after: Vec<String>,
        received_at: i64,
        body: String,
        on_close: Box<dyn FnOnce() + Send>,
    ) -> Self {
        let mut response = HttpResponse::new(status, retry_after, received_at, body);
        response.on_close = Some(on_close);
        response
    }
}

impl Drop for HttpResponse {
    fn drop(&mut self) {
        if let Some(close) = self.on_close.take() {
            close();
        }
    }
}

impl std::fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("retry_after", &self.retry_after)
            .field("received_at", &self.received_at)
            .field("body", &self.body)
            .finish()
    }
}

/// Sends one request and waits for its response.
pub trait Transport {
    fn send(&mut self, method: &str, timeout: f64) -> HttpResponse;
}

/// How `execute_admitted` ended.
#[derive(Debug)]
pub enum Finish {
    /// The status is not one to retry: this is the answer.
    Answer(HttpResponse),
    /// The call ended for `reason`; `last` is the last response, when there
    /// is one to hand back.
    Stopped {
        reason: Stop,
        last: Option<HttpResponse>,
    },
}

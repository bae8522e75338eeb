//! Step 13: fan-out to several suppliers under one budget.

/// One request for quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    pub id: String,
    pub item: String,
    pub quantity: u32,
}

/// How one supplier's part of a fan-out ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SupplierOutcome {
    Quote {
        total_cents: u64,
    },
    OutOfStock,
    NotFound,
    /// A status other than 200, 404 and 503.
    HttpStatus(u16),
    /// Transient on both attempts.
    Unavailable,
    BadData,
    Protocol,
    Decode,
    Panicked,
    TimedOut,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupplierReport {
    pub supplier: String,
    pub outcome: SupplierOutcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FanOutError {
    InvalidArgument,
    Rejected,
}

/// The world of one fan-out (implemented with step 13).
pub struct Env {
    _private: (),
}

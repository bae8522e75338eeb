//! The JSON-lines protocol between the judge and the runner, kept apart from
//! `lab-api` so that a learner's `pub use lab_api::*;` brings only the
//! contract's types. [`live`] names the demonstrations of `lab.sh try`;
//! the advanced steps' checker scripts, which travel inside
//! [`Call::Advanced`] and [`Value::Json`], have their shapes in the
//! `lab-scripts` crate.
//!
//! The judge writes a cases file: one [`Header`] line, then one [`Case`] per
//! line. The runner appends one [`Outcome`] per case to the outcomes file and
//! flushes it, so a runner that dies or hangs points at its case. The runner
//! reports what it observed; it never judges.

pub mod http;
pub mod live;

pub use live::Live;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Bumped whenever a wire type changes shape.
pub const PROTOCOL: &str = "retry-lab.wire/5";

/// The descriptor a runner reads its cases from (`RUNNER FROM [careful]`):
/// a sealed file, read from its start.
pub const CASES_FD: i32 = 3;
/// The descriptor a runner appends its outcome lines to.
pub const OUTCOMES_FD: i32 = 4;
/// A descriptor number the judge keeps free for runners. It once carried a
/// secret that signed a runner's kit faults; code that runs before `main`
/// could read it first, so no runner is handed one and nothing a runner
/// says makes a kit fault.
pub const TOKEN_FD: i32 = 5;
/// Where descriptors cannot be handed by number (Windows), the prefix of
/// the variable that carries the handle handed under a number instead:
/// `LAB_HANDLE_3` for the cases, `LAB_HANDLE_4` for the outcomes.
pub const HANDLE_VAR: &str = "LAB_HANDLE_";

/// First line of every cases file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub protocol: String,
}

/// An `f64` on the wire as its Rust text (`"NaN"`, `"inf"`, `"-0.0"`,
/// `"0.015625"`): exact, and JSON has no NaN or infinities.
#[derive(Debug, Clone, Copy)]
pub struct F64(pub f64);

impl PartialEq for F64 {
    /// Bit equality: the wire must carry -0.0 and NaN unchanged.
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Serialize for F64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:?}", self.0))
    }
}

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse::<f64>()
            .map(F64)
            .map_err(|_| serde::de::Error::custom(format!("not a number: {text:?}")))
    }
}

/// One call of one learner function, with a random id its outcome must echo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub id: String,
    pub call: Call,
}

/// The eight functions' arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fn", rename_all = "snake_case")]
pub enum Call {
    Retryable {
        status: u16,
    },
    /// Several statuses in one case (step 01's exhaustive sweep); answered
    /// with [`Value::Bools`] in the same order.
    RetryableMany {
        statuses: Vec<u16>,
    },
    ReplaySafe {
        method: String,
        key: Option<String>,
    },
    Remaining {
        deadline: F64,
        now: F64,
    },
    Backoff {
        attempt: u32,
        base: F64,
        cap: F64,
    },
    Jitter {
        delay: F64,
        fraction: F64,
    },
    WaitDelay {
        local: F64,
        retry_after: Option<String>,
    },
    CanAttempt {
        attempts: u32,
        maximum: u32,
        wait: F64,
        budget: F64,
    },
    /// Boxed: a scenario is the largest input by far, and the judge holds
    /// tens of thousands of calls at once (step 01's), each as large as
    /// the largest variant.
    Execute {
        scenario: Box<Scenario>,
    },
    /// A call of an advanced step (09–13): the step's own script, whose
    /// shape lives in [`crate::scripts`]; answered with [`Value::Json`].
    Advanced {
        step: String,
        input: serde_json::Value,
    },
}

/// A scripted world for one `execute` call (see the clock model in the kit's
/// contract document): time moves only inside `send` and `sleep`, except for
/// a one-time `gap` right after the first clock reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub method: String,
    pub key: Option<String>,
    pub timeout: F64,
    pub maximum: u32,
    /// The clock's first reading.
    pub start: F64,
    /// Added to the clock right after its first reading.
    pub gap: F64,
    /// Answers to the sends, in order.
    pub replies: Vec<Reply>,
    /// The answer to every send after `replies` run out.
    pub fallback: Reply,
    /// Extra time taken by the k-th non-zero sleep.
    pub oversleep: Vec<F64>,
    /// Values of `random_fraction`, in order; 0.0 once they run out.
    pub fractions: Vec<F64>,
}

/// A response, and how long it takes to arrive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: String,
    pub cost: F64,
}

/// What happened to one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub id: String,
    pub observed: Observed,
    /// Where what the learner's code printed during this case lies in the
    /// runner's stdout and stderr files, when it printed anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<Printed>,
}

/// A line of the outcomes stream for a case that has run long and not
/// answered yet: what its call did so far. The runner writes one (and
/// rewrites it as the call goes on) only while that case is the current
/// one, always before its outcome; it is never progress. Shown if the case
/// never answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Partial {
    /// The id of the case still running.
    pub partial: String,
    pub so_far: SoFar,
}

/// What a call that has not answered did so far in its scripted world
/// (step 08's): its first sends and non-zero sleeps, when each began, and
/// its other uses of the world counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SoFar {
    /// The first [`SO_FAR_EVENTS`] events, in order.
    pub events: Vec<Event>,
    /// The clock's time when each of `events` began, from the start.
    pub times: Vec<F64>,
    /// Events after those listed.
    pub more: u32,
    pub draws: u32,
    pub clock_reads: u32,
}

/// How many events a [`Partial`] lists at most (its line stays short).
pub const SO_FAR_EVENTS: usize = 64;

/// Byte ranges `[from, to)` of the runner's stdout and stderr files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Printed {
    pub stdout: [u64; 2],
    pub stderr: [u64; 2],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Observed {
    Returned {
        value: Value,
    },
    /// The call panicked; `todo` is set for `todo!()` and `unimplemented!()`.
    Panicked {
        message: String,
        todo: bool,
        /// Where it panicked (`file:line:column`), when the hook knew.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// A call kept using its scripted world far beyond any script's need.
    Runaway {
        events: u32,
        /// What it kept using, as the world counted it.
        #[serde(default)]
        of: Use,
    },
}

/// What a runaway call kept using: the use of the world that passed its
/// limit (`World` when the world counts every use together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Use {
    #[default]
    World,
    Sends,
    Sleeps,
    ClockReadings,
    CancelChecks,
}

/// A returned value, one shape per return type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Value {
    Bool {
        value: bool,
    },
    /// The answers to a `RetryableMany`, in order.
    Bools {
        values: Vec<bool>,
    },
    Float {
        value: F64,
    },
    /// `Result<f64, InvalidArgument>`: `None` stands for `Err`.
    Checked {
        ok: Option<F64>,
    },
    Trace {
        trace: Trace,
    },
    /// What an advanced step's script observed (see [`crate::scripts`]).
    Json {
        value: serde_json::Value,
    },
}

/// Everything observable of one `execute` call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Sends and non-zero sleeps, in order.
    pub events: Vec<Event>,
    pub ending: Ending,
    /// The clock's time when each event began, from the scenario's start.
    /// Not judged; shown in timelines.
    #[serde(default)]
    pub times: Vec<F64>,
    /// Not judged; shown to help a learner read a timeline.
    pub draws: u32,
    /// Not judged; shown to help a learner read a timeline.
    pub clock_reads: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    Send { timeout: F64 },
    Sleep { seconds: F64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Ending {
    Ok {
        status: u16,
        retry_after: Option<String>,
        body: String,
    },
    InvalidArgument,
    Timeout,
}

/// One line of JSON (without the newline). These codecs live here, not in
/// generic code of their callers, so they are compiled once and optimised
/// (see the profile in the workspace manifest) even in the judge's dev build.
pub fn to_line<T: LineType>(value: &T) -> String {
    value.line()
}

/// The protocol's line types.
pub trait LineType {
    fn line(&self) -> String;
}

macro_rules! line_type {
    ($($t:ty => $parse:ident),*) => {$(
        impl LineType for $t {
            fn line(&self) -> String {
                serde_json::to_string(self).expect("wire types always serialise")
            }
        }
        /// Parses one line of this type.
        pub fn $parse(line: &str) -> Result<$t, String> {
            serde_json::from_str(line).map_err(|e| e.to_string())
        }
    )*};
}

line_type!(
    Header => parse_header,
    Case => parse_case,
    Outcome => parse_outcome,
    Partial => parse_partial
);

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(x: f64) -> f64 {
        let text = serde_json_like(x);
        text.parse::<f64>().unwrap()
    }

    fn serde_json_like(x: f64) -> String {
        format!("{x:?}")
    }

    #[test]
    fn floats_keep_their_exact_bits_through_text() {
        for x in [
            0.0,
            -0.0,
            1.0 / 64.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            5e-324,
        ] {
            assert_eq!(round_trip(x).to_bits(), x.to_bits(), "{x:?}");
        }
        assert!(round_trip(f64::NAN).is_nan());
    }

    #[test]
    fn f64_equality_tells_negative_zero_apart() {
        assert_ne!(F64(0.0), F64(-0.0));
        assert_eq!(F64(f64::NAN), F64(f64::NAN));
    }
}

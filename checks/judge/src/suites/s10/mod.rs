//! Step 10 parse_retry_after: the table, then generated values per clause.
//! The function is pure: a script is its two arguments, the observation the
//! whole `Result`. Generated dates are built from the judge's own calendar
//! (`s10/calendar.rs`) and written in the three forms; their expectation is
//! the meaning of what was written, and `s10/model.rs` parses text back to
//! check the table and the generators against each other in unit tests.
//!
//! Never sent: receipt times outside the years 1970–2199, the RFC 850
//! dates `calendar::unsent` names (where the slot `yy ≡ R + 50 (mod 100)`
//! could be read by year alone or with second 60 as 59), and a value whose
//! trimmed length in bytes and in characters fall on both sides of 128.

mod calendar;
mod generate;
mod model;
mod table;
mod view;

use super::{fixture, Builder};
use crate::rng::Gen;
use lab_scripts::s10::{Observed, Script};

pub use model::expected;

/// Adds one call. Its expectation comes from the hand table or from how the
/// generator built the value; the parser model must agree (checked in
/// every debug build, and for many seeds by the unit tests).
fn add(b: &mut Builder, key: &str, fields: Vec<String>, received: i64, expect: Observed) {
    let s = Script { fields, received };
    debug_assert_eq!(model::model(&s), expect, "{}/{key}: {s:?}", b.step());
    b.add_script(key, &s, expect);
}

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let keys = [
        "missing-or-duplicate",
        "empty-or-oversized",
        "delay-seconds",
        "delay-limit",
        "imf-fixdate",
        "syntax",
        "asctime",
        "names-and-zone",
        "invalid-date",
        "leap-years",
        "weekday",
        "second-60",
        "past-is-zero",
        "rfc850-window",
        "century-boundaries",
        "random",
    ];
    let mut b = Builder::new(step, &keys);
    for case in fixture::table(step) {
        let (s, expect) = table::from_table(&case);
        add(&mut b, fixture::clause(&case), s.fields, s.received, expect);
    }
    generate::generated(&mut b, g);
    b
}

advanced_step!(Observed);

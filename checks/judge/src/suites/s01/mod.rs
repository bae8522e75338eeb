//! Step 01 retryable: the table, then every u16.

mod view;

use super::{fixture, Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::Call;

pub fn build(step: &'static str, _g: &mut Gen) -> Builder {
    let mut b = Builder::new(step, &["true-for-four", "false-for-others"]);
    for case in fixture::table(step) {
        let status = fixture::uint(&case, "status") as u16;
        b.add(
            fixture::clause(&case),
            Call::Retryable { status },
            Expect::Bool(fixture::boolean(&case, "expect")),
        );
    }
    for status in 0..=u16::MAX {
        let expect = oracle::retryable(status);
        let key = if expect {
            "true-for-four"
        } else {
            "false-for-others"
        };
        b.add(key, Call::Retryable { status }, Expect::Bool(expect));
    }
    b
}

core_step!();

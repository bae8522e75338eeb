//! Step 06 wait_delay: the table, then random Retry-After texts built from
//! digit strings, half of them spoiled in ways the contract rejects.

mod view;

use super::{fixture, Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::{Call, F64};

fn digits(g: &mut Gen) -> String {
    let len = if g.chance(1, 8) {
        g.int(17, 60)
    } else {
        g.int(1, 4)
    };
    (0..len)
        .map(|_| char::from(b'0' + g.below(10) as u8))
        .collect()
}

fn pad(g: &mut Gen) -> String {
    (0..g.int(0, 2)).map(|_| *g.pick(&[' ', '\t'])).collect()
}

fn spoil(g: &mut Gen, text: &str) -> String {
    match g.below(8) {
        0 => format!("+{text}"),
        1 => format!("-{text}"),
        2 => format!("{text}.0"),
        3 => format!("{text}\n"),
        4 => format!("\u{a0}{text}"),
        5 => format!("{text}e1"),
        6 => text
            .chars()
            .map(|c| char::from_u32(c as u32 - '0' as u32 + 0xFF10).unwrap_or(c))
            .collect(),
        _ => format!("{text} s"),
    }
}

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    // The general rule before the way of writing delay-seconds, whose rows
    // also take the longer wait: a mistake in taking it shows first under
    // the clause that states it.
    let keys = [
        "not-delay-seconds",
        "longer-wins",
        "trims-spaces-tabs",
        "huge",
        "random",
    ];
    let mut b = Builder::new(step, &keys);
    for case in fixture::table(step) {
        let call = Call::WaitDelay {
            local: F64(fixture::float(&case, "local")),
            retry_after: fixture::opt_text(&case, "retry_after"),
        };
        let expect = match case["expect"].as_str() {
            Some("huge") => Expect::Huge,
            _ => Expect::Float(fixture::float(&case, "expect")),
        };
        b.add(fixture::clause(&case), call, expect);
    }
    for _ in 0..400 {
        let local = g.sixty_fourths(0, 64 * 16);
        let core = digits(g);
        let text = if g.chance(1, 2) {
            spoil(g, &core)
        } else {
            format!("{}{core}{}", pad(g), pad(g))
        };
        let retry_after = if g.chance(1, 10) { None } else { Some(text) };
        let value = oracle::wait_delay(local, retry_after.as_deref());
        let expect = if value >= oracle::EXACT_LIMIT {
            Expect::Huge
        } else {
            Expect::Float(value)
        };
        b.add(
            "random",
            Call::WaitDelay {
                local: F64(local),
                retry_after,
            },
            expect,
        );
    }
    b
}

core_step!(shrinks, domains);

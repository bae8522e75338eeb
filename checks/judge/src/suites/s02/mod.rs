//! Step 02 replay_safe: the table, then random methods in random ASCII case.

mod view;

use super::{fixture, Builder, Expect};
use crate::oracle;
use crate::rng::Gen;
use lab_wire::Call;

const KEYS: [&str; 7] = [
    "safe-methods",
    "post-with-key",
    "post-without-key",
    "other-methods",
    "whitespace",
    "look-alikes",
    "random",
];

fn random_case(g: &mut Gen, word: &str) -> String {
    word.chars()
        .map(|c| {
            if g.chance(1, 2) {
                c.to_ascii_lowercase()
            } else {
                c
            }
        })
        .collect()
}

fn random_key(g: &mut Gen) -> Option<String> {
    match g.below(6) {
        0 => None,
        1 => Some(g.pick(&["", " ", "\t", "\u{a0}", " \u{3000} "]).to_string()),
        2 => Some(format!(" {} ", g.id("k-"))),
        _ => Some(g.id("idem-")),
    }
}

pub fn build(step: &'static str, g: &mut Gen) -> Builder {
    let mut b = Builder::new(step, &KEYS);
    for case in fixture::table(step) {
        let call = Call::ReplaySafe {
            method: fixture::opt_text(&case, "method").expect("method is a string"),
            key: fixture::opt_text(&case, "key"),
        };
        b.add(
            fixture::clause(&case),
            call,
            Expect::Bool(fixture::boolean(&case, "expect")),
        );
    }
    let words = [
        "GET", "HEAD", "PUT", "DELETE", "POST", "PATCH", "OPTIONS", "TRACE", "CONNECT", "FETCH",
    ];
    for _ in 0..400 {
        let word = *g.pick(&words);
        let mut method = random_case(g, word);
        match g.below(10) {
            0 => method.insert(0, *g.pick(&[' ', '\t', '\n'])),
            1 => method.push(*g.pick(&[' ', '\t', '\u{a0}'])),
            _ => {}
        }
        let key = random_key(g);
        let expect = oracle::replay_safe(&method, key.as_deref());
        b.add(
            "random",
            Call::ReplaySafe { method, key },
            Expect::Bool(expect),
        );
    }
    b
}

core_step!(shrinks, domains);

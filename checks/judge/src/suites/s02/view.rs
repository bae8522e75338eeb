//! How step 02 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::show::opt_str;
use crate::{oracle, simpler};
use lab_wire::Call;

pub fn show_call(call: &Call) -> String {
    match call {
        Call::ReplaySafe { method, key } => format!("replay_safe({method:?}, {})", opt_str(key)),
        other => format!("{other:?}"),
    }
}

pub fn shrink(call: &Call) -> Vec<Call> {
    let mut out = Vec::new();
    if let Call::ReplaySafe { method, key } = call {
        for m in simpler::texts(method) {
            out.push(Call::ReplaySafe {
                method: m,
                key: key.clone(),
            });
        }
        let mut keys = vec![None, Some("k".to_string())];
        if let Some(k) = key {
            keys.extend(simpler::texts(k).into_iter().map(Some));
        }
        for k in keys.into_iter().filter(|k| k != key) {
            out.push(Call::ReplaySafe {
                method: method.clone(),
                key: k,
            });
        }
    }
    out
}

/// The clause whose rule decides a call (see `Step::domain`): a listed
/// method in ASCII case (POST by its key); then a listed method with white
/// space or control characters around it; then a method with a character
/// outside ASCII that is not white space; else another method.
pub fn domain(call: &Call) -> Option<&'static str> {
    let Call::ReplaySafe { method, key } = call else {
        return None;
    };
    let listed = |m: &str| {
        ["GET", "HEAD", "PUT", "DELETE", "POST"]
            .iter()
            .any(|l| m.eq_ignore_ascii_case(l))
    };
    if method.eq_ignore_ascii_case("POST") {
        let has_key = key.as_deref().is_some_and(|k| !k.trim().is_empty());
        return Some(if has_key {
            "post-with-key"
        } else {
            "post-without-key"
        });
    }
    if listed(method) {
        return Some("safe-methods");
    }
    if listed(method.trim_matches(|c: char| c.is_whitespace() || c.is_control())) {
        return Some("whitespace");
    }
    if method.chars().any(|c| !c.is_ascii() && !c.is_whitespace()) {
        return Some("look-alikes");
    }
    Some("other-methods")
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::ReplaySafe { method, key } => {
            Some(Expect::Bool(oracle::replay_safe(method, key.as_deref())))
        }
        _ => None,
    }
}

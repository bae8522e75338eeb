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

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::ReplaySafe { method, key } => {
            Some(Expect::Bool(oracle::replay_safe(method, key.as_deref())))
        }
        _ => None,
    }
}

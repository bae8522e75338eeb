//! How values are written for a learner, shared by the renderer and the
//! steps' own views. A leaf: it imports nothing of the judge.

/// A float as Rust source.
pub fn float(x: f64) -> String {
    if x.is_nan() {
        "f64::NAN".into()
    } else if x == f64::INFINITY {
        "f64::INFINITY".into()
    } else if x == f64::NEG_INFINITY {
        "f64::NEG_INFINITY".into()
    } else {
        format!("{x:?}")
    }
}

/// An optional text as Rust source: `Some("…")` or `None`.
pub fn opt_str(s: &Option<String>) -> String {
    match s {
        Some(s) => format!("Some({s:?})"),
        None => "None".into(),
    }
}

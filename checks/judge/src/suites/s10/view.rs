//! How step 10 reads for a learner: the call as Rust to paste, the result as
//! `Ok`/`Err`, and the `Observable` comparison (exact).

use super::super::Observable;
use super::calendar::iso;
use lab_scripts::s10::{Observed, Script};
use serde_json::Value;

impl Observable for Observed {
    /// The exact `u32`, or the exact error variant.
    fn same(&self, got: &Self) -> bool {
        self == got
    }

    /// `Ok(n)` or `Err(RetryAfterError::Kind)`.
    fn show(&self) -> String {
        match self {
            Observed::Ok { value } => format!("Ok({value})"),
            Observed::Err { error } => format!("Err(RetryAfterError::{error:?})"),
        }
    }
}

/// A field as Rust source: long runs of one character as `.repeat(n)`.
fn field_expr(text: &str) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut pieces: Vec<(String, bool)> = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..].iter().take_while(|&&c| c == chars[i]).count();
        if run >= 16 {
            if !lit.is_empty() {
                pieces.push((format!("{lit:?}"), false));
                lit.clear();
            }
            pieces.push((format!("{:?}.repeat({run})", chars[i].to_string()), true));
        } else {
            lit.extend(&chars[i..i + run]);
        }
        i += run;
    }
    if pieces.is_empty() {
        return (format!("{lit:?}"), false);
    }
    if !lit.is_empty() {
        pieces.push((format!("{lit:?}"), false));
    }
    let mut out = String::new();
    for (n, (p, repeat)) in pieces.iter().enumerate() {
        out += &match (n, repeat) {
            (0, true) => p.clone(),
            (0, false) => format!("String::from({p})"),
            (_, true) => format!(" + &{p}"),
            (_, false) => format!(" + {p}"),
        };
    }
    (out, true)
}

/// The call as Rust a learner can paste, with the receipt time as a date.
pub fn show_input(input: &Value) -> String {
    let Some(s) = super::super::read::<Script>(input) else {
        return input.to_string();
    };
    let mut lines = Vec::new();
    let mut args = Vec::new();
    for (i, f) in s.fields.iter().enumerate() {
        match field_expr(f) {
            (expr, true) => {
                lines.push(format!(
                    "let f{i} = {expr}; // {} characters",
                    f.chars().count()
                ));
                args.push(format!("f{i}.as_str()"));
            }
            (lit, false) => args.push(lit),
        }
    }
    let date = if (0..=253_402_300_799).contains(&s.received) {
        format!(" // received {}", iso(s.received))
    } else {
        String::new()
    };
    lines.push(format!(
        "parse_retry_after(&[{}], {}){date}",
        args.join(", "),
        s.received
    ));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::model::{self, err};
    use super::super::ThisStep;
    use super::*;
    use crate::suites::{Expectation, Step};
    use lab_scripts::s10::Kind;

    #[test]
    fn known_wrong_answers_are_told_apart() {
        // A fixed 19xx century reads 94 as 1994, a Sunday, in the past.
        let s = Script {
            fields: vec!["Sunday, 06-Nov-94 08:49:37 GMT".into()],
            received: 3_799_958_400,
        };
        let fixed = Observed::Ok { value: 0 };
        assert!(!model::model(&s).same(&fixed));
        // A malformed value is never 0.
        let s = Script {
            fields: vec!["-0".into()],
            received: 0,
        };
        let e = model::model(&s);
        assert!(!e.same(&fixed));
        assert!(e.matches(&serde_json::to_value(err(Kind::Syntax)).unwrap()));
        assert!(!e.matches(&serde_json::json!("Syntax")));
    }

    #[test]
    fn long_fields_are_shown_as_repeats() {
        let input = serde_json::to_value(Script {
            fields: vec![format!("{}7", "0".repeat(128)), "5".into()],
            received: 0,
        })
        .unwrap();
        assert_eq!(
            show_input(&input),
            "let f0 = \"0\".repeat(128) + \"7\"; // 129 characters\n\
             parse_retry_after(&[f0.as_str(), \"5\"], 0) // received 1970-01-01T00:00:00Z"
        );
        assert_eq!(
            ThisStep.show_json(&serde_json::to_value(err(Kind::InvalidDate)).unwrap()),
            "Err(RetryAfterError::InvalidDate)"
        );
    }
}

//! Step 10's generators: valid dates in the three forms, spoiled ones and
//! delays, built per clause from the judge's calendar, then random ones.
//! `written.rs` writes values, `spoil.rs` spoils valid dates, and
//! `fields.rs` and `dates.rs` build each clause's checks from them.

mod dates;
mod fields;
mod spoil;
mod written;

use super::super::Builder;
use super::add;
use super::model::{Form, Written};
use crate::rng::Gen;
use written::padded;

const FORMS: [Form; 3] = [Form::Imf, Form::Rfc850, Form::Asctime];

/// Every clause's generated checks, in the suite's order (each draws from
/// `g` in turn, so the order is part of what a seed means).
pub(super) fn generated(b: &mut Builder, g: &mut Gen) {
    fields::fields(b, g);
    fields::delays(b, g);
    dates::forms(b, g);
    dates::spoiled(b, g);
    dates::calendar_rules(b, g);
    dates::random(b, g);
}

/// Adds a valid date under `key`, padded, read at `received`, and its meaning.
fn dated(b: &mut Builder, g: &mut Gen, key: &str, w: &Written, received: i64) {
    let text = padded(g, &w.text());
    add(b, key, vec![text], received, w.meaning(received));
}

#[cfg(test)]
mod tests {
    use super::super::calendar::{self, year_of};
    use super::super::model::{self, err};
    use super::super::{build, ThisStep};
    use super::*;
    use crate::suites::{fixture, Check, Expect};
    use lab_wire::scripts::s10::Script;
    use lab_wire::scripts::s10::{Kind, Observed};
    use lab_wire::Call;

    const STEP: &str = ThisStep::ID;

    fn scripts(seed: u64) -> Vec<(String, Script, Observed)> {
        let mut g = Gen::fork(seed, STEP);
        let b = build(STEP, &mut g);
        let mut out = Vec::new();
        for clause in b.finish("parse_retry_after").clauses {
            for Check { call, expect, .. } in clause.checks {
                let (Call::Advanced { input, .. }, Expect::Script(e)) = (call, expect) else {
                    panic!("step 10 makes advanced calls only");
                };
                let s: Script = serde_json::from_value(input).unwrap();
                let o = *e.as_any().downcast_ref::<Observed>().unwrap();
                out.push((clause.key.clone(), s, o));
            }
        }
        out
    }

    #[test]
    fn generated_expectations_agree_with_the_model() {
        for seed in 0..40 {
            for (key, s, expect) in scripts(seed) {
                assert_eq!(model::model(&s), expect, "seed {seed}, {key}: {s:?}");
            }
        }
    }

    #[test]
    fn nothing_outside_the_contract_is_sent() {
        for seed in 0..40 {
            for (key, s, _) in scripts(seed) {
                let r = year_of(s.received);
                assert!((1970..=2199).contains(&r), "{key}: {s:?}");
                for f in &s.fields {
                    // Bytes and characters agree about the size limit.
                    let core = f.trim_matches([' ', '\t']);
                    let chars = core.chars().count();
                    assert_eq!(core.len() > 128, chars > 128, "{key}: {f:?}");
                    if let Some(w) = model::parse(core.as_bytes()) {
                        if w.form == Form::Rfc850 {
                            let unsent = calendar::unsent(w.year, w.written(), s.received);
                            assert!(!unsent, "{key}: {s:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_clause_sees_its_outcomes() {
        let all = scripts(7);
        let has = |key: &str, o: &dyn Fn(&Observed) -> bool| {
            all.iter()
                .any(|(k, _, e)| k == &format!("{STEP}/{key}") && o(e))
        };
        let kind = |k: Kind| move |o: &Observed| *o == err(k);
        assert!(has("invalid-date", &kind(Kind::InvalidDate)));
        assert!(has("weekday", &kind(Kind::InvalidDate)));
        assert!(has("second-60", &kind(Kind::InvalidDate)));
        assert!(has(
            "second-60",
            &|o| matches!(o, Observed::Ok { value } if *value > 0)
        ));
        assert!(has("leap-years", &kind(Kind::InvalidDate)));
        assert!(has("delay-limit", &kind(Kind::OverLimit)));
        assert!(has(
            "rfc850-window",
            &|o| matches!(o, Observed::Ok { value } if *value > 0)
        ));
        assert!(has(
            "century-boundaries",
            &|o| matches!(o, Observed::Ok { value } if *value > 0)
        ));
        assert!(has("century-boundaries", &|o| *o == Observed::Ok { value: 0 }));
        let generated = all.len() - fixture::table(STEP).len();
        assert!(
            (550..=700).contains(&generated),
            "{generated} generated cases"
        );
    }
}

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
use lab_scripts::s10::Observed;
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
    let meaning = w.meaning(received);
    add(b, filed(key, &meaning), vec![text], received, meaning);
}

/// The clause a dated case belongs to: a valid date at or before its
/// receipt (a delay of 0) reaches the rule of `past-is-zero`, so a case of
/// an earlier clause that comes to one is filed there instead. Each
/// clause's cases then stay clear of the special cases a later clause
/// owns, and a mistake about past dates shows first under the clause that
/// names it.
fn filed<'k>(key: &'k str, meaning: &Observed) -> &'k str {
    const BEFORE_PAST: [&str; 7] = [
        "imf-fixdate",
        "asctime",
        "names-and-zone",
        "invalid-date",
        "leap-years",
        "weekday",
        "second-60",
    ];
    if *meaning == (Observed::Ok { value: 0 }) && BEFORE_PAST.contains(&key) {
        "past-is-zero"
    } else {
        key
    }
}

#[cfg(test)]
mod tests {
    use super::super::calendar::{self, year_of};
    use super::super::model::{self, err};
    use super::super::{build, ThisStep};
    use super::*;
    use crate::suites::{fixture, Check, Expect};
    use lab_scripts::s10::Kind;
    use lab_scripts::s10::Script;
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
    fn no_clause_before_past_is_zero_reaches_a_past_date() {
        // Every clause from the first date form to `second-60`: a date
        // at or before its receipt is `past-is-zero`'s (hand cases too).
        let keys: Vec<String> = [
            "imf-fixdate",
            "asctime",
            "names-and-zone",
            "invalid-date",
            "leap-years",
            "weekday",
            "second-60",
        ]
        .iter()
        .map(|k| format!("{STEP}/{k}"))
        .collect();
        let mut past = 0;
        for seed in 0..20 {
            for (key, s, expect) in scripts(seed) {
                let zero = expect == (Observed::Ok { value: 0 });
                assert!(!(zero && keys.contains(&key)), "seed {seed}, {key}: {s:?}");
                past += usize::from(zero && key == format!("{STEP}/past-is-zero"));
            }
        }
        assert!(past > 20 * 5, "{past}");
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
    fn generated_receipts_reach_the_calendars_edges() {
        // The receipts of the generated `rfc850-window` cases over 40 seeds
        // (the hand table's rows come first in the clause and are skipped):
        // all the receipt years the contract allows, and, for the slot
        // `yy ≡ R + 50`, the days where a receipt's civil date slips first.
        let table_rows = fixture::table(STEP)
            .iter()
            .filter(|c| fixture::clause(c) == "rfc850-window")
            .count();
        let mut years = std::collections::BTreeSet::new();
        let (mut slot, mut on_edge) = (0, 0);
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let window = scripts(seed)
                .into_iter()
                .filter(|(key, _, _)| key == "10/rfc850-window")
                .skip(table_rows);
            for (_, s, _) in window {
                let (r, month, day) = calendar::civil(s.received.div_euclid(calendar::DAY));
                years.insert(r);
                let w = model::parse(s.fields[0].trim_matches([' ', '\t']).as_bytes())
                    .expect("a generated window case is a date");
                if w.year != (r + 50).rem_euclid(100) {
                    continue;
                }
                slot += 1;
                let edge = match (month, day) {
                    (_, 1) | (3, 1..=6) | (2, 28 | 29) => true,
                    _ => day > calendar::month_length(r, month) - 4,
                };
                on_edge += usize::from(edge);
                let century = if r < 2100 { 2000 } else { 2100 };
                seen.insert(match (month, day) {
                    (3, 1 | 2) => format!("{century} 1-2 Mar"),
                    (2, 29) => format!("{century} 29 Feb"),
                    (2, 28) => format!("{century} 28 Feb"),
                    (_, 1) => format!("{century} 1st"),
                    (_, 29..=31) => format!("{century} 29th-31st"),
                    _ => "other".into(),
                });
            }
        }
        for y in [1970, 1999, 2000, 2049, 2099, 2100, 2149, 2199] {
            assert!(years.contains(&y), "no receipt in {y}: {years:?}");
        }
        for c in [2000, 2100] {
            for d in ["1-2 Mar", "29 Feb", "28 Feb", "1st", "29th-31st"] {
                assert!(seen.contains(&format!("{c} {d}")), "{c} {d}: {seen:?}");
            }
        }
        assert!(2 * on_edge > slot, "{on_edge} of {slot} on an edge day");
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

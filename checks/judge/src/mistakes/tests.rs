//! Unit tests of the known mistakes and their fingerprints.

use super::*;
use crate::suites;

#[test]
fn random_ids_are_found_only_as_the_kit_draws_them() {
    let text = r#"{"body":"body-0123456789abcdef","x":"-1234567890123456.5","k":"key-0123456789abcdef0","b":"body-0123456789abcdef"}"#;
    assert_eq!(ids_in(text), ["0123456789abcdef", "1234567890123456"]);
    assert!(ids_in("body-0123456789ABCDEF").is_empty());
    assert!(hex_run("x0123456789abcdefy") && !hex_run("0123456789abcde-f"));
    // An answer that echoes its input's id reads the same under any seed.
    let answer = |id: &str| {
        let call = lab_wire::Call::ReplaySafe {
            method: "GET".into(),
            key: Some(format!("idem-{id}")),
        };
        let value = lab_wire::Value::Json {
            value: serde_json::json!({ "echo": format!("idem-{id}"), "n": 12 }),
        };
        canonical(&call, &Got::Observed(Observed::Returned { value }))
    };
    assert_eq!(answer("00112233aabbccdd"), answer("ffeeddccbbaa9988"));
    assert!(answer("00112233aabbccdd").unwrap().contains("idem-#0"));
}

#[test]
fn every_table_row_is_counted_under_its_clause() {
    for (step, _) in suites::all_steps() {
        let rows = suites::fixture::table(step);
        let total: usize = suites::build(step, 1)
            .clauses
            .iter()
            .map(|c| fixture_counts(step).get(&c.key).copied().unwrap_or(0))
            .sum();
        assert_eq!(total, rows.len(), "step {step}");
    }
}
/// The table cases are the same under every seed but for the random
/// ids drawn into them, which canonical answers write by their place:
/// what a program answers on them cannot depend on the seed.
#[test]
fn table_inputs_differ_between_seeds_only_in_their_random_ids() {
    let placed = |call: &lab_wire::Call| {
        let mut text = serde_json::to_string(call).unwrap();
        for (k, id) in ids_in(&text.clone()).into_iter().enumerate() {
            text = text.replace(id, &format!("#{k}"));
        }
        text
    };
    let mut with_ids = 0;
    for (step, _) in suites::all_steps() {
        let (a, b) = (suites::build(step, 1), suites::build(step, 20261202));
        for (x, y) in a.clauses.iter().zip(&b.clauses) {
            let n = fixture_counts(step).get(&x.key).copied().unwrap_or(0);
            for i in 0..n {
                let (p, q) = (&x.checks[i].call, &y.checks[i].call);
                assert_eq!(placed(p), placed(q), "{} case {i}", x.key);
                if p != q {
                    with_ids += 1;
                }
            }
        }
    }
    assert!(with_ids > 0, "some table cases carry random ids");
}

/// Step 02 answered as `answer` says per (clause index, check index),
/// judged as a run would be.
fn step_02(answer: impl Fn(usize, usize, bool) -> bool) -> StepResult {
    use crate::verdict::{clause_verdict, ClauseVerdict};
    let mut result = StepResult::unavailable("02", 1, ClauseVerdict::NotAttempted);
    let suite = suites::build("02", 1);
    let got: Vec<Vec<Got>> = suite
        .clauses
        .iter()
        .enumerate()
        .map(|(c, clause)| {
            clause
                .checks
                .iter()
                .enumerate()
                .map(|(i, check)| {
                    let suites::Expect::Bool(right) = check.expect else {
                        panic!("step 02 expects booleans")
                    };
                    let value = lab_wire::Value::Bool {
                        value: answer(c, i, right),
                    };
                    Got::Observed(Observed::Returned { value })
                })
                .collect()
        })
        .collect();
    result.verdicts = suite
        .clauses
        .iter()
        .zip(&got)
        .map(|(clause, got)| clause_verdict(&clause.checks, got, 3))
        .collect();
    result.run.got = got;
    result.suite = std::sync::Arc::new(suite);
    result
}

#[test]
fn only_every_table_answer_the_same_names_a_mistake() {
    // A wrong first answer on the first clause's table.
    let wrong = step_02(|c, i, right| if (c, i) == (0, 0) { !right } else { right });
    let mistake = derive("02-made-up", &wrong).expect("it fails a table case");
    assert_eq!(mistake.clauses, ["02/safe-methods"]);
    let index = index_of(std::slice::from_ref(&mistake));
    assert_eq!(matched_in(&index, &wrong), Some("02-made-up"));
    let line = crate::catalog::scoped(crate::catalog::Lang::En, || line("02-made-up"));
    assert!(
        line.starts_with("This looks like a known mistake: "),
        "{line}"
    );
    // One more table case answered otherwise: no line.
    let other = step_02(|c, i, right| if c == 0 && i < 2 { !right } else { right });
    assert_eq!(matched_in(&index, &other), None);
    // Generated cases do not count: the same table answers with a wrong
    // generated answer still name it.
    let random = suites::build("02", 1).clauses.len() - 1;
    let also = step_02(|c, i, right| {
        if (c, i) == (0, 0) || (c, i) == (random, 0) {
            !right
        } else {
            right
        }
    });
    assert_eq!(matched_in(&index, &also), Some("02-made-up"));
    // A step that passes is never named, even with a fingerprint that
    // matches (stored by mistake).
    let right = step_02(|_, _, right| right);
    assert!(
        derive("02-right", &right).is_none(),
        "it fails no table case"
    );
    let mut clean = std::slice::from_ref(&mistake).to_vec();
    clean[0].answers = fingerprint(&table_answers(&right).unwrap());
    assert_eq!(matched_in(&index_of(&clean), &right), None);
    assert_eq!(lookup_in(&index_of(&clean), &right), Some("02-made-up"));
    // Two mistakes of one step with one fingerprint: the first by id.
    let mut twins = vec![mistake.clone(), mistake];
    twins[0].id = "02-twin".into();
    assert_eq!(matched_in(&index_of(&twins), &wrong), Some("02-made-up"));
}

#[test]
fn a_case_without_an_answer_leaves_the_step_without_a_fingerprint() {
    let mut result = step_02(|c, i, right| if (c, i) == (0, 0) { !right } else { right });
    result.run.got[0][1] = Got::TimedOut(None);
    assert!(table_answers(&result).is_none());
    assert!(derive("02-x", &result).is_none());
}

#[test]
fn a_panic_is_an_answer_without_its_message_or_place() {
    let call = lab_wire::Call::Retryable { status: 503 };
    let panic = |message: &str, at: Option<&str>| {
        canonical(
            &call,
            &Got::Observed(Observed::Panicked {
                message: message.into(),
                todo: false,
                at: at.map(String::from),
            }),
        )
    };
    assert_eq!(
        panic("overflow", Some("src/lib.rs:3:4")),
        Some("panicked".into())
    );
    assert_eq!(panic("mine", None), Some("panicked".into()));
}

/// Every mistake a learner can be told has its words in both languages,
/// and no words name none. (That the stored file is as the self-test
/// writes it is lab-dev's test.)
#[test]
fn the_stored_mistakes_have_words_in_both_languages() {
    let nameable = nameable();
    for lang in [crate::catalog::Lang::En, crate::catalog::Lang::Zh] {
        let words = crate::catalog::whole(lang, &[]);
        let described: Vec<&str> = words
            .keys()
            .filter_map(|k| k.strip_prefix("mistake."))
            .filter(|k| *k != "known")
            .collect();
        for id in &nameable {
            assert!(
                described.contains(&id.as_str()),
                "{lang:?}: mistake.{id} has no words"
            );
        }
        for id in described {
            assert!(
                nameable.iter().any(|n| n == id),
                "{lang:?}: mistake.{id} names no known mistake"
            );
        }
    }
    for m in known() {
        assert!(crate::suites::find(&m.step).is_some(), "{}", m.id);
        assert!(m.id.starts_with(&m.step), "{}", m.id);
    }
}

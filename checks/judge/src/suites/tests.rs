//! Unit tests of the steps' registry and their contract suites.

use super::*;
use crate::catalog::{whole, Lang};

#[test]
fn both_languages_have_exactly_the_same_keys() {
    let (en, zh) = (whole(Lang::En, &words(0)), whole(Lang::Zh, &words(1)));
    let only_en: Vec<_> = en.keys().filter(|k| !zh.contains_key(*k)).collect();
    let only_zh: Vec<_> = zh.keys().filter(|k| !en.contains_key(*k)).collect();
    assert!(
        only_en.is_empty() && only_zh.is_empty(),
        "only en: {only_en:?}; only zh: {only_zh:?}"
    );
}

#[test]
fn placeholders_agree_between_languages() {
    // A plural form `{n?one|other}` names `n` too; only English has them.
    let names = |s: &str| -> std::collections::BTreeSet<String> {
        s.split('{')
            .skip(1)
            .filter_map(|p| p.split_once('}'))
            .map(|(n, _)| n.split('?').next().unwrap_or(n).to_string())
            .collect()
    };
    let (en, zh) = (whole(Lang::En, &words(0)), whole(Lang::Zh, &words(1)));
    for (k, v) in &en {
        assert_eq!(names(v), names(&zh[k]), "{k}");
    }
}

#[test]
fn every_clause_has_a_name() {
    let en = whole(Lang::En, &words(0));
    for (step, _) in all_steps() {
        for clause in build(step, 1).clauses {
            assert!(
                en.contains_key(&format!("clause.{}", clause.key)),
                "{}",
                clause.key
            );
        }
    }
}

#[test]
fn every_suite_builds_and_every_clause_has_checks() {
    for (step, _) in all_steps() {
        let suite = build(step, 42);
        for clause in &suite.clauses {
            assert!(!clause.checks.is_empty(), "{} has no checks", clause.key);
        }
    }
}

#[test]
fn every_check_of_a_named_clause_lies_in_that_clauses_domain() {
    for (step, _) in all_steps() {
        let this = super::step(step);
        for seed in [1, 7, 42, 20261201] {
            for clause in build(step, seed).clauses {
                let key = clause.key.split_once('/').map_or("", |(_, k)| k);
                for check in &clause.checks {
                    let Some(domain) = this.domain(&check.call) else {
                        continue;
                    };
                    if key != "random" {
                        assert_eq!(
                            domain,
                            key,
                            "seed {seed}: {} lies in another clause's domain",
                            this.show_call(&check.call)
                        );
                    }
                    for c in crate::shrink::candidates(step, &check.call) {
                        assert_eq!(this.domain(&c), Some(domain), "{c:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn the_same_seed_builds_the_same_suites() {
    for (step, _) in all_steps() {
        let (a, b) = (build(step, 9), build(step, 9));
        let calls = |s: &Suite| -> Vec<Call> {
            s.clauses
                .iter()
                .flat_map(|c| c.checks.iter().map(|k| k.call.clone()))
                .collect()
        };
        assert_eq!(calls(&a), calls(&b), "step {step}");
    }
}

#[test]
fn each_demonstration_is_registered_once_under_the_step_a_runner_names_it_by() {
    for live in Live::ALL {
        let at: Vec<_> = REGISTRY.iter().filter(|e| e.live == Some(live)).collect();
        assert_eq!(at.len(), 1, "{live:?} is registered {} times", at.len());
        assert_eq!(
            at[0].id,
            live.step(),
            "{live:?}: lab_wire and the registry disagree"
        );
    }
    assert_eq!(live_ids(), ["08", "11", "13"]);
}

#[test]
fn step_arguments_are_normalised() {
    assert_eq!(parse_step("4"), Some("04"));
    assert_eq!(parse_step("08"), Some("08"));
    assert_eq!(parse_step("9"), Some("09"));
    let last = REGISTRY.last().unwrap().id;
    assert_eq!(parse_step(last), Some(last));
    let past = (last.parse::<u8>().unwrap() + 1).to_string();
    assert_eq!(parse_step(&past), None);
    assert_eq!(parse_step("0"), None);
    assert_eq!(parse_step("x"), None);
}

//! The instructor's choices a grade run applies on top of the verdicts: how
//! a step's points are earned (`--credit steps|rules`), what each step
//! shows learners (`fixtures/visibility.json`, `--visibility`, `--detail`;
//! see [`crate::report::visibility`]) and what PrairieLearn's file says of
//! a submission that does not compile (`--prairielearn-ungradable`).

use crate::catalog::tr;
use crate::report::prairielearn::Ungradable;
use crate::report::visibility::{Detail, Shown, Visibility};
use crate::report::SubmissionReport;
use crate::suites;
use std::collections::BTreeMap;
use std::path::Path;

/// How a step's weight is earned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Credit {
    /// All or nothing: the step's weight when every rule passes.
    #[default]
    Steps,
    /// In proportion to the rules passed: weight × passed ÷ rules, rounded
    /// down to a whole point (so only a step that passes whole earns its
    /// whole weight).
    Rules,
}

impl Credit {
    pub fn from_word(word: &str) -> Option<Credit> {
        match word {
            "steps" => Some(Credit::Steps),
            "rules" => Some(Credit::Rules),
            _ => None,
        }
    }
}

/// Everything [`crate::grade::GradeArgs`] carries for this module.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    pub credit: Credit,
    /// `--visibility STEP=VALUE`, in the order given (over the file's).
    pub visibility: Vec<(String, String)>,
    /// `--detail STEP=VALUE`, in the order given (over the file's).
    pub detail: Vec<(String, String)>,
    pub ungradable: Ungradable,
}

impl Policy {
    /// The command-line words that give this policy, those that differ
    /// from the defaults only (each a plain word once [`shown`] has
    /// accepted the policy).
    pub fn words(&self) -> Vec<String> {
        let mut words = Vec::new();
        if self.credit == Credit::Rules {
            words.extend(["--credit".to_string(), "rules".to_string()]);
        }
        for (option, pairs) in [
            ("--visibility", &self.visibility),
            ("--detail", &self.detail),
        ] {
            for (step, value) in pairs {
                words.extend([option.to_string(), format!("{step}={value}")]);
            }
        }
        if self.ungradable != Ungradable::default() {
            words.extend([
                "--prairielearn-ungradable".to_string(),
                self.ungradable.word().to_string(),
            ]);
        }
        words
    }
}

/// Gives each step its score under `credit`, and the submission its score
/// and bonus as their sums.
pub fn apply_credit(s: &mut SubmissionReport, credit: Credit) {
    if credit == Credit::Rules {
        for step in &mut s.steps {
            let rules = step.clauses.len() as u64;
            let passed = step
                .clauses
                .iter()
                .filter(|c| c.status == crate::report::ClauseStatus::Passed)
                .count() as u64;
            step.score = match rules {
                0 if step.passed => step.weight,
                0 => 0,
                n => (u64::from(step.weight) * passed / n) as u32,
            };
        }
    }
    s.score = s.steps.iter().filter(|x| !x.bonus).map(|x| x.score).sum();
    s.bonus = s.steps.iter().filter(|x| x.bonus).map(|x| x.score).sum();
}

/// Each step's visibility and detail: `fixtures/visibility.json` when
/// present (`{"04": {"visibility": "hidden", "detail": "verdict"}}`, the
/// step `all` for every step, named steps over it), then the command
/// line's pairs in order. An unknown step, key or value is one line.
pub fn shown(root: &Path, policy: &Policy) -> Result<Shown, String> {
    let path = root.join("fixtures/visibility.json");
    let mut pairs: Vec<(String, String, String)> = Vec::new();
    if let Ok(text) = std::fs::read_to_string(&path) {
        let file: BTreeMap<String, BTreeMap<String, String>> = serde_json::from_str(&text)
            .map_err(|e| {
                tr(
                    "error.visibility_file",
                    &[("path", &path.display()), ("what", &e)],
                )
            })?;
        // `all` first, so that a named step is over it.
        let (all, named): (Vec<_>, Vec<_>) = file.into_iter().partition(|(s, _)| s == "all");
        for (step, entry) in all.into_iter().chain(named) {
            for (key, value) in entry {
                if key != "visibility" && key != "detail" {
                    return Err(tr(
                        "error.visibility_key",
                        &[("path", &path.display()), ("step", &step), ("key", &key)],
                    ));
                }
                pairs.push((step.clone(), key, value));
            }
        }
    }
    let given = |list: &[(String, String)], key: &str| -> Vec<(String, String, String)> {
        list.iter()
            .map(|(s, v)| (s.clone(), key.to_string(), v.clone()))
            .collect()
    };
    pairs.extend(given(&policy.visibility, "visibility"));
    pairs.extend(given(&policy.detail, "detail"));
    let mut shown = Shown::default();
    for (step, key, value) in pairs {
        let steps: Vec<String> = if step == "all" {
            suites::all_steps().map(|(s, _)| s.to_string()).collect()
        } else {
            match suites::parse_step(&step) {
                Some(s) => vec![s.to_string()],
                None => {
                    return Err(suites::tr_steps("error.unknown_step", &[("step", &step)]));
                }
            }
        };
        for step in steps {
            let entry = shown.steps.entry(step).or_default();
            if key == "visibility" {
                entry.0 = Visibility::from_word(&value).ok_or_else(|| bad(&key, &value))?;
            } else {
                entry.1 = Detail::from_word(&value).ok_or_else(|| bad(&key, &value))?;
            }
        }
    }
    Ok(shown)
}

fn bad(key: &str, value: &str) -> String {
    let words: Vec<&str> = if key == "visibility" {
        Visibility::ALL.iter().map(|v| v.word()).collect()
    } else {
        Detail::ALL.iter().map(|d| d.word()).collect()
    };
    tr(
        "error.visibility_value",
        &[
            ("key", &key),
            ("value", &value),
            ("values", &words.join(", ")),
        ],
    )
}

/// `STEP=VALUE` from the command line (checked whole by [`shown`]).
pub fn pair(option: &str, text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(s, v)| (s.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| tr("error.step_pair", &[("option", &option), ("value", &text)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_support::class;

    #[test]
    fn rules_give_a_share_of_the_weight_rounded_down() {
        let mut bob = class().submissions[1].clone();
        let step = &mut bob.steps[1];
        assert_eq!(step.weight, 10);
        let passed = step
            .clauses
            .iter()
            .filter(|c| c.status == crate::report::ClauseStatus::Passed)
            .count();
        let rules = step.clauses.len();
        assert!(passed > 0 && passed < rules, "{passed} of {rules}");
        let want = 10 * passed as u32 / rules as u32;
        let mut by_steps = bob.clone();
        apply_credit(&mut by_steps, Credit::Steps);
        assert_eq!(by_steps, bob, "steps is what grading already did");
        apply_credit(&mut bob, Credit::Rules);
        assert_eq!(bob.steps[1].score, want);
        assert_eq!(bob.score, 10 + want);
    }

    fn policy(visibility: &[(&str, &str)], detail: &[(&str, &str)]) -> Policy {
        let own = |l: &[(&str, &str)]| {
            l.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        Policy {
            visibility: own(visibility),
            detail: own(detail),
            ..Policy::default()
        }
    }

    #[test]
    fn the_file_then_the_command_line_set_each_step() {
        let dir = tempfile::tempdir().unwrap();
        let none = shown(dir.path(), &Policy::default()).unwrap();
        assert_eq!(none, Shown::default());
        std::fs::create_dir_all(dir.path().join("fixtures")).unwrap();
        std::fs::write(
            dir.path().join("fixtures/visibility.json"),
            r#"{"04": {"detail": "input"}, "all": {"visibility": "after_due_date", "detail": "verdict"}}"#,
        )
        .unwrap();
        let s = shown(dir.path(), &policy(&[("5", "hidden")], &[])).unwrap();
        assert_eq!(s.of("01"), (Visibility::AfterDueDate, Detail::Verdict));
        assert_eq!(s.of("04"), (Visibility::AfterDueDate, Detail::Input));
        assert_eq!(s.of("05"), (Visibility::Hidden, Detail::Verdict));
        let s = shown(dir.path(), &policy(&[], &[("all", "full")])).unwrap();
        assert_eq!(s.of("04"), (Visibility::AfterDueDate, Detail::Full));
    }

    #[test]
    fn words_name_only_what_differs_from_the_defaults() {
        assert_eq!(Policy::default().words(), [] as [String; 0]);
        let mut p = policy(&[("04", "hidden")], &[("all", "input")]);
        p.credit = Credit::Rules;
        p.ungradable = Ungradable::Zero;
        assert_eq!(
            p.words().join(" "),
            "--credit rules --visibility 04=hidden --detail all=input \
             --prairielearn-ungradable zero"
        );
    }

    #[test]
    fn an_unknown_step_key_or_value_is_one_line() {
        let dir = tempfile::tempdir().unwrap();
        for (v, d, names) in [
            (vec![("99", "hidden")], vec![], "99"),
            (vec![("04", "secret")], vec![], "secret"),
            (vec![], vec![("04", "everything")], "everything"),
        ] {
            let e = shown(dir.path(), &policy(&v, &d)).unwrap_err();
            assert!(!e.contains('\n') && e.contains(names), "{e}");
        }
        std::fs::create_dir_all(dir.path().join("fixtures")).unwrap();
        for (text, names) in [
            (r#"{"04": {"colour": "red"}}"#, "colour"),
            (r#"{"04": "hidden"}"#, "visibility.json"),
            (r#"{"x4": {"detail": "full"}}"#, "x4"),
        ] {
            std::fs::write(dir.path().join("fixtures/visibility.json"), text).unwrap();
            let e = shown(dir.path(), &Policy::default()).unwrap_err();
            assert!(!e.contains('\n') && e.contains(names), "{e}");
        }
        assert!(pair("--detail", "04").unwrap_err().contains("--detail"));
    }
}

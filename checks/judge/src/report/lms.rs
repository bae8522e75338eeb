//! What grading for an LMS adds to the model: what a late policy did to
//! one submission ([`Late`], `late` in `result.json` and `summary.json`),
//! the run's kit and toolchain ([`RunInfo`], `run` in `summary.json`) and
//! who a roster did not match ([`Unmatched`], `roster` in `summary.json`).
//! Each is left out of a file when the run had none of it (and `run` is
//! absent from summaries written before it was recorded), so a run
//! without `--due`, `--roster` writes what it always did but `run`.

use serde::{Deserialize, Serialize};

/// How late one submission was and what that cost. `score` in the
/// submission's report is already `score_before_penalty - penalty`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Late {
    /// When it was submitted (RFC 3339, as read), `None` when no time is
    /// known for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<String>,
    /// Where that time came from: `csv` (`--submitted-at`), `file` (its
    /// `submitted_at` file), `git` (its last commit) or `unknown`.
    pub source: String,
    /// Seconds after the due time (0 when on time); `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_by: Option<i64>,
    /// Points taken off the core score.
    pub penalty: u32,
    /// The core score before the penalty.
    pub score_before_penalty: u32,
}

/// The kit and toolchain a class was graded with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInfo {
    /// The kit's version (its workspace version).
    pub kit: String,
    /// `rustc --version` of the toolchain that built the submissions.
    pub toolchain: String,
}

/// Who a roster and a class did not match (see `grade --roster`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unmatched {
    /// Submission names with no roster row.
    pub no_roster_row: Vec<String>,
    /// Roster students (their `folder`, else their name) with no
    /// submission.
    pub no_submission: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::super::summary::{summary_csv, summary_of};
    use super::super::test_support::{class, SEED};
    use super::*;
    use serde_json::Value;

    /// bob, 10 points earned, 3 taken off for lateness.
    fn late_class() -> super::super::ClassReport {
        let mut c = class();
        let bob = &mut c.submissions[1];
        bob.late = Some(Late {
            submitted_at: Some("2026-03-02T12:00:00Z".into()),
            source: "csv".into(),
            late_by: Some(36 * 3600),
            penalty: 3,
            score_before_penalty: bob.score,
        });
        bob.score -= 3;
        c
    }

    #[test]
    fn gradescope_tests_add_up_to_the_score_with_a_penalty_test() {
        for s in &late_class().submissions {
            let v: Value =
                serde_json::from_str(&super::super::gradescope::results_json(s, SEED)).unwrap();
            let tests = v["tests"].as_array().unwrap();
            let sum: i64 = tests.iter().map(|t| t["score"].as_i64().unwrap()).sum();
            assert_eq!(Some(sum), v["score"].as_i64(), "{}", s.name);
            let late: Vec<&Value> = tests.iter().filter(|t| t["number"] == "late").collect();
            match &s.late {
                Some(_) => {
                    assert_eq!(late.len(), 1);
                    assert_eq!(late[0]["score"], -3);
                    assert_eq!(late[0]["max_score"], 0);
                    assert_eq!(v["score"], 7);
                    assert!(late[0]["output"].as_str().unwrap().contains("36.0 h"));
                }
                None => assert!(late.is_empty()),
            }
        }
    }

    #[test]
    fn the_summary_records_the_penalty_and_its_points_add_up() {
        let c = late_class();
        let file = summary_of(&c);
        for s in &file.submissions {
            let earned: u32 = s
                .steps
                .iter()
                .filter(|x| x.passed && !x.bonus)
                .map(|x| x.weight)
                .sum();
            let penalty = s.late.as_ref().map_or(0, |l| l.penalty);
            assert_eq!(earned - penalty, s.score, "{}", s.name);
        }
        let json: Value =
            serde_json::from_str(&super::super::summary::summary_json_from(&file)).unwrap();
        let bob = &json["submissions"][1]["late"];
        assert_eq!(bob["late_by"], 129_600);
        assert_eq!(bob["penalty"], 3);
        assert_eq!(bob["score_before_penalty"], 10);
        assert!(json["submissions"][0].get("late").is_none());
        let back = super::super::summary::read_summary(&serde_json::to_string(&json).unwrap());
        assert_eq!(back.unwrap(), file);

        let csv = summary_csv(&file);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with(",score_before_penalty,penalty,late_by"));
        assert!(lines[1].starts_with("alice,ok,30,30,") && lines[1].ends_with(",30,0,"));
        assert!(lines[2].contains(",ok,7,30,") && lines[2].ends_with(",10,3,129600"));
        // Without a late record, the CSV has its usual columns.
        assert!(!summary_csv(&summary_of(&class())).contains("penalty"));
    }

    #[test]
    fn summary_md_lists_penalties_unknown_times_and_the_roster() {
        let mut c = late_class();
        c.submissions[2].late = Some(Late {
            submitted_at: None,
            source: "unknown".into(),
            late_by: None,
            penalty: 0,
            score_before_penalty: 0,
        });
        let mut file = summary_of(&c);
        file.roster = Some(Unmatched {
            no_roster_row: vec!["zed|x".into()],
            no_submission: vec!["erin".into()],
        });
        let md = super::super::summary::summary_md(&file);
        assert!(md.contains("36.0 h late, 3 of 10 points off"), "{md}");
        assert!(
            md.contains("no submission time known (no penalty): carol"),
            "{md}"
        );
        assert!(md.contains("(not in the gradebooks): zed\\|x"), "{md}");
        assert!(md.contains("no submission**: erin"), "{md}");
        assert!(!super::super::summary::summary_md(&summary_of(&class())).contains("Late"));
    }

    #[test]
    fn result_json_records_the_penalty() {
        let c = late_class();
        let v: Value =
            serde_json::from_str(&super::super::kit::result_json(&c.submissions[1], SEED)).unwrap();
        assert_eq!(v["score"], 7);
        assert_eq!(v["late"]["penalty"], 3);
        assert_eq!(v["late"]["source"], "csv");
        let plain: Value =
            serde_json::from_str(&super::super::kit::result_json(&c.submissions[0], SEED)).unwrap();
        assert!(plain.get("late").is_none());
    }
}

//! The kit's own per-submission `result.json`: the schema and the run's seed,
//! then every field of [`SubmissionReport`] as serde writes it (clauses and
//! their messages included). Pretty-printed, with a trailing newline. Reading
//! it back as a `SubmissionReport` ignores the two extra fields.

use super::{SubmissionReport, RESULT_SCHEMA};
use serde::Serialize;

#[derive(Serialize)]
struct ResultFile<'a> {
    schema: &'static str,
    seed: &'a str,
    #[serde(flatten)]
    submission: &'a SubmissionReport,
}

/// `{"schema": RESULT_SCHEMA, "seed": seed, ...all of s}`, pretty, newline.
pub fn result_json(s: &SubmissionReport, seed: &str) -> String {
    let file = ResultFile {
        schema: RESULT_SCHEMA,
        seed,
        submission: s,
    };
    let mut text = serde_json::to_string_pretty(&file).expect("a result always serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::super::snapshot::compare;
    use super::super::test_support::{class, SEED};
    use super::*;
    use serde_json::Value;

    #[test]
    fn matches_the_snapshots() {
        let c = class();
        let out: Vec<String> = c.submissions.iter().map(|s| result_json(s, SEED)).collect();
        compare("src/report/snapshots/kit-alice.json", &out[0]);
        compare("src/report/snapshots/kit-bob.json", &out[1]);
        compare("src/report/snapshots/kit-carol.json", &out[2]);
    }

    #[test]
    fn schema_and_seed_come_first_and_the_rest_reads_back() {
        for s in &class().submissions {
            let text = result_json(s, SEED);
            assert!(text.ends_with("}\n"));
            assert!(text.starts_with(&format!(
                "{{\n  \"schema\": \"{RESULT_SCHEMA}\",\n  \"seed\": \"{SEED}\",\n"
            )));
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value["schema"], RESULT_SCHEMA);
            assert_eq!(value["seed"], SEED);
            let back: SubmissionReport = serde_json::from_value(value).unwrap();
            assert_eq!(&back, s);
        }
    }
}

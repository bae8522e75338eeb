//! The sample class of fixtures/submissions, graded through the
//! instructors' path and compared with expected.json.

use super::Finding;
use lab_judge::limits::Limits;
use lab_judge::sections::splice;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Builds a sample submission folder (`src/lib.rs`, maybe `src/advanced.rs`)
/// from a recipe in expected.json, so samples that are mostly the reference
/// stay in step with it: `lib` and `advanced` name kit files; `sections`
/// lists steps whose section is taken from the reference into `advanced`;
/// `parts` lists files (a mutant's format) whose section is put in then;
/// `append` is text added at the end of `advanced`.
fn make_submission(root: &Path, dir: &Path, recipe: &serde_json::Value) -> Result<PathBuf, String> {
    let text = |key: &str| -> Result<Option<String>, String> {
        recipe[key]
            .as_str()
            .map(|p| std::fs::read_to_string(root.join(p)).map_err(|e| format!("{p}: {e}")))
            .transpose()
    };
    let src = dir.join("src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    let lib = text("lib")?.ok_or("a recipe needs `lib`")?;
    std::fs::write(src.join("lib.rs"), lib).map_err(|e| e.to_string())?;
    if let Some(mut advanced) = text("advanced")? {
        let reference = std::fs::read_to_string(root.join("solutions/advanced.rs"))
            .map_err(|e| e.to_string())?;
        for step in recipe["sections"].as_array().into_iter().flatten() {
            let step = step.as_str().unwrap_or_default();
            let section = lab_judge::sections::section(&reference, step)
                .ok_or_else(|| format!("the reference has no section {step}"))?;
            advanced = splice(&advanced, &section)?;
        }
        for part in recipe["parts"].as_array().into_iter().flatten() {
            let part = part.as_str().unwrap_or_default();
            let text =
                std::fs::read_to_string(root.join(part)).map_err(|e| format!("{part}: {e}"))?;
            advanced = splice(&advanced, &text)?;
        }
        advanced += recipe["append"].as_str().unwrap_or_default();
        std::fs::write(src.join("advanced.rs"), advanced).map_err(|e| e.to_string())?;
    }
    Ok(dir.to_path_buf())
}

/// Grades fixtures/submissions through the instructors' path and compares
/// every submission's build and step statuses with the hand-written
/// fixtures/submissions/expected.json.
pub(super) fn grade_sample_class(root: &Path, seed: u64) -> Result<Vec<Finding>, String> {
    let dir = root.join("fixtures/submissions");
    let text = std::fs::read_to_string(dir.join("expected.json"))
        .map_err(|e| format!("expected.json: {e}"))?;
    let expected: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| format!("expected.json: {e}"))?;
    let made = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut folders = Vec::new();
    for (name, want) in &expected {
        folders.push(match want.get("make") {
            Some(recipe) => make_submission(root, &made.path().join(name), recipe)?,
            None => dir.join(name),
        });
    }
    let subs = lab_judge::grade::resolve(&folders)?;
    let weights = lab_judge::grade::weights(root)?;
    let reports = lab_judge::grade::grade_class(
        root,
        subs,
        seed,
        2,
        Limits::default(),
        &weights,
        |_| Ok(()),
    )?;
    let status_name = |s: &lab_judge::report::StepReport| {
        serde_json::to_value(s.status)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
    };
    Ok(reports
        .into_iter()
        .map(|r| {
            let want = &expected[&r.name];
            let mut wrong = Vec::new();
            let build = serde_json::to_value(r.build)
                .ok()
                .and_then(|v| v.as_str().map(String::from));
            if build.as_deref() != want["build"].as_str() {
                wrong.push(format!("build {build:?}, expected {}", want["build"]));
            }
            let advanced = serde_json::to_value(r.advanced_build)
                .ok()
                .and_then(|v| v.as_str().map(String::from));
            if advanced.as_deref() != want["advanced_build"].as_str() {
                wrong.push(format!(
                    "advanced build {advanced:?}, expected {}",
                    want["advanced_build"]
                ));
            }
            let listed = want["steps"].as_object().map_or(0, |m| m.len());
            if listed != r.steps.len() {
                wrong.push(format!("{} steps graded, {listed} expected", r.steps.len()));
            }
            for step in &r.steps {
                let got = status_name(step);
                if got.as_deref() != want["steps"][&step.step].as_str() {
                    wrong.push(format!(
                        "step {} {got:?}, expected {}",
                        step.step, want["steps"][&step.step]
                    ));
                }
            }
            let detail = if wrong.is_empty() {
                let bonus = match r.advanced_build {
                    lab_judge::report::AdvancedBuild::Absent => String::new(),
                    _ => format!(" +{} bonus", r.bonus),
                };
                format!(
                    "graded as expected: {}/{}{bonus} ({:.1} s)",
                    r.score, r.max_score, r.seconds
                )
            } else {
                wrong.join("; ")
            };
            Finding {
                kind: "class",
                name: r.name.clone(),
                caught_by: None,
                first: None,
                ok: wrong.is_empty(),
                detail,
                mistake: None,
            }
        })
        .collect())
}

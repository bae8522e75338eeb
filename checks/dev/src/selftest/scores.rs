//! The mutation score per step, and how often a mutant's first failure sits
//! under the clause its header names.

use super::Finding;
use std::collections::BTreeMap;
use std::path::Path;

pub(super) fn print_scores(findings: &[Finding]) {
    let mut per_step: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for f in findings {
        if let Some(clause) = &f.caught_by {
            let step = clause.split('/').next().unwrap_or("??").to_string();
            let entry = per_step.entry(step).or_default();
            entry.1 += 1;
            entry.0 += usize::from(f.ok);
        }
    }
    if per_step.is_empty() {
        return;
    }
    println!("\nmutation score (mutants caught by their named clause):");
    let (mut caught, mut all) = (0, 0);
    for (step, (c, n)) in &per_step {
        println!(
            "  step {step}: {c}/{n} ({:.0} %)",
            100.0 * *c as f64 / *n as f64
        );
        caught += c;
        all += n;
    }
    println!(
        "  total:   {caught}/{all} ({:.0} %)\n",
        100.0 * caught as f64 / all as f64
    );
    first_failures(findings);
    let alternatives: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.kind == "alternative")
        .collect();
    if !alternatives.is_empty() {
        let ok = alternatives.iter().filter(|f| f.ok).count();
        println!("alternatives accepted: {ok}/{}\n", alternatives.len());
    }
}

/// At least this share of each track's mutants shows its first failure
/// under the clause its header names.
const FIRST_UNDER_NAMED: f64 = 0.95;

/// The mutants listed in docs/MUTANTS.md as showing their first failure
/// under another clause, with the reason (lines `` - `name`: reason `` in
/// its section "First failure elsewhere").
fn listed_exceptions(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("docs/MUTANTS.md")).unwrap_or_default();
    text.split("\n## ")
        .find(|s| s.starts_with("First failure elsewhere"))
        .into_iter()
        .flat_map(str::lines)
        .filter_map(|l| l.strip_prefix("- `")?.split_once('`'))
        .filter(|(_, rest)| rest.trim_start_matches(':').trim().len() > 1)
        .map(|(name, _)| name.to_string())
        .collect()
}

/// A track's mutants, and those of them whose first failure shown is not
/// under the clause their header names.
fn track_mutants(findings: &[Finding], advanced: bool) -> (Vec<&Finding>, Vec<&Finding>) {
    let mutants: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.kind == "mutant" && f.name.starts_with("advanced/") == advanced)
        .collect();
    let elsewhere = mutants
        .iter()
        .copied()
        .filter(|f| f.first.is_none() || f.first != f.caught_by)
        .collect();
    (mutants, elsewhere)
}

/// Per track, whether enough mutants show their first failure under their
/// named clause and every one that does not is listed with a reason; one
/// finding per track.
pub(super) fn first_failure_findings(root: &Path, findings: &[Finding]) -> Vec<Finding> {
    let listed = listed_exceptions(root);
    let mut out = Vec::new();
    for advanced in [false, true] {
        let track = if advanced { "advanced" } else { "core" };
        let (mutants, elsewhere) = track_mutants(findings, advanced);
        if mutants.is_empty() {
            continue;
        }
        let elsewhere: Vec<&str> = elsewhere.iter().map(|f| f.name.as_str()).collect();
        let under = mutants.len() - elsewhere.len();
        let share = under as f64 / mutants.len() as f64;
        let unlisted: Vec<&str> = elsewhere
            .iter()
            .copied()
            .filter(|n| !listed.iter().any(|l| l == n))
            .collect();
        let mut detail = format!(
            "{under}/{} first shown under their named clause ({:.1} %, at least {:.0} % required)",
            mutants.len(),
            100.0 * share,
            100.0 * FIRST_UNDER_NAMED
        );
        if !unlisted.is_empty() {
            detail += &format!(
                "; not listed with a reason in docs/MUTANTS.md: {}",
                unlisted.join(", ")
            );
        }
        out.push(Finding {
            kind: "first-failure",
            name: format!("{track} mutants"),
            caught_by: None,
            first: None,
            ok: share >= FIRST_UNDER_NAMED && unlisted.is_empty(),
            detail,
            mistake: None,
        });
    }
    out
}

/// How often a mutant's first failure, as a learner sees it, sits under the
/// clause its header names, per track; the exceptions are listed.
fn first_failures(findings: &[Finding]) {
    println!("first failure shown under the named clause:");
    for advanced in [false, true] {
        let (mutants, elsewhere) = track_mutants(findings, advanced);
        if mutants.is_empty() {
            continue;
        }
        let under = mutants.len() - elsewhere.len();
        println!(
            "  {}: {under}/{} ({:.1} %)",
            if advanced { "advanced" } else { "core" },
            mutants.len(),
            100.0 * under as f64 / mutants.len() as f64
        );
        for f in elsewhere {
            println!(
                "    {} names {}, first shown under {}",
                f.name,
                f.caught_by.as_deref().unwrap_or("-"),
                f.first.as_deref().unwrap_or("-")
            );
        }
    }
    println!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutant(name: &str, named: &str, first: &str) -> Finding {
        Finding {
            kind: "mutant",
            name: name.into(),
            caught_by: Some(named.into()),
            first: Some(first.into()),
            ok: true,
            detail: String::new(),
            mistake: None,
        }
    }

    #[test]
    fn first_failures_under_another_clause_must_be_few_and_listed_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        let doc = "# M\n\n## First failure elsewhere\n\n- `04-b`: its input is also a negative zero\n- `04-c`\n\n## Other\n\n- `04-d`: not this section\n";
        std::fs::write(dir.path().join("docs/MUTANTS.md"), doc).unwrap();
        assert_eq!(listed_exceptions(dir.path()), ["04-b"]);
        let mut all: Vec<Finding> = (0..40)
            .map(|i| mutant(&format!("04-m{i}"), "04/x", "04/x"))
            .collect();
        all.push(mutant("04-b", "04/x", "04/y"));
        let verdict = first_failure_findings(dir.path(), &all);
        assert_eq!(verdict.len(), 1, "only the core track has mutants");
        assert!(verdict[0].ok, "{}", verdict[0].detail);
        // Unlisted (no reason given) fails, though the share is met.
        all.push(mutant("04-c", "04/x", "04/y"));
        assert!(!first_failure_findings(dir.path(), &all)[0].ok);
        // Listed but too many: 2 of 22 is under 95 %.
        let few: Vec<Finding> = (0..20)
            .map(|i| mutant(&format!("advanced/10-m{i}"), "10/x", "10/x"))
            .chain([
                mutant("advanced/10-b", "10/x", "10/y"),
                mutant("advanced/10-b", "10/x", "10/y"),
            ])
            .collect();
        std::fs::write(
            dir.path().join("docs/MUTANTS.md"),
            "## First failure elsewhere\n- `advanced/10-b`: a reason\n",
        )
        .unwrap();
        let verdict = first_failure_findings(dir.path(), &few);
        assert_eq!(verdict[0].name, "advanced mutants");
        assert!(!verdict[0].ok, "{}", verdict[0].detail);
    }
}

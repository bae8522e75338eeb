//! Unit tests of the steps' texts: every step has one, with the same hints,
//! in both languages.

use super::*;

#[test]
fn every_step_has_a_text_and_the_same_hints_in_both_languages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/steps");
    for (step, function) in suites::all_steps() {
        let function = function.split(',').next().unwrap_or(function);
        let mut counts = Vec::new();
        for lang in ["en", "zh"] {
            let text = std::fs::read_to_string(root.join(lang).join(format!("{step}.md"))).unwrap();
            assert!(
                text.lines().next().unwrap_or("").contains(function),
                "{lang}/{step}.md title"
            );
            assert!(
                text.contains(&format!("checks/{step}-contract.sh")),
                "{lang}/{step}.md names its check"
            );
            let h =
                std::fs::read_to_string(root.join(lang).join(format!("{step}-hints.md"))).unwrap();
            counts.push(hints(&h).len());
        }
        assert!(
            counts[0] >= 3 && counts[0] == counts[1],
            "step {step}: hint counts {counts:?}"
        );
    }
}

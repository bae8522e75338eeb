//! Unit tests of the steps' texts: every step has one, with the same hints,
//! in both languages.

use super::*;

#[test]
fn every_step_has_a_text_and_the_same_hints_in_both_languages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (step, function) in suites::all_steps() {
        let function = function.split(',').next().unwrap_or(function);
        let dir = root.join(suites::entry(step).dir());
        let mut counts = Vec::new();
        for lang in ["en", "zh"] {
            let text = std::fs::read_to_string(dir.join(suites::text_file("text", lang))).unwrap();
            assert!(
                text.lines().next().unwrap_or("").contains(function),
                "step {step}: text.{lang}.md title"
            );
            assert!(
                text.contains(&format!("checks/{step}-contract.sh")),
                "step {step}: text.{lang}.md names its check"
            );
            let h = std::fs::read_to_string(dir.join(suites::text_file("hints", lang))).unwrap();
            counts.push(hints(&h).len());
        }
        assert!(
            counts[0] >= 3 && counts[0] == counts[1],
            "step {step}: hint counts {counts:?}"
        );
    }
}

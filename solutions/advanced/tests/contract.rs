//! The checker of the advanced steps 09–13 as one test of their reference
//! answers. It is ignored in ordinary runs: cargo-mutants runs it (with
//! `--include-ignored`) against each mutant of `solutions/advanced.rs`. See
//! docs/MUTANTS.md.

#[path = "../../tests/checker/mod.rs"]
mod checker;

/// The kit's root: the workspace that holds this crate, two folders up
/// (a cargo-mutants copy of it, when cargo-mutants runs this test).
const KIT_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

#[test]
#[ignore = "runs the advanced checker; used by cargo-mutants, see docs/MUTANTS.md"]
fn the_checker_passes_the_advanced_reference_answers() {
    // `--advanced` goes with `--subject`: the core reference is the lib.rs.
    let subject = format!("{KIT_ROOT}/solutions/src/lib.rs");
    let advanced = format!("{KIT_ROOT}/solutions/advanced.rs");
    checker::passes(
        KIT_ROOT,
        &[
            "check",
            "09",
            "10",
            "11",
            "12",
            "13",
            "--subject",
            &subject,
            "--advanced",
            &advanced,
            "--seed",
            checker::SEED,
        ],
        "retry-lab-mutants-advanced",
    );
}

//! The whole checker as one test of the reference answers. It is ignored in
//! ordinary runs: cargo-mutants runs it (with `--include-ignored`) against
//! each mutant of `src/lib.rs`. See docs/MUTANTS.md.

mod checker;

/// The kit's root: the workspace that holds this crate (a cargo-mutants
/// copy of it, when cargo-mutants runs this test).
const KIT_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

#[test]
#[ignore = "runs the whole checker; used by cargo-mutants, see docs/MUTANTS.md"]
fn the_checker_passes_the_reference_answers() {
    let subject = format!("{KIT_ROOT}/solutions/src/lib.rs");
    checker::passes(
        KIT_ROOT,
        &["check", "--subject", &subject, "--seed", checker::SEED],
        "retry-lab-mutants",
    );
}

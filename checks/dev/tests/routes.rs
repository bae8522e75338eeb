//! lab.sh hands the maintainers' commands to lab-dev and every other
//! command to the judge, which refuses a maintainers' command given to it
//! directly. Read-only commands on the kit itself (a bad word, a help
//! text), built in `target/routes`, which starts from the kit's own build.

// The judge's end-to-end tests' helpers, shared.
#[path = "../../judge/tests/common/mod.rs"]
mod common;
use common::{kit_root, Run};
use std::time::Duration;

const BUILD: Duration = Duration::from_secs(900);

fn lab(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut all = vec!["lab.sh"];
    all.extend_from_slice(args);
    common::run_program(&kit_root(), "bash", &all, "routes", env, BUILD)
}

#[test]
fn the_maintainers_commands_go_to_lab_dev_and_the_rest_to_the_judge() {
    if let Some(own) = common::own_build() {
        common::seed_target(&own, "routes");
    }
    // new-step's words are checked by lab-dev's scaffold: the judge would
    // only have named lab.sh.
    let r = lab(&["new-step", "99", "x"], &[]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    // (After the notice of a build and cargo's lines, if it built.)
    let last = r.stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("lab: ") && last.contains("not the next free step"),
        "{}",
        r.stderr
    );
    let r = lab(&["--lang", "zh", "new-step", "1", "x"], &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("必须是两位数字"), "{}", r.stderr);
    // The help of a maintainers' command, and the kit's help, from either.
    let r = lab(&["selftest", "--help"], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("--only <NAME>"), "{}", r.stdout);
    let r = lab(&["help"], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("new-step NN NAME"), "{}", r.stdout);
    // Both binaries are there now; the judge refuses a maintainers'
    // command, lab-dev answers it.
    let debug = kit_root().join("target/routes/debug");
    let direct = |binary: &str, args: &[&str]| {
        common::run_program(
            &kit_root(),
            debug.join(binary).to_str().unwrap(),
            args,
            "routes",
            &[],
            BUILD,
        )
    };
    let r = direct("lab-judge", &["bench", "--quick"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("run ./lab.sh bench"), "{}", r.stderr);
    let r = direct("lab-dev", &["new-step", "x"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("takes a step number and a name"),
        "{}",
        r.stderr
    );
}

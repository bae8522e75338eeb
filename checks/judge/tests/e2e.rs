//! End-to-end tests: drive lab.sh on copies of the kit in temporary folders,
//! each run under an outer time limit. They share one target directory
//! (target/e2e) and one build of the kit: each copy keeps its files'
//! modification times, so cargo (and lab.sh's own check) finds what the
//! first test built fresh for every later copy. A test changes only the
//! learner's files in its copy (which the judge compiles by content, not by
//! time), never a file cargo builds the kit from.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The judge's own splice rule (a core mutant is items of `lib.rs`) and
/// its registry of steps.
use lab_judge::sections;
use lab_judge::suites::{self, REGISTRY};

mod common;
use common::{kit_root, wait_within, Run};

/// Most tests run beside one another (the judge locks the build folders
/// they share: the kit's runners, each slot); a test that times what it
/// runs or watches a terminal runs alone. A test that rebuilds the judge
/// or looks at its target folder as a whole has a target folder of its own
/// ([`run_in_own_target`]) and runs beside the others.
static TOGETHER: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Keeps a test beside others, or alone, while it lives.
#[allow(dead_code)]
enum Turn {
    Together(std::sync::RwLockReadGuard<'static, ()>),
    Alone(std::sync::RwLockWriteGuard<'static, ()>),
}

/// A fresh copy of the kit, as a newcomer's clone would be, for a test
/// that may run beside others.
fn kit() -> (tempfile::TempDir, Turn) {
    let turn = Turn::Together(TOGETHER.read().unwrap_or_else(|e| e.into_inner()));
    (copy_of_kit(), turn)
}

/// [`kit`], for a test that must run alone.
fn kit_alone() -> (tempfile::TempDir, Turn) {
    let turn = Turn::Alone(TOGETHER.write().unwrap_or_else(|e| e.into_inner()));
    (copy_of_kit(), turn)
}

fn copy_of_kit() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // As a fresh clone would be; every file and folder keeps its time, so
    // the shared target folder's build is fresh in this copy too and
    // lab.sh's own freshness check runs no cargo.
    lab_judge::files::copy_tree(&kit_root(), dir.path(), &lab_judge::files::not_in_a_clone)
        .unwrap();
    built_once();
    dir
}

/// Builds the judge in the shared target folder once, within [`BUILD`],
/// before any test runs the kit: a test whose first command is quick
/// (`gradescope`, `reset`, `try 99`) then never pays for that build, or
/// waits behind another test's, within its own short limit. On a loaded
/// machine the cold build alone can outlast [`QUICK`].
///
/// It is built in the kit itself, not in the copy: the judge embeds files of
/// `fixtures/`, outside its own crate, and cargo records such a file by its
/// absolute path. Built in a copy, the build would name files of that copy,
/// which is removed when its test ends, and every later copy would build
/// the judge again.
fn built_once() {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        common::seed_e2e();
        let r = run(&kit_root(), "lab.sh", &["--help"], BUILD);
        assert_eq!(r.code, 0, "lab.sh --help: {}{}", r.stdout, r.stderr);
    });
}

/// Runs `bash <script> args…` in `dir`, killed if it outlives `limit`.
fn run(dir: &Path, script: &str, args: &[&str], limit: Duration) -> Run {
    run_env(dir, script, args, limit, &[])
}

/// `run` with more environment variables; the kit builds in `target/e2e`.
fn run_env(dir: &Path, script: &str, args: &[&str], limit: Duration, env: &[(&str, &str)]) -> Run {
    let mut all = vec![script];
    all.extend_from_slice(args);
    common::run_program(dir, "bash", &all, "e2e", env, limit)
}

/// `run` with the kit's builds in `target/<own>` instead of `target/e2e`:
/// a folder of one test's own, started from the kit's build (see
/// `common::seed_target`), for a test that rebuilds the judge or looks at
/// its target folder as a whole, so that it can run beside the others.
fn run_in_own_target(dir: &Path, script: &str, args: &[&str], limit: Duration, own: &str) -> Run {
    if let Some(build) = common::own_build() {
        common::seed_target(&build, own);
    }
    let mut all = vec![script];
    all.extend_from_slice(args);
    common::run_program(dir, "bash", &all, own, &[], limit)
}

const BUILD: Duration = Duration::from_secs(600);
const QUICK: Duration = Duration::from_secs(60);

fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

#[test]
fn every_step_fails_on_the_stubs_and_passes_with_a_correct_crate() {
    stubs_fail_and_a_correct_crate_passes(&[]);
}

/// The same learner's loop on the portable layer (what a check runs on
/// macOS and Windows): the same verdicts, lines and rerun commands, and
/// one line saying that the code runs unconfined.
#[test]
fn on_the_portable_layer_every_step_fails_on_the_stubs_and_passes_with_a_correct_crate() {
    stubs_fail_and_a_correct_crate_passes(PORTABLE);
}

/// The variable that chooses the portable platform layer on Linux.
const PORTABLE: &[(&str, &str)] = &[("LAB_PLATFORM", "portable")];

/// Whether a run with `env` is on the portable layer: always off Linux.
fn on_portable(env: &[(&str, &str)]) -> bool {
    !env.is_empty() || !cfg!(target_os = "linux")
}

fn stubs_fail_and_a_correct_crate_passes(env: &[(&str, &str)]) {
    let run = |dir: &Path, script: &str, args: &[&str], limit: Duration| {
        run_env(dir, script, args, limit, env)
    };
    let (kit, _serial) = kit();
    for n in 1..=8 {
        let script = format!("checks/0{n}-contract.sh");
        let r = run(kit.path(), &script, &[], BUILD);
        assert_eq!(r.code, 1, "{script} on stubs:\n{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains(":: not started"), "{}", r.stdout);
        assert!(
            last_line(&r.stdout).starts_with("0 passed, 0 failed, 1 step not started"),
            "{}",
            r.stdout
        );
        assert!(
            r.stdout.contains(&format!("./lab.sh check 0{n} --seed ")),
            "no rerun command:\n{}",
            r.stdout
        );
        // Nothing ran, so libtest's "test result: ok" is not printed.
        assert!(!r.stdout.contains("test result"), "{}", r.stdout);
        let unconfined = r.stderr.matches("runs unconfined").count();
        assert_eq!(unconfined, usize::from(on_portable(env)), "{}", r.stderr);
    }
    // A step whose code reaches another step's stub waits for it: one
    // failed line, not one per rule.
    let solution = std::fs::read_to_string(kit.path().join("solutions/src/lib.rs")).unwrap();
    let stub = std::fs::read_to_string(kit.path().join("fixtures/pristine/lib.rs")).unwrap();
    let body = |text: &str| {
        let at = text.find("pub fn remaining").unwrap();
        let end = at + text[at..].find("\n}\n").unwrap() + 3;
        text[at..end].to_string()
    };
    let reset = solution.replace(&body(&solution), &body(&stub));
    assert_ne!(reset, solution);
    std::fs::write(kit.path().join("student/src/lib.rs"), reset).unwrap();
    let r = run(kit.path(), "checks/08-contract.sh", &[], BUILD);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout
            .matches("---- 08 execute :: waits for step 03")
            .count(),
        1,
        "{}",
        r.stdout
    );
    assert_eq!(r.stdout.matches("FAILED").count(), 2, "{}", r.stdout);
    std::fs::copy(
        kit.path().join("solutions/src/lib.rs"),
        kit.path().join("student/src/lib.rs"),
    )
    .unwrap();
    for n in 1..=8 {
        let script = format!("checks/0{n}-contract.sh");
        let r = run(kit.path(), &script, &[], BUILD);
        assert_eq!(
            r.code, 0,
            "{script} on a correct crate:\n{}{}",
            r.stdout, r.stderr
        );
        assert!(
            last_line(&r.stdout).ends_with(" passed, 0 failed"),
            "{}",
            r.stdout
        );
    }
}

#[test]
fn a_seed_reproduces_a_run() {
    let (kit, _serial) = kit();
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("finished in"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let a = run(
        kit.path(),
        "lab.sh",
        &[
            "check",
            "--subject",
            "checks/judge/src/suites/s01/mutants",
            "--seed",
            "77",
        ],
        BUILD,
    );
    assert_eq!(
        a.code, 2,
        "a folder without lib.rs is bad input: {}{}",
        a.stdout, a.stderr
    );
    let sub = [
        "check",
        "02",
        "08",
        "--subject",
        "fixtures/alternatives/a1-extra-clock-reads.rs",
        "--seed",
        "77",
    ];
    let (a, b) = (
        run(kit.path(), "lab.sh", &sub, BUILD),
        run(kit.path(), "lab.sh", &sub, BUILD),
    );
    assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
    assert_eq!(strip(&a.stdout), strip(&b.stdout));
    assert!(a.stdout.contains("--seed 77"));
}

#[test]
fn bad_input_to_the_kit_is_one_line_and_exit_2() {
    let (kit, _serial) = kit();
    let cases: [&[&str]; 8] = [
        &["check", "14"],
        &["check", "--advanced", "advanced.rs"],
        &[
            "check",
            "--subject",
            "solutions/src/lib.rs",
            "--advanced",
            "no/such.rs",
        ],
        &["check", "--seed", "abc"],
        &["check", "--subject", "no/such/folder"],
        &["check", "--subject", "fixtures"],
        &["frobnicate"],
        &["check", "--case-timeout", "-3"],
    ];
    for args in cases {
        let r = run(kit.path(), "lab.sh", args, BUILD);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
    }
    // A usage error speaks the language asked for, wherever --lang stands.
    for args in [
        &["--lang", "zh", "check", "14"][..],
        &["check", "14", "--lang", "zh"],
    ] {
        let r = run(kit.path(), "lab.sh", args, BUILD);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("未知步骤"), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn a_crate_that_does_not_compile_is_reported_as_such() {
    let (kit, _serial) = kit();
    let lib = kit.path().join("student/src/lib.rs");
    let text = std::fs::read_to_string(&lib)
        .unwrap()
        .replace("todo!(\"step 01: retryable({status})\")", "status + ");
    std::fs::write(&lib, text).unwrap();
    let r = run(kit.path(), "checks/01-contract.sh", &[], BUILD);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("does not compile"), "{}", r.stdout);
    assert!(r.stdout.contains("error"), "{}", r.stdout);
    // A changed signature names the learner's line and the contract's
    // declaration, not the checker's code that calls it; also right after
    // a build that compiled, whose runner the next build links without
    // rustc when it can.
    let stub = std::fs::read_to_string(kit.path().join("fixtures/pristine/lib.rs")).unwrap();
    std::fs::write(&lib, &stub).unwrap();
    let r = run(kit.path(), "checks/01-contract.sh", &[], BUILD);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("does not compile"), "{}", r.stdout);
    let changed = stub.replace(
        "pub fn retryable(status: u16)",
        "pub fn retryable(status: u32)",
    );
    assert_ne!(stub, changed);
    std::fs::write(&lib, changed).unwrap();
    let r = run(kit.path(), "checks/01-contract.sh", &[], BUILD);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("`retryable` in student/src/lib.rs:")
            && r.stdout.contains("pub fn retryable(status: u16) -> bool"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("checks/runner"), "{}", r.stdout);
    // A manifest the learner broke is named as their change, not the kit's.
    let manifest = kit.path().join("student/Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str("oops = [\n");
    let oops_line = text.lines().count();
    std::fs::write(&manifest, text).unwrap();
    let r = run(kit.path(), "checks/01-contract.sh", &[], BUILD);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.contains("student/Cargo.toml, which you changed"),
        "{all}"
    );
    // Read before cargo is asked, and told in one line: where TOML stops.
    assert!(
        all.contains(&format!("is not valid TOML (line {oops_line}, column 9: ")),
        "{all}"
    );
    assert!(!all.contains("the kit itself failed"), "{all}");
    // A crate the learner added is their own mistake, told at once, in
    // their terms, without asking any registry.
    let stub = std::fs::read_to_string(kit.path().join("fixtures/pristine/lib.rs")).unwrap();
    std::fs::write(&lib, &stub).unwrap();
    let pristine = std::fs::read_to_string(kit_root().join("student/Cargo.toml")).unwrap();
    for added in ["itoa = \"1\"\n", "regex = { version = \"1\" }\n"] {
        std::fs::write(&manifest, format!("{pristine}{added}")).unwrap();
        let started = Instant::now();
        let r = run(kit.path(), "checks/01-contract.sh", &[], BUILD);
        let name = added.split(' ').next().unwrap();
        assert_eq!(r.code, 3, "{added}: {}{}", r.stdout, r.stderr);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains(&format!("student/Cargo.toml adds {name}"))
                && all.contains("standard library and lab_api only"),
            "{all}"
        );
        assert!(!all.contains("the kit itself failed"), "{all}");
        assert!(!all.contains("Permission denied"), "{all}");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{added}: {:?}",
            started.elapsed()
        );
    }
}

/// A call that never answers is told on stderr as it happens, not only in
/// the report at the end: a learner must not take an endless loop for a
/// kit that hangs. The first call that hung shows its timeline up to the
/// moment it stopped answering; the later ones are cut short.
#[test]
fn a_call_that_never_answers_is_told_as_it_happens() {
    use std::io::BufRead;
    let (kit, _serial) = kit_alone();
    let solution = std::fs::read_to_string(kit.path().join("solutions/src/lib.rs")).unwrap();
    let at = solution.find("pub fn execute").unwrap();
    let body = at + solution[at..].find('{').unwrap() + 1;
    // The reference, but its second send never returns: the loop spins
    // after one send and one sleep of a retried call.
    let busy = format!(
        "{}\n    let mut sends = 0;\n    let inner = send;\n    let send: &mut dyn FnMut(f64) -> Response = &mut |t| {{\n        sends += 1;\n        if sends > 1 {{\n            loop {{ std::hint::spin_loop(); }}\n        }}\n        inner(t)\n    }};\n{}",
        &solution[..body],
        &solution[body..]
    );
    std::fs::write(kit.path().join("student/src/lib.rs"), busy).unwrap();
    // The default case limit (2 s): after the first hang, each later one
    // is cut short.
    let args = ["checks/08-contract.sh", "--seed", "3"];
    // Built once first, so the run below times the checking only: step
    // 01 builds the same runner, and its answers come from the reference.
    let r = run(kit.path(), "checks/01-contract.sh", &args[1..], BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let mut child = Command::new("bash")
        // A check run under GitHub Actions would add its annotations.
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(args)
        .current_dir(kit.path())
        .env("CARGO_TARGET_DIR", kit_root().join("target/e2e"))
        .env("LAB_LANG", "en")
        .env_remove("LAB_ROOT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let report = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let reader = std::thread::spawn(move || {
        std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .map(|line| (started.elapsed(), line))
            .collect::<Vec<_>>()
    });
    let status = wait_within(&mut child, BUILD, "check 08 with a busy loop");
    let ended = started.elapsed();
    let lines = reader.join().unwrap();
    let report = report.join().unwrap();
    assert_eq!(status.code(), Some(1));
    let told: Vec<&(Duration, String)> = lines
        .iter()
        .filter(|(_, l)| l.contains("step 08") && l.contains("no answer"))
        .collect();
    assert!(told[0].1.contains("no answer within 2 s"), "{lines:?}");
    // Each later call that hangs is stopped after 0.3 s (it took the full
    // 2 s each before), with room for a loaded machine.
    assert!(
        told.iter()
            .skip(1)
            .all(|(_, l)| l.contains("stopped after 0.3 s")),
        "{lines:?}"
    );
    assert!(told.len() >= 2, "{lines:?}");
    let limit = Duration::from_secs(2) + Duration::from_millis(300) * (told.len() as u32 - 1);
    assert!(
        ended < limit + Duration::from_secs(6),
        "{ended:?}: {lines:?}"
    );
    // The first within a few seconds of the first time-out, long before
    // the run ends; then one line for each call that followed.
    let (first, _) = told[0];
    assert!(
        *first < Duration::from_secs(8),
        "first told after {first:?}: {lines:?}"
    );
    assert!(told[1].1.contains("2 calls so far"), "{lines:?}");
    // The first hang's block: its send and its sleep, then no answer.
    let block = report
        .split("\n---- ")
        .find(|b| b.contains("no answer within 2 s"))
        .unwrap_or_else(|| panic!("no block of the first hang: {report}"));
    let timeline = block
        .split_once("timeline up to the moment your call stopped answering")
        .unwrap_or_else(|| panic!("no timeline before the hang: {block}"))
        .1;
    let row = |n: &str| timeline.lines().find(|l| l.trim_start().starts_with(n));
    let (one, two) = (row("1 "), row("2 "));
    assert!(
        one.is_some_and(|l| l.matches("send(").count() == 2),
        "{timeline}"
    );
    assert!(
        two.is_some_and(|l| l.matches("sleep(").count() == 2),
        "{timeline}"
    );
    assert!(timeline.contains("after the last row above"), "{timeline}");
    // The closing line tells the real time the step took.
    let closing = report
        .lines()
        .find(|l| l.starts_with("test result:"))
        .unwrap_or_else(|| panic!("{report}"));
    let secs: f64 = closing
        .rsplit_once("finished in ")
        .and_then(|(_, t)| t.trim_end_matches('s').parse().ok())
        .unwrap_or_else(|| panic!("{closing}"));
    assert!(secs >= limit.as_secs_f64() - 0.1, "{closing} for {ended:?}");
}

fn hostile(kit: &Path, name: &str, body: &str) -> String {
    let path = kit.join(format!("{name}.rs"));
    let base = std::fs::read_to_string(kit.join("solutions/src/lib.rs")).unwrap();
    let needle = "pub fn retryable(status: u16) -> bool {\n";
    assert!(base.contains(needle));
    std::fs::write(
        &path,
        base.replace(
            needle,
            &format!("{needle}    if status == 503 {{ {body} }}\n"),
        ),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn hostile_code_gets_a_clear_verdict_and_never_hangs_or_passes() {
    hostile_code_is_told(&[]);
}

/// The same hang, sleep, exit, abort, stack overflow and flood on the
/// portable layer, with the same verdicts (a fork is no longer refused
/// there: learner code runs unconfined, and the answer is still checked).
#[test]
fn on_the_portable_layer_hostile_code_gets_the_same_verdicts() {
    hostile_code_is_told(PORTABLE);
}

fn hostile_code_is_told(env: &[(&str, &str)]) {
    let run = |dir: &Path, script: &str, args: &[&str], limit: Duration| {
        run_env(dir, script, args, limit, env)
    };
    let (kit, _serial) = kit();
    let cases = [
        (
            "loops",
            "loop { std::hint::spin_loop(); }",
            "no answer within 0.5 s",
        ),
        (
            "sleeps",
            "std::thread::sleep(std::time::Duration::from_secs(60));",
            "no answer within 0.5 s",
        ),
        ("exits", "std::process::exit(0);", "exited with status 0"),
        // Windows ends an aborted process with status 3, not a signal.
        (
            "aborts",
            "std::process::abort();",
            if cfg!(windows) {
                "exited with status 3"
            } else {
                "killed by signal 6"
            },
        ),
        (
            "overflows",
            "fn f(n: u64) -> u64 { if n == 0 { 0 } else { 1 + f(n + 1) } } return f(1) == 7;",
            "stack overflowed",
        ),
        (
            "floods",
            // Half a megabyte a write: past the 4 MiB cap in a few writes,
            // so well within the 0.5 s limit on a loaded machine too (one
            // short line a write took longer than that beside a CPU hog).
            "let chunk = \"flood \".repeat(90_000); loop { print!(\"{chunk}\"); }",
            "printed more than",
        ),
        (
            "forks",
            "let _ = std::process::Command::new(\"sleep\").arg(\"60\").spawn(); return false;",
            "expected: true",
        ),
    ];
    // Build the judge and the slot's dependencies first, so that the time
    // limit below measures the hostile runs, not compiling.
    let warm = run(
        kit.path(),
        "lab.sh",
        &["check", "01", "--subject", "solutions/src/lib.rs"],
        BUILD,
    );
    assert_eq!(warm.code, 0, "{}{}", warm.stdout, warm.stderr);
    for (name, body, words) in cases {
        let subject = hostile(kit.path(), name, body);
        let t = Instant::now();
        let r = run(
            kit.path(),
            "lab.sh",
            &[
                "check",
                "01",
                "--subject",
                &subject,
                "--case-timeout",
                "0.5",
            ],
            BUILD,
        );
        assert_eq!(r.code, 1, "{name}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.contains(words),
            "{name}: wanted {words:?} in\n{}",
            r.stdout
        );
        assert!(
            r.stdout.contains("input:    retryable(503)"),
            "{name}: {}",
            r.stdout
        );
        // The other clause still ran and passed: one bad case hides nothing else.
        let other = r
            .stdout
            .lines()
            .find(|l| l.contains("false for every other status"))
            .unwrap_or("");
        assert!(other.ends_with("... ok"), "{name}: {}", r.stdout);
        assert!(t.elapsed() < QUICK, "{name} took {:?}", t.elapsed());
    }
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Well-formedness by an independent XML parser (Python's expat), and a
/// measured `time` in seconds (three decimals at most) on every suite and
/// test case, as Surefire's and Jenkins' schemas want.
fn assert_xml(path: &Path) {
    let script = r#"
import sys, re, xml.dom.minidom as m
d = m.parse(sys.argv[1])
for tag in ("testsuite", "testcase"):
    for e in d.getElementsByTagName(tag):
        time = e.getAttribute("time")
        assert re.fullmatch(r"[0-9]+\.[0-9]{3}", time), (tag, time)
print(d.documentElement.tagName)
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{} is not XML: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "testsuites");
}

/// The file of mutant `id` in a kit: in its step's folder.
fn mutant_file(kit: &Path, id: &str) -> PathBuf {
    let folder = suites::entry(&id[..2]).dir();
    kit.join(folder).join(format!("mutants/{id}.rs"))
}

/// A class of 20: correct crates in both layouts, stubs, mutants, an
/// alternative and one that does not compile; with its expected scores.
fn class(kit: &Path, dir: &Path) -> Vec<(String, u32)> {
    let solution = kit.join("solutions/src/lib.rs");
    // The mutants as whole files: their items put into the reference.
    let reference = std::fs::read_to_string(&solution).unwrap();
    let spliced = tempfile::tempdir().unwrap();
    let mutant = |name: &str| {
        let part = mutant_file(kit, name);
        let part = std::fs::read_to_string(part).unwrap();
        let lib = spliced.path().join(format!("{name}.rs"));
        std::fs::write(&lib, sections::splice_items(&reference, &part).unwrap()).unwrap();
        lib
    };
    let mut expected = Vec::new();
    let mut add = |name: &str, layout: &str, source: &Path, score: u32| {
        let target = dir.join(name).join(layout);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(source, &target).unwrap();
        expected.push((name.to_string(), score));
    };
    for i in 0..10 {
        let layout = if i % 2 == 0 {
            "src/lib.rs"
        } else {
            "student/src/lib.rs"
        };
        add(&format!("correct-{i:02}"), layout, &solution, 8);
    }
    for i in 0..4 {
        add(
            &format!("stubs-{i}"),
            "src/lib.rs",
            &kit.join("fixtures/pristine/lib.rs"),
            0,
        );
    }
    add("mutant-01", "src/lib.rs", &mutant("01-429-forgotten"), 6);
    add("mutant-07", "src/lib.rs", &mutant("07-budget-ge-wait"), 6);
    add(
        "mutant-05",
        "src/lib.rs",
        &mutant("05-complement-fraction"),
        6,
    );
    add(
        "alternative",
        "src/lib.rs",
        &kit.join("fixtures/alternatives/a3-hand-parsed-u128-while-loop.rs"),
        8,
    );
    let broken = dir.join("broken.rs");
    std::fs::write(
        &broken,
        std::fs::read_to_string(&solution)
            .unwrap()
            .replace("-> bool {", "-> bool { 1 +"),
    )
    .unwrap();
    add("broken", "src/lib.rs", &broken, 0);
    add("broken-too", "student/src/lib.rs", &broken, 0);
    std::fs::remove_file(&broken).unwrap();
    expected.sort();
    expected
}

#[test]
fn a_class_of_twenty_grades_in_every_format() {
    let (kit, _serial) = kit();
    let subs = tempfile::tempdir().unwrap();
    let expected = class(kit.path(), subs.path());
    assert_eq!(expected.len(), 20);
    let out = kit.path().join("grades-out");
    let mut args: Vec<String> = ["grade", "--jobs", "2", "--seed", "5", "--out"]
        .map(String::from)
        .to_vec();
    args.push(out.display().to_string());
    args.extend(
        expected
            .iter()
            .map(|(n, _)| subs.path().join(n).display().to_string()),
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(kit.path(), "lab.sh", &refs, BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);

    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["schema"], "retry-lab.grade/1");
    assert_eq!(summary["seed"], "5");
    let got: Vec<(String, u32)> = summary["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["score"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    assert_eq!(got, expected);
    for s in summary["submissions"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        assert_eq!(s["max_score"], 8);
        let build = if name.starts_with("broken") {
            "failed"
        } else {
            "ok"
        };
        assert_eq!(s["build"], build, "{name}");
        let steps: Vec<&str> = s["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|st| st["step"].as_str().unwrap())
            .collect();
        let registered: Vec<&str> = REGISTRY.iter().map(|e| e.id).collect();
        assert_eq!(steps, registered);
        assert!(s["steps"][0]["passed"].is_boolean());
        // Core submissions: the bonus steps are not attempted, worth nothing.
        let first_advanced = suites::core_ids().len();
        assert_eq!(
            s["steps"][first_advanced]["status"], "not-attempted",
            "{name}"
        );
        assert_eq!(s["bonus"], 0, "{name}");
        assert_eq!(s["advanced_build"], "absent", "{name}");

        let dir = out.join(name);
        assert_xml(&dir.join("junit.xml"));
        let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
        assert!(
            !junit.contains("09 Deadline"),
            "{name}: not attempted, left out"
        );
        let result = json(&dir.join("result.json"));
        assert_eq!(result["name"], name);
        let gs = json(&dir.join("gradescope/results.json"));
        assert!(gs["score"].is_number() && gs["execution_time"].is_number());
        assert!(gs.get("max_score").is_none(), "not a top-level key");
        assert_eq!(gs["output_format"], "text");
        for t in gs["tests"].as_array().unwrap() {
            for field in [
                "name",
                "score",
                "max_score",
                "status",
                "output",
                "visibility",
            ] {
                assert!(
                    !t[field].is_null(),
                    "gradescope test without {field} in {name}"
                );
            }
        }
        let ex = json(&dir.join("exercism/results.json"));
        assert_eq!(ex["version"], 3);
        let status = if build == "failed" {
            "error"
        } else if s["score"] == 8 {
            "pass"
        } else {
            "fail"
        };
        assert_eq!(ex["status"], status, "{name}");
        let tasks: Vec<u64> = ex["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["task_id"].as_u64().unwrap())
            .collect();
        assert!(
            tasks.windows(2).all(|w| w[0] <= w[1]),
            "exercism tests out of step order in {name}"
        );
        for t in ex["tests"].as_array().unwrap() {
            for field in ["name", "status", "message", "output", "task_id"] {
                assert!(
                    t.get(field).is_some(),
                    "exercism test without {field} in {name}"
                );
            }
            // The Rust call that was tested, not a clause's key.
            let code = t["test_code"].as_str().unwrap();
            assert!(code.contains('('), "{name}: test_code {code:?}");
        }
    }
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(csv.lines().count(), 21);
    assert_eq!(csv.matches("\r\n").count(), 21, "RFC 4180 line ends");
    assert_eq!(
        csv.lines().next().unwrap(),
        "name,build,score,max_score,01,02,03,04,05,06,07,08",
        "no advanced columns when nobody attempted them"
    );
    assert!(std::fs::read_to_string(out.join("summary.md"))
        .unwrap()
        .contains("| correct-00 |"));
    let broken = json(&out.join("broken/result.json"));
    assert!(
        broken["build_errors"].as_str().unwrap().contains("error"),
        "{broken}"
    );
}

#[test]
fn shards_merge_into_the_same_verdicts() {
    let (kit, _serial) = kit();
    let subs = tempfile::tempdir().unwrap();
    let all = class(kit.path(), subs.path());
    let chosen: Vec<&(String, u32)> = all
        .iter()
        .filter(|(n, _)| n.ends_with("00") || n.starts_with("mutant") || n == "broken")
        .collect();
    let folders: Vec<String> = chosen
        .iter()
        .map(|(n, _)| subs.path().join(n).display().to_string())
        .collect();
    let out = kit.path().join("g");
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let dir = out.join(format!("shard-{i}")).display().to_string();
        let mut args = vec!["grade", "--seed", "9", "--shard", &shard, "--out", &dir];
        args.extend(folders.iter().map(String::as_str));
        let r = run(kit.path(), "lab.sh", &args, BUILD);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    }
    let (s1, s2, class_dir) = (
        out.join("shard-1").display().to_string(),
        out.join("shard-2").display().to_string(),
        out.join("class").display().to_string(),
    );
    let r = run(
        kit.path(),
        "lab.sh",
        &["grade", "--merge", &s1, &s2, "--out", &class_dir],
        QUICK,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let merged = json(&out.join("class/summary.json"));
    let got: Vec<(String, u32)> = merged["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["score"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    let want: Vec<(String, u32)> = chosen.into_iter().cloned().collect();
    assert_eq!(got, want);
    assert!(out.join("class/broken/junit.xml").is_file());
    let other = run(
        kit.path(),
        "lab.sh",
        &["grade", "--merge", &s1, &class_dir, "--out", &class_dir],
        QUICK,
    );
    assert_eq!(
        other.code, 2,
        "overlapping shards must be refused: {}",
        other.stdout
    );
}

/// The private similarity report: a disguised copy of the reference
/// (fixtures/similarity) is listed against it, with the steps the
/// hand-written expectations name; an independent alternative is not;
/// `--no-similarity` writes no such file and takes an older one away.
#[test]
fn grade_lists_a_disguised_copy_in_its_private_similarity_report() {
    let (kit, _serial) = kit();
    let subs = tempfile::tempdir().unwrap();
    let put = |name: &str, from: &str| {
        let lib = subs.path().join(name).join("student/src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::copy(kit.path().join(from), lib).unwrap();
        subs.path().join(name).display().to_string()
    };
    let class = [
        put("alice", "solutions/src/lib.rs"),
        put(
            "bob",
            "fixtures/similarity/disguised-copy/student/src/lib.rs",
        ),
        put(
            "carol",
            "fixtures/alternatives/a3-hand-parsed-u128-while-loop.rs",
        ),
    ];
    let out = kit.path().join("similar").display().to_string();
    let mut args = vec!["grade", "--seed", "4", "--out", &out];
    args.extend(class.iter().map(String::as_str));
    let r = run(kit.path(), "lab.sh", &args, BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("similarity.json"), "{}", r.stdout);
    let file = json(&Path::new(&out).join("similarity.json"));
    assert_eq!(file["schema"], "retry-lab.similarity/1");
    let expected = json(&kit.path().join("fixtures/similarity/expected.json"));
    let pairs = file["pairs"].as_array().unwrap();
    let steps: Vec<&str> = pairs.iter().map(|p| p["step"].as_str().unwrap()).collect();
    let want: Vec<&str> = expected["disguised_copy"]["flagged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(steps, want);
    for p in pairs {
        assert_eq!((&p["a"], &p["b"]), (&"alice".into(), &"bob".into()));
        assert!(!p["matches"].as_array().unwrap().is_empty());
    }
    let html = std::fs::read_to_string(Path::new(&out).join("summary.html")).unwrap();
    assert!(html.contains("data-private=\"instructors\""));
    assert_eq!(html.matches("<details class=\"pair\"").count(), want.len());
    let mut args = vec!["grade", "--seed", "4", "--no-similarity", "--out", &out];
    args.extend(class.iter().map(String::as_str));
    let r = run(kit.path(), "lab.sh", &args, BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!Path::new(&out).join("similarity.json").exists());
    let html = std::fs::read_to_string(Path::new(&out).join("summary.html")).unwrap();
    assert!(!html.contains("id=\"similarity\""));
}

/// The class that broke GitHub's artifact upload and stopped every shard:
/// names with quotes, `=`, `<`, `&`, spaces and Chinese, and a folder
/// without a lib.rs. Graded in two shards and merged with a third shard
/// missing: every report folder has a portable name, every report the real
/// name, the folder without lib.rs is that submission's result ("no lib.rs
/// found", 0 points, needs review) while its classmates are graded, and the
/// merge writes the class summary and names the missing shard.
#[test]
fn a_class_with_odd_names_and_no_lib_rs_grades_in_shards_and_merges() {
    let (kit, _serial) = kit();
    let subs = tempfile::tempdir().unwrap();
    let solution = kit.path().join("solutions/src/lib.rs");
    let stub = kit.path().join("fixtures/pristine/lib.rs");
    // (name, lib.rs to copy in, expected score)
    let class: [(&str, Option<&Path>, u64); 4] = [
        ("王小明", Some(&solution), 8),
        ("Li \"Lee\" =cmd", Some(&stub), 0),
        ("张 三,2 & <x>", None, 0),
        ("-rf", Some(&solution), 8),
    ];
    for (name, lib, _) in &class {
        let dir = subs.path().join(name);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        match lib {
            Some(lib) => {
                std::fs::copy(lib, dir.join("src/lib.rs")).unwrap();
            }
            None => std::fs::write(dir.join("notes.txt"), "my code is on my laptop\n").unwrap(),
        }
    }
    let folders: Vec<String> = class
        .iter()
        .map(|(n, _, _)| subs.path().join(n).display().to_string())
        .collect();
    let out = kit.path().join("g");
    let shard_dir = |i: usize| out.join(format!("shard-{i}")).display().to_string();
    let mut codes = Vec::new();
    for i in 1..=2 {
        let (shard, dir) = (format!("{i}/2"), shard_dir(i));
        let mut args = vec!["grade", "--seed", "3", "--shard", &shard, "--out", &dir];
        args.extend(folders.iter().map(String::as_str));
        let r = run(kit.path(), "lab.sh", &args, BUILD);
        assert!(
            r.code == 0 || r.code == 5,
            "a shard grades its whole slice: {}{}",
            r.stdout,
            r.stderr
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        codes.push(r.code);
    }
    // The shard holding the folder without lib.rs asks for review (5).
    codes.sort();
    assert_eq!(codes, [0, 5]);

    let class_dir = out.join("class").display().to_string();
    let (s1, s2, s3) = (shard_dir(1), shard_dir(2), shard_dir(3));
    let r = run(
        kit.path(),
        "lab.sh",
        &["grade", "--merge", &s1, &s2, &s3, "--out", &class_dir],
        QUICK,
    );
    assert_eq!(r.code, 5, "a missing shard: {}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(&s3) && r.stderr.contains("missing"),
        "the merge names the missing shard: {}",
        r.stderr
    );

    let summary = json(&out.join("class/summary.json"));
    let rows = summary["submissions"].as_array().unwrap();
    let mut names: Vec<&str> = rows.iter().map(|s| s["name"].as_str().unwrap()).collect();
    let mut want: Vec<&str> = class.iter().map(|(n, _, _)| *n).collect();
    names.sort();
    want.sort();
    assert_eq!(names, want, "every real name, once");
    let portable = |f: &str| {
        !f.is_empty()
            && f.len() <= 64
            && !f.starts_with('.')
            && !f.starts_with('-')
            && f.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    };
    for (name, lib, score) in &class {
        let row = rows.iter().find(|s| s["name"] == *name).unwrap();
        assert_eq!(row["score"], *score, "{name}: {row}");
        let folder = row["folder"].as_str().unwrap();
        assert!(portable(folder), "{name:?} → {folder:?}");
        let dir = out.join("class").join(folder);
        let result = json(&dir.join("result.json"));
        assert_eq!(result["name"], *name);
        assert_xml(&dir.join("junit.xml"));
        let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
        let gradescope = json(&dir.join("gradescope/results.json"));
        let exercism = json(&dir.join("exercism/results.json"));
        if lib.is_none() {
            assert_eq!(row["build"], "error", "{row}");
            assert!(row["review"].as_str().unwrap().contains("no lib.rs found"));
            assert_eq!(result["build"], "error");
            assert!(junit.contains("no lib.rs found"), "{junit}");
            assert_eq!(gradescope["score"], 0);
            assert!(gradescope.to_string().contains("no lib.rs found"));
            assert_eq!(exercism["status"], "error");
            assert!(exercism["message"]
                .as_str()
                .unwrap()
                .contains("no lib.rs found"));
        } else {
            assert_eq!(row["build"], "ok", "{row}");
        }
    }
    // Nothing else under the class folder, and no path a tool refuses.
    let mut stack = vec![out.join("class")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().into_string().unwrap();
            assert!(portable(&name), "{}", entry.path().display());
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            }
        }
    }
    let csv = std::fs::read_to_string(out.join("class/summary.csv")).unwrap();
    assert!(csv.contains("\"Li \"\"Lee\"\" =cmd\""), "{csv}");
    assert!(csv.contains("王小明") && csv.contains("'-rf"), "{csv}");
    // The merge's page: every name escaped, the one without lib.rs first.
    let html = std::fs::read_to_string(out.join("class/summary.html")).unwrap();
    for shown in ["王小明", "Li &quot;Lee&quot; =cmd", "-rf"] {
        assert!(html.contains(&format!("<bdi>{shown}</bdi>")), "{shown}");
    }
    assert!(!html.contains("<x>"), "a name is never markup");
    let first = html.find("<tr data-name=").unwrap();
    assert!(
        html[first..].starts_with("<tr data-name=\"张 三,2 &amp; &lt;x&gt;\""),
        "needs review first"
    );
}

#[test]
fn a_handout_builds_and_its_checks_fail_on_the_stubs() {
    let (kit, _serial) = kit();
    // The handout's manifest differs from the kit's, so cargo builds its
    // judge again: in a target folder of this test's own, not under the
    // other tests' feet.
    let run = |dir: &Path, script: &str, args: &[&str], limit: Duration| {
        run_in_own_target(dir, script, args, limit, "handout")
    };
    let out = tempfile::tempdir().unwrap();
    let handout = out.path().join("handout");
    // It may build the judge first (this test's target folder is its own):
    // a build's limit, not a quick command's, on a loaded machine.
    let r = run(
        kit.path(),
        "lab.sh",
        &["handout", &handout.display().to_string()],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!handout.join("solutions").exists());
    // The editor's tasks go to the learner.
    assert!(handout.join(".vscode/tasks.json").is_file());
    // No mutant or alternative reaches a learner: no step folder's
    // `mutants/` or `alternatives/` (nor any folder of those names), and no
    // file that reads as one, while the kit has them all.
    let mut leaked = Vec::new();
    lab_judge::files::walk(&handout, &|_| false, &mut |rel, folder| {
        let name = rel.file_name().unwrap_or_default();
        if folder && (name == "mutants" || name == "alternatives") {
            leaked.push(rel.display().to_string());
        } else if !folder && rel.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(handout.join(rel))?;
            if text.starts_with("// mutant:") || text.starts_with("// alternative:") {
                leaked.push(rel.display().to_string());
            }
        }
        Ok(())
    })
    .unwrap();
    assert!(leaked.is_empty(), "in the handout: {leaked:?}");
    for entry in REGISTRY {
        let (kit_folder, folder) = (kit.path().join(entry.dir()), handout.join(entry.dir()));
        assert!(kit_folder.join("mutants").is_dir(), "{}", entry.dir());
        assert!(folder.join("text.en.md").is_file() && folder.join("cases.json").is_file());
    }
    let r = run(&handout, "checks/05-contract.sh", &[], BUILD);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("05 jitter :: not started"),
        "{}",
        r.stdout
    );
    // The texts are read from the step's folder in the handout too (the
    // judge is built by now).
    let r = run(&handout, "lab.sh", &["show", "05"], QUICK);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let text = std::fs::read_to_string(handout.join(suites::entry("05").dir()).join("text.en.md"));
    let text = text.unwrap();
    assert_eq!(r.stdout, text);
    // The commands without bash go with it (`cargo lab`, the alias in
    // .cargo/config.toml), and so does the editors' view of advanced.rs.
    assert!(handout.join("student/editor/advanced.rs").is_file());
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let r = common::run_program(
        &handout,
        &cargo,
        &["lab", "show", "05"],
        "handout",
        &[],
        QUICK,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, text);
    let r = run(&handout, "lab.sh", &["selftest"], QUICK);
    assert_eq!(
        r.code, 2,
        "selftest needs the instructor's kit: {}{}",
        r.stdout, r.stderr
    );
    // The language asked for in either spelling, before the command too.
    for lang in [&["--lang", "zh"][..], &["--lang=zh"]] {
        let mut words = lang.to_vec();
        words.push("selftest");
        let r = run(&handout, "lab.sh", &words, QUICK);
        assert_eq!(r.code, 2, "{words:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("需要 solutions/"),
            "{words:?}: {}",
            r.stderr
        );
    }
    // The judge's rule for the environment too: LAB_LANG before LANG, and
    // C or POSIX (any case) is English, also as --lang's value.
    let zh = ("LANG", "zh_CN.UTF-8");
    for (words, env) in [
        (&["selftest"][..], vec![zh, ("LAB_LANG", "C")]),
        (
            &["--lang", "posix", "selftest"],
            vec![zh, ("LAB_LANG", "zh")],
        ),
    ] {
        let mut all = vec!["lab.sh"];
        all.extend_from_slice(words);
        let r = common::run_program(&handout, "bash", &all, "handout", &env, QUICK);
        assert_eq!(r.code, 2, "{words:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("needs its solutions/"),
            "{words:?} {env:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn try_runs_execute_against_a_real_local_server() {
    try_execute(&[]);
}

/// `try` on the portable layer: the same demonstration on loopback.
#[test]
fn on_the_portable_layer_try_runs_execute_against_a_real_local_server() {
    try_execute(PORTABLE);
}

fn try_execute(env: &[(&str, &str)]) {
    let run = |dir: &Path, script: &str, args: &[&str], limit: Duration| {
        run_env(dir, script, args, limit, env)
    };
    let (kit, _serial) = kit();
    let r = run(
        kit.path(),
        "lab.sh",
        &["try", "--subject", "solutions/src/lib.rs"],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for words in [
        "<- 503, Retry-After: 1",
        "sleep(1.000)",
        "<- 429",
        "<- 200",
        "result: Ok(200",
        "request #3",
    ] {
        assert!(
            r.stdout.contains(words),
            "wanted {words:?} in\n{}",
            r.stdout
        );
    }
    assert!(!r.stdout.contains("request #4"), "{}", r.stdout);
    let stubs = run(kit.path(), "lab.sh", &["try"], BUILD);
    assert!(
        stubs.stdout.contains("step 08 is not implemented yet"),
        "{}",
        stubs.stdout
    );
}

/// The index of the first line at or after `from` that holds every one of
/// `words`; panics with the whole output when there is none.
fn line_with(out: &str, from: usize, words: &[&str]) -> usize {
    out.lines()
        .enumerate()
        .skip(from)
        .find(|(_, l)| words.iter().all(|w| l.contains(w)))
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("no line after {from} with {words:?} in\n{out}"))
}

#[test]
fn try_11_runs_execute_admitted_against_a_real_local_server() {
    let (kit, _serial) = kit();
    let r = run(
        kit.path(),
        "lab.sh",
        &["try", "11", "--advanced", "solutions/advanced.rs"],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let out = &r.stdout;
    // The client's side, in order: 503, a wait of a second, 429 with an
    // HTTP-date, a wait, the late 200; then the malformed field.
    let first = line_with(out, 0, &["<- 503, Retry-After: 1 "]);
    let slept = line_with(out, first, &["sleep(1.000)"]);
    let date = line_with(out, slept, &["<- 429, Retry-After: ", " GMT"]);
    let wait = line_with(out, date, &["sleep("]);
    let ok = line_with(out, wait, &["<- 200"]);
    let answer = line_with(out, ok, &["outcome: answer 200"]);
    let soon = line_with(out, answer, &["<- 503, Retry-After: soon"]);
    line_with(out, soon, &["outcome: stopped, invalid_retry_after"]);
    // The server's side: four requests, and the 200 took its 300 ms.
    let server = line_with(out, 0, &["server: what it saw"]);
    let fourth = line_with(out, server, &["request #4"]);
    line_with(out, server, &["answered 200 after 300 ms"]);
    line_with(out, fourth, &["answered 503, Retry-After: soon"]);
    assert!(!out.contains("request #5"), "{out}");
    // A stub names its step and function.
    let stub = run(
        kit.path(),
        "lab.sh",
        &["try", "11", "--advanced", "fixtures/pristine/advanced.rs"],
        BUILD,
    );
    assert_eq!(stub.code, 1, "{}{}", stub.stdout, stub.stderr);
    assert!(
        stub.stdout
            .contains("step 11 is not implemented yet: `execute_admitted`"),
        "{}",
        stub.stdout
    );
    // A file that does not compile gets the usual compile report.
    std::fs::write(kit.path().join("broken.rs"), "fn x( {\n").unwrap();
    let broken = run(
        kit.path(),
        "lab.sh",
        &["try", "11", "--advanced", "broken.rs"],
        BUILD,
    );
    assert_eq!(broken.code, 3, "{}{}", broken.stdout, broken.stderr);
    assert!(
        broken.stdout.contains("broken.rs does not compile"),
        "{}",
        broken.stdout
    );
}

#[test]
fn try_13_runs_quoteflow_behind_a_real_front_and_suppliers() {
    try_13_quoteflow(&[]);
}

/// `try 13` on the portable layer: the front's listening socket is handed
/// to the runner by number there too.
#[test]
fn on_the_portable_layer_try_13_runs_behind_a_front_handed_as_a_descriptor() {
    try_13_quoteflow(PORTABLE);
}

fn try_13_quoteflow(env: &[(&str, &str)]) {
    let run = |dir: &Path, script: &str, args: &[&str], limit: Duration| {
        run_env(dir, script, args, limit, env)
    };
    let (kit, _serial) = kit();
    let r = run(
        kit.path(),
        "lab.sh",
        &["try", "13", "--advanced", "solutions/advanced.rs"],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let out = &r.stdout;
    // The front turned some away at its full gate, and answered with quotes.
    line_with(out, 0, &["front: answered 503, Retry-After: 1"]);
    line_with(out, 0, &["client: q", "<- 503, Retry-After: 1"]);
    let ok = line_with(out, 0, &["client: q", "<- 200"]);
    line_with(out, ok, &["flaky: quote "]);
    // The last request came after the others and got quotes too.
    let last = line_with(out, 0, &["client: q5 <- 200"]);
    line_with(out, last, &["fast: quote "]);
    // The flaky supplier was asked twice with one request id.
    let twice = (1..=5).any(|k| {
        out.contains(&format!("flaky: request id q{k}, attempt 1"))
            && out.contains(&format!("flaky: request id q{k}, attempt 2"))
    });
    assert!(twice, "{out}");
    // A stub names its step and function.
    let stub = run(
        kit.path(),
        "lab.sh",
        &["try", "13", "--advanced", "fixtures/pristine/advanced.rs"],
        BUILD,
    );
    assert_eq!(stub.code, 1, "{}{}", stub.stdout, stub.stderr);
    assert!(
        stub.stdout.contains("step 13 is not implemented yet"),
        "{}",
        stub.stdout
    );
}

#[test]
fn try_without_a_demonstration_is_a_one_line_error() {
    let (kit, _serial) = kit();
    let r = run(kit.path(), "lab.sh", &["try", "99"], QUICK);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("08, 11, 13"),
        "the steps with a demonstration: {}",
        r.stderr
    );
    // A bad command line is answered in the learner's language too.
    let zh = run(kit.path(), "lab.sh", &["--lang", "zh", "try", "99"], QUICK);
    assert_eq!(zh.code, 2, "{}{}", zh.stdout, zh.stderr);
    assert!(zh.stderr.contains("没有演示"), "{}", zh.stderr);
}

#[test]
fn reset_restores_one_stub_with_a_backup_and_watch_checks_once() {
    reset_and_watch(&[]);
}

/// `reset`, `watch` and `status` on the portable layer; `watch` says once
/// that learner code runs unconfined, however many checks it runs.
#[test]
fn on_the_portable_layer_reset_and_watch_work_the_same() {
    reset_and_watch(PORTABLE);
}

fn reset_and_watch(env: &[(&str, &str)]) {
    let run = |dir: &Path, script: &str, args: &[&str], limit: Duration| {
        run_env(dir, script, args, limit, env)
    };
    let (kit, _serial) = kit();
    let lib = kit.path().join("student/src/lib.rs");
    std::fs::copy(kit.path().join("solutions/src/lib.rs"), &lib).unwrap();
    let r = run(kit.path(), "lab.sh", &["reset", "4"], QUICK);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let text = std::fs::read_to_string(&lib).unwrap();
    assert_eq!(
        text.matches("todo!(").count(),
        1,
        "only backoff is a stub again"
    );
    assert!(text.contains("todo!(\"step 04"), "{text}");
    let backups: Vec<_> = std::fs::read_dir(kit.path().join(".lab/backups"))
        .unwrap()
        .collect();
    assert_eq!(backups.len(), 1);
    let r = run(
        kit.path(),
        "lab.sh",
        &["watch", "3", "4", "--max-checks", "1"],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("5 passed, 0 failed, 1 step not started"),
        "{}",
        r.stdout
    );
    let status = run(kit.path(), "lab.sh", &["status"], QUICK).stdout;
    let line = |step: &str| {
        status
            .lines()
            .find(|l| l.starts_with(step))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("03").contains("passed") && line("04").contains("not started"),
        "{status}"
    );
    // Once step 03 passes, watch moves on to the next step not passed.
    let r = run(
        kit.path(),
        "lab.sh",
        &["watch", "3", "--max-checks", "2"],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let unconfined = r.stderr.matches("runs unconfined").count();
    assert_eq!(unconfined, usize::from(on_portable(env)), "{}", r.stderr);
    assert!(
        r.stdout.contains("step 03 passes. On to step 04"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("04 backoff :: not started"),
        "{}",
        r.stdout
    );
    // Said again under step 04's report, so a redraw does not hide it.
    let moved = r.stdout.rfind("step 03 passes. On to step 04").unwrap();
    assert!(
        moved > r.stdout.find("04 backoff :: not started").unwrap(),
        "{}",
        r.stdout
    );
    let r = run(kit.path(), "lab.sh", &["reset", "--all"], QUICK);
    assert_eq!(r.code, 0);
    assert_eq!(
        std::fs::read(&lib).unwrap(),
        std::fs::read(kit.path().join("fixtures/pristine/lib.rs")).unwrap()
    );
}

#[cfg(unix)]
#[test]
fn watch_rechecks_what_passed_and_fits_a_long_report_to_the_terminal() {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let (kit, _serial) = kit_alone();
    let lib = kit.path().join("student/src/lib.rs");
    let solved = std::fs::read_to_string(kit.path().join("solutions/src/lib.rs")).unwrap();
    std::fs::write(&lib, &solved).unwrap();
    let r = run(kit.path(), "lab.sh", &["check"], BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // Step 01 breaks while step 05 is watched on a terminal of 24 rows: it
    // is checked again and named, and the report is cut to fit, its first
    // failure first, the closing line and the regression kept.
    assert!(solved.contains("429 | 502"));
    std::fs::write(&lib, solved.replacen("429 | 502", "428 | 502", 1)).unwrap();
    // Step 08's loop asks step 01's function, so it breaks too.
    let named = |l: &str| l.contains("steps 01, 08 passed before and fail now");
    let (master, slave) = pty();
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ only reads the winsize it is given, which lives
    // here; `slave` is an open terminal this test owns.
    let sized = unsafe { libc::ioctl(slave.as_raw_fd(), libc::TIOCSWINSZ, &size) };
    assert_eq!(sized, 0);
    let mut child = Command::new("bash")
        // A check run under GitHub Actions would add its annotations.
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["lab.sh", "watch", "5", "--max-checks", "1"])
        .current_dir(kit.path())
        .env("CARGO_TARGET_DIR", kit_root().join("target/e2e"))
        .env("LAB_LANG", "en")
        .env("NO_COLOR", "1")
        .env_remove("LAB_ROOT")
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(slave);
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        // Ends with EIO once the last holder of the terminal's other end
        // has closed it.
        let _ = std::fs::File::from(master).read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).replace('\r', "")
    });
    let status = wait_within(&mut child, BUILD, "watch on a terminal");
    assert_eq!(status.code(), Some(0));
    let text = reader.join().unwrap();
    let screen = text.rsplit("\x1b[2J\x1b[H").next().unwrap_or_default();
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.len() <= 24, "{} lines:\n{screen}", lines.len());
    let cut = lines
        .iter()
        .position(|l| l.contains("cut to fit the screen"))
        .unwrap_or_else(|| panic!("no cut line in:\n{screen}"));
    let first = lines
        .iter()
        .position(|l| l.starts_with("---- 01 "))
        .unwrap_or_else(|| panic!("no first failure in:\n{screen}"));
    assert!(first < cut, "{screen}");
    assert!(
        lines[cut..]
            .iter()
            .any(|l| l.contains(" passed, ") && l.contains(" failed")),
        "{screen}"
    );
    assert!(lines[cut..].iter().any(|l| named(l)), "{screen}");
    // In a pipe too, the steps that still pass are checked with the one
    // watched (01 and 08 fail now, so they are not among them), and a step
    // already failing is not a regression.
    let r = run(
        kit.path(),
        "lab.sh",
        &["watch", "6", "--max-checks", "1"],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("check 02 03 04 05 06 07 --seed"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("passed before"), "{}", r.stdout);
}

#[test]
fn the_advanced_track_is_opt_in_and_its_file_never_breaks_the_core() {
    let (kit, _serial) = kit();
    let dir = kit.path();
    let advanced = dir.join("student/src/advanced.rs");
    std::fs::copy(
        dir.join("solutions/src/lib.rs"),
        dir.join("student/src/lib.rs"),
    )
    .unwrap();
    // Without the file: the eight core steps, exactly as before.
    let r = run(dir, "lab.sh", &["check"], BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("test 09"), "{}", r.stdout);
    let r = run(dir, "checks/09-contract.sh", &[], BUILD);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("reset --advanced"), "{}", r.stdout);
    // Opting in gives the stubs: every advanced step is not implemented yet.
    let r = run(dir, "lab.sh", &["reset", "--advanced"], QUICK);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        std::fs::read(&advanced).unwrap(),
        std::fs::read(dir.join("fixtures/pristine/advanced.rs")).unwrap()
    );
    for step in suites::advanced_ids() {
        let script = format!("checks/{step}-contract.sh");
        let r = run(dir, &script, &[], BUILD);
        assert_eq!(r.code, 1, "{script}:\n{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains(":: not started"), "{}", r.stdout);
    }
    // The reference passes every step; status lists them all.
    std::fs::copy(dir.join("solutions/advanced.rs"), &advanced).unwrap();
    let r = run(dir, "lab.sh", &["check"], BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let last = REGISTRY.last().unwrap().id;
    assert!(r.stdout.contains(&format!("test {last} ")), "{}", r.stdout);
    let status = run(dir, "lab.sh", &["status"], QUICK).stdout;
    assert_eq!(status.lines().count(), REGISTRY.len(), "{status}");
    // One section back to its stub.
    let r = run(dir, "lab.sh", &["reset", "12"], QUICK);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let text = std::fs::read_to_string(&advanced).unwrap();
    assert!(text.contains("todo!(\"step 12") && !text.contains("todo!(\"step 11"));
    // A broken advanced file: exit 3, the core steps still run and pass.
    std::fs::write(&advanced, format!("{text}\nfn broken( {{\n")).unwrap();
    let r = run(dir, "lab.sh", &["check"], BUILD);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("advanced.rs does not compile"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("test 08 execute :: returns a final response at once")
            && r.stdout.contains("... ok"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("could not run"), "{}", r.stdout);
}

#[cfg(unix)]
/// Every file below `dir` (not following links) with its bytes.
fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.insert(entry.path(), std::fs::read(entry.path()).unwrap());
            } else {
                let link = std::fs::read_link(entry.path()).unwrap();
                out.insert(entry.path(), link.into_os_string().into_encoded_bytes());
            }
        }
    }
    out
}

#[cfg(unix)]
/// Processes whose program lives below `dir` (runners of a slot).
fn processes_below(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(exe) = std::fs::read_link(entry.path().join("exe")) {
            if exe.starts_with(dir) {
                out.push(format!("{:?} {}", entry.file_name(), exe.display()));
            }
        }
    }
    out
}

/// A submission's result.json without the figures that vary from run to run
/// (its steps' and clauses' measured seconds too).
fn result_without_timing(out: &Path, name: &str) -> serde_json::Value {
    fn untimed(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                o.remove("seconds");
                o.values_mut().for_each(untimed);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(untimed),
            _ => {}
        }
    }
    let mut v = json(&out.join(name).join("result.json"));
    untimed(&mut v);
    if let Some(o) = v.as_object_mut() {
        o.remove("name");
        o.remove("seed");
    }
    v
}

/// When the checker must be built and the output is not a terminal (a
/// pipe, a file, an editor's task runner), lab.sh says so at once and shows
/// cargo's progress as plain lines; the next command, with nothing changed,
/// says nothing of a build.
#[test]
fn a_build_of_the_checker_is_told_at_once_when_output_is_not_a_terminal() {
    let (kit, _serial) = kit();
    let table = std::fs::read_to_string(kit_root().join("fixtures/i18n/shell.txt")).unwrap();
    let notice = table
        .lines()
        .find_map(|l| l.strip_prefix("en\tbuilding\t"))
        .unwrap()
        .to_string();
    // A file lab.sh's freshness check watches, newer than the judge.
    let watched = kit.path().join("fixtures/i18n/shell.txt");
    std::fs::File::options()
        .write(true)
        .open(&watched)
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    let r = run(kit.path(), "lab.sh", &["status"], BUILD);
    assert_eq!(
        r.stderr.lines().next(),
        Some(notice.as_str()),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("Finished"), "{}", r.stderr);
    assert!(!r.stderr.contains('\u{1b}'), "{:?}", r.stderr);
    let r = run(kit.path(), "lab.sh", &["status"], QUICK);
    assert!(!r.stderr.contains(&notice), "{}", r.stderr);
}

/// A crate that compiles with a declaration the checker cannot call is
/// told as that, with the learner's declaration and the contract's each on
/// one line, and never as a crate that does not compile.
#[test]
fn a_changed_declaration_is_told_as_one_not_as_a_crate_that_does_not_compile() {
    let (kit, _serial) = kit();
    let sub = kit_root().join("fixtures/hostile/changed-signature");
    let r = run(
        kit.path(),
        "lab.sh",
        &["check", "01", "--subject", &sub.display().to_string()],
        BUILD,
    );
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("compiles, but a declaration in it differs"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("does not compile"), "{}", r.stdout);
    for line in [
        "    pub fn retryable(status: u32) -> bool\n",
        "    pub fn retryable(status: u16) -> bool\n",
        "error[E0308]: mismatched types",
    ] {
        assert!(r.stdout.contains(line), "{line:?} in {}", r.stdout);
    }
}

/// Whether `text` holds a character a terminal, a spreadsheet or a page
/// would act on instead of showing (line ends and tabs aside).
fn acted_on(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| lab_judge::visible::hidden(c) && !matches!(c, '\n' | '\t' | '\r'))
}

/// Text from learner code with bidirectional, C0 and C1 controls: every
/// place a person reads it (the check's console, the grade's summaries,
/// JUnit, Gradescope and Exercism) shows them as escapes, and result.json
/// keeps them exact.
#[test]
fn controls_in_learner_text_are_shown_as_escapes_wherever_a_person_reads_them() {
    let (kit, _serial) = kit();
    let lib = kit_root().join("fixtures/hostile/bidi-text/src/lib.rs");
    let lib_s = lib.display().to_string();
    let r = run(
        kit.path(),
        "lab.sh",
        &["check", "01", "--subject", &lib_s],
        BUILD,
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    for (what, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        assert_eq!(acted_on(text), None, "{what}: {text}");
    }
    assert!(r.stdout.contains("msg \\u{202e}gnp.exe"), "{}", r.stdout);
    assert!(r.stdout.contains("\\u{9b}"), "{}", r.stdout);
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let sub = kit_root().join("fixtures/hostile/bidi-text");
    let r = run(
        kit.path(),
        "lab.sh",
        &[
            "grade",
            "--out",
            &out.display().to_string(),
            &sub.display().to_string(),
        ],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(acted_on(&r.stdout), None, "{}", r.stdout);
    for file in [
        "summary.md",
        "summary.csv",
        "summary.html",
        "bidi-text/junit.xml",
        "bidi-text/gradescope/results.json",
        "bidi-text/exercism/results.json",
    ] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        // JSON may write a control as \u001b, which is not acted on either.
        assert_eq!(acted_on(&text), None, "{file}: {text}");
    }
    for file in [
        "bidi-text/gradescope/results.json",
        "bidi-text/exercism/results.json",
        "bidi-text/junit.xml",
    ] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(text.contains("gnp.exe"), "{file} shows the message: {text}");
    }
    let exact = std::fs::read_to_string(out.join("bidi-text/result.json")).unwrap();
    let exact: serde_json::Value = serde_json::from_str(&exact).unwrap();
    let message = exact["steps"][0]["clauses"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("msg \u{202e}gnp.exe \u{2066}x\u{1b}[2J"),
        "{message}"
    );
    let output = exact["steps"][0]["clauses"][0]["output"].as_str().unwrap();
    assert!(
        output.contains("out \u{202e}gnp.exe \u{1b}[31mred\u{7}"),
        "{output}"
    );
}

/// One slot, one submission after another (`--jobs 1`): honest victims
/// graded before and after each submission that declares native libraries
/// or exported statics however it hides them, and a submission whose
/// signature changed graded right after one that compiled. Each victim
/// scores exactly what it scores alone; each attacker gets the verdict
/// fixtures/hostile/expected.json gives it; the changed signature does not
/// compile, in the compiler's words and the kit's.
#[test]
fn one_slot_graded_in_turn_gives_every_submission_its_own_verdict() {
    let (kit, _serial) = kit();
    let run =
        |dir: &Path, args: &[&str]| run_in_own_target(dir, "lab.sh", args, BUILD, "slot-turns");
    let hostile = kit_root().join("fixtures/hostile");
    let expected = json(&hostile.join("expected.json"));
    let work = tempfile::tempdir().unwrap();
    let attackers = [
        "link-in-strings",
        "link-in-raw-strings",
        "link-by-macro",
        "exported-statics",
        "changed-signature",
    ];
    let victims = ["honest-perfect", "honest-stub"];
    // Named so that grading takes them in this order: a victim, an
    // attacker, a victim, …, a victim.
    let class = work.path().join("class");
    let mut order: Vec<(String, &str)> = Vec::new();
    for (i, attacker) in attackers.iter().enumerate() {
        order.push((format!("{:02}-victim", 2 * i), victims[i % 2]));
        order.push((format!("{:02}-{attacker}", 2 * i + 1), attacker));
    }
    order.push(("99-victim".into(), victims[attackers.len() % 2]));
    for (folder, name) in &order {
        let to = class.join(folder).join("src");
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(hostile.join(name).join("src/lib.rs"), to.join("lib.rs")).unwrap();
    }
    let grade = |out: &Path, subs: Vec<PathBuf>| {
        let out = out.display().to_string();
        let mut args: Vec<String> = ["grade", "--jobs", "1", "--seed", "7", "--out", &out]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(subs.iter().map(|p| p.display().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(kit.path(), &args)
    };
    let alone = work.path().join("alone");
    let r = grade(&alone, victims.iter().map(|v| hostile.join(v)).collect());
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let out = work.path().join("out");
    let r = grade(&out, order.iter().map(|(f, _)| class.join(f)).collect());
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for (folder, name) in &order {
        if victims.contains(name) {
            assert_eq!(
                result_without_timing(&out, folder),
                result_without_timing(&alone, name),
                "{folder}: {}",
                r.stdout
            );
            continue;
        }
        let result = json(&out.join(folder).join("result.json"));
        let want = &expected[*name];
        assert_eq!(result["build"], want["build"], "{folder}: {result}");
        let passed: Vec<&str> = result["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["passed"] == true)
            .map(|s| s["step"].as_str().unwrap())
            .collect();
        let wanted: Vec<&str> = want["steps_passed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(passed, wanted, "{folder}: {result}");
    }
    let changed = json(&out.join("09-changed-signature/result.json"));
    let errors = changed["build_errors"].as_str().unwrap();
    for words in [
        "`retryable` in student/src/lib.rs:5",
        "error[E0308]: mismatched types",
        "expected fn pointer `fn(u16)",
    ] {
        assert!(errors.contains(words), "{words:?} in {errors}");
    }
    let linked = json(&out.join("01-link-in-strings/result.json"));
    let errors = linked["build_errors"].as_str().unwrap();
    assert!(errors.contains("lab_hostile_no_such_library"), "{errors}");
}

#[cfg(unix)]
/// The hostile class: one submission per attack (fixtures/hostile/, each
/// headed by what it tries), graded beside an honest correct solution and
/// an honest stub. The victims get exactly what they get alone, before and
/// after; every attacker gets what fixtures/hostile/expected.json says its
/// real code earns; the reports stay as written; no process is left; the
/// kit, its judge binary and the slots' folders are untouched.
#[test]
fn a_hostile_class_changes_nothing_but_its_own_grades() {
    // Beside the other tests: its builds, slots and judge are in a target
    // folder of its own, which it looks at as a whole.
    let (kit, _serial) = kit();
    let run = |dir: &Path, script: &str, args: &[&str], limit: Duration| {
        run_in_own_target(dir, script, args, limit, "hostile")
    };
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let hostile = kit_root().join("fixtures/hostile");
    let expected = json(&hostile.join("expected.json"));
    let expected = expected.as_object().unwrap();
    for name in expected.keys() {
        let from = hostile.join(name).join("src/lib.rs");
        let to = class.join(name).join("src");
        std::fs::create_dir_all(&to).unwrap();
        if name == "symlink-lib" {
            // Pointing at the answers of the kit that grades it.
            std::os::unix::fs::symlink(kit.path().join("solutions/src/lib.rs"), to.join("lib.rs"))
                .unwrap();
        } else {
            std::fs::copy(&from, to.join("lib.rs")).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let advanced = hostile.join(name).join("src/advanced.rs");
        if advanced.is_file() {
            std::fs::copy(&advanced, to.join("advanced.rs")).unwrap();
        }
    }
    // Compile-time attacks by absolute path: a student may know where the kit lives.
    let stub = std::fs::read_to_string(kit.path().join("fixtures/pristine/lib.rs")).unwrap();
    for (name, file) in [
        ("absolute-path-solutions", "solutions/src/lib.rs"),
        ("absolute-path-judge", "checks/judge/src/oracle.rs"),
    ] {
        let dir = class.join(name).join("src");
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "#[path = {:?}]\n#[allow(dead_code)]\nmod stolen;\n{stub}",
            kit.path().join(file).display().to_string()
        );
        std::fs::write(dir.join("lib.rs"), text).unwrap();
    }
    let target = kit_root().join("target/hostile");
    let judge = target.join("debug/lab-judge");
    let slots = target.join("lab-slots-3");
    let victims = ["honest-perfect", "honest-stub"];
    let jobs = 2;
    let grade = |out: &Path, names: &[&str], limit: Duration| {
        let out = out.display().to_string();
        let mut args: Vec<String> = [
            "grade",
            "--jobs",
            "2",
            "--seed",
            "11",
            "--build-timeout",
            "30",
            "--out",
            &out,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(names.iter().map(|n| class.join(n).display().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Some(build) = common::own_build() {
            common::seed_target(&build, "hostile");
        }
        let mut all = vec!["lab.sh"];
        all.extend_from_slice(&args);
        common::run_program(
            kit.path(),
            "bash",
            &all,
            "hostile",
            &[("LAB_TIMING", "1")],
            limit,
        )
    };
    let alone = work.path().join("alone");
    let r = grade(&alone, &victims, BUILD);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let judge_before = std::fs::read(&judge).unwrap();
    let kit_before = tree(kit.path());
    let class_before = tree(&class);

    let out = work.path().join("out");
    let mut all: Vec<&str> = expected.keys().map(String::as_str).collect();
    all.extend(["absolute-path-solutions", "absolute-path-judge"]);
    let t = Instant::now();
    let r = grade(&out, &all, BUILD);
    let took = t.elapsed();
    assert_eq!(
        r.code, 5,
        "some attackers need review: {}{}",
        r.stdout, r.stderr
    );
    // The judge's own memory, whatever the attackers wrote to it: at most
    // 64 MiB per job (docs/INSTRUCTORS.md, "What one submission can cost").
    let peak_kib: u64 = r
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("timing: judge peak memory: "))
        .and_then(|l| l.strip_suffix(" KiB"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no peak memory line: {}", r.stderr));
    println!(
        "hostile class of {}: {took:?}, judge peak memory {} MiB with --jobs {jobs}",
        all.len(),
        peak_kib >> 10
    );
    assert!(
        peak_kib < (64 << 10) * jobs,
        "the judge held {peak_kib} KiB"
    );
    // No step of any submission ran past its suite limit (45 s, shrinking
    // included), and the class ended well within every submission's bound.
    assert!(took < Duration::from_secs(480), "the class took {took:?}");
    let summary = json(&out.join("summary.json"));
    let rows = summary["submissions"].as_array().unwrap();
    assert_eq!(rows.len(), all.len(), "{summary}");
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let passed: Vec<&str> = row["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["passed"] == true)
            .map(|s| s["step"].as_str().unwrap())
            .collect();
        let (build, wanted): (&str, Vec<&str>) = match expected.get(name) {
            Some(e) => (
                e["build"].as_str().unwrap(),
                e["steps_passed"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap())
                    .collect(),
            ),
            None => ("failed", Vec::new()), // the absolute-path attackers
        };
        assert_eq!(row["build"], build, "{name}: {row}");
        assert_eq!(passed, wanted, "{name}: {row}");
    }
    for v in victims {
        assert_eq!(
            result_without_timing(&out, v),
            result_without_timing(&alone, v),
            "{v}"
        );
    }
    // What a build lets a submission compile in names none of the
    // grader's folders in its reports.
    let compiled = std::fs::read_to_string(out.join("compiled-env/result.json")).unwrap();
    let home = std::env::var("HOME").unwrap_or_default();
    for place in [home.as_str(), &kit.path().display().to_string(), "pyenv"] {
        assert!(
            place.len() < 2 || !compiled.contains(place),
            "{place} in {compiled}"
        );
    }
    for shown in ["(\\\"CARGO_HOME\\\", Some(\\\"<", "<target>/lab-slots-3/"] {
        assert!(compiled.contains(shown), "{shown} in {compiled}");
    }
    for name in &all {
        let result = json(&out.join(name).join("result.json"));
        for step in result["steps"].as_array().unwrap() {
            let seconds = step["seconds"].as_f64().unwrap_or(0.0);
            assert!(seconds < 47.0, "{name} step {}: {seconds} s", step["step"]);
        }
        // The kind of failure an attack earns, where expected.json names it.
        let Some(faults) = expected.get(*name).and_then(|e| e.get("faults")) else {
            continue;
        };
        for (step, kind) in faults.as_object().unwrap() {
            let step = result["steps"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["step"] == *step)
                .unwrap();
            let first = step["clauses"]
                .as_array()
                .unwrap()
                .iter()
                .find_map(|c| c.get("fault"));
            assert_eq!(first, Some(kind), "{name}: {step}");
        }
    }
    let big = std::fs::read_to_string(out.join("big-file/result.json")).unwrap();
    assert!(big.contains("a file larger than the 64 MiB"), "{big}");
    // A build reads of /etc only what the toolchain needs.
    let etc = std::fs::read_to_string(out.join("read-etc/result.json")).unwrap();
    assert!(
        etc.contains("/etc/passwd") && etc.contains("Permission denied"),
        "{etc}"
    );
    assert!(!etc.contains("root:x:0:0"), "{etc}");
    // What a student sees names no place of the kit, and no classmate.
    let kit_path = kit.path().display().to_string();
    // A line only lab.sh has, and one only the victim's solution has.
    let lab_sh = std::fs::read_to_string(kit.path().join("lab.sh")).unwrap();
    let lab_sh_line = lab_sh
        .lines()
        .find(|l| l.len() > 30 && l.starts_with('#'))
        .unwrap()
        .to_string();
    let perfect = std::fs::read_to_string(hostile.join("honest-perfect/src/lib.rs")).unwrap();
    let perfect_line = perfect.lines().next().unwrap().to_string();
    for name in &all {
        for file in [
            "result.json",
            "junit.xml",
            "gradescope/results.json",
            "exercism/results.json",
        ] {
            let text = std::fs::read_to_string(out.join(name).join(file)).unwrap();
            for secret in [
                kit_path.as_str(),
                &target.display().to_string(),
                "honest-perfect",
                "honest-stub",
            ] {
                if *name != secret {
                    assert!(!text.contains(secret), "{name}/{file} shows {secret:?}");
                }
            }
            assert!(
                !text.contains("--seed 11 --build-timeout"),
                "{name}/{file} shows the judge's command line"
            );
            // No other file's content: the kit's lab.sh, a system file, a
            // classmate's code (plant-links links the judge's old names to them).
            for foreign in [
                lab_sh_line.as_str(),
                "root:x:0:0",
                "root:*:",
                "root:!",
                perfect_line.as_str(),
            ] {
                assert!(
                    !text.contains(foreign),
                    "{name}/{file} holds another file's content: {foreign:?}"
                );
            }
        }
    }
    assert!(
        !Path::new("/tmp/hostile-plant-links-was-here").exists(),
        "a runner made the judge create a file outside its folder"
    );
    // Ten seconds later: the reports are as written, nothing is left running.
    let reports = tree(&out);
    std::thread::sleep(Duration::from_secs(10));
    assert!(reports == tree(&out), "a report changed after grade exited");
    assert_eq!(processes_below(&slots), Vec::<String>::new());
    assert!(
        std::fs::read(&judge).unwrap() == judge_before,
        "the judge binary changed"
    );
    assert!(kit_before == tree(kit.path()), "the kit's files changed");
    assert!(class_before == tree(&class), "the submissions changed");
    for dir in [slots.clone(), slots.join("grade-0"), slots.join("grade-1")] {
        assert!(!dir.join(".cargo").exists(), "{}", dir.display());
    }
    // And the victims, graded again in the same slots beside two processes
    // that keep both processors busy, get what they got alone.
    let hogs: Vec<std::process::Child> = (0..2)
        .map(|_| {
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap()
        })
        .collect();
    let again = work.path().join("again");
    let r = grade(&again, &victims, BUILD);
    for mut hog in hogs {
        let _ = hog.kill();
        let _ = hog.wait();
    }
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for v in victims {
        assert_eq!(
            result_without_timing(&again, v),
            result_without_timing(&alone, v),
            "{v}"
        );
    }
    // Control: without Landlock the build of read-etc reads /etc/passwd and
    // its report shows it, so the check on its report above can fail.
    let control = work.path().join("control");
    let control_out = control.display().to_string();
    let attacker = class.join("read-etc").display().to_string();
    let r = run(
        kit.path(),
        "lab.sh",
        &[
            "grade",
            "--seed",
            "11",
            "--unsandboxed",
            "--out",
            &control_out,
            &attacker,
        ],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let leaked = std::fs::read_to_string(control.join("read-etc/result.json")).unwrap();
    assert!(leaked.contains("root:x:0:0"), "{leaked}");
}

/// On the portable layer (no Linux jail, as on macOS and Windows), grade
/// refuses in one line naming what is missing and `--unsandboxed`, and
/// grades with it; check goes on.
#[test]
fn on_the_portable_layer_grade_refuses_unless_unsandboxed() {
    let (kit, _serial) = kit();
    let class = tempfile::tempdir().unwrap();
    let sub = class.path().join("alice/src");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(kit.path().join("solutions/src/lib.rs"), sub.join("lib.rs")).unwrap();
    let alice = class.path().join("alice").display().to_string();
    let out = class.path().join("out").display().to_string();
    let r = run_env(
        kit.path(),
        "lab.sh",
        &["grade", "--out", &out, &alice],
        BUILD,
        PORTABLE,
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(
        lines[0].contains("Linux jail") && lines[0].contains("--unsandboxed"),
        "{}",
        r.stderr
    );
    assert!(!Path::new(&out).join("summary.json").exists());
    let r = run_env(
        kit.path(),
        "lab.sh",
        &[
            "grade",
            "--unsandboxed",
            "--seed",
            "5",
            "--out",
            &out,
            &alice,
        ],
        BUILD,
        PORTABLE,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(Path::new(&out).join("summary.json").exists());
}

#[test]
fn an_older_kernel_is_named_check_goes_on_and_grade_refuses_unless_unsandboxed() {
    let (kit, _serial) = kit();
    let class = tempfile::tempdir().unwrap();
    let sub = class.path().join("alice/src");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(kit.path().join("solutions/src/lib.rs"), sub.join("lib.rs")).unwrap();
    let alice = class.path().join("alice").display().to_string();
    let out = class.path().join("out").display().to_string();
    // A kernel with Landlock but without its TCP rules (Linux 6.2).
    let older = [("LAB_PRETEND_LANDLOCK_ABI", "3")];
    let r = run_env(
        kit.path(),
        "lab.sh",
        &["check", "01", "--subject", &alice],
        BUILD,
        &older,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let notes: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("TCP rules"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", r.stderr);
    let r = run_env(
        kit.path(),
        "lab.sh",
        &["grade", "--out", &out, &alice],
        BUILD,
        &older,
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("TCP rules") && r.stderr.contains("--unsandboxed"),
        "{}",
        r.stderr
    );
    assert!(!Path::new(&out).join("summary.json").exists());
    let r = run_env(
        kit.path(),
        "lab.sh",
        &["grade", "--unsandboxed", "--out", &out, &alice],
        BUILD,
        &older,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("--unsandboxed"), "{}", r.stderr);
    let summary = json(&Path::new(&out).join("summary.json"));
    assert_eq!(summary["submissions"][0]["score"], 8);
}

#[cfg(unix)]
/// A pseudo-terminal's two ends.
fn pty() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors; the other arguments may be null.
    let opened = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(opened, 0, "openpty failed");
    // SAFETY: both descriptors were just opened and are owned here alone.
    unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(master),
            std::os::fd::OwnedFd::from_raw_fd(slave),
        )
    }
}

#[cfg(unix)]
/// Whether the terminal behind `fd` is in line mode (Enter ends a read).
fn line_mode(fd: &std::os::fd::OwnedFd) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: termios is plain data; all zeroes is a valid value.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: tcgetattr writes only the termios it is given; `fd` is open.
    assert_eq!(unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut t) }, 0);
    t.c_lflag & libc::ICANON != 0
}

#[cfg(unix)]
/// Waits until `path` holds `words`, or panics with what it holds.
fn wait_for(path: &Path, words: &str, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(words) {
            return text;
        }
        assert!(
            start.elapsed() < limit,
            "no {words:?} within {limit:?} in:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(unix)]
#[test]
fn watch_takes_single_keys_on_a_terminal_and_gives_the_terminal_back() {
    use std::io::Write;
    let (kit, _serial) = kit_alone();
    let warm = run(kit.path(), "lab.sh", &["check", "01"], BUILD);
    assert_eq!(warm.code, 1, "{}{}", warm.stdout, warm.stderr);
    for stop in ["q", "SIGTERM"] {
        let (master, slave) = pty();
        assert!(line_mode(&slave));
        let out = tempfile::tempdir().unwrap();
        let o = out.path().join("o");
        let mut child = Command::new("bash")
            // A check run under GitHub Actions would add its annotations.
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .args(["lab.sh", "watch", "1"])
            .current_dir(kit.path())
            .env("CARGO_TARGET_DIR", kit_root().join("target/e2e"))
            .env("LAB_LANG", "en")
            .env_remove("LAB_ROOT")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(std::fs::File::create(&o).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for(&o, "waiting for the next save", BUILD);
        assert!(!line_mode(&slave), "{stop}: watch left line mode on");
        let mut keys = std::fs::File::from(master);
        // One key, no Enter: the next hint of step 01.
        keys.write_all(b"h").unwrap();
        wait_for(&o, "hint 1/", QUICK);
        if stop == "q" {
            keys.write_all(b"q").unwrap();
        } else {
            // SAFETY: a signal to the child this test started (lab.sh
            // replaced itself with the judge).
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        }
        let status = wait_within(&mut child, QUICK, &format!("{stop}: watch"));
        if stop == "q" {
            assert_eq!(status.code(), Some(0), "{stop}");
        } else {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(libc::SIGTERM));
        }
        assert!(
            line_mode(&slave),
            "{stop}: the terminal stayed out of line mode"
        );
    }
}

#[cfg(unix)]
/// Unpacks a zip as an independent reader would (Python's zipfile, which
/// checks every CRC), keeping each file's Unix mode; returns the names.
fn unzip(zip: &Path, into: &Path) -> Vec<String> {
    let script = "import os, sys, zipfile\n\
        z = zipfile.ZipFile(sys.argv[1])\n\
        assert z.testzip() is None\n\
        for i in z.infolist():\n\
        \x20   p = z.extract(i, sys.argv[2])\n\
        \x20   os.chmod(p, (i.external_attr >> 16) & 0o777)\n\
        \x20   print(i.filename)\n";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(zip)
        .arg(into)
        .output()
        .expect("python3 is needed for this test");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[cfg(unix)]
#[test]
fn a_gradescope_package_grades_in_a_stand_in_autograder_tree() {
    let (kit, _serial) = kit();
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("autograder.zip");
    let r = run(
        kit.path(),
        "lab.sh",
        &["gradescope", &zip.display().to_string()],
        QUICK,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // Gradescope unpacks the zip into /autograder/source.
    let root = dir.path().join("autograder");
    let names = unzip(&zip, &root.join("source"));
    assert!(names.contains(&"setup.sh".to_string()) && names.contains(&"run_autograder".into()));
    assert!(
        !names
            .iter()
            .any(|n| n.contains("solutions") || n.contains("mutants")),
        "reference answers in the package"
    );
    use std::os::unix::fs::PermissionsExt;
    for script in ["setup.sh", "run_autograder", "kit/lab.sh"] {
        let mode = std::fs::metadata(root.join("source").join(script))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "{script} is not executable");
    }
    let results = root.join("results/results.json");
    let submission = root.join("submission");
    let grade = |files: &[(&str, String)], env: &[(&str, &str)]| -> serde_json::Value {
        let _ = std::fs::remove_dir_all(&submission);
        for (name, text) in files {
            let path = submission.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let autograder_root = root.display().to_string();
        let mut env = env.to_vec();
        env.push(("AUTOGRADER_ROOT", &autograder_root));
        let r = run_env(&root, "source/run_autograder", &[], BUILD, &env);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        json(&results)
    };
    let reference = std::fs::read_to_string(kit.path().join("solutions/src/lib.rs")).unwrap();

    // A lib.rs uploaded on its own, in a container without Landlock: full
    // marks, and the results say the container is the boundary.
    let v = grade(
        &[("lib.rs", reference.clone())],
        &[("LAB_PRETEND_LANDLOCK_ABI", "0")],
    );
    let tests = v["tests"].as_array().unwrap();
    let most: u64 = tests.iter().map(|t| t["max_score"].as_u64().unwrap()).sum();
    assert!(most > 0 && v["score"].as_u64() == Some(most), "{v:#}");
    assert!(tests.iter().all(|t| t["status"] == "passed"), "{v:#}");
    let output = v["output"].as_str().unwrap();
    assert!(
        output.starts_with("Note:") && output.contains("the container itself is the boundary"),
        "{output}"
    );

    // A repository that does not compile: no points, the compiler's words.
    let broken = reference.replace(
        "pub fn retryable(status: u16) -> bool {",
        "pub fn retryable(status: u16) -> bool { let x: u8 = \"no\";",
    );
    let v = grade(&[("student/src/lib.rs", broken)], &[]);
    assert_eq!(v["score"], 0, "{v:#}");
    let output = v["output"].as_str().unwrap();
    assert!(
        output.contains("does not compile") && output.contains("mismatched types"),
        "{output}"
    );
    assert!(
        !output.contains("Note:"),
        "Landlock is whole here: {output}"
    );

    // A hostile submission forges a perfect result, marks the tree and
    // leaves a child behind. With Landlock its writes are refused; in a
    // container without it, whose autograder tree anyone may write (as
    // root a runner runs as a user of its own, so a tree only root may
    // write would refuse it too), they land, and still the kit's result
    // replaces the forgery: step 01 fails.
    let open = |p: &Path, mode: u32| {
        std::fs::create_dir_all(p).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    open(dir.path(), 0o755);
    open(&root, 0o777);
    open(&root.join("results"), 0o777);
    let marker = root.join("hostile-was-here");
    let body = format!(
        "let _ = std::fs::write({:?}, \"{{\\\"score\\\": 100}}\"); \
         let _ = std::fs::write({:?}, \"x\"); \
         let _ = std::process::Command::new(\"sleep\").arg(\"613\").spawn(); return false;",
        results.display().to_string(),
        marker.display().to_string(),
    );
    let hostile = std::fs::read_to_string(hostile(kit.path(), "forger", &body)).unwrap();
    for landlock in [true, false] {
        let _ = std::fs::remove_file(&marker);
        let env: &[(&str, &str)] = if landlock {
            &[]
        } else {
            &[("LAB_PRETEND_LANDLOCK_ABI", "0")]
        };
        let started = Instant::now();
        let v = grade(&[("src/lib.rs", hostile.clone())], env);
        assert!(started.elapsed() < BUILD);
        assert_eq!(marker.exists(), !landlock, "landlock: {landlock}");
        assert!(v["score"].as_u64().unwrap() < most, "{v:#}");
        assert_eq!(v["tests"][0]["status"], "failed", "{v:#}");
        assert!(v["tests"].as_array().unwrap().len() >= 8, "{v:#}");
        let noted = v["output"].as_str().unwrap().starts_with("Note:");
        assert_eq!(noted, !landlock, "{v:#}");
    }
    let left: Vec<_> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|p| std::fs::read(p.path().join("cmdline")).is_ok_and(|c| c == b"sleep\x00613\x00"))
        .collect();
    assert!(left.is_empty(), "the submission's child outlived its run");
}

/// A submission made from one mutant is told that mistake by `check`
/// under two seeds (its answers carry the seed's random response bodies,
/// which the fingerprint must not see), and `grade` records it in
/// summary.json, result.json and JUnit, and says it in its messages.
#[test]
fn a_known_mistake_is_named_by_check_under_any_seed_and_recorded_by_grade() {
    let (kit, _serial) = kit();
    let id = "08-first-response-returned";
    let reference = std::fs::read_to_string(kit.path().join("solutions/src/lib.rs")).unwrap();
    let part = std::fs::read_to_string(mutant_file(kit.path(), id)).unwrap();
    let sub = tempfile::tempdir().unwrap();
    let lib = sub.path().join("mutant/src/lib.rs");
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    std::fs::write(&lib, sections::splice_items(&reference, &part).unwrap()).unwrap();
    let lib = lib.display().to_string();
    let words: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(kit.path().join("fixtures/i18n/en/mistakes.json")).unwrap(),
    )
    .unwrap();
    let description = words[format!("mistake.{id}")].as_str().unwrap().to_string();
    let line = format!("This looks like a known mistake: {description}");
    for seed in ["1", "2"] {
        let r = run(
            kit.path(),
            "lab.sh",
            &["check", "08", "--subject", &lib, "--seed", seed],
            BUILD,
        );
        assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
        assert_eq!(
            r.stdout.matches(&line).count(),
            1,
            "seed {seed}: {}",
            r.stdout
        );
    }
    let out = kit.path().join("grades-out");
    let mutant = sub.path().join("mutant").display().to_string();
    let r = run(
        kit.path(),
        "lab.sh",
        &[
            "grade",
            "--seed",
            "3",
            "--out",
            &out.display().to_string(),
            &mutant,
        ],
        BUILD,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let summary = json(&out.join("summary.json"));
    let steps = summary["submissions"][0]["steps"].as_array().unwrap();
    let named: Vec<(&str, &str)> = steps
        .iter()
        .filter_map(|s| Some((s["step"].as_str()?, s["mistake"].as_str()?)))
        .collect();
    assert_eq!(named, [("08", id)]);
    let result = std::fs::read_to_string(out.join("mutant/result.json")).unwrap();
    assert!(
        result.contains(&format!("\"mistake\": \"{id}\"")),
        "{result}"
    );
    assert!(result.contains(&description), "{result}");
    let junit = std::fs::read_to_string(out.join("mutant/junit.xml")).unwrap();
    assert!(
        junit.contains(&format!("<property name=\"mistake\" value=\"{id}\"/>")),
        "{junit}"
    );
}

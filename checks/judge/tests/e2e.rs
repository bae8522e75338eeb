//! End-to-end tests: drive lab.sh on copies of the kit in temporary folders,
//! each run under an outer time limit. They share one target directory
//! (target/e2e) so the kit is compiled once for all of them.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn kit_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Kit copies share target/e2e, and cargo names workspace members' artifacts
/// without their path: copies are built one at a time, each newer than the
/// last, so no copy can see another's fingerprints as fresh.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A fresh copy of the kit, as a newcomer's clone would be.
fn kit() -> (tempfile::TempDir, std::sync::MutexGuard<'static, ()>) {
    let guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&kit_root(), dir.path());
    (dir, guard)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `bash <script> args…` in `dir`, killed if it outlives `limit`.
fn run(dir: &Path, script: &str, args: &[&str], limit: Duration) -> Run {
    let out = tempfile::tempdir().unwrap();
    let (o, e) = (out.path().join("o"), out.path().join("e"));
    let mut child = Command::new("bash")
        .arg(script)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", kit_root().join("target/e2e"))
        .env("LAB_LANG", "en")
        .env_remove("LAB_ROOT")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("bash {script} {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| {
        let mut s = String::new();
        std::fs::File::open(p)
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        s
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: read(&o),
        stderr: read(&e),
    }
}

const BUILD: Duration = Duration::from_secs(600);
const QUICK: Duration = Duration::from_secs(60);

fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

#[test]
fn every_step_fails_on_the_stubs_and_passes_with_a_correct_crate() {
    let (kit, _serial) = kit();
    for n in 1..=8 {
        let script = format!("checks/0{n}-contract.sh");
        let r = run(kit.path(), &script, &[], BUILD);
        assert_eq!(r.code, 1, "{script} on stubs:\n{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("is not implemented yet"), "{}", r.stdout);
        assert!(
            last_line(&r.stdout).starts_with("0 passed, "),
            "{}",
            r.stdout
        );
        assert!(
            r.stdout.contains(&format!("./lab.sh check 0{n} --seed ")),
            "no rerun command:\n{}",
            r.stdout
        );
    }
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
        &["check", "--subject", "fixtures/mutants", "--seed", "77"],
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
    let cases: [&[&str]; 6] = [
        &["check", "9"],
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
        ("aborts", "std::process::abort();", "killed by signal 6"),
        (
            "overflows",
            "fn f(n: u64) -> u64 { if n == 0 { 0 } else { 1 + f(n + 1) } } return f(1) == 7;",
            "stack overflowed",
        ),
        (
            "floods",
            "loop { println!(\"flood flood flood flood flood flood flood\"); }",
            "printed more than",
        ),
        (
            "forks",
            "let _ = std::process::Command::new(\"sleep\").arg(\"60\").spawn(); return false;",
            "expected: true",
        ),
    ];
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

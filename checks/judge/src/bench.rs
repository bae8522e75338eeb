//! `lab.sh bench`: what a check costs on this machine, against its floor
//! (compiling the learner's crate and the runner), plus grading throughput,
//! a cold start and the judge's peak memory. Runs on a private copy of the
//! kit with a correct crate in student/, never on the learner's files.

use crate::spawn::{self, Exit};
use crate::status;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct BenchArgs {
    /// One run per figure, 4 submissions, no cold start: proves it works.
    pub quick: bool,
    pub runs: usize,
    /// Target directory for the copy (default: target/bench).
    pub target: Option<PathBuf>,
}

const LIMIT: Duration = Duration::from_secs(900);

/// What a fresh clone would not have.
fn not_in_a_clone(rel: &Path) -> bool {
    // The figures are those of a learner on the core steps: a maintainer's
    // own student/src/advanced.rs stays out of the copy.
    [
        ".git",
        "target",
        ".lab",
        "grades",
        "student/src/advanced.rs",
    ]
    .iter()
    .any(|n| rel == Path::new(n))
}

/// Runs a command in `dir` with `target`, returning its wall time.
fn timed(dir: &Path, target: &Path, program: &str, args: &[&str]) -> Result<f64, String> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("LAB_ROOT");
    let start = Instant::now();
    let (exit, captured) = spawn::run_tool(&mut cmd, LIMIT, None).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    match exit {
        // check exits 1 when a step fails; the bench only needs it to finish.
        Exit::Success | Exit::Failure(1) => Ok(seconds),
        other => Err(format!(
            "{program} {args:?} ended with {other:?}: {}",
            captured.stderr_excerpt(2000)
        )),
    }
}

fn touch(file: &Path) -> Result<(), String> {
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .map_err(|e| e.to_string())?;
    f.set_modified(std::time::SystemTime::now())
        .map_err(|e| e.to_string())
}

pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

fn after_touch(
    dir: &Path,
    target: &Path,
    runs: usize,
    program: &str,
    args: &[&str],
) -> Result<f64, String> {
    after_touching(dir, target, runs, &["lib.rs"], program, args)
}

/// The median time of a command run after touching these files of
/// `student/src/`.
fn after_touching(
    dir: &Path,
    target: &Path,
    runs: usize,
    files: &[&str],
    program: &str,
    args: &[&str],
) -> Result<f64, String> {
    let mut xs = Vec::new();
    for _ in 0..runs {
        for file in files {
            touch(&dir.join("student/src").join(file))?;
        }
        xs.push(timed(dir, target, program, args)?);
    }
    Ok(median(xs))
}

fn peak_kib(dir: &Path, target: &Path) -> Result<u64, String> {
    let file = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let judge = target.join("debug/lab-judge");
    let mut cmd = Command::new(judge);
    cmd.args(["check", "--seed", "1"])
        .current_dir(dir)
        .env("LAB_ROOT", dir)
        .env("CARGO_TARGET_DIR", target);
    cmd.env("LAB_PEAK_FILE", file.path());
    spawn::run_tool(&mut cmd, LIMIT, None).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(file.path()).map_err(|e| e.to_string())?;
    text.trim()
        .parse()
        .map_err(|_| format!("no peak memory reported: {text:?}"))
}

fn measure(root: &Path, args: &BenchArgs) -> Result<Vec<(String, String, String, bool)>, String> {
    let runs = if args.quick { 1 } else { args.runs.max(5) };
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let kit = work.path().join("kit");
    crate::files::copy_tree(root, &kit, &not_in_a_clone).map_err(|e| e.to_string())?;
    std::fs::copy(
        kit.join("solutions/src/lib.rs"),
        kit.join("student/src/lib.rs"),
    )
    .map_err(|e| e.to_string())?;
    let target = args
        .target
        .clone()
        .unwrap_or_else(|| crate::build::target_dir(root).join("bench"));
    let lab = kit.join("lab.sh").display().to_string();
    // Warm-up: build everything once; not measured.
    timed(&kit, &target, "bash", &[&lab, "check"])?;
    let a = after_touch(&kit, &target, runs, "bash", &[&lab, "check", "03"])?;
    let b = after_touch(&kit, &target, runs, "bash", &[&lab, "check"])?;
    let c = after_touch(
        &kit,
        &target,
        runs,
        "cargo",
        &["build", "--quiet", "-p", "lab-runner"],
    )?;

    let class = work.path().join("class");
    let count = if args.quick { 4 } else { 20 };
    let text = |p: &str| std::fs::read_to_string(kit.join(p)).map_err(|e| format!("{p}: {e}"));
    let solution = text("solutions/src/lib.rs")?;
    let part = "fixtures/mutants/06-sum-not-max.rs";
    let mutant = crate::sections::splice_items(&solution, &text(part)?)
        .map_err(|e| format!("{part}: {e}"))?;
    let mut subs = Vec::new();
    for i in 0..count {
        let dir = class.join(format!("s{i:02}/src"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let source = if i % 5 == 4 { &mutant } else { &solution };
        std::fs::write(dir.join("lib.rs"), source).map_err(|e| e.to_string())?;
        subs.push(class.join(format!("s{i:02}")).display().to_string());
    }
    let out = work.path().join("grades").display().to_string();
    let mut grade: Vec<&str> = vec![&lab, "grade", "--jobs", "2", "--seed", "1", "--out", &out];
    grade.extend(subs.iter().map(String::as_str));
    timed(&kit, &target, "bash", &grade)?; // warm the two grading slots
    let d_secs = median(
        (0..runs.min(3))
            .map(|_| timed(&kit, &target, "bash", &grade))
            .collect::<Result<Vec<_>, _>>()?,
    );
    let d = count as f64 * 60.0 / d_secs;
    // The same three without the jail: what confinement costs.
    let a_off = after_touch(
        &kit,
        &target,
        runs,
        "bash",
        &[&lab, "check", "03", "--unsandboxed"],
    )?;
    let b_off = after_touch(
        &kit,
        &target,
        runs,
        "bash",
        &[&lab, "check", "--unsandboxed"],
    )?;
    let mut grade_off = grade.clone();
    grade_off.push("--unsandboxed");
    let d_off_secs = median(
        (0..runs.min(3))
            .map(|_| timed(&kit, &target, "bash", &grade_off))
            .collect::<Result<Vec<_>, _>>()?,
    );

    let e = if args.quick {
        None
    } else {
        let fresh = work.path().join("fresh");
        crate::files::copy_tree(root, &fresh, &not_in_a_clone).map_err(|e| e.to_string())?;
        let cold_target = work.path().join("cold-target");
        Some(timed(
            &fresh,
            &cold_target,
            "bash",
            &[&fresh.join("lab.sh").display().to_string(), "check", "01"],
        )?)
    };
    let f = peak_kib(&kit, &target)?;

    // The advanced track, measured last so (a)–(f) see a core-only kit.
    std::fs::copy(
        kit.join("solutions/advanced.rs"),
        kit.join("student/src/advanced.rs"),
    )
    .map_err(|e| e.to_string())?;
    timed(&kit, &target, "bash", &[&lab, "check"])?;
    let advanced = ["advanced.rs"];
    let both = ["lib.rs", "advanced.rs"];
    let g = after_touching(
        &kit,
        &target,
        runs,
        &advanced,
        "bash",
        &[&lab, "check", "10"],
    )?;
    let g_floor = after_touching(
        &kit,
        &target,
        runs,
        &advanced,
        "cargo",
        &["build", "--quiet", "-p", "lab-runner-advanced"],
    )?;
    let h = after_touching(&kit, &target, runs, &both, "bash", &[&lab, "check"])?;
    let h_floor = after_touching(
        &kit,
        &target,
        runs,
        &both,
        "cargo",
        &[
            "build",
            "--quiet",
            "-p",
            "lab-runner",
            "-p",
            "lab-runner-advanced",
        ],
    )?;

    let s = |x: f64| format!("{x:.2} s");
    let mut rows = vec![
        (
            "(a) check 03 after a touch".into(),
            s(a),
            format!("{:.2} × (c), target ≤ 1.3 ×", a / c),
            a / c <= 1.3,
        ),
        (
            "(b) check all after a touch".into(),
            s(b),
            format!("{:.2} × (c), target ≤ 1.5 ×", b / c),
            b / c <= 1.5,
        ),
        (
            "(c) floor: rebuild crate + runner".into(),
            s(c),
            "-".into(),
            true,
        ),
        (
            format!("(d) grading {count} with --jobs 2"),
            format!("{d:.0} per min"),
            format!("{d_secs:.1} s; target ≥ 300/min"),
            d >= 300.0,
        ),
        (
            "(a′) check 03, --unsandboxed".into(),
            s(a_off),
            format!(
                "{:.2} × (c); jailed / unjailed {:.2} ×",
                a_off / c,
                a / a_off
            ),
            true,
        ),
        (
            "(b′) check all, --unsandboxed".into(),
            s(b_off),
            format!(
                "{:.2} × (c); jailed / unjailed {:.2} ×",
                b_off / c,
                b / b_off
            ),
            true,
        ),
        (
            format!("(d′) grading {count}, --unsandboxed"),
            format!("{:.0} per min", count as f64 * 60.0 / d_off_secs),
            format!(
                "{d_off_secs:.1} s; jailed / unjailed {:.2} ×",
                d_secs / d_off_secs
            ),
            true,
        ),
    ];
    match e {
        Some(e) => rows.push((
            "(e) cold start to first verdict".into(),
            s(e),
            "target ≤ 90 s".into(),
            e <= 90.0,
        )),
        None => rows.push((
            "(e) cold start to first verdict".into(),
            "skipped (--quick)".into(),
            "target ≤ 90 s".into(),
            true,
        )),
    }
    rows.push((
        "(f) judge peak memory".into(),
        format!("{:.1} MiB", f as f64 / 1024.0),
        "target ≤ 64 MiB".into(),
        f <= 64 * 1024,
    ));
    rows.push((
        "(g) check 10 after touching advanced.rs".into(),
        s(g),
        format!(
            "{:.2} × its floor ({:.2} s), target ≤ 1.3 ×",
            g / g_floor,
            g_floor
        ),
        g / g_floor <= 1.3,
    ));
    rows.push((
        format!(
            "(h) check all {} after touching both",
            crate::suites::REGISTRY.len()
        ),
        s(h),
        format!(
            "{:.2} × its floor ({:.2} s), target ≤ 2 ×",
            h / h_floor,
            h_floor
        ),
        h / h_floor <= 2.0,
    ));
    Ok(rows)
}

pub fn run(root: &Path, args: &BenchArgs) -> u8 {
    let runs = if args.quick { 1 } else { args.runs.max(5) };
    println!(
        "bench: medians of {runs} run(s) on a private copy of the kit (this machine: {} cores)",
        num_cores()
    );
    match measure(root, args) {
        Ok(rows) => {
            println!("{:<38} {:>14}  ratio / target", "figure", "value");
            for (name, value, note, met) in &rows {
                println!(
                    "{name:<38} {value:>14}  {note}{}",
                    if *met { "" } else { "  NOT MET" }
                );
            }
            status::PASSED
        }
        Err(e) => {
            eprintln!("lab: bench failed: {e}");
            status::KIT_ERROR
        }
    }
}

fn num_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(vec![]).is_nan());
    }
}

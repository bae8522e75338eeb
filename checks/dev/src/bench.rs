//! `lab.sh bench`: what a check costs on this machine, against its floor
//! (compiling the learner's crate and the runner), plus grading throughput,
//! a cold start and the judge's peak memory. Runs on a private copy of the
//! kit with a correct crate in student/, never on the learner's files.

use lab_judge::cli::BenchArgs;
use lab_judge::platform::{self, plain_output, Exit};
use lab_judge::status;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(900);

/// Runs a command in `dir` with `target`, returning its wall time.
fn timed(dir: &Path, target: &Path, program: &str, args: &[&str]) -> Result<f64, String> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("LAB_ROOT");
    let start = Instant::now();
    let (exit, captured) = platform::run_tool(&mut cmd, LIMIT, None).map_err(|e| e.to_string())?;
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

/// Saves `file` with a change, as a learner's save would: its last line
/// becomes `// bench edit N`, N new each time. A touch alone would not do:
/// a check compiles nothing when no source changed (see
/// cargo's fingerprints).
fn edit(file: &Path) -> Result<(), String> {
    static EDITS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = EDITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let kept = match text.trim_end().rsplit_once('\n') {
        Some((head, last)) if last.starts_with("// bench edit ") => head,
        _ => text.trim_end(),
    };
    std::fs::write(file, format!("{kept}\n// bench edit {n}\n"))
        .map_err(|e| format!("{}: {e}", file.display()))
}

pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// One kit under measurement: a private copy with a correct crate in
/// student/, its own target folder and its own `lab.sh`.
struct Kit {
    dir: PathBuf,
    target: PathBuf,
    lab: String,
}

impl Kit {
    /// Copies the kit at `source` to `dir` as a fresh clone would hold it,
    /// with the reference answers as the learner's crate.
    fn copy(source: &Path, dir: &Path, target: PathBuf) -> Result<Kit, String> {
        lab_judge::files::copy_tree(source, dir, &lab_judge::files::not_in_a_clone)
            .map_err(|e| e.to_string())?;
        std::fs::copy(
            dir.join("solutions/src/lib.rs"),
            dir.join("student/src/lib.rs"),
        )
        .map_err(|e| e.to_string())?;
        Ok(Kit {
            dir: dir.to_path_buf(),
            target,
            lab: dir.join("lab.sh").display().to_string(),
        })
    }

    fn lab(&self, args: &[&str]) -> Result<f64, String> {
        let mut all = vec![self.lab.as_str()];
        all.extend(args);
        timed(&self.dir, &self.target, "bash", &all)
    }

    /// A cargo command in this kit, with its target folder.
    fn cargo(&self, args: &[&str]) -> Result<f64, String> {
        timed(&self.dir, &self.target, "cargo", args)
    }

    /// Saves these files of `student/src/` with a change (see [`edit`]).
    fn edited(&self, files: &[&str]) -> Result<&Kit, String> {
        for file in files {
            edit(&self.dir.join("student/src").join(file))?;
        }
        Ok(self)
    }
}

/// The median of `runs` measurements per kit, the kits taking turns run
/// by run, so that a machine that gets busier or quieter meanwhile weighs
/// on every kit alike.
fn side_by_side(
    kits: &[Kit],
    runs: usize,
    one: impl Fn(&Kit) -> Result<f64, String>,
) -> Result<Vec<f64>, String> {
    let mut xs = vec![Vec::new(); kits.len()];
    // A baseline that cannot take a measurement (an older kit without an
    // option) shows `-` for it; this kit must take every one.
    let mut unable = vec![false; kits.len()];
    let last = kits.len() - 1;
    for _ in 0..runs {
        for (i, kit) in kits.iter().enumerate() {
            if unable[i] {
                continue;
            }
            match one(kit) {
                Ok(x) => xs[i].push(x),
                Err(e) if i == last => return Err(e),
                Err(_) => unable[i] = true,
            }
        }
    }
    Ok(xs
        .into_iter()
        .zip(unable)
        .map(|(x, unable)| if unable { f64::NAN } else { median(x) })
        .collect())
}

/// The kit at git commit `rev` of the repository at `root`, unpacked (with
/// `git archive`) under `under`.
fn checkout(root: &Path, rev: &str, under: &Path) -> Result<PathBuf, String> {
    let commit = plain_output(
        Command::new("git")
            .args([
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ])
            .current_dir(root),
    )
    .map_err(|e| format!("git: {e}"))?;
    let commit = String::from_utf8_lossy(&commit.stdout).trim().to_string();
    if commit.is_empty() {
        return Err(format!(
            "--baseline {rev}: no such commit in this repository"
        ));
    }
    let dir = under.join(&commit);
    if !dir.join("lab.sh").is_file() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        // The archive sits beside the folder it fills until it is unpacked.
        let tar_file = under.join(format!("{commit}.tar"));
        let archive = plain_output(
            Command::new("git")
                .args(["archive", "--format=tar", "-o"])
                .arg(&tar_file)
                .arg(&commit)
                .current_dir(root),
        )
        .map_err(|e| format!("git archive: {e}"))?;
        if !archive.status.success() {
            return Err(format!("git archive {commit} failed"));
        }
        let tar = plain_output(
            Command::new("tar")
                .arg("-xf")
                .arg(&tar_file)
                .arg("-C")
                .arg(&dir),
        )
        .map_err(|e| format!("tar: {e}"))?;
        let _ = std::fs::remove_file(&tar_file);
        if !tar.status.success() {
            return Err(format!("unpacking {commit} failed"));
        }
    }
    Ok(dir)
}

/// The judge's peak memory during a check of all steps; `None` for a kit
/// whose judge does not report it.
fn peak_kib(kit: &Kit) -> Result<Option<u64>, String> {
    let (dir, target) = (&kit.dir, &kit.target);
    let file = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let judge = target.join("debug/lab-judge");
    let mut cmd = Command::new(judge);
    cmd.args(["check", "--seed", "1"])
        .current_dir(dir)
        .env("LAB_ROOT", dir)
        .env("CARGO_TARGET_DIR", target);
    cmd.env("LAB_PEAK_FILE", file.path());
    platform::run_tool(&mut cmd, LIMIT, None).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(file.path()).map_err(|e| e.to_string())?;
    Ok(text.trim().parse().ok())
}

/// One figure: its name, its value per kit (this kit last), the ratio
/// and target note of this kit, and whether this kit meets the target.
struct Figure {
    name: String,
    values: Vec<String>,
    numbers: Vec<f64>,
    note: String,
    met: bool,
}

fn figure(name: impl Into<String>, values: &[f64], unit: &str) -> Figure {
    let text = |x: f64| {
        if x.is_nan() {
            "-".to_string()
        } else if unit == "s" {
            format!("{x:.2} s")
        } else {
            format!("{x:.1} {unit}")
        }
    };
    Figure {
        name: name.into(),
        values: values.iter().map(|x| text(*x)).collect(),
        numbers: values.to_vec(),
        note: String::new(),
        met: true,
    }
}

fn measure(root: &Path, args: &BenchArgs) -> Result<Vec<Figure>, String> {
    let runs = if args.quick { 1 } else { args.runs.max(5) };
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    // Relative to where the bench was started, not to the kit copies the
    // measured commands run in.
    let target = match &args.target {
        Some(dir) => std::path::absolute(dir).map_err(|e| format!("{}: {e}", dir.display()))?,
        None => lab_judge::compile::target_dir(root).join("bench"),
    };
    let mut kits = Vec::new();
    if let Some(rev) = &args.baseline {
        let under = lab_judge::compile::target_dir(root).join("bench-baseline");
        let source = checkout(root, rev, &under.join("src"))?;
        let name = source.file_name().map(|n| n.to_owned()).unwrap_or_default();
        kits.push(Kit::copy(
            &source,
            &work.path().join("baseline"),
            under.join("target").join(name),
        )?);
    }
    kits.push(Kit::copy(root, &work.path().join("kit"), target)?);
    let last = kits.len() - 1;
    // Warm-up: build everything once; not measured.
    for kit in &kits {
        kit.lab(&["check"])?;
    }
    let lib = ["lib.rs"];
    let a = side_by_side(&kits, runs, |k| k.edited(&lib)?.lab(&["check", "03"]))?;
    let b = side_by_side(&kits, runs, |k| k.edited(&lib)?.lab(&["check"]))?;
    let c = side_by_side(&kits, runs, |k| {
        k.edited(&lib)?
            .cargo(&["build", "--quiet", "-p", "lab-runner"])
    })?;

    let class = work.path().join("class");
    let count = if args.quick { 4 } else { 20 };
    let text = |p: &str| std::fs::read_to_string(root.join(p)).map_err(|e| format!("{p}: {e}"));
    let solution = text("solutions/src/lib.rs")?;
    let part = "checks/judge/src/suites/s06/mutants/06-sum-not-max.rs";
    let mutant = lab_judge::sections::splice_items(&solution, &text(part)?)
        .map_err(|e| format!("{part}: {e}"))?;
    let mut subs = Vec::new();
    for i in 0..count {
        let dir = class.join(format!("s{i:02}/src"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let source = if i % 5 == 4 { &mutant } else { &solution };
        // Each submission a file of its own, as in a real class: no build
        // may be skipped because the slot's last subject was the same file.
        let source = format!("{source}\n// submission {i}\n");
        std::fs::write(dir.join("lib.rs"), source).map_err(|e| e.to_string())?;
        subs.push(class.join(format!("s{i:02}")).display().to_string());
    }
    let grade_args = |k: &Kit, off: bool| -> Vec<String> {
        let out = k.dir.join("grades").display().to_string();
        let mut all: Vec<String> = ["grade", "--jobs", "2", "--seed", "1", "--out", &out]
            .map(String::from)
            .to_vec();
        all.extend(subs.iter().cloned());
        if off {
            all.push("--unsandboxed".into());
        }
        all
    };
    let grade = |k: &Kit, off: bool| {
        let all = grade_args(k, off);
        k.lab(&all.iter().map(String::as_str).collect::<Vec<_>>())
    };
    for (i, kit) in kits.iter().enumerate() {
        // Warms the two grading slots.
        if let Err(e) = grade(kit, false) {
            if i == last {
                return Err(e);
            }
        }
    }
    let d_secs = side_by_side(&kits, runs.min(3), |k| grade(k, false))?;
    let per_min = |secs: &[f64]| {
        secs.iter()
            .map(|s| count as f64 * 60.0 / s)
            .collect::<Vec<_>>()
    };
    // The same three without the jail: what confinement costs.
    let a_off = side_by_side(&kits, runs, |k| {
        k.edited(&lib)?.lab(&["check", "03", "--unsandboxed"])
    })?;
    let b_off = side_by_side(&kits, runs, |k| {
        k.edited(&lib)?.lab(&["check", "--unsandboxed"])
    })?;
    let d_off_secs = side_by_side(&kits, runs.min(3), |k| grade(k, true))?;

    let e = if args.quick {
        None
    } else {
        let sources: Vec<PathBuf> = kits.iter().map(|k| k.dir.clone()).collect();
        let mut seconds = Vec::new();
        for (i, source) in sources.iter().enumerate() {
            let fresh = work.path().join(format!("fresh-{i}"));
            lab_judge::files::copy_tree(source, &fresh, &lab_judge::files::not_in_a_clone)
                .map_err(|e| e.to_string())?;
            // The learner's stubs, as in a fresh clone.
            std::fs::copy(
                fresh.join("fixtures/pristine/lib.rs"),
                fresh.join("student/src/lib.rs"),
            )
            .map_err(|e| e.to_string())?;
            let cold_target = work.path().join(format!("cold-target-{i}"));
            seconds.push(timed(
                &fresh,
                &cold_target,
                "bash",
                &[&fresh.join("lab.sh").display().to_string(), "check", "01"],
            )?);
        }
        Some(seconds)
    };
    let f: Vec<f64> = kits
        .iter()
        .map(|k| peak_kib(k).map(|p| p.map_or(f64::NAN, |p| p as f64 / 1024.0)))
        .collect::<Result<_, _>>()?;

    // The advanced track, measured last so (a)–(f) see a core-only kit.
    for kit in &kits {
        std::fs::copy(
            kit.dir.join("solutions/advanced.rs"),
            kit.dir.join("student/src/advanced.rs"),
        )
        .map_err(|e| e.to_string())?;
        kit.lab(&["check"])?;
    }
    let advanced = ["advanced.rs"];
    let both = ["lib.rs", "advanced.rs"];
    let g = side_by_side(&kits, runs, |k| k.edited(&advanced)?.lab(&["check", "10"]))?;
    let g_floor = side_by_side(&kits, runs, |k| {
        k.edited(&advanced)?
            .cargo(&["build", "--quiet", "-p", "lab-runner-advanced"])
    })?;
    let h = side_by_side(&kits, runs, |k| k.edited(&both)?.lab(&["check"]))?;
    let h_floor = side_by_side(&kits, runs, |k| {
        k.edited(&both)?.cargo(&[
            "build",
            "--quiet",
            "-p",
            "lab-runner",
            "-p",
            "lab-runner-advanced",
        ])
    })?;

    let (a1, b1, c1) = (a[last], b[last], c[last]);
    let mut rows = Vec::new();
    let mut row = |mut fig: Figure, note: String, met: bool| {
        fig.note = note;
        fig.met = met;
        rows.push(fig);
    };
    row(
        figure("(a) check 03 after an edit", &a, "s"),
        format!("{:.2} × (c), target ≤ 1.3 ×", a1 / c1),
        a1 / c1 <= 1.3,
    );
    row(
        figure("(b) check all after an edit", &b, "s"),
        format!("{:.2} × (c), target ≤ 1.5 ×", b1 / c1),
        b1 / c1 <= 1.5,
    );
    row(
        figure("(c) floor: rebuild crate + runner", &c, "s"),
        "-".into(),
        true,
    );
    let d = per_min(&d_secs);
    row(
        figure(format!("(d) grading {count} with --jobs 2"), &d, "/min"),
        format!("{:.1} s; target ≥ 300/min", d_secs[last]),
        d[last] >= 300.0,
    );
    row(
        figure("(a′) check 03, --unsandboxed", &a_off, "s"),
        format!("jailed / unjailed {:.2} ×", a1 / a_off[last]),
        true,
    );
    row(
        figure("(b′) check all, --unsandboxed", &b_off, "s"),
        format!("jailed / unjailed {:.2} ×", b1 / b_off[last]),
        true,
    );
    row(
        figure(
            format!("(d′) grading {count}, --unsandboxed"),
            &per_min(&d_off_secs),
            "/min",
        ),
        format!("jailed / unjailed {:.2} ×", d_secs[last] / d_off_secs[last]),
        true,
    );
    match e {
        Some(e) => row(
            figure("(e) cold start to first verdict", &e, "s"),
            "target ≤ 90 s".into(),
            e[last] <= 90.0,
        ),
        None => row(
            figure(
                "(e) cold start to first verdict",
                &vec![f64::NAN; kits.len()],
                "s",
            ),
            "skipped (--quick)".into(),
            true,
        ),
    }
    row(
        figure("(f) judge peak memory", &f, "MiB"),
        "target ≤ 64 MiB".into(),
        f[last].is_nan() || f[last] <= 64.0,
    );
    row(
        figure("(g) check 10 after editing advanced.rs", &g, "s"),
        format!(
            "{:.2} × its floor ({:.2} s), target ≤ 1.3 ×",
            g[last] / g_floor[last],
            g_floor[last]
        ),
        g[last] / g_floor[last] <= 1.3,
    );
    row(
        figure(
            format!(
                "(h) check all {} after editing both",
                lab_judge::suites::REGISTRY.len()
            ),
            &h,
            "s",
        ),
        format!(
            "{:.2} × its floor ({:.2} s), target ≤ 2 ×",
            h[last] / h_floor[last],
            h_floor[last]
        ),
        h[last] / h_floor[last] <= 2.0,
    );
    Ok(rows)
}

pub fn run(root: &Path, args: &BenchArgs) -> u8 {
    let runs = if args.quick { 1 } else { args.runs.max(5) };
    println!(
        "bench: medians of {runs} run(s) on a private copy of the kit (this machine: {} cores)",
        num_cores()
    );
    if let Some(rev) = &args.baseline {
        println!(
            "bench: the kit at {rev} is measured beside this one, the two taking turns run by run; \
             on a shared machine repeat a comparison before believing it"
        );
    }
    match measure(root, args) {
        Ok(rows) => {
            print!("{}", table(&rows, args.baseline.as_deref()));
            status::PASSED
        }
        Err(e) => {
            eprintln!("lab: bench failed: {e}");
            status::KIT_ERROR
        }
    }
}

/// The figures as a table: with a baseline, its column, this kit's and
/// their ratio (this kit / baseline; for a rate, above 1 is better).
fn table(rows: &[Figure], baseline: Option<&str>) -> String {
    let mut out = String::new();
    match baseline {
        None => {
            out += &format!("{:<40} {:>14}  ratio / target\n", "figure", "value");
            for r in rows {
                out += &format!(
                    "{:<40} {:>14}  {}{}\n",
                    r.name,
                    r.values[0],
                    r.note,
                    if r.met { "" } else { "  NOT MET" }
                );
            }
        }
        Some(rev) => {
            out += &format!(
                "{:<40} {:>14} {:>14} {:>8}\n",
                "figure",
                format!("at {rev}"),
                "now",
                "now/then"
            );
            for r in rows {
                let ratio = r.numbers[1] / r.numbers[0];
                let ratio = if ratio.is_finite() {
                    format!("{ratio:.2} ×")
                } else {
                    "-".into()
                };
                out += &format!(
                    "{:<40} {:>14} {:>14} {:>8}\n",
                    r.name, r.values[0], r.values[1], ratio
                );
            }
        }
    }
    out
}

fn num_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_baseline_table_has_both_columns_and_their_ratio() {
        let mut a = figure("(a) x", &[0.5, 0.25], "s");
        a.note = "note".into();
        let rate = figure("(d) y", &[200.0, 400.0], "/min");
        let text = table(&[a, rate], Some("144b944"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].contains("at 144b944") && lines[0].contains("now"),
            "{text}"
        );
        assert!(
            lines[1].contains("0.50 s") && lines[1].contains("0.25 s"),
            "{text}"
        );
        assert!(lines[1].ends_with("0.50 ×"), "{text}");
        assert!(
            lines[2].contains("200.0 /min") && lines[2].ends_with("2.00 ×"),
            "{text}"
        );
        // Alone: one value and its note.
        let alone = table(&[figure("(c) z", &[0.3], "s")], None);
        assert!(
            alone.lines().nth(1).unwrap().contains("0.30 s  "),
            "{alone}"
        );
    }

    #[test]
    fn a_baseline_that_is_no_commit_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let e = checkout(&root, "no-such-rev-anywhere", dir.path()).unwrap_err();
        assert!(e.contains("no-such-rev-anywhere"), "{e}");
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(vec![]).is_nan());
    }
}

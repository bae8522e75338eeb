//! Command-line parsing. Bad input gets a one-line error naming the problem
//! (exit status 2), never a backtrace.

use crate::catalog::{lang_from, tr, Lang};
use crate::limits::Limits;
use crate::suites::parse_step;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct CheckArgs {
    /// The steps named, or the core steps when none were (see `steps_given`).
    pub steps: Vec<&'static str>,
    /// Whether steps were named; when not, the advanced steps are added
    /// for a learner who has an advanced.rs.
    pub steps_given: bool,
    pub seed: Option<u64>,
    pub limits: Limits,
    pub subject: Option<PathBuf>,
    /// The subject's advanced.rs, when it is not in the subject's folder.
    pub advanced: Option<PathBuf>,
}

/// `lab.sh try`'s arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct TryArgs {
    /// One of `live::STEPS`; `08` when none was named.
    pub step: &'static str,
    pub subject: Option<PathBuf>,
    /// The advanced.rs to run (steps 11 and 13 only).
    pub advanced: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct SelftestArgs {
    pub seed: Option<u64>,
    pub seeds: u32,
    pub jobs: usize,
    pub only: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Command {
    Check(CheckArgs),
    Grade(crate::grade::GradeArgs),
    Bench(crate::bench::BenchArgs),
    Handout(PathBuf),
    /// `gradescope OUT.zip`: the Gradescope autograder package.
    Gradescope(PathBuf),
    /// `autograde [--root DIR]`: what the package's run_autograder runs.
    Autograde(PathBuf),
    Selftest(SelftestArgs),
    Show(&'static str),
    Hint {
        step: &'static str,
        all: bool,
    },
    Status,
    /// `lab.sh try [NN] [--subject PATH] [--advanced PATH]`: a step's code
    /// against real local servers (see `live`).
    Try(TryArgs),
    Watch {
        check: CheckArgs,
        max_checks: Option<usize>,
    },
    /// `None` resets every step of lib.rs.
    Reset(Option<&'static str>),
    /// Creates (or puts back) student/src/advanced.rs from the stubs.
    ResetAdvanced,
    Help,
}

#[derive(Debug, Clone)]
pub struct Cli {
    pub lang: Option<Lang>,
    pub command: Command,
}

fn seed(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| tr("error.bad_seed", &[("seed", &text)]))
}

fn seconds(option: &str, text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e6 => Ok(Duration::from_secs_f64(s)),
        _ => Err(tr(
            "error.bad_number",
            &[("value", &text), ("option", &option)],
        )),
    }
}

fn count(option: &str, text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(tr(
            "error.bad_number",
            &[("value", &text), ("option", &option)],
        )),
    }
}

/// The language named by the last well-formed `--lang X` (the one `parse`
/// keeps), looked for before the rest is parsed.
pub fn lang_asked(args: &[String]) -> Option<Lang> {
    args.windows(2)
        .rev()
        .filter(|w| w[0] == "--lang")
        .find_map(|w| lang_from(&w[1]))
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Cli, String> {
    let mut lang = None;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--lang" {
            let v = it
                .next()
                .ok_or_else(|| tr("error.missing_value", &[("option", &"--lang")]))?;
            lang = Some(lang_from(v).ok_or_else(|| tr("error.bad_lang", &[("lang", v)]))?);
        } else {
            rest.push(a.clone());
        }
    }
    // `COMMAND --help` prints the help, as the command alone would not.
    let asks_help = rest.iter().any(|a| a == "--help" || a == "-h");
    let command = match rest.first().map(String::as_str) {
        None | Some("help" | "--help" | "-h") => Command::Help,
        Some(_) if asks_help => Command::Help,
        Some("check") => Command::Check(check(&rest[1..])?),
        Some("selftest") => Command::Selftest(selftest(&rest[1..])?),
        Some("grade") => Command::Grade(grade(&rest[1..])?),
        Some("show") => Command::Show(one_step(&rest[1..], "show N")?),
        Some("hint") => {
            let all = rest[1..].iter().any(|a| a == "--all");
            let steps: Vec<String> = rest[1..]
                .iter()
                .filter(|a| *a != "--all")
                .cloned()
                .collect();
            Command::Hint {
                step: one_step(&steps, "hint N")?,
                all,
            }
        }
        Some("status") => Command::Status,
        Some("try") => Command::Try(try_args(&rest[1..])?),
        Some("bench") => {
            let mut b = crate::bench::BenchArgs {
                quick: false,
                runs: 5,
                target: None,
            };
            let mut it = rest[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--quick" => b.quick = true,
                    "--runs" => b.runs = count(a, value(&mut it, a)?)? as usize,
                    "--target-dir" => b.target = Some(PathBuf::from(value(&mut it, a)?)),
                    other => return Err(tr("error.unknown_option", &[("option", &other)])),
                }
            }
            Command::Bench(b)
        }
        Some("watch") => {
            let mut max_checks = None;
            let mut forwarded = Vec::new();
            let mut it = rest[1..].iter();
            while let Some(a) = it.next() {
                if a == "--max-checks" {
                    max_checks = Some(count(a, value(&mut it, a)?)? as usize);
                } else {
                    forwarded.push(a.clone());
                }
            }
            Command::Watch {
                check: check(&forwarded)?,
                max_checks,
            }
        }
        Some("reset") => match &rest[1..] {
            [all] if all == "--all" => Command::Reset(None),
            [advanced] if advanced == "--advanced" => Command::ResetAdvanced,
            steps => Command::Reset(Some(one_step(steps, "reset N|--all|--advanced")?)),
        },
        Some("handout") => match &rest[1..] {
            [dir] if !dir.starts_with('-') => Command::Handout(PathBuf::from(dir)),
            _ => return Err(tr("error.missing_value", &[("option", &"handout DIR")])),
        },
        Some("gradescope") => match &rest[1..] {
            [zip] if !zip.starts_with('-') => Command::Gradescope(PathBuf::from(zip)),
            _ => {
                return Err(tr(
                    "error.missing_value",
                    &[("option", &"gradescope OUT.zip")],
                ))
            }
        },
        Some("autograde") => match &rest[1..] {
            [] => Command::Autograde(PathBuf::from("/autograder")),
            [opt, dir] if opt == "--root" => Command::Autograde(PathBuf::from(dir)),
            [opt] if opt == "--root" => {
                return Err(tr("error.missing_value", &[("option", &"--root")]))
            }
            [other, ..] => return Err(tr("error.unknown_option", &[("option", &other)])),
        },
        Some(other) => return Err(tr("error.unknown_command", &[("command", &other)])),
    };
    Ok(Cli { lang, command })
}

/// Exactly one valid step argument.
fn one_step(args: &[String], usage: &str) -> Result<&'static str, String> {
    match args {
        [step] => parse_step(step)
            .ok_or_else(|| crate::suites::tr_steps("error.unknown_step", &[("step", step)])),
        _ => Err(crate::suites::tr_steps(
            "error.one_step",
            &[("usage", &usage)],
        )),
    }
}

/// `[NN] [--subject PATH] [--advanced PATH]`: a step without a
/// demonstration is a one-line error naming those that have one.
fn try_args(args: &[String]) -> Result<TryArgs, String> {
    let steps = crate::live::STEPS.join(", ");
    let mut out = TryArgs {
        step: crate::live::STEPS[0],
        subject: None,
        advanced: None,
    };
    let mut it = args.iter().peekable();
    if let Some(step) = it.next_if(|a| !a.starts_with('-')) {
        out.step = parse_step(step)
            .filter(|s| crate::live::STEPS.contains(s))
            .ok_or_else(|| tr("error.try_step", &[("step", step), ("steps", &steps)]))?;
    }
    while let Some(a) = it.next() {
        match a.as_str() {
            "--subject" => out.subject = Some(PathBuf::from(value(&mut it, a)?)),
            "--advanced" => out.advanced = Some(PathBuf::from(value(&mut it, a)?)),
            opt if !opt.starts_with('-') => {
                return Err(tr("error.try_step", &[("step", &opt), ("steps", &steps)]))
            }
            opt => return Err(tr("error.unknown_option", &[("option", &opt)])),
        }
    }
    if out.advanced.is_some() && !crate::suites::is_advanced(out.step) {
        return Err(tr("error.try_advanced", &[("step", &out.step)]));
    }
    Ok(out)
}

fn value<'a>(
    it: &mut impl Iterator<Item = &'a String>,
    option: &str,
) -> Result<&'a String, String> {
    it.next()
        .ok_or_else(|| tr("error.missing_value", &[("option", &option)]))
}

fn check(args: &[String]) -> Result<CheckArgs, String> {
    let mut out = CheckArgs {
        steps: Vec::new(),
        steps_given: false,
        seed: None,
        limits: Limits::default(),
        subject: None,
        advanced: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => out.seed = Some(seed(value(&mut it, a)?)?),
            "--case-timeout" => out.limits.case = seconds(a, value(&mut it, a)?)?,
            "--suite-timeout" => out.limits.suite = seconds(a, value(&mut it, a)?)?,
            "--build-timeout" => out.limits.build = seconds(a, value(&mut it, a)?)?,
            "--unsandboxed" => out.limits.unsandboxed = true,
            "--subject" => out.subject = Some(PathBuf::from(value(&mut it, a)?)),
            "--advanced" => out.advanced = Some(PathBuf::from(value(&mut it, a)?)),
            opt if opt.starts_with('-') => {
                return Err(tr("error.unknown_option", &[("option", &opt)]))
            }
            step => {
                let s = parse_step(step).ok_or_else(|| {
                    crate::suites::tr_steps("error.unknown_step", &[("step", &step)])
                })?;
                if !out.steps.contains(&s) {
                    out.steps.push(s);
                }
            }
        }
    }
    out.steps_given = !out.steps.is_empty();
    if out.advanced.is_some() && out.subject.is_none() {
        return Err(tr("error.advanced_needs_subject", &[]));
    }
    if out.steps.is_empty() {
        out.steps = crate::suites::core_ids();
    }
    out.steps.sort();
    Ok(out)
}

fn shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || tr("error.bad_shard", &[("shard", &text)]);
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    match (i.parse::<usize>(), n.parse::<usize>()) {
        (Ok(i), Ok(n)) if 1 <= i && i <= n => Ok((i, n)),
        _ => Err(bad()),
    }
}

fn grade(args: &[String]) -> Result<crate::grade::GradeArgs, String> {
    let mut out = crate::grade::GradeArgs {
        out: PathBuf::from("grades"),
        seed: None,
        jobs: 2,
        shard: None,
        limits: Limits::default(),
        submissions: Vec::new(),
        merge: Vec::new(),
    };
    let mut merging = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out.out = PathBuf::from(value(&mut it, a)?),
            "--seed" => out.seed = Some(seed(value(&mut it, a)?)?),
            "--jobs" => out.jobs = count(a, value(&mut it, a)?)? as usize,
            "--shard" => out.shard = Some(shard(value(&mut it, a)?)?),
            "--case-timeout" => out.limits.case = seconds(a, value(&mut it, a)?)?,
            "--suite-timeout" => out.limits.suite = seconds(a, value(&mut it, a)?)?,
            "--build-timeout" => out.limits.build = seconds(a, value(&mut it, a)?)?,
            "--unsandboxed" => out.limits.unsandboxed = true,
            "--merge" => merging = true,
            opt if opt.starts_with('-') => {
                return Err(tr("error.unknown_option", &[("option", &opt)]))
            }
            path if merging => out.merge.push(PathBuf::from(path)),
            path => out.submissions.push(PathBuf::from(path)),
        }
    }
    if out.submissions.is_empty() && out.merge.is_empty() {
        return Err(tr(
            "error.missing_value",
            &[("option", &"grade SUBMISSION...")],
        ));
    }
    Ok(out)
}

fn selftest(args: &[String]) -> Result<SelftestArgs, String> {
    let mut out = SelftestArgs {
        seed: None,
        seeds: 20,
        jobs: 2,
        only: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => out.seed = Some(seed(value(&mut it, a)?)?),
            "--seeds" => out.seeds = count(a, value(&mut it, a)?)? as u32,
            "--jobs" => out.jobs = count(a, value(&mut it, a)?)? as usize,
            "--only" => out.only = Some(value(&mut it, a)?.clone()),
            opt => return Err(tr("error.unknown_option", &[("option", &opt)])),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn check_takes_steps_seed_and_limits() {
        let Command::Check(c) = parse(&args("check 4 02 4 --seed 17 --case-timeout 0.5"))
            .unwrap()
            .command
        else {
            panic!("not check")
        };
        assert_eq!(c.steps, vec!["02", "04"]);
        assert_eq!(c.seed, Some(17));
        assert_eq!(c.limits.case, Duration::from_millis(500));
    }

    #[test]
    fn every_command_takes_help() {
        for line in [
            "grade --help",
            "bench --help",
            "check 04 -h",
            "help",
            "--help",
        ] {
            assert!(
                matches!(parse(&args(line)).unwrap().command, Command::Help),
                "{line}"
            );
        }
    }

    #[test]
    fn a_step_command_without_its_step_says_so() {
        for line in ["hint", "show", "hint 1 2", "reset"] {
            let e = parse(&args(line)).unwrap_err();
            assert!(
                e.contains("takes one step number, from 01 to"),
                "{line}: {e}"
            );
        }
    }

    #[test]
    fn the_language_is_found_before_parsing() {
        assert_eq!(lang_asked(&args("check 99 --lang zh")), Some(Lang::Zh));
        assert_eq!(lang_asked(&args("--lang en hint")), Some(Lang::En));
        assert_eq!(lang_asked(&args("--lang fr check")), None);
        assert_eq!(lang_asked(&args("check --lang")), None);
        assert_eq!(
            lang_asked(&args("--lang en check --lang zh")),
            Some(Lang::Zh)
        );
    }

    #[test]
    fn no_steps_means_all_eight() {
        let Command::Check(c) = parse(&args("check")).unwrap().command else {
            panic!("not check")
        };
        assert_eq!(c.steps.len(), 8);
    }

    #[test]
    fn try_takes_an_optional_step_and_two_paths() {
        let demo = |s: &str| match parse(&args(s)).unwrap().command {
            Command::Try(t) => t,
            other => panic!("{other:?}"),
        };
        assert_eq!(demo("try").step, "08");
        assert_eq!(demo("try --subject x").subject, Some(PathBuf::from("x")));
        let t = demo("try 13 --advanced a.rs --subject x");
        assert_eq!(t.step, "13");
        assert_eq!(t.advanced, Some(PathBuf::from("a.rs")));
        assert_eq!(t.subject, Some(PathBuf::from("x")));
        assert_eq!(demo("try 11").step, "11");
        assert_eq!(demo("try 8").step, "08");
    }

    #[test]
    fn grade_takes_shards_and_merges() {
        let Command::Grade(g) = parse(&args("grade --shard 2/4 --jobs 3 a b"))
            .unwrap()
            .command
        else {
            panic!()
        };
        assert_eq!((g.shard, g.jobs, g.submissions.len()), (Some((2, 4)), 3, 2));
        let Command::Grade(g) = parse(&args("grade --merge x y --out z")).unwrap().command else {
            panic!()
        };
        assert_eq!((g.merge.len(), g.out), (2, PathBuf::from("z")));
    }

    #[test]
    fn bad_input_is_a_one_line_error() {
        for bad in [
            "show",
            "show 14",
            "hint",
            "reset",
            "reset 1 2",
            "watch --max-checks 0",
            "grade",
            "grade --shard 0/2 a",
            "grade --shard 3/2 a",
            "grade --shard x a",
            "handout",
            "check 14",
            "check --advanced x.rs",
            "check --seed x",
            "check --seed",
            "check --case-timeout -1",
            "frobnicate",
            "check --nope",
            "--lang fr check",
            "try 99",
            "try 09",
            "try x",
            "try 11 13",
            "try --subject",
            "try --advanced a.rs",
            "try 11 --nope",
        ] {
            let e = parse(&args(bad)).unwrap_err();
            assert!(!e.is_empty() && !e.contains('\n'), "{bad}: {e}");
        }
    }
}

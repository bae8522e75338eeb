//! Command-line parsing, on clap's builder API. Each command and its
//! arguments are declared once, in [`COMMANDS`]; every about-line, option
//! help, heading and value name comes from the message catalogs, so
//! `COMMAND --help` speaks the language chosen. Bad input gets a one-line
//! error from the catalogs naming the problem (exit status 2), with clap's
//! suggestion when it has one; never clap's own English text, never a
//! backtrace. Values are checked by the functions below (`seed`, `seconds`,
//! `count`, `shard`, `parse_step`) as clap reads them, and what depends on
//! several arguments (a step count, `--advanced` without `--subject`) after.

use crate::catalog::{lang_from, tr, Lang};
use crate::limits::Limits;
use crate::render::display_width;
use crate::suites::parse_step;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, ColorChoice};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;
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
    /// How the trials are printed (watch prints passes as dots).
    pub console: Console,
}

/// How a check prints its trials (see `console::report`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Console {
    /// Colour or not; `None`: on a terminal unless `NO_COLOR` says no.
    pub colour: Option<bool>,
    /// A dot for each passing trial (libtest's terse format), so that the
    /// first failure comes first.
    pub terse: bool,
}

impl Console {
    /// Colour on the standard output as it is now.
    pub fn colour_wanted() -> bool {
        use std::io::IsTerminal;
        colour_allowed(
            std::env::var_os("NO_COLOR").as_deref(),
            std::io::stdout().is_terminal(),
        )
    }
}

/// Colour on a terminal unless `NO_COLOR` holds a value: an empty
/// `NO_COLOR=` does not turn it off (no-color.org).
fn colour_allowed(no_color: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
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
    /// The kit's usage text (usage.txt): `help`, `--help`, or no command.
    Help,
    /// `COMMAND --help` (or `help COMMAND`): that command's own usage and
    /// options, rendered in the language chosen.
    HelpFor(String),
}

#[derive(Debug, Clone)]
pub struct Cli {
    pub lang: Option<Lang>,
    pub command: Command,
}

/// One command of the kit: its name, its arguments, and how what clap
/// matched becomes a [`Command`]. Its about-line is the catalog's
/// `cli.NAME.about`; `-h`/`--help` and `--lang` are added to every command.
struct Spec {
    name: &'static str,
    args: fn(&Words) -> Vec<Arg>,
    read: fn(&ArgMatches) -> Result<Command, String>,
}

/// Every command, in the order of usage.txt. To add one: an entry here (its
/// arguments and how they become a `Command`), a variant of `Command` and its
/// arm in `lib::run`, `cli.NAME.about` and the new options' `cli.opt.*` in
/// both catalogs, and its lines in usage.txt and usage.zh.txt.
const COMMANDS: &[Spec] = &[
    Spec {
        name: "check",
        args: check_args,
        read: |m| Ok(Command::Check(read_check(m)?)),
    },
    Spec {
        name: "show",
        args: |w| step_and_more(w).into(),
        read: |m| Ok(Command::Show(one_step(&values(m, "step"), "show N")?)),
    },
    Spec {
        name: "hint",
        args: |w| {
            let [step, more] = step_and_more(w);
            vec![step, flag("all", w.text("cli.opt.hint_all")), more]
        },
        read: |m| {
            Ok(Command::Hint {
                step: one_step(&values(m, "step"), "hint N")?,
                all: m.get_flag("all"),
            })
        },
    },
    Spec {
        name: "status",
        args: |_| Vec::new(),
        read: |_| Ok(Command::Status),
    },
    Spec {
        name: "watch",
        args: |w| {
            let mut args = check_args(w);
            args.push(count_option("max-checks", w, "cli.opt.max_checks"));
            args
        },
        read: |m| {
            Ok(Command::Watch {
                check: read_check(m)?,
                max_checks: m.get_one::<u64>("max-checks").map(|&n| n as usize),
            })
        },
    },
    Spec {
        name: "try",
        args: |w| {
            vec![
                Arg::new("step")
                    .value_name("NN")
                    .help(w.text("cli.opt.try_step")),
                path_option(
                    "subject",
                    w.name("cli.value.path"),
                    w.text("cli.opt.try_subject"),
                ),
                path_option(
                    "advanced",
                    w.name("cli.value.file"),
                    w.text("cli.opt.try_advanced"),
                ),
                more(),
            ]
        },
        read: read_try,
    },
    Spec {
        name: "reset",
        args: |w| {
            let [step, more] = step_and_more(w);
            vec![
                step,
                flag("all", w.text("cli.opt.reset_all")),
                flag("advanced", w.text("cli.opt.reset_advanced")),
                more,
            ]
        },
        read: |m| {
            let steps = values(m, "step");
            match (steps.is_empty(), m.get_flag("all"), m.get_flag("advanced")) {
                (true, true, false) => Ok(Command::Reset(None)),
                (true, false, true) => Ok(Command::ResetAdvanced),
                (_, false, false) => Ok(Command::Reset(Some(one_step(&steps, RESET)?))),
                _ => Err(one_step(&[], RESET).unwrap_err()),
            }
        },
    },
    Spec {
        name: "grade",
        args: grade_args,
        read: |m| Ok(Command::Grade(read_grade(m)?)),
    },
    Spec {
        name: "handout",
        args: |w| path_and_more(w, "cli.value.dir", "cli.opt.handout_dir"),
        read: |m| Ok(Command::Handout(one_path(m, "handout DIR")?)),
    },
    Spec {
        name: "gradescope",
        args: |w| path_and_more(w, "cli.value.zip", "cli.opt.gradescope_zip"),
        read: |m| Ok(Command::Gradescope(one_path(m, "gradescope OUT.zip")?)),
    },
    Spec {
        name: "autograde",
        args: |w| {
            vec![path_option(
                "root",
                w.name("cli.value.dir"),
                w.text("cli.opt.autograde_root"),
            )]
        },
        read: |m| {
            Ok(Command::Autograde(
                m.get_one::<PathBuf>("root")
                    .cloned()
                    .unwrap_or_else(|| PathBuf::from("/autograder")),
            ))
        },
    },
    Spec {
        name: "bench",
        args: |w| {
            vec![
                flag("quick", w.text("cli.opt.quick")),
                count_option("runs", w, "cli.opt.runs"),
                path_option(
                    "target-dir",
                    w.name("cli.value.dir"),
                    w.text("cli.opt.target_dir"),
                ),
                option(
                    "baseline",
                    w.name("cli.value.rev"),
                    w.text("cli.opt.baseline"),
                ),
            ]
        },
        read: |m| {
            Ok(Command::Bench(crate::bench::BenchArgs {
                quick: m.get_flag("quick"),
                runs: m.get_one::<u64>("runs").map_or(5, |&n| n as usize),
                target: m.get_one::<PathBuf>("target-dir").cloned(),
                baseline: m.get_one::<String>("baseline").cloned(),
            }))
        },
    },
    Spec {
        name: "selftest",
        args: |w| {
            vec![
                seed_option(w),
                count_option("seeds", w, "cli.opt.seeds"),
                count_option("jobs", w, "cli.opt.selftest_jobs"),
                option("only", w.name("cli.value.name"), w.text("cli.opt.only")),
            ]
        },
        read: |m| {
            Ok(Command::Selftest(SelftestArgs {
                seed: m.get_one::<u64>("seed").copied(),
                seeds: m.get_one::<u64>("seeds").map_or(20, |&n| n as u32),
                jobs: m.get_one::<u64>("jobs").map_or(2, |&n| n as usize),
                only: m.get_one::<String>("only").cloned(),
            }))
        },
    },
    Spec {
        name: "help",
        // `help COMMAND` is answered in `parse_in`, as `COMMAND --help`;
        // `read` is never called.
        args: |w| {
            vec![Arg::new("command")
                .value_name(w.name("cli.value.command"))
                .help(w.text("cli.opt.command"))]
        },
        read: |_| Ok(Command::Help),
    },
];

/// --lang and --help come after a command's own options in its help.
const LAST_OPTIONS: usize = 1000;

const RESET: &str = "reset N|--all|--advanced";

/// The words of the help texts: the active catalog (chosen from `--lang`
/// before parsing, see [`lang_asked`]), with the steps' figures (`{core}`,
/// `{advanced}`) filled in.
struct Words {
    figures: Vec<(&'static str, String)>,
}

impl Words {
    fn new() -> Words {
        Words {
            figures: crate::suites::figures(),
        }
    }

    fn text(&self, key: &str) -> String {
        let mut text = crate::catalog::t(key);
        for (name, value) in &self.figures {
            text = text.replace(&format!("{{{name}}}"), &value.replace('–', "-"));
        }
        text
    }

    /// A value name: clap keeps those as `&'static str`.
    fn name(&self, key: &str) -> &'static str {
        keep(self.text(key))
    }
}

/// Each distinct text, kept for the life of the process (a handful of
/// value names per language).
fn keep(text: String) -> &'static str {
    static KEPT: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&k) = kept.get(text.as_str()) {
        return k;
    }
    let k: &'static str = Box::leak(text.into_boxed_str());
    kept.insert(k);
    k
}

fn flag(long: &'static str, help: String) -> Arg {
    Arg::new(long)
        .long(long)
        .action(ArgAction::SetTrue)
        .help(help)
}

fn option(long: &'static str, value: &'static str, help: String) -> Arg {
    Arg::new(long)
        .long(long)
        .value_name(value)
        .action(ArgAction::Set)
        .help(help)
}

fn path_option(long: &'static str, value: &'static str, help: String) -> Arg {
    option(long, value, help).value_parser(clap::value_parser!(PathBuf))
}

/// Numbers (a seed, a count, seconds) take `-1` as their value, so that it
/// gets the catalog's bad-value message instead of reading as an option.
fn seed_option(w: &Words) -> Arg {
    option("seed", "S", w.text("cli.opt.seed"))
        .allow_negative_numbers(true)
        .value_parser(seed)
}

fn count_option(long: &'static str, w: &Words, help: &str) -> Arg {
    option(long, "N", w.text(help))
        .allow_negative_numbers(true)
        .value_parser(move |text: &str| count(&format!("--{long}"), text))
}

fn seconds_option(long: &'static str, w: &Words, help: &str) -> Arg {
    option(long, w.name("cli.value.secs"), w.text(help))
        .allow_negative_numbers(true)
        .value_parser(move |text: &str| seconds(&format!("--{long}"), text))
}

/// The time limits and `--unsandboxed`, shared by check, watch and grade.
fn limit_options(w: &Words, unsandboxed: &str) -> [Arg; 4] {
    [
        seconds_option("case-timeout", w, "cli.opt.case_timeout"),
        seconds_option("suite-timeout", w, "cli.opt.suite_timeout"),
        seconds_option("build-timeout", w, "cli.opt.build_timeout"),
        flag("unsandboxed", w.text(unsandboxed)),
    ]
}

fn read_limits(m: &ArgMatches) -> Limits {
    let mut limits = Limits::default();
    let given = |id: &str| m.get_one::<Duration>(id).copied();
    limits.case = given("case-timeout").unwrap_or(limits.case);
    limits.suite = given("suite-timeout").unwrap_or(limits.suite);
    limits.build = given("build-timeout").unwrap_or(limits.build);
    limits.unsandboxed = m.get_flag("unsandboxed");
    limits
}

/// Takes every further word, so that too many steps (or folders) is the
/// command's own one-line error rather than clap's.
fn more() -> Arg {
    Arg::new("more").hide(true).action(ArgAction::Append)
}

/// The one path of handout and gradescope (extra words are caught by
/// [`one_path`], with the kit's message).
fn path_and_more(w: &Words, value: &str, help: &str) -> Vec<Arg> {
    vec![
        Arg::new("path")
            .value_name(w.name(value))
            .help(w.text(help)),
        more(),
    ]
}

/// Exactly one path given to [`path_and_more`]'s command; `usage` names the
/// command in the error.
fn one_path(m: &ArgMatches, usage: &str) -> Result<PathBuf, String> {
    match &values(m, "path")[..] {
        [path] => Ok(PathBuf::from(path)),
        _ => Err(tr("error.missing_value", &[("option", &usage)])),
    }
}

/// The one step of show, hint and reset, checked after parsing (see `one_step`).
fn step_and_more(w: &Words) -> [Arg; 2] {
    [
        Arg::new("step")
            .value_name("N")
            .help(w.text("cli.opt.step")),
        more(),
    ]
}

/// The words given as `id`, then any further ones.
fn values(m: &ArgMatches, id: &str) -> Vec<String> {
    [id, "more"]
        .iter()
        .flat_map(|id| m.get_many::<String>(id).into_iter().flatten().cloned())
        .collect()
}

fn check_args(w: &Words) -> Vec<Arg> {
    let mut args = vec![
        Arg::new("steps")
            .value_name(w.name("cli.value.step"))
            .action(ArgAction::Append)
            .value_parser(step)
            .help(w.text("cli.opt.steps")),
        seed_option(w),
    ];
    args.extend(limit_options(w, "cli.opt.unsandboxed"));
    args.push(path_option(
        "subject",
        w.name("cli.value.path"),
        w.text("cli.opt.subject"),
    ));
    args.push(path_option(
        "advanced",
        w.name("cli.value.file"),
        w.text("cli.opt.advanced"),
    ));
    args
}

fn read_check(m: &ArgMatches) -> Result<CheckArgs, String> {
    let mut steps: Vec<&'static str> = m
        .get_many::<&'static str>("steps")
        .into_iter()
        .flatten()
        .copied()
        .collect();
    steps.sort();
    steps.dedup();
    let steps_given = !steps.is_empty();
    let subject = m.get_one::<PathBuf>("subject").cloned();
    let advanced = m.get_one::<PathBuf>("advanced").cloned();
    if advanced.is_some() && subject.is_none() {
        return Err(tr("error.advanced_needs_subject", &[]));
    }
    if !steps_given {
        steps = crate::suites::core_ids();
        steps.sort();
    }
    Ok(CheckArgs {
        steps,
        steps_given,
        seed: m.get_one::<u64>("seed").copied(),
        limits: read_limits(m),
        subject,
        advanced,
        console: Console::default(),
    })
}

fn grade_args(w: &Words) -> Vec<Arg> {
    let mut args = vec![
        Arg::new("submissions")
            .value_name(w.name("cli.value.submission"))
            .action(ArgAction::Append)
            .value_parser(clap::value_parser!(PathBuf))
            .help(w.text("cli.opt.submissions")),
        path_option("out", w.name("cli.value.dir"), w.text("cli.opt.out")),
        seed_option(w),
        count_option("jobs", w, "cli.opt.jobs"),
        option("shard", "I/N", w.text("cli.opt.shard")).value_parser(shard),
    ];
    args.extend(limit_options(w, "cli.opt.grade_unsandboxed"));
    args.push(
        path_option("merge", w.name("cli.value.dir"), w.text("cli.opt.merge"))
            .num_args(1..)
            .action(ArgAction::Append),
    );
    args
}

/// Every folder named after `--merge` is a shard folder, even past other
/// options (`grade --merge a --jobs 2 b`); those before it are submissions.
fn read_grade(m: &ArgMatches) -> Result<crate::grade::GradeArgs, String> {
    let indexed = |id: &str| -> Vec<(usize, PathBuf)> {
        let indices = m.indices_of(id).into_iter().flatten();
        let paths = m.get_many::<PathBuf>(id).into_iter().flatten().cloned();
        indices.zip(paths).collect()
    };
    let mut merge = indexed("merge");
    let mut submissions = indexed("submissions");
    if let Some(&(first, _)) = merge.first() {
        let (later, before): (Vec<_>, Vec<_>) =
            submissions.into_iter().partition(|(i, _)| *i > first);
        merge.extend(later);
        merge.sort();
        submissions = before;
    }
    let out = crate::grade::GradeArgs {
        out: m
            .get_one::<PathBuf>("out")
            .cloned()
            .unwrap_or_else(|| PathBuf::from("grades")),
        seed: m.get_one::<u64>("seed").copied(),
        jobs: m.get_one::<u64>("jobs").map_or(2, |&n| n as usize),
        shard: m.get_one::<(usize, usize)>("shard").copied(),
        limits: read_limits(m),
        submissions: submissions.into_iter().map(|(_, p)| p).collect(),
        merge: merge.into_iter().map(|(_, p)| p).collect(),
    };
    if out.submissions.is_empty() && out.merge.is_empty() {
        return Err(tr(
            "error.missing_value",
            &[("option", &"grade SUBMISSION...")],
        ));
    }
    Ok(out)
}

/// `[NN] [--subject PATH] [--advanced PATH]`: a step without a
/// demonstration is a one-line error naming those that have one.
fn read_try(m: &ArgMatches) -> Result<Command, String> {
    let steps = crate::live::STEPS.join(", ");
    let no_demo = |step: &str| tr("error.try_step", &[("step", &step), ("steps", &steps)]);
    let given = values(m, "step");
    let step = match &given[..] {
        [] => crate::live::STEPS[0],
        [step] => parse_step(step)
            .filter(|s| crate::live::STEPS.contains(s))
            .ok_or_else(|| no_demo(step))?,
        [_, extra, ..] => return Err(no_demo(extra)),
    };
    let out = TryArgs {
        step,
        subject: m.get_one::<PathBuf>("subject").cloned(),
        advanced: m.get_one::<PathBuf>("advanced").cloned(),
    };
    if out.advanced.is_some() && !crate::suites::is_advanced(out.step) {
        return Err(tr("error.try_advanced", &[("step", &out.step)]));
    }
    Ok(Command::Try(out))
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

fn shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || tr("error.bad_shard", &[("shard", &text)]);
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    match (i.parse::<usize>(), n.parse::<usize>()) {
        (Ok(i), Ok(n)) if 1 <= i && i <= n => Ok((i, n)),
        _ => Err(bad()),
    }
}

fn step(text: &str) -> Result<&'static str, String> {
    parse_step(text)
        .ok_or_else(|| crate::suites::tr_steps("error.unknown_step", &[("step", &text)]))
}

fn language(text: &str) -> Result<Lang, String> {
    lang_from(text).ok_or_else(|| tr("error.bad_lang", &[("lang", &text)]))
}

/// Exactly one valid step argument.
fn one_step(args: &[String], usage: &str) -> Result<&'static str, String> {
    match args {
        [one] => step(one),
        _ => Err(crate::suites::tr_steps(
            "error.one_step",
            &[("usage", &usage)],
        )),
    }
}

/// The language named by the last well-formed `--lang X` or `--lang=X`
/// (the one `parse` keeps), looked for before the rest is parsed.
pub fn lang_asked(args: &[String]) -> Option<Lang> {
    let mut asked = None;
    for (i, a) in args.iter().enumerate() {
        let value = match a.strip_prefix("--lang=") {
            Some(v) => Some(v),
            None if a == "--lang" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        asked = value.and_then(lang_from).or(asked);
    }
    asked
}

/// The whole command line, worded in `w`'s language.
fn definition(w: &Words) -> clap::Command {
    let help = |action| {
        Arg::new("help")
            .short('h')
            .long("help")
            .action(action)
            .display_order(LAST_OPTIONS + 1)
            .help(w.text("cli.opt.help"))
    };
    let mut root = clap::Command::new("lab.sh")
        .bin_name("./lab.sh")
        .no_binary_name(true)
        // The kit's own help (usage.txt) answers `help`, `--help` and no
        // command at all; clap answers `COMMAND --help`.
        .disable_help_flag(true)
        .disable_help_subcommand(true)
        .disable_version_flag(true)
        // The kit colours its own output; help stays plain.
        .color(ColorChoice::Never)
        // The help texts are short: no wrapping, which would count a Chinese
        // character as one column.
        .term_width(0)
        // A repeated option keeps its last value.
        .args_override_self(true)
        .arg(
            Arg::new("lang")
                .long("lang")
                .global(true)
                .value_name("en|zh")
                .value_parser(language)
                .display_order(LAST_OPTIONS)
                .help(w.text("cli.opt.lang")),
        )
        .arg(help(ArgAction::SetTrue));
    for spec in COMMANDS {
        let args = (spec.args)(w);
        let positionals = args.iter().any(|a| a.is_positional() && !a.is_hide_set());
        root = root.subcommand(
            clap::Command::new(spec.name)
                .about(w.text(&format!("cli.{}.about", spec.name)))
                .help_template(template(w, positionals))
                .args(args)
                .arg(help(ArgAction::Help)),
        );
    }
    root
}

/// A command's help, with the catalog's headings (clap's own are English).
fn template(w: &Words, positionals: bool) -> String {
    let mut text = format!("{{about-with-newline}}\n{}\n", w.text("cli.heading.usage"));
    if positionals {
        text += &format!("\n{}\n{{positionals}}\n", w.text("cli.heading.arguments"));
    }
    text + &format!("\n{}\n{{options}}\n", w.text("cli.heading.options"))
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Cli, String> {
    parse_in(&Words::new(), args)
}

fn parse_in(w: &Words, args: &[String]) -> Result<Cli, String> {
    let matches = match definition(w).try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => {
            let text = e.render().to_string();
            let text = text.replace("[OPTIONS]", &w.text("cli.usage.options"));
            return Ok(Cli {
                lang: lang_asked(args),
                command: Command::HelpFor(line_up(&text)),
            });
        }
        Err(e) => return Err(one_line(&e, args)),
    };
    let lang = matches.get_one::<Lang>("lang").copied();
    let command = match matches.subcommand() {
        _ if matches.get_flag("help") => Command::Help,
        None => Command::Help,
        // `help COMMAND` is `COMMAND --help`; an unknown name is an unknown
        // command, with clap's suggestion.
        Some(("help", m)) => match m.get_one::<String>("command") {
            Some(name) => parse_in(w, &[name.clone(), "--help".to_string()])?.command,
            None => Command::Help,
        },
        Some((name, m)) => {
            let spec = COMMANDS
                .iter()
                .find(|s| s.name == name)
                .expect("clap matched a declared command");
            (spec.read)(m)?
        }
    };
    Ok(Cli { lang, command })
}

/// clap pads each argument's name to one column counting characters, but a
/// Chinese character takes two columns on a terminal: pads them again by
/// display width.
fn line_up(help: &str) -> String {
    let lines: Vec<&str> = help.trim_end().lines().collect();
    let mut out = String::new();
    let mut at = 0;
    while at < lines.len() {
        let block: Vec<(&str, &str)> = lines[at..].iter().map_while(|l| split_arg(l)).collect();
        if block.is_empty() {
            out += lines[at];
            out.push('\n');
            at += 1;
            continue;
        }
        let column = block
            .iter()
            .map(|(name, _)| display_width(name))
            .max()
            .unwrap_or(0)
            + 2;
        for (name, text) in &block {
            out += &format!("{}{text}\n", crate::render::padded(name, column));
        }
        at += block.len();
    }
    out
}

/// An argument's line of a help text: its name (with the indent) and its help.
fn split_arg(line: &str) -> Option<(&str, &str)> {
    let indent = line.len() - line.trim_start().len();
    if indent < 2 {
        return None;
    }
    let gap = indent + line[indent..].find("  ")?;
    Some((&line[..gap], line[gap..].trim_start()))
}

/// The command a command line names (the first word that is neither an
/// option nor --lang's value), if it is one of the kit's.
fn command_named(args: &[String]) -> Option<&'static str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--lang" {
            it.next();
        } else if !a.starts_with('-') {
            return COMMANDS.iter().find(|c| c.name == a).map(|c| c.name);
        }
    }
    None
}

/// One line from the catalog for a clap error, with clap's suggestion when
/// it has one.
fn one_line(e: &clap::Error, args: &[String]) -> String {
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        // clap lists suggestions from the least to the most alike.
        Some(ContextValue::Strings(v)) => v.last().cloned(),
        _ => None,
    };
    // clap names an option with its value, as in "--seed <S>".
    let arg = context(ContextKind::InvalidArg).unwrap_or_default();
    let option = arg.split([' ', '=']).next().unwrap_or_default().to_string();
    let command = command_named(args);
    match e.kind() {
        ErrorKind::ValueValidation => match std::error::Error::source(e) {
            Some(why) => why.to_string(),
            None => tr(
                "error.bad_value",
                &[
                    (
                        "value",
                        &context(ContextKind::InvalidValue).unwrap_or_default(),
                    ),
                    ("option", &option),
                ],
            ),
        },
        ErrorKind::UnknownArgument => {
            let suggestion = context(ContextKind::SuggestedArg);
            match (command, suggestion) {
                (Some(c), _) if !option.starts_with('-') => tr(
                    "error.unexpected_argument",
                    &[("argument", &option), ("command", &c)],
                ),
                (Some(c), Some(s)) => tr(
                    "error.unknown_option_suggest",
                    &[("option", &option), ("command", &c), ("suggestion", &s)],
                ),
                (Some(c), None) => tr(
                    "error.unknown_option_in",
                    &[("option", &option), ("command", &c)],
                ),
                (None, Some(s)) => tr(
                    "error.unknown_option_top_suggest",
                    &[("option", &option), ("suggestion", &s)],
                ),
                (None, None) => tr("error.unknown_option", &[("option", &option)]),
            }
        }
        ErrorKind::InvalidSubcommand => {
            let given = context(ContextKind::InvalidSubcommand).unwrap_or_default();
            match context(ContextKind::SuggestedSubcommand) {
                Some(s) => tr(
                    "error.unknown_command_suggest",
                    &[("command", &given), ("suggestion", &s)],
                ),
                None => tr("error.unknown_command", &[("command", &given)]),
            }
        }
        ErrorKind::InvalidValue
        | ErrorKind::NoEquals
        | ErrorKind::MissingRequiredArgument
        | ErrorKind::TooFewValues => {
            match context(ContextKind::InvalidValue).filter(|v| !v.is_empty()) {
                Some(value) => tr("error.bad_value", &[("value", &value), ("option", &option)]),
                None => tr("error.missing_value", &[("option", &option)]),
            }
        }
        ErrorKind::TooManyValues | ErrorKind::WrongNumberOfValues => {
            tr("error.value_count", &[("option", &option)])
        }
        ErrorKind::ArgumentConflict => {
            let other = context(ContextKind::PriorArg).unwrap_or_default();
            let other = other.split([' ', '=']).next().unwrap_or_default();
            tr("error.conflict", &[("option", &option), ("other", &other)])
        }
        _ => tr("error.bad_command_line", &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_non_empty_no_color_turns_colour_off() {
        use std::ffi::OsStr;
        assert!(colour_allowed(None, true));
        assert!(colour_allowed(Some(OsStr::new("")), true));
        assert!(!colour_allowed(Some(OsStr::new("1")), true));
        assert!(!colour_allowed(None, false));
    }

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

    /// A command's help, in the language its line asks for: the catalog is
    /// chosen before parsing, as `lib::run` does.
    fn help_for(line: &str) -> String {
        let line = args(line);
        let lang = lang_asked(&line).unwrap_or(Lang::En);
        match crate::catalog::scoped(lang, || parse(&line)).map(|c| c.command) {
            Ok(Command::HelpFor(text)) => text,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn every_command_takes_help() {
        for spec in COMMANDS {
            let about = crate::catalog::t(&format!("cli.{}.about", spec.name));
            let about = about.split(" (").next().unwrap();
            for flag in ["--help", "-h"] {
                let text = help_for(&format!("{} {flag}", spec.name));
                assert!(
                    text.starts_with(about)
                        && text.contains(&format!("Usage: ./lab.sh {} ", spec.name))
                        && text.contains("-h, --help")
                        && text.contains("--lang <en|zh>"),
                    "{}: {text}",
                    spec.name
                );
            }
        }
        // Also after other arguments, and as `help COMMAND`.
        assert_eq!(help_for("check 04 -h"), help_for("check --help"));
        assert_eq!(help_for("help grade"), help_for("grade --help"));
        assert_eq!(help_for("--lang en hint --help"), help_for("hint -h"));
        // The kit's own usage text.
        for line in ["help", "--help", "-h", "", "--lang zh", "--help check"] {
            assert!(
                matches!(parse(&args(line)).unwrap().command, Command::Help),
                "{line}"
            );
        }
    }

    #[test]
    fn a_command_s_help_lists_its_own_options() {
        let check = help_for("check --help");
        for option in [
            "--case-timeout <SECS>",
            "--seed <S>",
            "--subject <PATH>",
            "[STEP]...",
        ] {
            assert!(check.contains(option), "{option}: {check}");
        }
        assert!(!check.contains("--shard"), "{check}");
        let grade = help_for("grade --help");
        for option in [
            "--shard <I/N>",
            "--merge <DIR>...",
            "--out <DIR>",
            "--unsandboxed",
        ] {
            assert!(grade.contains(option), "{option}: {grade}");
        }
        assert!(!grade.contains("--subject"), "{grade}");
        assert!(help_for("watch --help").contains("--max-checks <N>"));
        assert!(help_for("reset --help").contains("--advanced"));
        assert!(!help_for("bench --help").contains("--seed"));
        assert!(help_for("selftest --help").contains("--only <NAME>"));
    }

    #[test]
    fn help_speaks_the_language_asked_for() {
        let zh = help_for("--lang zh grade --help");
        for heading in [
            "用法：./lab.sh grade [选项] [提交]...",
            "\n参数：\n",
            "\n选项：\n",
        ] {
            assert!(zh.contains(heading), "{heading}: {zh}");
        }
        for english in ["Usage", "Options", "Arguments", "[OPTIONS]", "Print help"] {
            assert!(!zh.contains(english), "{english}: {zh}");
        }
        assert_eq!(help_for("grade --help --lang zh"), zh);
        // Every text is in both catalogs, and the descriptions of a section
        // start in one column although a Chinese character is two wide.
        for lang in ["en", "zh"] {
            for spec in COMMANDS {
                let text = help_for(&format!("--lang {lang} {} --help", spec.name));
                assert!(!text.contains("[cli."), "{lang} {}: {text}", spec.name);
                assert!(!text.contains('\u{1b}'), "no colours: {text}");
                let columns: BTreeSet<usize> = text
                    .lines()
                    .filter(|l| l.starts_with("      --") || l.starts_with("  -h"))
                    .filter_map(split_arg)
                    .map(|(name, _)| display_width(name))
                    .collect();
                let widest = columns.iter().max().copied().unwrap_or(0);
                for line in text.lines().filter(|l| l.starts_with("      --")) {
                    let (name, help) = split_arg(line).unwrap();
                    let column = display_width(line) - display_width(help);
                    assert_eq!(column, widest + 2, "{lang} {}: {name}", spec.name);
                }
            }
        }
    }

    #[test]
    fn a_mistyped_option_or_command_gets_a_suggestion() {
        for (line, wanted) in [
            ("check --sed 1", "did you mean --seed?"),
            ("grade --shrad 1/2 x", "did you mean --shard?"),
            ("watch --max-check 2", "did you mean --max-checks?"),
            ("chek", "did you mean check?"),
            ("help stauts", "did you mean status?"),
            // Two commands are alike here; the closer one is named.
            ("grdae", "did you mean grade?"),
            ("gradescop x", "did you mean gradescope?"),
            ("--lnag zh check", "did you mean --lang?"),
        ] {
            let e = parse(&args(line)).unwrap_err();
            assert!(e.contains(wanted) && !e.contains('\n'), "{line}: {e}");
        }
        assert_eq!(
            parse(&args("check --sed 1")).unwrap_err(),
            "unknown option \"--sed\" for check; did you mean --seed? see ./lab.sh check --help"
        );
        // Nothing close: no suggestion, still the command's help named.
        let e = parse(&args("bench --zzz")).unwrap_err();
        assert!(
            !e.contains("did you mean") && e.contains("./lab.sh bench --help"),
            "{e}"
        );
    }

    #[test]
    fn reset_hint_and_the_language_read_as_before() {
        let command = |line: &str| parse(&args(line)).unwrap().command;
        assert!(matches!(command("reset --all"), Command::Reset(None)));
        assert!(matches!(command("reset 4"), Command::Reset(Some("04"))));
        assert!(matches!(
            command("reset --advanced"),
            Command::ResetAdvanced
        ));
        assert!(matches!(
            command("hint 04 --all"),
            Command::Hint {
                step: "04",
                all: true
            }
        ));
        assert!(matches!(command("status"), Command::Status));
        assert!(matches!(command("handout out"), Command::Handout(d) if d.as_os_str() == "out"));
        let Command::Selftest(s) = command("selftest --seeds 3 --only mutant") else {
            panic!()
        };
        assert_eq!((s.seeds, s.jobs, s.only.as_deref()), (3, 2, Some("mutant")));
        let Command::Bench(b) = command("bench --quick --target-dir t") else {
            panic!()
        };
        assert_eq!(
            (b.quick, b.runs, b.target, b.baseline),
            (true, 5, Some(PathBuf::from("t")), None)
        );
        let Command::Bench(b) = command("bench --baseline 144b944") else {
            panic!()
        };
        assert_eq!(b.baseline.as_deref(), Some("144b944"));
        let Command::Watch { check, max_checks } = command("watch 3 --max-checks 2 --seed 5")
        else {
            panic!()
        };
        assert_eq!(
            (check.steps, check.seed, max_checks),
            (vec!["03"], Some(5), Some(2))
        );
        // The last --lang wins, before or after the command; a repeated
        // option keeps its last value.
        let cli = parse(&args("--lang en check --seed 1 --seed 2 --lang zh")).unwrap();
        assert_eq!(cli.lang, Some(Lang::Zh));
        let Command::Check(c) = cli.command else {
            panic!()
        };
        assert_eq!(c.seed, Some(2));
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
        // With `=` too, the last well-formed one winning.
        assert_eq!(lang_asked(&args("--lang=zh check")), Some(Lang::Zh));
        assert_eq!(
            lang_asked(&args("check --lang=zh --lang en")),
            Some(Lang::En)
        );
        assert_eq!(
            lang_asked(&args("check --lang zh --lang=fr")),
            Some(Lang::Zh)
        );
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
        // Every folder after --merge is a shard folder, even past an option.
        let Command::Grade(g) = parse(&args("grade a --merge x --jobs 3 y"))
            .unwrap()
            .command
        else {
            panic!()
        };
        let paths = |v: &[PathBuf]| {
            v.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            (paths(&g.submissions), paths(&g.merge)),
            (
                vec!["a".to_string()],
                vec!["x".to_string(), "y".to_string()]
            )
        );
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
            "reset --all 4",
            "reset --all --advanced",
            "status now",
            "handout a b",
            "grade --merge",
            "grade --jobs 0 a",
            "bench --runs x",
            "selftest --seeds -2",
            "check --lang",
            "help nothing",
        ] {
            let e = parse(&args(bad)).unwrap_err();
            assert!(!e.is_empty() && !e.contains('\n'), "{bad}: {e}");
        }
    }
}

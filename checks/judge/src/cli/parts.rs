//! The parts commands are declared with: [`Spec`], the builders of
//! options and their readers, and the checks of values as clap reads them
//! (`seed`, `seconds`, `count`, `shard`, `step`). The command list
//! (`spec::COMMANDS`) and the commands' own option groups use these; none
//! of them uses the list.

use super::help::Words;
use super::Command;
use crate::catalog::{lang_from, tr, Lang};
use crate::limits::{Confinement, Limits};
use crate::suites::parse_step;
use clap::builder::{IntoResettable, Str};
use clap::{Arg, ArgAction, ArgMatches};
use std::path::PathBuf;
use std::time::Duration;

/// One command of the kit: its name, its arguments, and how what clap
/// matched becomes a [`Command`]. Its about-line is the catalog's
/// `cli.NAME.about`; `-h`/`--help` and `--lang` are added to every command.
pub(super) struct Spec {
    pub(super) name: &'static str,
    pub(super) args: fn(&Words) -> Vec<Arg>,
    pub(super) read: fn(&ArgMatches) -> Result<Command, String>,
}

pub(super) fn flag(long: &'static str, help: String) -> Arg {
    Arg::new(long)
        .long(long)
        .action(ArgAction::SetTrue)
        .help(help)
}

pub(super) fn option(long: &'static str, value: impl IntoResettable<Str>, help: String) -> Arg {
    Arg::new(long)
        .long(long)
        .value_name(value)
        .action(ArgAction::Set)
        .help(help)
}

pub(super) fn path_option(
    long: &'static str,
    value: impl IntoResettable<Str>,
    help: String,
) -> Arg {
    option(long, value, help).value_parser(clap::value_parser!(PathBuf))
}

/// Numbers (a seed, a count, seconds) take `-1` as their value, so that it
/// gets the catalog's bad-value message instead of reading as an option.
pub(super) fn seed_option(w: &Words) -> Arg {
    option("seed", "S", w.text("cli.opt.seed"))
        .allow_negative_numbers(true)
        .value_parser(seed)
}

pub(super) fn count_option(long: &'static str, w: &Words, help: &str) -> Arg {
    option(long, "N", w.text(help))
        .allow_negative_numbers(true)
        .value_parser(move |text: &str| count(&format!("--{long}"), text))
}

pub(super) fn seconds_option(long: &'static str, w: &Words, help: &str) -> Arg {
    option(long, w.name("cli.value.secs"), w.text(help))
        .allow_negative_numbers(true)
        .value_parser(move |text: &str| seconds(&format!("--{long}"), text))
}

/// The time limits and `--unsandboxed`, shared by check, watch and grade.
pub(super) fn limit_options(w: &Words, unsandboxed: &str) -> [Arg; 4] {
    [
        seconds_option("case-timeout", w, "cli.opt.case_timeout"),
        seconds_option("suite-timeout", w, "cli.opt.suite_timeout"),
        seconds_option("build-timeout", w, "cli.opt.build_timeout"),
        flag("unsandboxed", w.text(unsandboxed)),
    ]
}

pub(super) fn read_limits(m: &ArgMatches) -> Limits {
    let mut limits = Limits::default();
    let given = |id: &str| m.get_one::<Duration>(id).copied();
    limits.case = given("case-timeout").unwrap_or(limits.case);
    limits.suite = given("suite-timeout").unwrap_or(limits.suite);
    limits.build = given("build-timeout").unwrap_or(limits.build);
    if m.get_flag("unsandboxed") {
        limits.confinement = Confinement::Off;
    }
    limits
}

/// Takes every further word, so that too many steps (or folders) is the
/// command's own one-line error rather than clap's.
pub(super) fn more() -> Arg {
    Arg::new("more").hide(true).action(ArgAction::Append)
}

/// The one path of handout and gradescope (extra words are caught by
/// [`one_path`], with the kit's message).
pub(super) fn path_and_more(w: &Words, value: &str, help: &str) -> Vec<Arg> {
    vec![
        Arg::new("path")
            .value_name(w.name(value))
            .help(w.text(help)),
        more(),
    ]
}

/// Exactly one path given to [`path_and_more`]'s command; `usage` names the
/// command in the error.
pub(super) fn one_path(m: &ArgMatches, usage: &str) -> Result<PathBuf, String> {
    match &values(m, "path")[..] {
        [path] => Ok(PathBuf::from(path)),
        _ => Err(tr("error.missing_value", &[("option", &usage)])),
    }
}

/// The one step of show, hint and reset, checked after parsing (see `one_step`).
pub(super) fn step_and_more(w: &Words) -> [Arg; 2] {
    [
        Arg::new("step")
            .value_name("N")
            .help(w.text("cli.opt.step")),
        more(),
    ]
}

/// The words given as `id`, then any further ones.
pub(super) fn values(m: &ArgMatches, id: &str) -> Vec<String> {
    [id, "more"]
        .iter()
        .flat_map(|id| m.get_many::<String>(id).into_iter().flatten().cloned())
        .collect()
}

pub(super) fn seed(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| tr("error.bad_seed", &[("seed", &text)]))
}

pub(super) fn seconds(option: &str, text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e6 => Ok(Duration::from_secs_f64(s)),
        _ => Err(tr(
            "error.bad_number",
            &[("value", &text), ("option", &option)],
        )),
    }
}

pub(super) fn count(option: &str, text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(tr(
            "error.bad_number",
            &[("value", &text), ("option", &option)],
        )),
    }
}

pub(super) fn shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || tr("error.bad_shard", &[("shard", &text)]);
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    match (i.parse::<usize>(), n.parse::<usize>()) {
        (Ok(i), Ok(n)) if 1 <= i && i <= n => Ok((i, n)),
        _ => Err(bad()),
    }
}

pub(super) fn step(text: &str) -> Result<&'static str, String> {
    parse_step(text)
        .ok_or_else(|| crate::suites::tr_steps("error.unknown_step", &[("step", &text)]))
}

pub(super) fn language(text: &str) -> Result<Lang, String> {
    lang_from(text).ok_or_else(|| tr("error.bad_lang", &[("lang", &text)]))
}

/// Exactly one valid step argument.
pub(super) fn one_step(args: &[String], usage: &str) -> Result<&'static str, String> {
    match args {
        [one] => step(one),
        _ => Err(crate::suites::tr_steps(
            "error.one_step",
            &[("usage", &usage)],
        )),
    }
}

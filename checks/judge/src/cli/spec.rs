//! Every command and its arguments, declared once in [`COMMANDS`], and how
//! what clap matched becomes the command's own arguments. The builders and
//! the checks of values are in `parts`.

use super::help::{template, Words};
use super::maintainers::{BenchArgs, SelftestArgs, Tool};
use super::parts::*;
use super::Command;
use crate::catalog::tr;
use crate::check::CheckArgs;
use crate::console::Console;
use crate::grade::GradeArgs;
use crate::live::TryArgs;
use crate::suites::parse_step;
use clap::{Arg, ArgAction, ArgMatches, ColorChoice};
use std::path::PathBuf;

/// Every command, in the order of usage.txt. To add one: an entry here (its
/// arguments and how they become a `Command`), a variant of `Command` and its
/// arm in `dispatch::run_with` (for a maintainers' tool: a variant of `Tool`,
/// its arm in lab-dev's `tool` and its name in lab.sh's routing),
/// `cli.NAME.about` and the new options' `cli.opt.*` in both catalogs, and
/// its lines in usage.txt and usage.zh.txt.
pub(super) const COMMANDS: &[Spec] = &[
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
            let check = read_check(m)?;
            super::output::for_watch(check.format)?;
            Ok(Command::Watch {
                check,
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
                flag("force", w.text("cli.opt.reset_force")),
                more,
            ]
        },
        read: |m| {
            let steps = values(m, "step");
            let force = m.get_flag("force");
            match (steps.is_empty(), m.get_flag("all"), m.get_flag("advanced")) {
                (true, true, false) if !force => Ok(Command::Reset(None)),
                (true, false, true) => Ok(Command::ResetAdvanced { force }),
                (_, false, false) if !force => Ok(Command::Reset(Some(one_step(&steps, RESET)?))),
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
    super::policy::PRAIRIELEARN,
    super::policy::PRAIRIELEARN_GRADE,
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
            Ok(Command::Tool(Tool::Bench(BenchArgs {
                quick: m.get_flag("quick"),
                runs: m.get_one::<u64>("runs").map_or(5, |&n| n as usize),
                target: m.get_one::<PathBuf>("target-dir").cloned(),
                baseline: m.get_one::<String>("baseline").cloned(),
            })))
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
                flag("write-mistakes", w.text("cli.opt.write_mistakes")),
            ]
        },
        read: |m| {
            Ok(Command::Tool(Tool::Selftest(SelftestArgs {
                seed: m.get_one::<u64>("seed").copied(),
                seeds: m.get_one::<u64>("seeds").map_or(20, |&n| n as u32),
                jobs: m.get_one::<u64>("jobs").map_or(2, |&n| n as usize),
                only: m.get_one::<String>("only").cloned(),
                write_mistakes: m.get_flag("write-mistakes"),
            })))
        },
    },
    Spec {
        name: "new-step",
        args: |w| {
            vec![
                Arg::new("step")
                    .value_name("NN")
                    .help(w.text("cli.opt.new_step_step")),
                Arg::new("name")
                    .value_name(w.name("cli.value.name"))
                    .help(w.text("cli.opt.new_step_name")),
                more(),
            ]
        },
        read: |m| {
            let given = |id: &str| m.get_many::<String>(id).into_iter().flatten().cloned();
            // Checked by lab-dev's scaffold (`NewStepArgs::read`), which
            // answers a bad step or name the way a bad option is answered.
            let words: Vec<String> = given("step").chain(values(m, "name")).collect();
            Ok(Command::Tool(Tool::NewStep(words)))
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
pub(super) const LAST_OPTIONS: usize = 1000;

pub(super) const RESET: &str = "reset N|--all|--advanced [--force]";

pub(super) fn check_args(w: &Words) -> Vec<Arg> {
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
    args.extend(super::output::options(w));
    args
}

pub(super) fn read_check(m: &ArgMatches) -> Result<CheckArgs, String> {
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
        format: super::output::read(m).0,
        github: super::output::read(m).1,
    })
}

pub(super) fn grade_args(w: &Words) -> Vec<Arg> {
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
    args.extend(super::policy::grade_options(w));
    args.push(
        path_option("merge", w.name("cli.value.dir"), w.text("cli.opt.merge"))
            .num_args(1..)
            .action(ArgAction::Append),
    );
    args.extend(super::grade_extras::args(w));
    args
}

/// Every folder named after `--merge` is a shard folder, even past other
/// options (`grade --merge a --jobs 2 b`); those before it are submissions.
pub(super) fn read_grade(m: &ArgMatches) -> Result<GradeArgs, String> {
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
    let out = GradeArgs {
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
        policy: Box::new(super::policy::read_policy(m)),
        extras: super::grade_extras::read(m),
        similarity: super::similarity::read(m),
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
pub(super) fn read_try(m: &ArgMatches) -> Result<Command, String> {
    let live = crate::suites::live_ids();
    let steps = live.join(", ");
    let no_demo = |step: &str| tr("error.try_step", &[("step", &step), ("steps", &steps)]);
    let given = values(m, "step");
    let step = match &given[..] {
        [] => live[0],
        [step] => parse_step(step)
            .filter(|s| live.contains(s))
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

/// The whole command line, worded in `w`'s language.
pub(super) fn definition(w: &Words) -> clap::Command {
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

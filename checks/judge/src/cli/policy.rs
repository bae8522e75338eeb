//! `grade`'s options for the instructor's policy (`--credit`,
//! `--visibility`, `--detail`, `--prairielearn-ungradable`; see
//! `grade::policy`), shared by `grade`, `prairielearn` and
//! `prairielearn-grade`, and those two commands' own arguments.

use super::help::Words;
use super::parts::{limit_options, one_path, option, path_and_more, path_option, Spec};
use super::Command;
use crate::catalog::tr;
use crate::grade::policy::{pair, Credit, Policy};
use crate::prairielearn::{QuestionArgs, IMAGE};
use crate::report::prairielearn::Ungradable;
use clap::{Arg, ArgAction, ArgMatches};
use std::path::PathBuf;

/// `grade`'s options after its shard: the limits, the policy's, then the
/// similarity stage's.
pub(super) fn grade_options(w: &Words) -> Vec<Arg> {
    let mut args: Vec<Arg> = limit_options(w, "cli.opt.grade_unsandboxed").into();
    args.extend(policy_options(w));
    args.extend(super::similarity::options(w));
    args
}

pub(super) fn policy_options(w: &Words) -> [Arg; 4] {
    [
        option("credit", "steps|rules", w.text("cli.opt.credit")).value_parser(credit),
        option("visibility", "STEP=VALUE", w.text("cli.opt.visibility"))
            .action(ArgAction::Append)
            .value_parser(|t: &str| pair("--visibility", t)),
        option("detail", "STEP=VALUE", w.text("cli.opt.detail"))
            .action(ArgAction::Append)
            .value_parser(|t: &str| pair("--detail", t)),
        option(
            "prairielearn-ungradable",
            "compile-error|zero",
            w.text("cli.opt.prairielearn_ungradable"),
        )
        .value_parser(ungradable),
    ]
}

pub(super) fn read_policy(m: &ArgMatches) -> Policy {
    let pairs = |id: &str| {
        m.get_many::<(String, String)>(id)
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    };
    Policy {
        credit: m.get_one::<Credit>("credit").copied().unwrap_or_default(),
        visibility: pairs("visibility"),
        detail: pairs("detail"),
        ungradable: m
            .get_one::<Ungradable>("prairielearn-ungradable")
            .copied()
            .unwrap_or_default(),
    }
}

fn credit(text: &str) -> Result<Credit, String> {
    Credit::from_word(text).ok_or_else(|| {
        tr(
            "error.bad_choice",
            &[
                ("value", &text),
                ("option", &"--credit"),
                ("values", &"steps, rules"),
            ],
        )
    })
}

fn ungradable(text: &str) -> Result<Ungradable, String> {
    Ungradable::from_word(text).ok_or_else(|| {
        tr(
            "error.bad_choice",
            &[
                ("value", &text),
                ("option", &"--prairielearn-ungradable"),
                ("values", &"compile-error, zero"),
            ],
        )
    })
}

/// `prairielearn DIR`, in `spec::COMMANDS`.
pub(super) const PRAIRIELEARN: Spec = Spec {
    name: "prairielearn",
    args: question_args,
    read: read_question,
};

/// `prairielearn-grade [--root DIR]`, in `spec::COMMANDS`.
pub(super) const PRAIRIELEARN_GRADE: Spec = Spec {
    name: "prairielearn-grade",
    args: pl_grade_args,
    read: read_pl_grade,
};

/// `prairielearn DIR [--image NAME]` and the policy's options.
pub(super) fn question_args(w: &Words) -> Vec<Arg> {
    let mut args = path_and_more(w, "cli.value.dir", "cli.opt.prairielearn_dir");
    args.push(option(
        "image",
        w.name("cli.value.name"),
        w.text("cli.opt.prairielearn_image"),
    ));
    args.extend(policy_options(w));
    args
}

pub(super) fn read_question(m: &ArgMatches) -> Result<Command, String> {
    Ok(Command::PrairieLearn(QuestionArgs {
        dir: one_path(m, "prairielearn DIR")?,
        image: m
            .get_one::<String>("image")
            .cloned()
            .unwrap_or_else(|| IMAGE.to_string()),
        policy: read_policy(m),
    }))
}

/// `prairielearn-grade [--root DIR]` and the policy's options.
pub(super) fn pl_grade_args(w: &Words) -> Vec<Arg> {
    let mut args = vec![path_option(
        "root",
        w.name("cli.value.dir"),
        w.text("cli.opt.prairielearn_root"),
    )];
    args.extend(policy_options(w));
    args
}

pub(super) fn read_pl_grade(m: &ArgMatches) -> Result<Command, String> {
    Ok(Command::PrairieLearnGrade {
        root: m
            .get_one::<PathBuf>("root")
            .cloned()
            .unwrap_or_else(|| PathBuf::from("/grade")),
        policy: read_policy(m),
    })
}

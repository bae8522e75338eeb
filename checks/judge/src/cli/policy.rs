//! `grade`'s options for the instructor's policy (`--credit`,
//! `--visibility`, `--detail`, `--prairielearn-ungradable`; see
//! `grade::policy`), shared by `grade` and `prairielearn-grade`.

use super::help::Words;
use super::spec::option;
use crate::catalog::tr;
use crate::grade::policy::{pair, Credit, Policy};
use crate::report::prairielearn::Ungradable;
use clap::{Arg, ArgAction, ArgMatches};

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
            &[("value", &text), ("option", &"--credit"), ("values", &"steps, rules")],
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

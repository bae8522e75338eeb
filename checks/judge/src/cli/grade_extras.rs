//! `grade`'s options for an LMS: `--roster`, `--assignment`, `--due`,
//! `--late`, `--late-policy`, `--submitted-at`, `--previous`. Times and
//! policies are checked here, as clap reads them; files are read by
//! `grade::extras::prepare` before grading starts.

use super::help::Words;
use super::parts::{option, path_option};
use crate::catalog::tr;
use crate::grade::extras::GradeExtras;
use clap::{Arg, ArgMatches};
use std::path::PathBuf;

pub(super) fn args(w: &Words) -> Vec<Arg> {
    vec![
        path_option("roster", w.name("cli.value.file"), w.text("cli.opt.roster")),
        option(
            "assignment",
            w.name("cli.value.name"),
            w.text("cli.opt.assignment"),
        ),
        option("due", "TIME", w.text("cli.opt.due")).value_parser(time),
        option("late", "POLICY", w.text("cli.opt.late")).value_parser(policy),
        path_option(
            "late-policy",
            w.name("cli.value.file"),
            w.text("cli.opt.late_policy"),
        ),
        path_option(
            "submitted-at",
            w.name("cli.value.file"),
            w.text("cli.opt.submitted_at"),
        ),
        path_option(
            "previous",
            w.name("cli.value.dir"),
            w.text("cli.opt.previous"),
        ),
    ]
}

pub(super) fn read(m: &ArgMatches) -> GradeExtras {
    let path = |id: &str| m.get_one::<PathBuf>(id).cloned();
    GradeExtras {
        roster: path("roster"),
        assignment: m.get_one::<String>("assignment").cloned(),
        due: m.get_one::<i64>("due").copied(),
        late: m.get_one::<String>("late").cloned(),
        late_policy: path("late-policy"),
        submitted_at: path("submitted-at"),
        previous: path("previous"),
    }
}

fn time(text: &str) -> Result<i64, String> {
    crate::grade::late::parse_rfc3339(text.trim()).ok_or_else(|| {
        tr(
            "error.bad_time",
            &[("value", &crate::visible::line(text)), ("option", &"--due")],
        )
    })
}

fn policy(text: &str) -> Result<String, String> {
    crate::grade::late::parse_policy(text).map(|_| text.to_string())
}

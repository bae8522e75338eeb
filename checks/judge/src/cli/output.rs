//! `check`'s options for editors and CI: `--message-format human|json`
//! (`events.rs`) and `--github` (`github.rs`); watch takes them too but
//! refuses JSON, its screen being for a person.

use super::help::Words;
use super::parts::{flag, option};
use crate::catalog::tr;
use crate::stdout::Format;
use clap::{Arg, ArgMatches};

pub(super) fn options(w: &Words) -> [Arg; 2] {
    [
        option(
            "message-format",
            "human|json",
            w.text("cli.opt.message_format"),
        )
        .value_parser(["human", "json"]),
        flag("github", w.text("cli.opt.github")),
    ]
}

/// The format and `--github` as matched.
pub(super) fn read(m: &ArgMatches) -> (Format, bool) {
    let format = match m.get_one::<String>("message-format").map(String::as_str) {
        Some("json") => Format::Json,
        _ => Format::Human,
    };
    (format, m.get_flag("github"))
}

/// Watch's refusal of JSON.
pub(super) fn for_watch(format: Format) -> Result<(), String> {
    match format {
        Format::Json => Err(tr("error.watch_json", &[])),
        Format::Human => Ok(()),
    }
}

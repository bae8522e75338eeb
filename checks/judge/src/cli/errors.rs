//! clap's errors told as the kit's one-line messages from the catalogs,
//! with clap's suggestion when it has one.

use super::spec::COMMANDS;
use crate::catalog::tr;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The command a command line names (the first word that is neither an
/// option nor --lang's value), if it is one of the kit's.
pub(super) fn command_named(args: &[String]) -> Option<&'static str> {
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
pub(super) fn one_line(e: &clap::Error, args: &[String]) -> String {
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

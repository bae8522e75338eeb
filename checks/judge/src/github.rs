//! `check --github`, or any check where `GITHUB_ACTIONS=true`: the first
//! failure of each step as a GitHub workflow command
//! (`::error file=…,line=…,col=…,title=…::message`), and a Markdown table
//! of the steps appended to the file `$GITHUB_STEP_SUMMARY` names. The
//! learner's text in them is escaped by GitHub's rules (see [`data`] and
//! [`property`]) so that it cannot start a command of its own; and the
//! human report, which shows the learner's text as it is, is printed
//! between `::stop-commands::TOKEN` and `::TOKEN::` ([`stop_commands`],
//! [`resume_commands`]), a token drawn afresh from the OS's randomness, so
//! that no line of it is read as a command.

use crate::catalog::{t, tr};
use crate::evaluate::StepResult;
use crate::limits::Limits;
use crate::locate::Locator;
use crate::verdict::ClauseVerdict;
use std::io::Write;

/// The most bytes of one annotation's message (before escaping).
pub const MESSAGE_CAP: usize = 4096;

/// The most bytes one check appends to the step summary, and the size past
/// which it appends nothing (GitHub shows at most 1 MiB of it).
pub const SUMMARY_CAP: usize = 64 * 1024;
pub const SUMMARY_FILE_CAP: u64 = 1 << 20;

static TOKEN: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// A fresh token no learner's code can know: 128 bits of the randomness
/// the standard library seeds its hash maps with.
fn token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let draw = || {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(u64::from(std::process::id()));
        h.finish()
    };
    format!("{:016x}{:016x}", draw(), draw())
}

/// Stops GitHub from reading commands in what follows on the report's
/// stream, until [`resume_commands`].
pub fn stop_commands() {
    let t = token();
    let mut out = crate::stdout::human();
    let _ = writeln!(out, "::stop-commands::{t}");
    let _ = out.flush();
    *TOKEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(t);
}

/// Lets GitHub read commands again, if they were stopped.
pub fn resume_commands() {
    let taken = TOKEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(t) = taken {
        let mut out = crate::stdout::human();
        let _ = writeln!(out, "::{t}::");
        let _ = out.flush();
    }
}

/// Whether GitHub Actions runs this check.
pub fn wanted() -> bool {
    std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
}

/// A command's message: `%`, CR and LF escaped.
pub fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value: as [`data`], and `:` and `,` too.
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

fn cut(text: &str, cap: usize) -> &str {
    let mut end = text.len().min(cap);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One `::error` line (no line feed). The message keeps its line feeds
/// (escaped); other controls are shown as escapes, as in the console.
pub fn annotation(at: &Locator, title: &str, message: &str) -> String {
    let message = crate::visible::text(cut(message, MESSAGE_CAP)).into_owned();
    let title = crate::visible::line(title).into_owned();
    format!(
        "::error file={},line={},col={},title={}::{}",
        property(&at.file),
        at.line,
        at.column,
        property(&title),
        data(&message)
    )
}

/// The step's first failing rule: its trial name and its text.
fn first_failure(result: &StepResult, limits: &Limits) -> Option<(String, String)> {
    let suite = &result.suite;
    let i = result.verdicts.iter().position(|v| !v.is_pass())?;
    let name = crate::console::trial_name(suite.step, suite.function, &suite.clauses[i].key);
    let text = crate::console::failure_text(result, i, limits).unwrap_or_default();
    Some((name, text))
}

/// The step's result as the summary's table says it.
fn status(result: &StepResult) -> String {
    let key = if result
        .verdicts
        .iter()
        .any(|v| matches!(v, ClauseVerdict::NotBuilt))
    {
        "github.status.not_built"
    } else if result.verdicts.iter().all(ClauseVerdict::is_pass) {
        "github.status.passed"
    } else if result.not_started() {
        "github.status.not_started"
    } else {
        "github.status.failing"
    };
    t(key)
}

/// A Markdown table cell: one visible line, `|` escaped, at most 200 bytes.
fn cell(text: &str) -> String {
    let line = crate::visible::line(text).replace('|', "\\|");
    let short = cut(&line, 200);
    if short.len() < line.len() {
        format!("{short}…")
    } else {
        line
    }
}

/// The summary's Markdown for these steps.
pub fn summary(results: &[StepResult], limits: &Limits) -> String {
    let mut out = format!(
        "### {}\n\n| {} | {} | {} | {} | {} |\n|---|---|---|---|---|\n",
        t("github.summary.title"),
        t("github.summary.step"),
        t("github.summary.items"),
        t("github.summary.result"),
        t("github.summary.rules"),
        t("github.summary.first"),
    );
    for r in results {
        let passed = r.verdicts.iter().filter(|v| v.is_pass()).count();
        let first = first_failure(r, limits).map_or(String::new(), |(n, _)| n);
        let row = format!(
            "| {} | `{}` | {} | {}/{} | {} |\n",
            r.suite.step,
            r.suite.function,
            status(r),
            passed,
            r.verdicts.len(),
            cell(&first)
        );
        if out.len() + row.len() > SUMMARY_CAP {
            out += &format!(
                "\n{}\n",
                tr("github.summary.cut", &[("count", &results.len())])
            );
            break;
        }
        out += &row;
    }
    out + "\n"
}

/// Appends `text` to the summary file, unless it already holds
/// [`SUMMARY_FILE_CAP`] bytes or is not a regular file.
pub fn append_summary(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_file() || meta.len() >= SUMMARY_FILE_CAP {
            return Ok(());
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

/// The annotations (on the human report's stream) and the summary.
pub fn report(results: &[StepResult], limits: &Limits, at: &dyn Fn(&str) -> Locator) {
    resume_commands();
    let mut out = crate::stdout::human();
    for r in results {
        if let Some((name, text)) = first_failure(r, limits) {
            let _ = writeln!(out, "{}", annotation(&at(r.suite.step), &name, &text));
        }
    }
    let _ = out.flush();
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        if let Err(e) = append_summary(std::path::Path::new(&path), &summary(results, limits)) {
            eprintln!("lab: {}", tr("github.summary_failed", &[("why", &e)]));
        }
    }
}

#[cfg(test)]
mod tests;

//! The learner's comforts: `show`, `hint`, `status`, `watch` and `reset`.
//! Texts come from each step's folder (`text.<lang>.md`, `hints.<lang>.md`),
//! words from the catalog.

use crate::catalog::{self, t, tr};
use crate::check::CheckArgs;
use crate::keys::Key;
use crate::state::{self, State};
use crate::status;
use crate::suites::{self, Track};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::suites::function_of;

/// The learner's advanced file (the advanced steps), when they opted in.
fn advanced_file(root: &Path) -> Option<PathBuf> {
    Some(root.join("student/src/advanced.rs")).filter(|p| p.is_file())
}

/// A step's text (`kind` "text") or hints ("hints") in the active language,
/// from its folder.
fn step_file(root: &Path, step: &str, kind: &str) -> Result<String, String> {
    let lang = catalog::code(catalog::active());
    let path: PathBuf = root
        .join(suites::entry(step).dir())
        .join(suites::text_file(kind, lang));
    std::fs::read_to_string(&path)
        .map_err(|_| tr("error.missing_folder", &[("path", &path.display())]))
}

/// The hints of a step, in order.
pub fn hints(text: &str) -> Vec<String> {
    text.split("\n---\n")
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .collect()
}

pub fn show(root: &Path, step: &str) -> u8 {
    match step_file(root, step, "text") {
        Ok(text) => {
            print!("{text}");
            status::PASSED
        }
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            status::KIT_ERROR
        }
    }
}

/// `lab.sh hint`, or `h` in `watch` (`key`: the footer then names the key).
pub fn hint(root: &Path, step: &str, all: bool, key: bool) -> u8 {
    let list = match step_file(root, step, "hints") {
        Ok(text) => hints(&text),
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let mut st = state::load(root);
    let entry = st.steps.entry(step.to_string()).or_default();
    let shown = if all {
        list.len()
    } else {
        (entry.hints_shown + 1).min(list.len())
    };
    entry.hints_shown = entry.hints_shown.max(shown);
    for (i, h) in list.iter().enumerate().take(shown) {
        println!(
            "{}",
            tr(
                "hint.heading",
                &[("step", &step), ("k", &(i + 1)), ("n", &list.len())]
            )
        );
        println!("{h}\n");
    }
    println!("{}", hint_footer(step, shown, list.len(), key));
    let _ = state::save(root, &st);
    status::PASSED
}

/// The line under the hints shown: how to see the next one, or where the
/// step's text is once every hint has been shown.
fn hint_footer(step: &str, shown: usize, hints: usize, key: bool) -> String {
    let words = match (shown < hints, key) {
        (true, true) => "hint.more_key",
        (true, false) => "hint.more",
        (false, _) => "hint.no_more",
    };
    tr(words, &[("step", &step)])
}

fn ago(seconds: u64) -> String {
    match seconds {
        0..=59 => t("status.just_now"),
        60..=3599 => tr("status.minutes_ago", &[("n", &(seconds / 60))]),
        3600..=86399 => tr("status.hours_ago", &[("n", &(seconds / 3600))]),
        _ => tr("status.days_ago", &[("n", &(seconds / 86400))]),
    }
}

/// One line per step: its last verdict, when, and whether the file changed
/// since. `advanced_hash` is the advanced file's hash when the learner has
/// one; only then are the advanced steps listed.
pub fn status_lines(
    st: &State,
    current_hash: &str,
    advanced_hash: Option<&str>,
    now: u64,
) -> Vec<String> {
    let advanced = advanced_hash
        .map(|h| suites::track(Track::Advanced).map(move |s| (s, h)))
        .into_iter()
        .flatten();
    let rows: Vec<_> = suites::track(Track::Core)
        .map(|s| (s, current_hash))
        .chain(advanced)
        .collect();
    let words = [
        t("status.passed"),
        t("status.failing"),
        t("status.not_started"),
    ];
    let width = |texts: &mut dyn Iterator<Item = &str>| {
        texts.map(crate::render::display_width).max().unwrap_or(0)
    };
    let function_width = width(&mut rows.iter().map(|((_, f), _)| *f));
    let word_width = width(&mut words.iter().map(String::as_str));
    rows.into_iter()
        .map(|((step, function), current_hash)| {
            let entry = st.steps.get(step).cloned().unwrap_or_default();
            let word = match entry.last.as_deref() {
                Some("passed") => &words[0],
                Some("failing") => &words[1],
                _ => &words[2],
            };
            let mut line = format!(
                "{step} {}  {}",
                crate::render::padded(function, function_width),
                crate::render::padded(word, word_width)
            );
            if let Some(at) = entry.checked_at {
                line += &format!(
                    "  {}",
                    tr("status.when", &[("ago", &ago(now.saturating_sub(at)))])
                );
                if entry.source_hash.as_deref() != Some(current_hash) {
                    let file = suites::file_of(step);
                    line += &format!("  {}", tr("status.changed", &[("file", &file)]));
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

pub fn status(root: &Path) -> u8 {
    let st = state::load(root);
    let hash = state::source_hash(&root.join("student/src/lib.rs"));
    let advanced = advanced_file(root).map(|p| state::source_hash(&p));
    for line in status_lines(&st, &hash, advanced.as_deref(), state::now()) {
        println!("{line}");
    }
    status::PASSED
}

/// Re-checks on every save of student/src/lib.rs (or advanced.rs), seen by
/// reading them (see `saves`: no file-system events, no times), and
/// follows the learner: when the steps watched pass, it says so and moves
/// on to the next step not yet passed. Every step that passed before is
/// checked again with them, and one that no longer passes is named. On a
/// terminal it redraws the screen for each check and cuts the report to the
/// screen's height, its first failure first and its last lines kept. The
/// key `h` shows the next hint of the step watched, `q` stops (no Enter
/// needed on a terminal). `max_checks` ends it (for tests).
pub fn watch(root: &Path, args: &CheckArgs, max_checks: Option<usize>) -> u8 {
    let files = saves::Watched {
        required: vec![root.join("student/src/lib.rs")],
        optional: vec![root.join("student/src/advanced.rs")],
    };
    let terminal = std::io::stdout().is_terminal();
    let mut args = args.clone();
    if !args.steps_given {
        let st = state::load(root);
        args.steps = vec![
            next_unfinished(&st, advanced_file(root).is_some(), None).unwrap_or(args.steps[0])
        ];
        args.steps_given = true;
    }
    args.console = crate::console::Console {
        colour: Some(crate::console::Console::colour_wanted()),
        terse: true,
    };
    let keys = crate::keys::Keys::start();
    println!("{}", t("watch.started"));
    let mut saves = saves::Saves::default();
    let mut checks = 0;
    let mut moved_on: Option<String> = None;
    loop {
        if saves.changed(&files) {
            if terminal {
                // Clears the screen and puts the cursor at its top.
                print!("\x1b[2J\x1b[H");
            }
            let before = passed(&state::load(root), advanced_file(root).is_some());
            let (code, report) = check_with(root, &args, &before, terminal);
            checks += 1;
            // Lines under the report, each after a blank line.
            let mut footer = Vec::new();
            let after = passed(&state::load(root), true);
            let broken: Vec<&str> = before
                .iter()
                .copied()
                .filter(|s| !after.contains(s))
                .collect();
            if !broken.is_empty() {
                footer.push(tr(
                    "watch.regressed",
                    &[("steps", &broken.join(", ")), ("count", &broken.len())],
                ));
            }
            // Said again under the new step's report, which a terminal's
            // redraw would otherwise have pushed it above.
            footer.extend(moved_on.take());
            if code == status::PASSED {
                let st = state::load(root);
                let after = args.steps.last().copied();
                match next_unfinished(&st, advanced_file(root).is_some(), after) {
                    Some(next) => {
                        let line = tr(
                            "watch.moving_on",
                            &[("steps", &args.steps.join(", ")), ("next", &next)],
                        );
                        footer.push(line.clone());
                        moved_on = Some(line);
                        args.steps = vec![next];
                        // The next step is checked at once.
                        saves.forget();
                    }
                    None => footer.push(t("watch.all_passed")),
                }
            }
            let done = max_checks.is_some_and(|m| checks >= m);
            if !done && !saves.forgotten() {
                footer.push(tr("watch.waiting", &[("step", &args.steps.join(", "))]));
            }
            if let Some((report, rows)) = report {
                // The advice, the seed line and the closing line stay.
                let cut = |count: usize| tr("watch.cut", &[("count", &count)]);
                let room = rows.saturating_sub(2 * footer.len()).max(MIN_REPORT_ROWS);
                print!("{}", crate::screen::fit(&report, room, 3, cut));
            }
            for line in footer {
                println!("\n{line}");
            }
            if done {
                return status::PASSED;
            }
        }
        match keys.try_next() {
            Some(Key::Hint) => {
                hint(root, args.steps[0], false, true);
            }
            Some(Key::Quit) => return status::PASSED,
            None => {}
        }
        std::thread::sleep(saves::POLL);
    }
}

/// A report is never cut shorter than this.
const MIN_REPORT_ROWS: usize = 8;

/// Checks the steps watched and every step in `also`, in the registry's
/// order. On a terminal the report is captured and given back with the
/// terminal's rows, to be cut to fit; else it is printed as it comes.
fn check_with(
    root: &Path,
    args: &CheckArgs,
    also: &[&'static str],
    terminal: bool,
) -> (u8, Option<(String, usize)>) {
    let mut args = args.clone();
    args.steps = suites::REGISTRY
        .iter()
        .map(|e| e.id)
        .filter(|s| args.steps.contains(s) || also.contains(s))
        .collect();
    let rows = if terminal {
        crate::screen::rows()
    } else {
        None
    };
    let Some(rows) = rows else {
        return (crate::check::run(root, &args), None);
    };
    // The check runs once, captured when it can be (else it printed as
    // usual; a capture that cannot be read back is lost, the footer stays).
    let (code, report) = crate::screen::captured(|| crate::check::run(root, &args));
    (code, report.map(|r| (r, rows)))
}

/// The steps whose last check passed (advanced ones only with `advanced`).
fn passed(st: &State, advanced: bool) -> Vec<&'static str> {
    suites::REGISTRY
        .iter()
        .filter(|e| advanced || e.track == Track::Core)
        .map(|e| e.id)
        .filter(|s| st.steps.get(*s).and_then(|e| e.last.as_deref()) == Some("passed"))
        .collect()
}

/// The first step after `after` (in the registry's order, wrapping round)
/// whose last check did not pass; advanced steps only for a learner who has
/// an advanced.rs.
fn next_unfinished(st: &State, advanced: bool, after: Option<&str>) -> Option<&'static str> {
    let steps: Vec<&'static str> = suites::REGISTRY
        .iter()
        .filter(|e| advanced || e.track == Track::Core)
        .map(|e| e.id)
        .collect();
    let start = after
        .and_then(|a| steps.iter().position(|s| *s == a))
        .map_or(0, |i| i + 1);
    let open = |s: &&&str| st.steps.get(**s).and_then(|e| e.last.as_deref()) != Some("passed");
    steps[start..]
        .iter()
        .chain(&steps[..start])
        .find(open)
        .copied()
}

/// Byte range of `pub fn name` in `source`: from its doc comment and
/// attributes to its closing brace (strings, chars and comments skipped).
pub fn fn_span(source: &str, name: &str) -> Option<(usize, usize)> {
    let head = format!("pub fn {name}");
    let at = source
        .match_indices(&head)
        .map(|(i, _)| i)
        .find(|i| matches!(source.as_bytes().get(i + head.len()), Some(b'(' | b'<')))?;
    let mut start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    // Take the doc comments and attributes directly above.
    while start > 0 {
        let prev_start = source[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        let prev = source[prev_start..start].trim_start();
        if prev.starts_with("///") || prev.starts_with("#[") {
            start = prev_start;
        } else {
            break;
        }
    }
    let bytes = source.as_bytes();
    let mut i = at;
    let mut depth = 0usize;
    let mut opened = false;
    while i < bytes.len() {
        if let Some(end) = crate::sections::comment_end(bytes, i) {
            i = end;
            continue;
        }
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}'), not a lifetime.
                let rest = &source[i + 1..];
                if let Some(end) = rest.find('\'') {
                    let inner = &rest[..end];
                    if inner.chars().count() == 1 || inner.starts_with('\\') {
                        i += end + 1;
                    }
                }
            }
            b'{' => {
                depth += 1;
                opened = true;
            }
            b'}' => {
                depth = depth.checked_sub(1)?;
                if opened && depth == 0 {
                    return Some((start, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `reset N` puts back step N's stub; `reset --all` the whole file. The
/// learner's file is backed up first, in .lab/backups.
pub fn reset(root: &Path, step: Option<&str>) -> u8 {
    if let Some(step) = step.filter(|s| suites::is_advanced(s)) {
        return reset_section(root, step);
    }
    let lib = root.join("student/src/lib.rs");
    let pristine = match std::fs::read_to_string(root.join("fixtures/pristine/lib.rs")) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let current = std::fs::read_to_string(&lib).unwrap_or_default();
    let new = match step {
        None => pristine,
        Some(step) => {
            let name = function_of(step);
            match (fn_span(&current, name), fn_span(&pristine, name)) {
                (Some((a, b)), Some((c, d))) => {
                    format!("{}{}{}", &current[..a], &pristine[c..d], &current[b..])
                }
                _ => {
                    eprintln!(
                        "lab: {}",
                        tr("error.reset_not_found", &[("function", &name)])
                    );
                    return status::USAGE;
                }
            }
        }
    };
    let what = step.map_or_else(
        || crate::suites::tr_steps("reset.all", &[]),
        |s| tr("reset.step", &[("step", &s), ("function", &function_of(s))]),
    );
    replace_file(root, &lib, Some(&current), &new, &what)
}

/// Writes `new` to `file`, backing up `current` (when there is one) in
/// .lab/backups first, and says so.
fn replace_file(root: &Path, file: &Path, current: Option<&str>, new: &str, what: &str) -> u8 {
    let name = file
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().into_owned());
    let stamp = state::stamp(state::now());
    let backup = (0..)
        .map(|n| match n {
            0 => state::dir(root).join(format!("backups/{name}.{stamp}")),
            n => state::dir(root).join(format!("backups/{name}.{stamp}-{n}")),
        })
        .find(|p| !p.exists())
        .unwrap_or_default();
    let saved = match current {
        Some(current) => std::fs::create_dir_all(state::dir(root).join("backups"))
            .and_then(|()| std::fs::write(&backup, current)),
        None => Ok(()),
    };
    if let Err(e) = saved.and_then(|()| std::fs::write(file, new)) {
        eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
        return status::KIT_ERROR;
    }
    let message = match current {
        Some(_) => tr(
            "reset.done",
            &[("what", &what), ("backup", &backup.display())],
        ),
        None => crate::suites::tr_steps("reset.created", &[("path", &"student/src/advanced.rs")]),
    };
    println!("{message}");
    status::PASSED
}

fn pristine_advanced(root: &Path) -> Result<String, u8> {
    std::fs::read_to_string(root.join("fixtures/pristine/advanced.rs")).map_err(|e| {
        eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
        status::KIT_ERROR
    })
}

/// `reset --advanced`: creates student/src/advanced.rs from the stubs, or,
/// with `force` (`--force`), puts the whole file back (after a backup); an
/// existing file that differs from the stubs is otherwise left alone.
pub fn reset_advanced(root: &Path, force: bool) -> u8 {
    let pristine = match pristine_advanced(root) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let file = root.join("student/src/advanced.rs");
    let current = std::fs::read_to_string(&file).ok();
    // A file with work in it is replaced only when asked for explicitly.
    if !force && current.as_deref().is_some_and(|c| c != pristine) {
        eprintln!(
            "lab: {}",
            crate::suites::tr_steps("error.reset_advanced_exists", &[])
        );
        return status::USAGE;
    }
    replace_file(
        root,
        &file,
        current.as_deref(),
        &pristine,
        &crate::suites::tr_steps("reset.advanced", &[]),
    )
}

/// `reset N` for an advanced step: puts back that step's section of the stubs.
fn reset_section(root: &Path, step: &str) -> u8 {
    let pristine = match pristine_advanced(root) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let file = root.join("student/src/advanced.rs");
    let Ok(current) = std::fs::read_to_string(&file) else {
        eprintln!("lab: {}", t("error.missing_advanced"));
        return status::USAGE;
    };
    let section = crate::sections::section(&pristine, step).unwrap_or_default();
    let Some(mine) = crate::sections::section(&current, step) else {
        eprintln!("lab: {}", tr("error.reset_no_section", &[("step", &step)]));
        return status::USAGE;
    };
    // The rest of the file: what comes before the section and after it.
    let elsewhere = current.replacen(&mine, "", 1);
    let kept = match crate::keep::plan(&mine, &section, &elsewhere) {
        crate::keep::Plan::Keep(kept) => kept,
        crate::keep::Plan::Refuse { used, replaced } => {
            eprintln!(
                "lab: {}",
                tr(
                    "error.reset_would_break",
                    &[("step", &step), ("used", &used), ("replaced", &replaced)],
                )
            );
            return status::USAGE;
        }
    };
    let mut part = section.trim_end().to_string();
    for item in &kept {
        part.push_str("\n\n");
        part.push_str(&item.text);
    }
    part.push('\n');
    let new = match crate::sections::splice(&current, &part) {
        Ok(new) => new,
        Err(_) => {
            eprintln!("lab: {}", tr("error.reset_no_section", &[("step", &step)]));
            return status::USAGE;
        }
    };
    let what = tr(
        "reset.step",
        &[("step", &step), ("function", &function_of(step))],
    );
    let code = replace_file(root, &file, Some(&current), &new, &what);
    if code == status::PASSED && !kept.is_empty() {
        let names: Vec<String> = kept
            .iter()
            .filter(|i| i.kind != crate::keep::Kind::Impl)
            .map(|i| format!("`{}`", i.names.join(", ")))
            .collect();
        println!(
            "{}",
            tr(
                "reset.kept",
                &[("step", &step), ("items", &names.join(", "))]
            )
        );
    }
    code
}

mod saves;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod text_tests;

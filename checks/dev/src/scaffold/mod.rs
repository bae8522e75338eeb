//! `lab.sh new-step NN NAME`, for maintainers: adds advanced step NN (the
//! one after the last registered step) checking the learner item NAME,
//! with every file docs/maintainers/steps.md lists. The new files come from
//! the templates in `templates/` (`{NN}` and `{NAME}` filled in): the
//! step's folder `checks/judge/src/suites/sNN/` (model, data, mutants,
//! alternatives; [`FOLDER`], [`MUTANTS`], [`ALTERNATIVES`]), and outside it
//! only its script types, its runner glue and its contract script
//! ([`new_files`]). Five shared files gain the step (`edits`): the two
//! registry lines (the `steps!` registry and the `scripts!` list, which
//! also lists the step for the runner's glue), the stub and the reference
//! sections, and the sample class's expected statuses. The step's weight is the
//! default (1, `fixtures/weights.json` left alone), and its snapshots show
//! its first mutant by name. The step's one clause, its model, its learner
//! stub and its reference answer are placeholders, and both of the last
//! two are `todo!()`, so the step fails until a maintainer writes it.
//! Nothing is written unless everything can be: a registered step, a file
//! in the way or a shared file of another shape is refused before the
//! first write.

mod edits;

use lab_judge::catalog::tr;
use lab_judge::status;
use lab_judge::suites::{REGISTRY, SUITES};
use std::path::Path;

/// The longest NAME taken: the templates' lines stay as rustfmt lays them
/// out.
const NAME_MAX: usize = 40;

/// Words that cannot name a function (strict, reserved and edition 2024's).
const KEYWORDS: &str = "as async await break const continue crate dyn else enum extern false fn \
    for gen if impl in let loop match mod move mut pub ref return self static struct super trait \
    true type unsafe use where while abstract become box do final macro override priv try typeof \
    unsized virtual yield union";

/// The placeholder mutants: (name, what breaks, body); each is caught by
/// the placeholder model.
const MUTANTS: [(&str, &str, &str); 5] = [
    ("plus-one", "adds one", "input + 1.0"),
    ("doubled", "doubles its input", "input * 2.0"),
    ("negated", "negates its input", "-input"),
    ("floored", "rounds down", "input.floor()"),
    ("zero", "always zero", "input * 0.0"),
];

/// The placeholder alternatives: (name, how, body).
const ALTERNATIVES: [(&str, &str, &str); 2] = [
    ("a", "the input as it is", "input"),
    ("b", "through its bits", "f64::from_bits(input.to_bits())"),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewStepArgs {
    /// Two digits: the step after the last registered one.
    pub step: String,
    /// The learner item the step checks: a lower-case Rust identifier.
    pub name: String,
}

impl NewStepArgs {
    /// The command's words, checked: exactly a step number and a name.
    pub fn read(words: &[String]) -> Result<NewStepArgs, String> {
        let [step, name] = words else {
            return Err(tr("error.new_step_args", &[]));
        };
        check_step(step)?;
        check_name(name)?;
        Ok(NewStepArgs {
            step: step.clone(),
            name: name.clone(),
        })
    }
}

/// The number a new step takes: the one after the last registered step.
pub fn next_step() -> String {
    let last = REGISTRY
        .last()
        .map_or(0, |e| e.id.parse::<u32>().unwrap_or(0));
    format!("{:02}", last + 1)
}

fn check_step(step: &str) -> Result<(), String> {
    let next = next_step();
    let args: [(&str, &dyn std::fmt::Display); 2] = [("step", &step), ("next", &next)];
    if step.len() != 2 || !step.bytes().all(|b| b.is_ascii_digit()) {
        Err(tr("error.new_step_number", &args))
    } else if REGISTRY.iter().any(|e| e.id == step) {
        Err(tr("error.new_step_taken", &args))
    } else if step != next {
        Err(tr("error.new_step_next", &args))
    } else {
        Ok(())
    }
}

fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let fits = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= NAME_MAX
        && !KEYWORDS.split_whitespace().any(|k| k == name);
    if fits {
        Ok(())
    } else {
        Err(tr(
            "error.new_step_name",
            &[("name", &name), ("max", &NAME_MAX)],
        ))
    }
}

/// Whether `root` is a handout (the learner's kit): no reference answers
/// or no checker tests, as lab.sh's selftest tells it.
fn is_handout(root: &Path) -> bool {
    !root.join("solutions").is_dir() || !root.join("checks/judge/tests").is_dir()
}

pub fn run(root: &Path, args: &NewStepArgs) -> u8 {
    if is_handout(root) {
        eprintln!("lab: {}", tr("error.new_step_handout", &[]));
        return status::USAGE;
    }
    let files = match plan(root, &args.step, &args.name) {
        Ok(files) => files,
        Err(why) => {
            eprintln!("lab: {why}");
            return status::USAGE;
        }
    };
    match write(root, &files) {
        Ok(()) => {
            let new = files.iter().filter(|f| f.new).count();
            println!(
                "{}",
                tr(
                    "run.new_step_written",
                    &[
                        ("step", &args.step),
                        ("name", &args.name),
                        ("new", &new),
                        ("edited", &(files.len() - new)),
                    ]
                )
            );
            status::PASSED
        }
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            status::KIT_ERROR
        }
    }
}

/// One file the command writes: its path in the kit, its whole text, and
/// whether it is new.
pub struct File {
    pub path: String,
    pub text: String,
    pub new: bool,
}

/// A template with the step and the name filled in.
fn fill(template: &str, step: &str, name: &str) -> String {
    template.replace("{NN}", step).replace("{NAME}", name)
}

/// The files of a new step's folder (`checks/judge/src/suites/sNN/`), each
/// with its template: the model, then the data (the mutants and
/// alternatives follow in [`new_files`]).
const FOLDER: [(&str, &str); 12] = [
    ("mod.rs", include_str!("templates/judge-mod.rs.in")),
    ("table.rs", include_str!("templates/judge-table.rs.in")),
    ("model.rs", include_str!("templates/judge-model.rs.in")),
    (
        "generate.rs",
        include_str!("templates/judge-generate.rs.in"),
    ),
    ("view.rs", include_str!("templates/judge-view.rs.in")),
    ("cases.json", include_str!("templates/cases.json.in")),
    ("words.en.json", include_str!("templates/words.en.json.in")),
    ("words.zh.json", include_str!("templates/words.zh.json.in")),
    ("text.en.md", include_str!("templates/text.en.md.in")),
    ("text.zh.md", include_str!("templates/text.zh.md.in")),
    ("hints.en.md", include_str!("templates/hints.en.md.in")),
    ("hints.zh.md", include_str!("templates/hints.zh.md.in")),
];

/// Every file step `step` named `name` adds, from the templates: its
/// folder, then the three files other crates and learners need of it (the
/// script types, the runner's glue, the contract script).
fn new_files(step: &str, name: &str) -> Vec<(String, String)> {
    let t = |template: &str| fill(template, step, name);
    let folder = format!("{SUITES}/s{step}");
    let mut files: Vec<(String, String)> = FOLDER
        .iter()
        .map(|(file, template)| (format!("{folder}/{file}"), t(template)))
        .collect();
    let part = |template: &str, what: &str, body: &str| {
        t(template).replace("{WHAT}", what).replace("{BODY}", body)
    };
    for (mutant, what, body) in MUTANTS {
        files.push((
            format!("{folder}/mutants/{}.rs", mutant_name(step, mutant)),
            part(include_str!("templates/mutant.rs.in"), what, body),
        ));
    }
    for (alternative, how, body) in ALTERNATIVES {
        files.push((
            format!("{folder}/alternatives/{step}-placeholder-{alternative}.rs"),
            part(include_str!("templates/alternative.rs.in"), how, body),
        ));
    }
    files.extend([
        (
            format!("checks/scripts/src/s{step}.rs"),
            t(include_str!("templates/script.rs.in")),
        ),
        (
            format!("checks/runner-advanced/src/glue/s{step}.rs"),
            t(include_str!("templates/glue.rs.in")),
        ),
        (
            format!("checks/{step}-contract.sh"),
            t(include_str!("templates/contract.sh.in")),
        ),
    ]);
    files
}

fn mutant_name(step: &str, what: &str) -> String {
    format!("{step}-placeholder-{what}")
}

/// Every file the command writes, new and edited, worked out before any
/// is written; the reason, in the catalog's words, when it cannot add the
/// step.
pub fn plan(root: &Path, step: &str, name: &str) -> Result<Vec<File>, String> {
    check_step(step)?;
    check_name(name)?;
    let last = REGISTRY.last().map_or("", |e| e.id);
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path))
            .map_err(|e| tr("error.kit", &[("what", &format!("{path}: {e}"))]))
    };
    let shape = |path: &str| tr("error.new_step_shape", &[("path", &path), ("step", &step)]);
    let mut files = Vec::new();
    for (path, text) in new_files(step, name) {
        if root.join(&path).exists() {
            return Err(tr("error.new_step_exists", &[("path", &path)]));
        }
        files.push(File {
            path,
            text,
            new: true,
        });
    }
    let section = fill(include_str!("templates/section.rs.in"), step, name);
    for path in ["fixtures/pristine/advanced.rs", "solutions/advanced.rs"] {
        let text = read(path)?;
        if text.contains(&format!("fn {name}(")) || text.contains(&format!("fn {name}<")) {
            return Err(tr(
                "error.new_step_name_taken",
                &[("name", &name), ("path", &path)],
            ));
        }
        let gap = if text.ends_with('\n') { "\n" } else { "\n\n" };
        files.push(edited(path, format!("{text}{gap}{section}")));
    }
    for (path, lines) in edits::rust_lines(last, step, name) {
        let mut text = read(path)?;
        for line in lines {
            text = line.apply(&text).ok_or_else(|| shape(path))?;
        }
        files.push(edited(path, text));
    }
    let path = "fixtures/submissions/expected.json";
    let text = edits::expected(&read(path)?, step).ok_or_else(|| shape(path))?;
    files.push(edited(path, text));
    Ok(files)
}

fn edited(path: &str, text: String) -> File {
    File {
        path: path.to_string(),
        text,
        new: false,
    }
}

/// Writes every file of the plan, each atomically; a contract script is
/// made executable like the others.
fn write(root: &Path, files: &[File]) -> Result<(), String> {
    for file in files {
        let path = root.join(&file.path);
        let fail = |e: std::io::Error| format!("{}: {e}", file.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        lab_judge::files::write_atomically(&path, &file.text).map_err(fail)?;
        if file.path.ends_with(".sh") {
            lab_judge::platform::fs::set_mode(&path, 0o755).map_err(fail)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;

//! PrairieLearn's external grading: `lab.sh prairielearn DIR` writes an
//! externally graded question, and `lab.sh prairielearn-grade` is what its
//! image's entrypoint runs for each submission.
//!
//! The question folder holds `info.json` (`externalGradingOptions`: the
//! image, the entrypoint `/opt/retry-lab/grade.sh`, a 600-second timeout,
//! no network) and `question.html` (a file upload of `lib.rs`, and
//! optionally `advanced.rs`, and the grader's results; no `server.py`, which
//! an externally graded file upload does not need). Beside them, `image/`
//! is the grading image's build context: its `Dockerfile`, the entrypoint
//! `grade.sh` and the learner's kit (as `lab.sh handout` writes it) in
//! `image/kit/`. The Dockerfile fetches every crate and grades the kit's own
//! stubs once, so a submission compiles only its own code, offline.
//!
//! `prairielearn-grade --root DIR` grades `DIR/student` (an uploaded
//! `lib.rs` and `advanced.rs`, or a repository's `student/src/` or `src/`
//! layout; see `autograder::staged`) and writes `DIR/results/results.json`,
//! always: when grading could not finish, a result that is not gradable
//! says so. The grade options baked into the entrypoint (`--credit`,
//! `--visibility`, `--detail`, `--prairielearn-ungradable`) are the ones
//! `prairielearn DIR` was given, checked when it writes them.

use crate::catalog::{t, tr};
use crate::grade::policy::{self, Policy};
use crate::report::prairielearn::failed_json;
use crate::status;
use std::io;
use std::path::{Path, PathBuf};

const ENTRYPOINT: &str = include_str!("grade.sh");
const DOCKERFILE: &str = include_str!("Dockerfile");
const QUESTION: &str = include_str!("question.html");

/// Where the image keeps the entrypoint.
pub const ENTRYPOINT_PATH: &str = "/opt/retry-lab/grade.sh";
/// The image's name in info.json unless `--image` names another.
pub const IMAGE: &str = "retry-lab-grader";
/// PrairieLearn's longest grading time, in seconds.
pub const TIMEOUT: u32 = 600;

/// `prairielearn DIR`'s arguments.
#[derive(Debug, Clone)]
pub struct QuestionArgs {
    pub dir: PathBuf,
    pub image: String,
    pub policy: Policy,
}

/// Single-quoted for bash (a `'` closes, is escaped, and reopens).
fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// The entrypoint script, with the run's language and options.
pub fn entrypoint(policy: &Policy) -> String {
    let lang = crate::catalog::code(crate::catalog::active());
    let no_kit = failed_json(&t("prairielearn.no_kit"));
    // Inside single quotes in the script; JSON allows `'` only inside
    // strings, where \u0027 means the same.
    let no_kit = no_kit.trim_end().replace('\'', "\\u0027").replace('\n', "");
    let options: String = policy
        .words()
        .iter()
        .map(|w| format!(" {}", quoted(w)))
        .collect();
    ENTRYPOINT
        .replace("{lang}", lang)
        .replace("{options}", &options)
        .replace("{no_kit}", &no_kit)
}

fn info_json(image: &str) -> String {
    let uuid = {
        let (a, b) = (random_u64(), random_u64());
        let hex = format!("{a:016x}{b:016x}");
        // A version-4 UUID: random but for its version and variant.
        format!(
            "{}-{}-4{}-{:x}{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[13..16],
            8 + (u8::from_str_radix(&hex[16..17], 16).unwrap_or(0) & 3),
            &hex[17..20],
            &hex[20..32]
        )
    };
    let info = serde_json::json!({
        "uuid": uuid,
        "title": t("prairielearn.title"),
        "topic": "Rust",
        "tags": ["rust", "retry-lab"],
        "type": "v3",
        "singleVariant": true,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": true,
            "image": image,
            "entrypoint": ENTRYPOINT_PATH,
            "timeout": TIMEOUT,
            "enableNetworking": false
        }
    });
    serde_json::to_string_pretty(&info).expect("info always serializes") + "\n"
}

/// 64 random bits from the standard library's per-process hash keys and
/// the clock (a question's uuid need only be unique, not secret).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    h.write_u128(now.as_nanos());
    h.finish()
}

fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes the question into `dir`; the number of files written.
fn write_question(root: &Path, args: &QuestionArgs) -> io::Result<usize> {
    let dir = &args.dir;
    let image_dir = dir.join("image");
    // The handout first, elsewhere: DIR may lie inside the kit, and the
    // handout must not copy the question into itself.
    let work = tempfile::tempdir()?;
    crate::handout::write(root, &work.path().join("kit"))?;
    let files: [(PathBuf, String); 4] = [
        (dir.join("info.json"), info_json(&args.image)),
        (
            dir.join("question.html"),
            QUESTION.replace("{intro}", &html_escaped(&t("prairielearn.intro"))),
        ),
        (
            image_dir.join("Dockerfile"),
            DOCKERFILE
                .replace("{toolchain}", crate::autograder::TOOLCHAIN)
                .replace("{image}", &args.image),
        ),
        (image_dir.join("grade.sh"), entrypoint(&args.policy)),
    ];
    for (path, text) in &files {
        crate::files::write_atomically(path, text)?;
    }
    crate::platform::fs::set_mode(&image_dir.join("grade.sh"), 0o755)?;
    crate::files::copy_tree(&work.path().join("kit"), &image_dir.join("kit"), &|_| false)?;
    let mut kit_files = 0;
    crate::files::walk(&image_dir.join("kit"), &|_| false, &mut |_, folder| {
        kit_files += usize::from(!folder);
        Ok(())
    })?;
    Ok(files.len() + kit_files)
}

/// `lab.sh prairielearn DIR`.
pub fn question(root: &Path, args: &QuestionArgs) -> u8 {
    if let Err(e) = policy::shown(root, &args.policy) {
        eprintln!("lab: {e}");
        return status::USAGE;
    }
    let image_ok = !args.image.is_empty()
        && args
            .image
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/:@".contains(c));
    if !image_ok {
        eprintln!(
            "lab: {}",
            tr(
                "error.bad_value",
                &[("value", &args.image), ("option", &"--image")]
            )
        );
        return status::USAGE;
    }
    let occupied = std::fs::read_dir(&args.dir).is_ok_and(|mut d| d.next().is_some());
    if occupied || args.dir.is_file() {
        eprintln!(
            "lab: {}",
            tr("error.handout_exists", &[("path", &args.dir.display())])
        );
        return status::USAGE;
    }
    match write_question(root, args) {
        Ok(files) => {
            println!(
                "{}",
                tr(
                    "run.prairielearn_written",
                    &[
                        ("path", &args.dir.display()),
                        ("files", &files),
                        ("toolchain", &crate::autograder::TOOLCHAIN),
                        ("image", &args.image),
                    ],
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

/// `lab.sh prairielearn-grade [--root DIR]`: grades DIR/student into
/// DIR/results/results.json (DIR defaults to /grade).
pub fn grade(root: &Path, grade_root: &Path, policy: &Policy) -> u8 {
    let results = grade_root.join("results/results.json");
    let (text, code) = match grade_one(root, &grade_root.join("student"), policy) {
        Ok(json) => (json, status::PASSED),
        Err(code) => (
            failed_json(&tr("prairielearn.failed", &[("code", &code)])),
            code,
        ),
    };
    match crate::files::write_atomically(&results, text) {
        Ok(()) => code,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            status::KIT_ERROR
        }
    }
}

/// Grades one submission; its PrairieLearn results, with the container's
/// note when confinement is not whole, or the grade's exit status.
fn grade_one(root: &Path, student: &Path, policy: &Policy) -> Result<String, u8> {
    let results = "prairielearn/results.json";
    crate::autograder::grade_staged(root, student, policy, results, "message")
}

#[cfg(test)]
mod tests;

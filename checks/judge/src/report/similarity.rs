//! `similarity.json`: the pairs of submissions whose code for one step is
//! near-identical, for instructors only (see `crate::similarity`, which
//! fills it). Machine JSON: names and code are kept exact; `summary.html`
//! shows the same pairs in its private section (`html/similarity.rs`).

use serde::{Deserialize, Serialize};

/// Schema of `similarity.json`.
pub const SIMILARITY_SCHEMA: &str = "retry-lab.similarity/1";

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimilarityFile {
    pub schema: String,
    /// Pairs are listed from this score up (0 to 1).
    pub threshold: f64,
    /// ... and only when at least this many tokens of each side are matched.
    pub min_tokens: u32,
    /// Tokens per k-gram and hashes per winnowing window.
    pub k: u32,
    pub window: u32,
    /// A fingerprint found in more submissions than this counts as common
    /// code (like the handout's) and is not compared.
    pub common_above: u32,
    /// How many submissions were compared.
    pub compared: u32,
    /// Whether the handout's own text (fixtures/pristine) was found and
    /// left out.
    pub handout_removed: bool,
    /// Files not read, each with why.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// Pairs not listed because a step had more than the file lists, by step.
    #[serde(default)]
    pub left_out: std::collections::BTreeMap<String, u32>,
    /// By step, then score (highest first), then names.
    pub pairs: Vec<Pair>,
}

/// A learner file the comparison left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub submission: String,
    /// As the kit names it: `student/src/lib.rs` or `student/src/advanced.rs`.
    pub file: String,
    /// `too-large`, `not-a-file` (a link, a folder, a FIFO…) or `unreadable`.
    pub reason: String,
}

/// Two submissions whose text for `step` is near-identical.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub step: String,
    /// The file the step lives in.
    pub file: String,
    /// The two submissions' names, `a` before `b` in name order.
    pub a: String,
    pub b: String,
    /// Matched tokens of both sides over all their tokens (0 to 1, three
    /// decimals).
    pub score: f64,
    /// The share of each side's tokens that is matched.
    pub a_share: f64,
    pub b_share: f64,
    /// Matched tokens of the smaller side.
    pub matched_tokens: u32,
    pub matches: Vec<Match>,
}

/// One stretch of matched text: line ranges (first and last, 1-based) in
/// each submission's file, and those lines (cut to at most
/// [`SNIPPET_LINES`] lines of [`SNIPPET_CHARS`] characters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Match {
    pub a_lines: [u32; 2],
    pub b_lines: [u32; 2],
    pub a_text: String,
    pub b_text: String,
}

/// Most lines of one side of a match that are shown.
pub const SNIPPET_LINES: usize = 40;
/// Most characters of one shown line.
pub const SNIPPET_CHARS: usize = 160;

/// `similarity.json`: pretty-printed, with a trailing newline.
pub fn similarity_json(file: &SimilarityFile) -> String {
    let mut text = serde_json::to_string_pretty(file).unwrap_or_default();
    text.push('\n');
    text
}

/// A `similarity.json` read back (by `grade --merge`).
pub fn read_similarity(text: &str) -> Result<SimilarityFile, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

//! `grade`'s similarity stage, for instructors only: pairs of submissions
//! whose text for one step is near-identical once identifiers, literals,
//! comments and layout are normalised ([`tokens`]) and the handout's own
//! text (fixtures/pristine) is taken out. A step's text is what the step
//! registry says it checks, with the helpers it calls ([`items`]); texts
//! are compared by winnowed k-gram fingerprints ([`fingerprint`]) through
//! an inverted index, so a class costs about its total size, not its
//! number of pairs. The result is a `report::similarity::SimilarityFile`.
//!
//! Submissions are untrusted: a file is read only when it is a regular file
//! (a link is not followed) of at most [`MAX_FILE`] bytes, else it is named
//! in `skipped`; any bytes tokenize; a step's text is cut at
//! [`MAX_STEP_TOKENS`] tokens. Nothing is sent anywhere.

mod fingerprint;
mod items;
#[cfg(test)]
mod tests;
pub mod tokens;

use crate::report::similarity::{
    Match, Pair, SimilarityFile, Skipped, SIMILARITY_SCHEMA, SNIPPET_CHARS, SNIPPET_LINES,
};
use crate::suites::{Track, REGISTRY};
use fingerprint::{blocks, kgrams, Print, K, W};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::Path;

/// Largest learner file read, in bytes (the kit's own are under 20 KiB).
pub const MAX_FILE: u64 = 1 << 20;
/// Most tokens of one step's text that are compared.
pub const MAX_STEP_TOKENS: usize = 5000;
/// Most pairs listed per step (the highest scores); the rest are counted.
pub const MAX_PAIRS: usize = 200;
/// Most matched stretches shown per pair.
const MAX_MATCHES: usize = 12;
/// A fingerprint shared by more submissions than
/// `max(COMMON_MIN, class / COMMON_PART)` is common code.
const COMMON_MIN: usize = 20;
const COMMON_PART: usize = 10;

/// The hasher of the stage's sets and maps: their keys are hashes already
/// (or two indices), so one multiply mixes them; the standard library's
/// SipHash costs more than the rest of the stage in the judge's build.
#[derive(Default, Clone, Copy)]
pub struct Mix(u64);

impl std::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(26);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// A set of hashes.
pub type Set = HashSet<u64, std::hash::BuildHasherDefault<Mix>>;
/// A map keyed by a hash or an index.
pub type Map<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Mix>>;

/// What the instructor chose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Least score (0 to 1) of a listed pair.
    pub threshold: f64,
    /// Least matched tokens of each side of a listed pair.
    pub min_tokens: usize,
}

/// The default threshold, as a percentage (`--similarity-threshold`).
pub const DEFAULT_PERCENT: f64 = 80.0;
/// The default least matched size, in tokens.
pub const DEFAULT_MIN_TOKENS: usize = 40;

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: DEFAULT_PERCENT / 100.0,
            min_tokens: DEFAULT_MIN_TOKENS,
        }
    }
}

/// One submission to compare: its name and its two learner files, if any.
pub struct Source<'a> {
    pub name: &'a str,
    pub lib: Option<&'a Path>,
    pub advanced: Option<&'a Path>,
}

/// A learner file's bytes: a regular file (not followed through a link)
/// of at most [`MAX_FILE`] bytes; else why not, as `Skipped::reason`.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, &'static str> {
    let meta = std::fs::symlink_metadata(path).map_err(|_| "unreadable")?;
    if !meta.file_type().is_file() {
        return Err("not-a-file");
    }
    if meta.len() > MAX_FILE {
        return Err("too-large");
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE + 1).read_to_end(&mut bytes))
        .map_err(|_| "unreadable")?;
    if bytes.len() as u64 > MAX_FILE {
        return Err("too-large");
    }
    Ok(bytes)
}

/// A step's names (hashed) and file, from the registry.
struct StepNames {
    id: &'static str,
    track: Track,
    names: Vec<u64>,
}

fn registry_steps() -> Vec<StepNames> {
    REGISTRY
        .iter()
        .map(|e| StepNames {
            id: e.id,
            track: e.track,
            names: e
                .items
                .split(',')
                .map(|n| crate::hash::fnv1a(n.trim().as_bytes()))
                .collect(),
        })
        .collect()
}

/// Every step's print of one file of one submission (steps of other
/// tracks get none).
fn prints_of(bytes: &[u8], track: Track, steps: &[StepNames], handout: &Set) -> Vec<Option<Print>> {
    let toks = tokens::tokenize(bytes);
    let found = items::Items::of(&toks);
    let others: Set = steps.iter().flat_map(|s| s.names.iter().copied()).collect();
    steps
        .iter()
        .map(|s| {
            if s.track != track {
                return None;
            }
            let mut text = Vec::new();
            for r in found.step_text(&toks, &s.names, &others) {
                let room = MAX_STEP_TOKENS - text.len();
                text.extend_from_slice(&toks[r.start..r.end.min(r.start + room)]);
                if text.len() >= MAX_STEP_TOKENS {
                    break;
                }
            }
            Some(Print::of(&text, handout))
        })
        .collect()
}

/// The class compared: reads each submission's files (and the handout's
/// under `root`), then [`compare_prints`].
pub fn compare(root: &Path, subs: &[Source], opts: &Options) -> SimilarityFile {
    let steps = registry_steps();
    let mut handout = Set::default();
    let mut handout_removed = true;
    for file in ["fixtures/pristine/lib.rs", "fixtures/pristine/advanced.rs"] {
        match read_bounded(&root.join(file)) {
            Ok(bytes) => handout.extend(kgrams(&tokens::tokenize(&bytes))),
            Err(_) => handout_removed = false,
        }
    }
    let mut skipped = Vec::new();
    let mut prints: Vec<Vec<Option<Print>>> = Vec::with_capacity(subs.len());
    for sub in subs {
        let mut mine: Vec<Option<Print>> = steps.iter().map(|_| None).collect();
        for (track, path) in [(Track::Core, sub.lib), (Track::Advanced, sub.advanced)] {
            let Some(path) = path else { continue };
            match read_bounded(path) {
                Ok(bytes) => {
                    for (slot, p) in mine
                        .iter_mut()
                        .zip(prints_of(&bytes, track, &steps, &handout))
                    {
                        if p.is_some() {
                            *slot = p;
                        }
                    }
                }
                Err(reason) => skipped.push(Skipped {
                    submission: sub.name.to_string(),
                    file: track.file().to_string(),
                    reason: reason.to_string(),
                }),
            }
        }
        prints.push(mine);
    }
    let names: Vec<&str> = subs.iter().map(|s| s.name).collect();
    let mut file = compare_prints(&names, &prints, &steps, opts, |sub, track| {
        let path = match track {
            Track::Core => subs[sub].lib,
            Track::Advanced => subs[sub].advanced,
        };
        path.and_then(|p| read_bounded(p).ok()).unwrap_or_default()
    });
    file.skipped = skipped;
    file.handout_removed = handout_removed;
    file
}

/// The class from files already read (`files[submission]`: lib.rs, then
/// advanced.rs), with the handout's files given as bytes: what [`compare`]
/// does after reading, for tests and measurements.
pub fn compare_bytes(
    names: &[&str],
    files: &[[Option<Vec<u8>>; 2]],
    handout: &[&[u8]],
    opts: &Options,
) -> SimilarityFile {
    let steps = registry_steps();
    let handout: Set = handout
        .iter()
        .flat_map(|b| kgrams(&tokens::tokenize(b)))
        .collect();
    let prints: Vec<Vec<Option<Print>>> = files
        .iter()
        .map(|[lib, adv]| {
            let mut mine: Vec<Option<Print>> = steps.iter().map(|_| None).collect();
            for (track, bytes) in [(Track::Core, lib), (Track::Advanced, adv)] {
                let Some(bytes) = bytes else { continue };
                for (slot, p) in mine
                    .iter_mut()
                    .zip(prints_of(bytes, track, &steps, &handout))
                {
                    if p.is_some() {
                        *slot = p;
                    }
                }
            }
            mine
        })
        .collect();
    let mut file = compare_prints(names, &prints, &steps, opts, |sub, track| {
        let i = usize::from(track == Track::Advanced);
        files[sub][i].clone().unwrap_or_default()
    });
    file.handout_removed = !handout.is_empty();
    file
}

/// Lines `lines[0]..=lines[1]` of a file, cut as `report::similarity` says
/// (only those lines are decoded; bytes that are not UTF-8 show as U+FFFD).
fn snippet(bytes: &[u8], lines: [u32; 2]) -> String {
    let first = lines[0].max(1) as usize;
    let count = (lines[1] as usize + 1).saturating_sub(first);
    let mut out = String::new();
    for l in bytes
        .split(|b| *b == b'\n')
        .skip(first - 1)
        .take(count.min(SNIPPET_LINES))
    {
        let l = String::from_utf8_lossy(l);
        let l = l.trim_end_matches('\r');
        let cut: String = l.chars().take(SNIPPET_CHARS).collect();
        out.push_str(&cut);
        if l.chars().nth(SNIPPET_CHARS).is_some() {
            out.push('…');
        }
        out.push('\n');
    }
    if count > SNIPPET_LINES {
        out.push_str("…\n");
    }
    out
}

/// A pair above the bar, before it is written out.
struct Found {
    a: usize,
    b: usize,
    score: f64,
    covered: [usize; 2],
    own: [usize; 2],
    shared: Set,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The pairs of a class of prints (`prints[submission][step]`), through an
/// inverted index per step; `bytes(submission, track)` gives a learner
/// file again, for the lines shown of its matches.
fn compare_prints(
    names: &[&str],
    prints: &[Vec<Option<Print>>],
    steps: &[StepNames],
    opts: &Options,
    bytes: impl Fn(usize, Track) -> Vec<u8>,
) -> SimilarityFile {
    let common_above = COMMON_MIN.max(names.len() / COMMON_PART);
    let mut pairs = Vec::new();
    let mut left_out = BTreeMap::new();
    for (s, step) in steps.iter().enumerate() {
        let mut index: Map<u64, Vec<u32>> = Map::default();
        for (i, p) in prints.iter().enumerate() {
            for h in p[s].iter().flat_map(|p| p.distinct.iter()) {
                index.entry(*h).or_default().push(i as u32);
            }
        }
        let common: Set = index
            .iter()
            .filter(|(_, subs)| subs.len() > common_above)
            .map(|(h, _)| *h)
            .collect();
        let mut shared_count: Map<u64, u32> = Map::default();
        for subs in index
            .values()
            .filter(|v| v.len() > 1 && v.len() <= common_above)
        {
            for (x, a) in subs.iter().enumerate() {
                for b in &subs[x + 1..] {
                    *shared_count
                        .entry(u64::from(*a) << 32 | u64::from(*b))
                        .or_default() += 1;
                }
            }
        }
        // Each submission's fingerprints less the common ones, and how
        // many of its tokens they cover.
        let own: Vec<Option<(Set, usize)>> = prints
            .iter()
            .map(|p| {
                p[s].as_ref().map(|p| {
                    let mine: Set = p.distinct.difference(&common).copied().collect();
                    let covered = p.covered(&mine);
                    (mine, covered)
                })
            })
            .collect();
        let mut found: Vec<Found> = Vec::new();
        for (key, count) in shared_count {
            let (x, y) = ((key >> 32) as u32, key as u32);
            // `a` before `b` in name order.
            let (a, b) = if names[x as usize] <= names[y as usize] {
                (x as usize, y as usize)
            } else {
                (y as usize, x as usize)
            };
            let (Some(pa), Some(pb), Some((own_a, ta)), Some((_, tb))) =
                (&prints[a][s], &prints[b][s], &own[a], &own[b])
            else {
                continue;
            };
            let (ta, tb) = (*ta, *tb);
            if ta == 0 || tb == 0 {
                continue;
            }
            // `count` shared fingerprints cover at most `count * K` tokens
            // of each side: a pair that cannot reach the bar is left.
            let most = count as usize * K;
            let best = (most.min(ta) + most.min(tb)) as f64 / (ta + tb) as f64;
            if best < opts.threshold || most < opts.min_tokens {
                continue;
            }
            let shared: Set = own_a.intersection(&pb.distinct).copied().collect();
            let (ca, cb) = (pa.covered(&shared), pb.covered(&shared));
            let score = (ca + cb) as f64 / (ta + tb) as f64;
            if score < opts.threshold || ca.min(cb) < opts.min_tokens {
                continue;
            }
            found.push(Found {
                a,
                b,
                score,
                covered: [ca, cb],
                own: [ta, tb],
                shared,
            });
        }
        found.sort_by(|x, y| {
            y.score
                .total_cmp(&x.score)
                .then_with(|| names[x.a].cmp(names[y.a]))
                .then_with(|| names[x.b].cmp(names[y.b]))
        });
        if found.len() > MAX_PAIRS {
            left_out.insert(step.id.to_string(), (found.len() - MAX_PAIRS) as u32);
            found.truncate(MAX_PAIRS);
        }
        for f in found {
            let Found {
                a,
                b,
                score,
                covered: [ca, cb],
                own: [ta, tb],
                shared,
            } = f;
            let (Some(pa), Some(pb)) = (&prints[a][s], &prints[b][s]) else {
                continue;
            };
            let lines = |p: &Print, r: &std::ops::Range<usize>| -> [u32; 2] {
                let ls = &p.lines[r.start.min(p.lines.len())..r.end.min(p.lines.len())];
                [
                    ls.iter().copied().min().unwrap_or(0),
                    ls.iter().copied().max().unwrap_or(0),
                ]
            };
            let (bytes_a, bytes_b) = (bytes(a, step.track), bytes(b, step.track));
            let matches = blocks(pa, pb, &shared)
                .iter()
                .take(MAX_MATCHES)
                .map(|blk| {
                    let (la, lb) = (lines(pa, &blk.a), lines(pb, &blk.b));
                    Match {
                        a_lines: la,
                        b_lines: lb,
                        a_text: snippet(&bytes_a, la),
                        b_text: snippet(&bytes_b, lb),
                    }
                })
                .collect();
            pairs.push(Pair {
                step: step.id.to_string(),
                file: step.track.file().to_string(),
                a: names[a].to_string(),
                b: names[b].to_string(),
                score: round3(score),
                a_share: round3(ca as f64 / ta as f64),
                b_share: round3(cb as f64 / tb as f64),
                matched_tokens: ca.min(cb) as u32,
                matches,
            });
        }
    }
    SimilarityFile {
        schema: SIMILARITY_SCHEMA.into(),
        threshold: opts.threshold,
        min_tokens: opts.min_tokens as u32,
        k: K as u32,
        window: W as u32,
        common_above: common_above as u32,
        compared: names.len() as u32,
        handout_removed: false,
        skipped: Vec::new(),
        left_out,
        pairs,
    }
}

//! Fingerprints as MOSS takes them (Schleimer, Wilkerson and Aiken,
//! "Winnowing", SIGMOD 2003): the hash of every run of [`K`] normalised
//! tokens, then, in every window of [`W`] consecutive hashes, the smallest
//! (the rightmost when tied), each kept once. Two texts sharing a run of at
//! least `K + W - 1` tokens are sure to share a fingerprint; a shared run
//! shorter than `K` is never seen.

use super::tokens::Token;
use super::{Map, Set};

/// Tokens per k-gram.
pub const K: usize = 10;
/// Hashes per winnowing window.
pub const W: usize = 5;

/// The multiplier of the rolling hash (odd, so no bit is lost).
const P: u64 = 0x0100_0000_01b3;

/// The hash of every run of `K` tokens of `tokens` (none when shorter): a
/// polynomial rolling hash of their normalised kinds, modulo 2^64.
pub fn kgrams(tokens: &[Token]) -> Vec<u64> {
    if tokens.len() < K {
        return Vec::new();
    }
    let top = (1..K).fold(1u64, |p, _| p.wrapping_mul(P));
    let mut out = Vec::with_capacity(tokens.len() + 1 - K);
    let mut h = 0u64;
    for (i, t) in tokens.iter().enumerate() {
        if i >= K {
            h = h.wrapping_sub(tokens[i - K].norm.wrapping_mul(top));
        }
        h = h.wrapping_mul(P).wrapping_add(t.norm);
        if i + 1 >= K {
            out.push(h);
        }
    }
    out
}

/// The winnowed fingerprints of `hashes`: (hash, position of its k-gram),
/// in order of position.
pub fn winnow(hashes: &[u64]) -> Vec<(u64, u32)> {
    let mut out: Vec<(u64, u32)> = Vec::new();
    if hashes.is_empty() {
        return out;
    }
    let w = W.min(hashes.len());
    let mut last: Option<usize> = None;
    for start in 0..=hashes.len() - w {
        let mut at = start;
        for j in start..start + w {
            if hashes[j] <= hashes[at] {
                at = j;
            }
        }
        if last != Some(at) {
            out.push((hashes[at], at as u32));
            last = Some(at);
        }
    }
    out
}

/// One step's text in one submission, as compared: the line of each of
/// its tokens and its fingerprints less the handout's.
#[derive(Debug, Default)]
pub struct Print {
    pub lines: Vec<u32>,
    pub prints: Vec<(u64, u32)>,
    pub distinct: Set,
}

impl Print {
    /// The fingerprints of `tokens` whose hash is not in `handout`.
    pub fn of(tokens: &[Token], handout: &Set) -> Print {
        let prints: Vec<(u64, u32)> = winnow(&kgrams(tokens))
            .into_iter()
            .filter(|(h, _)| !handout.contains(h))
            .collect();
        let distinct = prints.iter().map(|(h, _)| *h).collect();
        Print {
            lines: tokens.iter().map(|t| t.line).collect(),
            prints,
            distinct,
        }
    }

    /// How many of this text's tokens lie in a k-gram whose fingerprint
    /// is in `shared`.
    pub fn covered(&self, shared: &Set) -> usize {
        let mut marked = vec![false; self.lines.len()];
        for (h, at) in &self.prints {
            if shared.contains(h) {
                let at = *at as usize;
                for m in marked.iter_mut().skip(at).take(K) {
                    *m = true;
                }
            }
        }
        marked.iter().filter(|m| **m).count()
    }
}

/// A stretch of text matched between two prints: token ranges in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub a: std::ops::Range<usize>,
    pub b: std::ops::Range<usize>,
}

/// The matched stretches of `a` and `b`: `a`'s shared fingerprints in
/// order, each paired with the first place of `b` at or after the last
/// one that has the same hash (else its first place); a jump on either
/// side of more than `K + W` tokens starts a new stretch.
pub fn blocks(a: &Print, b: &Print, shared: &Set) -> Vec<Block> {
    let mut places: Map<u64, Vec<usize>> = Map::default();
    for (h, at) in &b.prints {
        if shared.contains(h) {
            places.entry(*h).or_default().push(*at as usize);
        }
    }
    let mut out: Vec<Block> = Vec::new();
    let mut last_b = 0usize;
    for (h, at) in &a.prints {
        let Some(ps) = places.get(h) else { continue };
        let at = *at as usize;
        let pb = ps.iter().copied().find(|p| *p >= last_b).unwrap_or(ps[0]);
        last_b = pb;
        let joined = out.last_mut().is_some_and(|blk| {
            let near = |end: usize, p: usize| p >= end.saturating_sub(K) && p <= end + W;
            if near(blk.a.end, at) && near(blk.b.end, pb) {
                blk.a.end = blk.a.end.max(at + K);
                blk.b.end = blk.b.end.max(pb + K);
                true
            } else {
                false
            }
        });
        if !joined {
            out.push(Block {
                a: at..at + K,
                b: pb..pb + K,
            });
        }
    }
    out
}

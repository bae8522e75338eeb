//! A step's text in one submission: the tokens of the items the step
//! checks (its functions; for a type, its definition and every `impl` that
//! names it), then the helpers they name (a call or a function passed as a
//! value, such as `.and_then(parse)`), found by name in the same file
//! (breadth first, in the order of their first call, so that moving
//! helpers about in the file changes nothing).
//!
//! A bounded scan over the tokens of [`super::tokens`]: braces are matched
//! once with a stack; an item whose brace never closes runs to the end of
//! the file; a header is read for at most [`HEADER`] tokens; at most
//! [`MAX_ITEMS`] items are kept per file and [`MAX_HELPERS`] helpers per
//! step. Nothing here can fail.

use super::tokens::Token;
use super::{Map, Set};
use crate::hash::fnv1a;
use std::ops::Range;

/// Most tokens read from an item's keyword to its opening brace.
const HEADER: usize = 256;
/// Most items kept from one file.
const MAX_ITEMS: usize = 4096;
/// Most helpers added to one step's text.
const MAX_HELPERS: usize = 32;

/// One item of a file: the names it stands for (a function's or type's
/// name; the type names in an `impl` header) and its tokens.
#[derive(Debug, Clone)]
struct Item {
    names: Vec<u64>,
    function: bool,
    range: Range<usize>,
}

/// The items of one file, found once.
pub struct Items {
    items: Vec<Item>,
    by_name: Map<u64, Vec<usize>>,
}

fn kw(word: &str) -> u64 {
    fnv1a(word.as_bytes())
}

/// For each `{`, the index of its `}` (`usize::MAX` when it never closes
/// and for every other token).
fn closing(tokens: &[Token]) -> Vec<usize> {
    let mut open = Vec::new();
    let mut out = vec![usize::MAX; tokens.len()];
    for (i, t) in tokens.iter().enumerate() {
        if t.is_punct(b'{') {
            open.push(i);
        } else if t.is_punct(b'}') {
            if let Some(o) = open.pop() {
                out[o] = i;
            }
        }
    }
    out
}

impl Items {
    pub fn of(tokens: &[Token]) -> Items {
        let close = closing(tokens);
        let declares = ["fn", "struct", "enum", "trait", "type", "union"].map(kw);
        let (fn_kw, impl_kw) = (kw("fn"), kw("impl"));
        let mut items = Vec::new();
        for (i, t) in tokens.iter().enumerate() {
            if items.len() >= MAX_ITEMS {
                break;
            }
            let is_impl = t.norm == impl_kw && t.ident != 0;
            let declared = declares.contains(&t.norm) && t.ident != 0;
            if !is_impl && !declared {
                continue;
            }
            // The header: up to the first `{` or `;` outside () and [].
            let mut depth = 0i32;
            let mut end = None;
            let mut names = Vec::new();
            for (j, h) in tokens.iter().enumerate().skip(i + 1).take(HEADER) {
                if h.is_punct(b'(') || h.is_punct(b'[') {
                    depth += 1;
                } else if h.is_punct(b')') || h.is_punct(b']') {
                    depth -= 1;
                } else if depth <= 0 && h.is_punct(b';') {
                    end = Some(j + 1);
                    break;
                } else if depth <= 0 && h.is_punct(b'{') {
                    end = Some(if close[j] == usize::MAX {
                        tokens.len()
                    } else {
                        close[j] + 1
                    });
                    break;
                } else if is_impl && h.ident != 0 {
                    names.push(h.ident);
                }
            }
            if declared {
                match tokens.get(i + 1) {
                    Some(name) if name.ident != 0 => names = vec![name.ident],
                    _ => continue,
                }
            }
            let Some(end) = end else { continue };
            items.push(Item {
                names,
                function: t.norm == fn_kw,
                range: i..end,
            });
        }
        let mut by_name: Map<u64, Vec<usize>> = Map::default();
        for (k, item) in items.iter().enumerate() {
            for n in &item.names {
                by_name.entry(*n).or_default().push(k);
            }
        }
        Items { items, by_name }
    }

    /// The token ranges of a step's text: every item standing for one of
    /// `names`, then the functions they call that are no step's item
    /// (`others`), breadth first. Ranges nested in one already taken
    /// (a method inside its `impl`) are not taken twice.
    pub fn step_text(&self, tokens: &[Token], names: &[u64], others: &Set) -> Vec<Range<usize>> {
        let mut taken: Vec<Range<usize>> = Vec::new();
        let take = |r: &Range<usize>, taken: &mut Vec<Range<usize>>| {
            if taken.iter().any(|t| t.start <= r.start && r.end <= t.end) {
                return false;
            }
            taken.retain(|t| !(r.start <= t.start && t.end <= r.end));
            taken.push(r.clone());
            true
        };
        for name in names {
            for k in self.by_name.get(name).into_iter().flatten() {
                take(&self.items[*k].range, &mut taken);
            }
        }
        let mut seen: Set = names.iter().copied().collect();
        let mut queue: Vec<Range<usize>> = taken.clone();
        let mut helpers = 0;
        let mut at = 0;
        while at < queue.len() && helpers < MAX_HELPERS {
            let r = queue[at].clone();
            at += 1;
            for name in &tokens[r] {
                if name.ident == 0 || others.contains(&name.ident) {
                    continue;
                }
                if !seen.insert(name.ident) {
                    continue;
                }
                let found = self
                    .by_name
                    .get(&name.ident)
                    .into_iter()
                    .flatten()
                    .find(|k| self.items[**k].function);
                if let Some(k) = found {
                    let range = self.items[*k].range.clone();
                    if take(&range, &mut taken) {
                        queue.push(range);
                        helpers += 1;
                        if helpers >= MAX_HELPERS {
                            break;
                        }
                    }
                }
            }
        }
        taken
    }
}

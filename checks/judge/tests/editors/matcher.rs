//! What VS Code does with a problem matcher, for the subset of regular
//! expressions `.vscode/tasks.json` uses: `^`, `$`, literals, `\` escapes,
//! `.`, `\d`, `\s`, `\w`, capturing groups, `|`, and the greedy `+`, `*`,
//! `?`, matched by backtracking (the kit has no regex crate); and JSONC's
//! comments stripped.

// Each test file uses what it needs of this.
#![allow(dead_code)]

use serde_json::Value;

#[derive(Debug)]
enum Node {
    Char(char),
    Any,
    Digit,
    Space,
    Word,
    Start,
    End,
    Group(usize, Vec<Seq>),
}

#[derive(Debug, Clone, Copy)]
enum Quant {
    One,
    Opt,
    Star,
    Plus,
}

type Seq = Vec<(Node, Quant)>;
type Caps = Vec<Option<(usize, usize)>>;

#[derive(Debug)]
pub struct Regex {
    alts: Vec<Seq>,
    groups: usize,
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    groups: usize,
}

impl Parser<'_> {
    fn alts(&mut self) -> Vec<Seq> {
        let mut alts = vec![Vec::new()];
        while let Some(&c) = self.chars.peek() {
            if c == ')' {
                break;
            }
            self.chars.next();
            let node = match c {
                '|' => {
                    alts.push(Vec::new());
                    continue;
                }
                '^' => Node::Start,
                '$' => Node::End,
                '.' => Node::Any,
                '(' => {
                    self.groups += 1;
                    let index = self.groups;
                    let inner = self.alts();
                    assert_eq!(self.chars.next(), Some(')'), "unclosed group");
                    Node::Group(index, inner)
                }
                '\\' => match self.chars.next().expect("a trailing backslash") {
                    'd' => Node::Digit,
                    's' => Node::Space,
                    'w' => Node::Word,
                    other => Node::Char(other),
                },
                '[' | '{' | '*' | '+' | '?' => panic!("outside the subset: {c}"),
                other => Node::Char(other),
            };
            let quant = match self.chars.peek() {
                Some('+') => Quant::Plus,
                Some('*') => Quant::Star,
                Some('?') => Quant::Opt,
                _ => Quant::One,
            };
            if !matches!(quant, Quant::One) {
                self.chars.next();
            }
            alts.last_mut().unwrap().push((node, quant));
        }
        alts
    }
}

type Then<'k> = &'k mut dyn FnMut(usize, &mut Caps) -> bool;

impl Regex {
    pub fn new(pattern: &str) -> Regex {
        let mut p = Parser {
            chars: pattern.chars().peekable(),
            groups: 0,
        };
        let alts = p.alts();
        assert!(p.chars.next().is_none(), "unbalanced ) in {pattern}");
        Regex {
            alts,
            groups: p.groups,
        }
    }

    /// The groups' texts (from group 1) of the first match in `line`.
    pub fn captures(&self, line: &str) -> Option<Vec<String>> {
        let text: Vec<char> = line.chars().collect();
        for start in 0..=text.len() {
            let mut caps: Caps = vec![None; self.groups + 1];
            let mut found = false;
            for alt in &self.alts {
                if seq(alt, &text, start, &mut caps, &mut |_, _| true) {
                    found = true;
                    break;
                }
            }
            if found {
                return Some(
                    caps[1..]
                        .iter()
                        .map(|c| c.map_or(String::new(), |(a, b)| text[a..b].iter().collect()))
                        .collect(),
                );
            }
        }
        None
    }
}

fn node(n: &Node, text: &[char], pos: usize, caps: &mut Caps, k: Then) -> bool {
    let one = |ok: fn(char) -> bool| text.get(pos).is_some_and(|c| ok(*c));
    match n {
        Node::Start => pos == 0 && k(pos, caps),
        Node::End => pos == text.len() && k(pos, caps),
        Node::Char(c) => text.get(pos) == Some(c) && k(pos + 1, caps),
        Node::Any => one(|_| true) && k(pos + 1, caps),
        Node::Digit => one(|c| c.is_ascii_digit()) && k(pos + 1, caps),
        Node::Space => one(char::is_whitespace) && k(pos + 1, caps),
        Node::Word => one(|c| c.is_alphanumeric() || c == '_') && k(pos + 1, caps),
        Node::Group(i, alts) => alts.iter().any(|alt| {
            seq(alt, text, pos, caps, &mut |end, caps| {
                let old = caps[*i];
                caps[*i] = Some((pos, end));
                k(end, caps) || {
                    caps[*i] = old;
                    false
                }
            })
        }),
    }
}

fn star(
    n: &Node,
    rest: &[(Node, Quant)],
    text: &[char],
    pos: usize,
    caps: &mut Caps,
    k: Then,
) -> bool {
    node(n, text, pos, caps, &mut |p, caps| {
        p != pos && star(n, rest, text, p, caps, k)
    }) || seq(rest, text, pos, caps, k)
}

fn seq(s: &[(Node, Quant)], text: &[char], pos: usize, caps: &mut Caps, k: Then) -> bool {
    let Some(((n, q), rest)) = s.split_first() else {
        return k(pos, caps);
    };
    match q {
        Quant::One => node(n, text, pos, caps, &mut |p, caps| {
            seq(rest, text, p, caps, k)
        }),
        Quant::Opt => {
            node(n, text, pos, caps, &mut |p, caps| {
                seq(rest, text, p, caps, k)
            }) || seq(rest, text, pos, caps, k)
        }
        Quant::Star => star(n, rest, text, pos, caps, k),
        Quant::Plus => node(n, text, pos, caps, &mut |p, caps| {
            star(n, rest, text, p, caps, k)
        }),
    }
}

/// One problem as VS Code reads it from the output.
#[derive(Debug, Default)]
pub struct Problem {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Every problem a (multi-line) pattern list finds in `output`: its
/// patterns matching consecutive lines, each field taken from the group
/// the pattern that names it gives.
pub fn problems(patterns: &[Value], output: &str) -> Vec<Problem> {
    let lines: Vec<&str> = output.lines().collect();
    let compiled: Vec<Regex> = patterns
        .iter()
        .map(|p| Regex::new(p["regexp"].as_str().unwrap()))
        .collect();
    let mut found = Vec::new();
    for start in 0..lines.len() {
        let mut problem = Problem::default();
        let all = compiled
            .iter()
            .zip(patterns)
            .enumerate()
            .all(|(k, (re, p))| {
                let Some(caps) = lines.get(start + k).and_then(|l| re.captures(l)) else {
                    return false;
                };
                let group = |field: &str| p[field].as_u64().map(|g| caps[g as usize - 1].clone());
                if let Some(v) = group("file") {
                    problem.file = v;
                }
                if let Some(v) = group("line") {
                    problem.line = v.parse().unwrap();
                }
                if let Some(v) = group("column") {
                    problem.column = v.parse().unwrap();
                }
                if let Some(v) = group("message") {
                    problem.message = v;
                }
                true
            });
        if all {
            found.push(problem);
        }
    }
    found
}

/// JSON with comments (`//` to the line's end, `/* … */`) as plain JSON.
pub fn strip_jsonc(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

//! The words of `COMMAND --help`: the catalog's texts for clap, its help
//! template with the catalog's headings, and the re-padding of clap's
//! columns by display width.

use crate::render::display_width;

/// The words of the help texts: the active catalog (chosen from `--lang`
/// before parsing, see `cli::language`), with the steps' figures (`{core}`,
/// `{advanced}`) filled in.
pub(super) struct Words {
    figures: Vec<(&'static str, String)>,
}

impl Words {
    pub(super) fn new() -> Words {
        Words {
            figures: crate::suites::figures(),
        }
    }

    pub(super) fn text(&self, key: &str) -> String {
        let mut text = crate::catalog::t(key);
        for (name, value) in &self.figures {
            text = text.replace(&format!("{{{name}}}"), &value.replace('–', "-"));
        }
        text
    }

    /// A value name.
    pub(super) fn name(&self, key: &str) -> String {
        self.text(key)
    }
}

/// A command's help, with the catalog's headings (clap's own are English).
pub(super) fn template(w: &Words, positionals: bool) -> String {
    let mut text = format!("{{about-with-newline}}\n{}\n", w.text("cli.heading.usage"));
    if positionals {
        text += &format!("\n{}\n{{positionals}}\n", w.text("cli.heading.arguments"));
    }
    text + &format!("\n{}\n{{options}}\n", w.text("cli.heading.options"))
}

/// clap pads each argument's name to one column counting characters, but a
/// Chinese character takes two columns on a terminal: pads them again by
/// display width.
pub(super) fn line_up(help: &str) -> String {
    let lines: Vec<&str> = help.trim_end().lines().collect();
    let mut out = String::new();
    let mut at = 0;
    while at < lines.len() {
        let block: Vec<(&str, &str)> = lines[at..].iter().map_while(|l| split_arg(l)).collect();
        if block.is_empty() {
            out += lines[at];
            out.push('\n');
            at += 1;
            continue;
        }
        let column = block
            .iter()
            .map(|(name, _)| display_width(name))
            .max()
            .unwrap_or(0)
            + 2;
        for (name, text) in &block {
            out += &format!("{}{text}\n", crate::render::padded(name, column));
        }
        at += block.len();
    }
    out
}

/// An argument's line of a help text: its name (with the indent) and its help.
pub(super) fn split_arg(line: &str) -> Option<(&str, &str)> {
    let indent = line.len() - line.trim_start().len();
    if indent < 2 {
        return None;
    }
    let gap = indent + line[indent..].find("  ")?;
    Some((&line[..gap], line[gap..].trim_start()))
}

//! `summary.html`: the class at a glance, for an instructor, from a
//! [`SummaryFile`] alone (so shards merged with `grade --merge` give the
//! same bytes as one run with the same seed).
//!
//! One self-contained file: inline CSS (`page.css`) and inline SVG, no
//! network, readable without scripts; a small inline script (`sort.js`)
//! only lets a column heading sort the student table. Its words are the
//! catalog's, in the run's language (`<html lang>` too). Five sections,
//! each with a stable id: `distribution`, `steps`, `rules`, `mistakes`,
//! `students`. The figures carry data attributes (`data-count`,
//! `data-step`, `data-kind`, `data-clause`, `data-mistake`, `data-status`,
//! …) so that a test can compare them with summary.json.
//!
//! A submission's name is shown as one visible line
//! ([`crate::visible::line`]: control and bidirectional characters shown
//! as `\u{…}` escapes, as every human-readable format of the kit does),
//! then HTML-escaped, inside `<bdi>`; its report links are relative,
//! the folder percent-encoded.

mod similarity;
mod stats;
#[cfg(test)]
mod tests;

use super::outside::{advanced_range, items_of, lookup, t, tr, visible};
use super::summary::{SummaryFile, SummarySubmission};
use super::Build;
use stats::{figures, Figures, Kind, StepFigures};
use std::fmt::Write as _;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("sort.js");

/// The ids of the page's sections, in order.
pub const SECTIONS: [&str; 5] = ["distribution", "steps", "rules", "mistakes", "students"];

/// Each submission's report files, relative to its folder, with the
/// catalog key of the link's words.
const REPORTS: [(&str, &str); 4] = [
    ("result.json", "report.html.link.result"),
    ("junit.xml", "report.html.link.junit"),
    ("gradescope/results.json", "report.html.link.gradescope"),
    ("exercism/results.json", "report.html.link.exercism"),
];

/// `summary.html` for a summary.
pub fn summary_html(file: &SummaryFile) -> String {
    summary_html_with(file, None)
}

/// `summary.html` for a summary, with the private similarity section
/// (`html/similarity.rs`) after the others when `private` is given.
pub fn summary_html_with(
    file: &SummaryFile,
    private: Option<&super::similarity::SimilarityFile>,
) -> String {
    let f = figures(file);
    let mut out = String::with_capacity(16 * 1024 + file.submissions.len() * 1536);
    let title = esc(&t("report.html.title"));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>\n{STYLE}{}</style>\n</head>\n<body>\n<header>\n\
         <h1>{title}</h1>\n<p>{}</p>\n<nav aria-label=\"{}\"><ul>",
        esc(&t("report.html.lang")),
        if private.is_some() {
            similarity::STYLE
        } else {
            ""
        },
        esc(&tr(
            "report.html.intro",
            &[("count", &f.total), ("seed", &file.seed)]
        )),
        esc(&t("report.html.contents")),
    );
    for (id, key) in SECTIONS.iter().zip(section_keys()) {
        let _ = write!(out, "<li><a href=\"#{id}\">{}</a></li>", esc(&t(key)));
    }
    if private.is_some() {
        let _ = write!(
            out,
            "<li><a href=\"#{}\">{}</a></li>",
            similarity::ID,
            esc(&t("report.html.similarity"))
        );
    }
    out.push_str("</ul></nav>\n</header>\n<main>\n");
    distribution(&mut out, &f);
    steps(&mut out, &f);
    rules(&mut out, &f);
    mistakes(&mut out, &f);
    students(&mut out, file, &f);
    if let Some(private) = private {
        similarity::section(&mut out, private);
    }
    out.push_str("</main>\n<footer>\n<p>");
    out.push_str(&esc(&t("report.html.legend")));
    out.push_str("</p>\n");
    if f.steps.iter().any(|s| s.bonus) {
        let steps = advanced_range();
        let _ = writeln!(
            out,
            "<p>{}</p>",
            esc(&tr("report.html.bonus_steps", &[("steps", &steps)]))
        );
    }
    let _ = write!(
        out,
        "</footer>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    );
    out
}

/// The catalog keys of the sections' headings, in [`SECTIONS`]' order.
fn section_keys() -> [&'static str; 5] {
    [
        "report.html.distribution",
        "report.html.steps",
        "report.html.rules",
        "report.html.mistakes",
        "report.html.students",
    ]
}

/// Opens section `at` of [`SECTIONS`] with its heading and, when given,
/// the note under it.
fn open_section(out: &mut String, at: usize, note: Option<&str>) {
    let id = SECTIONS[at];
    let _ = write!(
        out,
        "<section id=\"{id}\" aria-labelledby=\"{id}-h\">\n<h2 id=\"{id}-h\">{}</h2>\n",
        esc(&t(section_keys()[at]))
    );
    if let Some(key) = note {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&t(key)));
    }
}

/// Points as shown: whole, or with one decimal (a median of two).
fn points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

fn distribution(out: &mut String, f: &Figures) {
    open_section(out, 0, None);
    let median = f.median.map(points).unwrap_or_else(|| "–".into());
    out.push_str("<dl class=\"facts\">\n");
    let facts: [(&str, &str, String); 5] = [
        ("total", "report.html.total", f.total.to_string()),
        ("median", "report.html.median", median.clone()),
        ("all-core", "report.html.all_core", f.all_core.to_string()),
        ("advanced", "report.html.advanced", f.advanced.to_string()),
        ("review", "report.html.review", f.review.to_string()),
    ];
    for (name, key, value) in facts {
        let _ = writeln!(
            out,
            "<div data-fact=\"{name}\" data-value=\"{value}\"><dt>{}</dt><dd>{value}</dd></div>",
            esc(&t(key))
        );
    }
    out.push_str("</dl>\n");
    let caption = esc(&tr("report.html.histogram", &[("max", &f.max)]));
    let _ = writeln!(out, "<figure>\n{}", histogram(f, &caption));
    let _ = writeln!(
        out,
        "<figcaption>{caption}</figcaption>\n</figure>\n</section>"
    );
}

/// The histogram of points as an SVG drawing: one bar per bin, its count
/// above it, its points below, the median marked under the axis.
fn histogram(f: &Figures, caption: &str) -> String {
    const W: f64 = 640.0;
    const H: f64 = 240.0;
    const LEFT: f64 = 12.0;
    const TOP: f64 = 20.0;
    const BOTTOM: f64 = 48.0;
    let n = f.bins.len().max(1) as f64;
    let bw = (W - 2.0 * LEFT) / n;
    let tallest = f.bins.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    let base = H - BOTTOM;
    let mut svg = format!(
        "<svg class=\"histogram\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{caption}\" \
         data-max=\"{}\">\n\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\"/>\n",
        f.max,
        W - LEFT
    );
    let label_every = if f.bins.len() > 20 { 2 } else { 1 };
    for (i, b) in f.bins.iter().enumerate() {
        let h = (base - TOP) * b.count as f64 / tallest;
        let x = LEFT + bw * i as f64;
        let mid = x + bw / 2.0;
        let shown = if b.from == b.to {
            b.from.to_string()
        } else {
            format!("{}–{}", b.from, b.to)
        };
        let title = tr(
            "report.html.bar",
            &[("points", &shown), ("count", &b.count)],
        );
        let _ = write!(
            svg,
            "<g class=\"bar\" data-from=\"{}\" data-to=\"{}\" data-count=\"{}\"><title>{}</title>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
            b.from,
            b.to,
            b.count,
            esc(&title),
            x + bw * 0.1,
            base - h,
            bw * 0.8,
            h
        );
        if b.count > 0 {
            let _ = write!(
                svg,
                "<text class=\"count\" x=\"{mid:.1}\" y=\"{:.1}\">{}</text>",
                base - h - 4.0,
                b.count
            );
        }
        if i % label_every == 0 {
            let _ = write!(
                svg,
                "<text class=\"points\" x=\"{mid:.1}\" y=\"{:.1}\">{}</text>",
                base + 16.0,
                b.from
            );
        }
        svg.push_str("</g>\n");
    }
    if let (Some(m), Some(first)) = (f.median, f.bins.first()) {
        // Under the axis: a mark at the median and its words, clear of
        // the bars and their counts.
        let width = f64::from(first.to - first.from + 1);
        let x = LEFT + bw * ((m - (width - 1.0) / 2.0) / width + 0.5);
        let label = esc(&tr("report.html.median_mark", &[("median", &points(m))]));
        let at = x.clamp(LEFT + 40.0, W - LEFT - 40.0);
        let _ = writeln!(
            svg,
            "<g class=\"median\" data-median=\"{}\"><path d=\"M{x:.1} {:.1}l-5 8h10z\"/>\
             <text x=\"{at:.1}\" y=\"{:.1}\">{label}</text></g>",
            points(m),
            base + 21.0,
            base + 42.0
        );
    }
    svg.push_str("</svg>");
    svg
}

fn steps(out: &mut String, f: &Figures) {
    open_section(out, 1, Some("report.html.steps_note"));
    let _ = write!(
        out,
        "<div class=\"scroll\"><table class=\"steps\">\n<thead><tr><th scope=\"col\">{}</th>\
         <th scope=\"col\" class=\"n\">{}</th>",
        esc(&t("report.html.step")),
        esc(&t("report.html.pass_rate"))
    );
    for kind in Kind::ALL {
        let _ = write!(
            out,
            "<th scope=\"col\" class=\"n\">{}</th>",
            esc(&t(&format!("report.html.col.{}", kind.name())))
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for s in &f.steps {
        step_row(out, s);
    }
    out.push_str("</tbody></table></div>\n</section>\n");
}

fn step_row(out: &mut String, s: &StepFigures) {
    let items = items_of(&s.step);
    let rate = match s.percent() {
        Some(p) => tr(
            "report.html.rate",
            &[
                ("percent", &p),
                ("passed", &s.count(Kind::Passed)),
                ("total", &s.attempted()),
            ],
        ),
        None => "–".into(),
    };
    let _ = write!(
        out,
        "<tr data-step=\"{0}\"{1}><th scope=\"row\">{0}{2} <span class=\"items\">{3}</span></th>\
         <td class=\"n\" data-value=\"{4}\">{5}</td>",
        esc(&s.step),
        if s.bonus { " class=\"bonus\"" } else { "" },
        if s.bonus { " +" } else { "" },
        esc(items),
        s.percent().map_or(-1, |p| p as i64),
        esc(&rate)
    );
    for kind in Kind::ALL {
        let n = s.count(kind);
        let _ = write!(
            out,
            "<td class=\"n\" data-kind=\"{}\" data-count=\"{n}\">{n}</td>",
            kind.name()
        );
    }
    out.push_str("</tr>\n");
}

fn rules(out: &mut String, f: &Figures) {
    open_section(out, 2, Some("report.html.rules_note"));
    if f.rules.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"none\">{}</p>",
            esc(&t("report.html.no_rules"))
        );
    } else {
        let _ = write!(
            out,
            "<div class=\"scroll\"><table class=\"rules\">\n<thead><tr><th scope=\"col\">{}</th>\
             <th scope=\"col\" class=\"n\">{}</th></tr></thead>\n<tbody>\n",
            esc(&t("report.html.rule")),
            esc(&t("report.html.failed_by"))
        );
        for (clause, n) in &f.rules {
            let words = lookup(&format!("clause.{clause}"));
            let _ = writeln!(
                out,
                "<tr data-clause=\"{0}\" data-count=\"{n}\"><td>{1}<code>{0}</code></td>\
                 <td class=\"n\">{n}</td></tr>",
                esc(clause),
                words.map(|w| format!("{} ", esc(&w))).unwrap_or_default()
            );
        }
        out.push_str("</tbody></table></div>\n");
    }
    out.push_str("</section>\n");
}

fn mistakes(out: &mut String, f: &Figures) {
    open_section(out, 3, Some("report.html.mistakes_note"));
    if f.mistakes.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"none\">{}</p>",
            esc(&t("report.html.no_mistakes"))
        );
    } else {
        let _ = write!(
            out,
            "<div class=\"scroll\"><table class=\"mistakes\">\n<thead><tr><th scope=\"col\">{}</th>\
             <th scope=\"col\" class=\"n\">{}</th><th scope=\"col\">{}</th></tr></thead>\n<tbody>\n",
            esc(&t("report.html.mistake")),
            esc(&t("report.html.total")),
            esc(&t("report.html.made_by"))
        );
        for m in &f.mistakes {
            let words = lookup(&format!("mistake.{}", m.id))
                .map(|w| format!("{} ", esc(&w)))
                .unwrap_or_default();
            let who: Vec<String> = m
                .who
                .iter()
                .map(|n| format!("<li><bdi>{}</bdi></li>", esc(n)))
                .collect();
            let _ = writeln!(
                out,
                "<tr data-mistake=\"{0}\" data-count=\"{1}\"><td>{words}<code>{0}</code></td>\
                 <td class=\"n\">{1}</td><td><ul class=\"who\">{2}</ul></td></tr>",
                esc(&m.id),
                m.who.len(),
                who.concat()
            );
        }
        out.push_str("</tbody></table></div>\n");
    }
    out.push_str("</section>\n");
}

fn students(out: &mut String, file: &SummaryFile, f: &Figures) {
    open_section(out, 4, Some("report.html.students_note"));
    let _ = write!(
        out,
        "<div class=\"scroll\"><table class=\"students sortable\">\n<thead><tr>\
         <th scope=\"col\" data-sort=\"text\">{}</th><th scope=\"col\" class=\"n\" data-sort=\"num\">{}</th>",
        esc(&t("report.html.name")),
        esc(&t("report.html.points"))
    );
    for s in &f.steps {
        let _ = write!(
            out,
            "<th scope=\"col\" data-sort=\"text\"{}>{}{}</th>",
            if s.bonus { " class=\"bonus\"" } else { "" },
            esc(&s.step),
            if s.bonus { " +" } else { "" }
        );
    }
    let _ = write!(
        out,
        "<th scope=\"col\">{}</th></tr></thead>\n<tbody>\n",
        esc(&t("report.html.reports"))
    );
    let review = |s: &&SummarySubmission| s.build == Build::Error;
    let first = file.submissions.iter().filter(review);
    let rest = file.submissions.iter().filter(|s| !review(s));
    for s in first.chain(rest) {
        student_row(out, s, f);
    }
    out.push_str("</tbody></table></div>\n</section>\n");
}

fn student_row(out: &mut String, s: &SummarySubmission, f: &Figures) {
    let needs_review = s.build == Build::Error;
    let name = esc(&s.name);
    let bonus = if s.bonus > 0 || s.advanced_build != super::AdvancedBuild::Absent {
        format!(" {}", esc(&tr("grade.row.bonus", &[("bonus", &s.bonus)])))
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<tr data-name=\"{name}\" data-points=\"{0}\" data-bonus=\"{1}\"{2}><th scope=\"row\">\
         <bdi>{name}</bdi>",
        s.score,
        s.bonus,
        if needs_review {
            " data-review=\"true\" class=\"review\""
        } else {
            ""
        }
    );
    if needs_review {
        let why = s.review.as_deref().unwrap_or("");
        let _ = write!(
            out,
            "<div class=\"why\">{}</div>",
            esc(&tr("report.html.needs_review", &[("why", &why)]))
        );
    }
    let made: Vec<&str> = s
        .steps
        .iter()
        .filter_map(|x| x.mistake.as_deref())
        .collect();
    for m in made {
        // The mistake's description, where the kit has one, on hover.
        let title = lookup(&format!("mistake.{m}"))
            .map(|w| format!(" title=\"{}\"", esc(&w)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<div class=\"made\"><code{title}>{}</code></div>",
            esc(m)
        );
    }
    let _ = write!(
        out,
        "</th><td class=\"n\" data-value=\"{}\">{}/{}{bonus}</td>",
        s.score, s.score, s.max_score
    );
    for step in &f.steps {
        match s.steps.iter().find(|x| x.step == step.step) {
            Some(x) => {
                let kind = Kind::of(s, x);
                let _ = write!(
                    out,
                    "<td class=\"st {0}\" data-step=\"{1}\" data-status=\"{0}\"{3}>{2}</td>",
                    kind.name(),
                    esc(&x.step),
                    esc(&t(&format!("report.html.cell.{}", kind.name()))),
                    x.score
                        .map(|p| format!(" data-points=\"{p}\""))
                        .unwrap_or_default()
                );
            }
            None => {
                let _ = write!(out, "<td data-step=\"{}\"></td>", esc(&step.step));
            }
        }
    }
    out.push_str("<td class=\"links\">");
    let folder = s.folder.as_deref().unwrap_or(&s.name);
    if !matches!(folder, "" | "." | "..") {
        let dir = percent_encoded(folder);
        for (i, (path, key)) in REPORTS.iter().enumerate() {
            if i > 0 {
                out.push_str(" · ");
            }
            let _ = write!(out, "<a href=\"{dir}/{path}\">{}</a>", esc(&t(key)));
        }
    }
    out.push_str("</td></tr>\n");
}

/// Text for HTML content or a double-quoted attribute value: one visible
/// line (see [`crate::visible::line`]), then `& < > " '` as references.
pub(crate) fn esc(text: &str) -> String {
    let shown = visible::line(text);
    let mut out = String::with_capacity(shown.len() + 8);
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A folder name as one URL path segment: every byte but ASCII letters,
/// digits and `-._~` percent-encoded (so `/`, `?`, `#`, `:` and `%` in a
/// name cannot make the link leave the folder or the page).
pub(crate) fn percent_encoded(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

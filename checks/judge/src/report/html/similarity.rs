//! The private section of `summary.html` (`id="similarity"`, marked
//! `data-private="instructors"`): the pairs of `similarity.json`, per
//! step, each with its matched lines side by side. Drawn from the
//! [`SimilarityFile`] alone, so a page of merged shards shows the same.
//! Names go through [`super::esc`]; code keeps its line feeds and tabs
//! (control and bidirectional characters shown as escapes), then is
//! HTML-escaped.

use super::super::outside::{t, tr, visible};
use super::super::similarity::SimilarityFile;
use super::esc;
use std::fmt::Write as _;

/// The section's id, after the five of [`super::SECTIONS`].
pub const ID: &str = "similarity";

/// Its own styles, added to the page only with the section.
pub const STYLE: &str = include_str!("similarity.css");

/// Code as shown: line feeds and tabs kept, then HTML-escaped.
fn code(text: &str) -> String {
    let shown = visible::text(text);
    let mut out = String::with_capacity(shown.len() + 8);
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The section: the note saying who may see it and how the pairs were
/// found, the files left out, then one table per step with pairs.
pub fn section(out: &mut String, file: &SimilarityFile) {
    let _ = write!(
        out,
        "<section id=\"{ID}\" class=\"private\" data-private=\"instructors\" \
         aria-labelledby=\"{ID}-h\">\n<h2 id=\"{ID}-h\">{}</h2>\n\
         <p class=\"private-banner\"><strong>{}</strong></p>\n<p class=\"note\">{}</p>\n",
        esc(&t("report.html.similarity")),
        esc(&t("report.html.similarity_private")),
        esc(&tr(
            "report.html.similarity_note",
            &[
                ("percent", &format!("{:.0}", file.threshold * 100.0)),
                ("tokens", &file.min_tokens),
                ("compared", &file.compared),
                ("common", &file.common_above),
            ]
        )),
    );
    if !file.handout_removed {
        let _ = writeln!(
            out,
            "<p class=\"note\">{}</p>",
            esc(&t("report.html.similarity_no_handout"))
        );
    }
    for s in &file.skipped {
        let _ = writeln!(
            out,
            "<p class=\"note\" data-skipped=\"{}\">{}</p>",
            esc(&s.reason),
            esc(&tr(
                "report.html.similarity_skipped",
                &[
                    ("name", &visible::line(&s.submission)),
                    ("file", &s.file),
                    (
                        "reason",
                        &t(&format!("report.html.similarity_reason.{}", s.reason))
                    ),
                ]
            ))
        );
    }
    if file.pairs.is_empty() {
        let _ = writeln!(
            out,
            "<p data-pairs=\"0\">{}</p>",
            esc(&t("report.html.similarity_none"))
        );
    }
    let mut steps: Vec<&str> = file.pairs.iter().map(|p| p.step.as_str()).collect();
    steps.dedup();
    for step in steps {
        let pairs: Vec<_> = file.pairs.iter().filter(|p| p.step == step).collect();
        let _ = writeln!(
            out,
            "<h3 data-step=\"{0}\">{1}</h3>",
            esc(step),
            esc(&tr(
                "report.html.similarity_step",
                &[("step", &step), ("count", &pairs.len())]
            ))
        );
        if let Some(n) = file.left_out.get(step) {
            let _ = writeln!(
                out,
                "<p class=\"note\">{}</p>",
                esc(&tr("report.html.similarity_left_out", &[("count", n)]))
            );
        }
        for p in pairs {
            let _ = write!(
                out,
                "<details class=\"pair\" data-step=\"{}\" data-a=\"{}\" data-b=\"{}\" \
                 data-score=\"{}\">\n<summary><bdi>{}</bdi> ↔ <bdi>{}</bdi>: {}</summary>\n",
                esc(&p.step),
                esc(&p.a),
                esc(&p.b),
                p.score,
                esc(&p.a),
                esc(&p.b),
                esc(&tr(
                    "report.html.similarity_pair",
                    &[
                        ("percent", &format!("{:.0}", p.score * 100.0)),
                        ("tokens", &p.matched_tokens),
                        ("file", &p.file),
                    ]
                )),
            );
            out.push_str("<div class=\"scroll\"><table class=\"sbs\">\n<thead><tr>");
            let _ = write!(
                out,
                "<th scope=\"col\"><bdi>{}</bdi></th><th scope=\"col\"><bdi>{}</bdi></th>",
                esc(&p.a),
                esc(&p.b)
            );
            out.push_str("</tr></thead>\n<tbody>\n");
            for m in &p.matches {
                let lines = |l: [u32; 2]| {
                    tr(
                        "report.html.similarity_lines",
                        &[("from", &l[0]), ("to", &l[1])],
                    )
                };
                let _ = writeln!(
                    out,
                    "<tr data-a-lines=\"{}-{}\" data-b-lines=\"{}-{}\"><td><div class=\"lines\">{}</div>\
                     <pre>{}</pre></td><td><div class=\"lines\">{}</div><pre>{}</pre></td></tr>",
                    m.a_lines[0],
                    m.a_lines[1],
                    m.b_lines[0],
                    m.b_lines[1],
                    esc(&lines(m.a_lines)),
                    code(&m.a_text),
                    esc(&lines(m.b_lines)),
                    code(&m.b_text)
                );
            }
            out.push_str("</tbody></table></div>\n</details>\n");
        }
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::super::super::similarity::{Match, Pair, Skipped, SIMILARITY_SCHEMA};
    use super::super::super::summary::summary_of;
    use super::super::super::test_support::{class, HOSTILE};
    use super::super::{summary_html, summary_html_with};
    use super::*;
    use scraper::{Html, Selector};

    fn sel(css: &str) -> Selector {
        Selector::parse(css).unwrap()
    }

    /// A file with one pair between a hostile name and a plain one, its
    /// code trying to end the page's elements.
    fn file() -> SimilarityFile {
        let code = "fn f() {\n\t\"</pre></td><script>alert(1)</script>\" \u{202e}\n}\n";
        SimilarityFile {
            schema: SIMILARITY_SCHEMA.into(),
            threshold: 0.8,
            min_tokens: 40,
            k: 10,
            window: 5,
            common_above: 10,
            compared: 3,
            handout_removed: false,
            skipped: vec![Skipped {
                submission: HOSTILE.into(),
                file: "student/src/lib.rs".into(),
                reason: "too-large".into(),
            }],
            left_out: [("04".to_string(), 3)].into(),
            pairs: vec![Pair {
                step: "04".into(),
                file: "student/src/lib.rs".into(),
                a: HOSTILE.into(),
                b: "bob".into(),
                score: 0.915,
                a_share: 0.9,
                b_share: 0.93,
                matched_tokens: 120,
                matches: vec![Match {
                    a_lines: [3, 5],
                    b_lines: [10, 12],
                    a_text: code.into(),
                    b_text: "fn g() {}\n".into(),
                }],
            }],
        }
    }

    #[test]
    fn the_private_section_shows_each_pair_side_by_side_and_escaped() {
        let summary = summary_of(&class());
        let page = summary_html_with(&summary, Some(&file()));
        let doc = Html::parse_document(&page);
        assert_eq!(doc.errors.len(), 0, "{:?}", doc.errors);
        let section = doc
            .select(&sel("section#similarity"))
            .next()
            .expect("section");
        assert_eq!(section.value().attr("data-private"), Some("instructors"));
        assert_eq!(doc.select(&sel("nav a[href='#similarity']")).count(), 1);
        // Only the page's own sorting script: none from the learner's code.
        assert_eq!(doc.select(&sel("script")).count(), 1);
        let pairs: Vec<_> = section.select(&sel("details.pair")).collect();
        assert_eq!(pairs.len(), 1);
        let pair = pairs[0].value();
        assert_eq!(pair.attr("data-step"), Some("04"));
        assert_eq!(pair.attr("data-b"), Some("bob"));
        assert_eq!(pair.attr("data-score"), Some("0.915"));
        // The hostile name is shown as one visible line.
        assert_eq!(pair.attr("data-a"), Some(&*visible::line(HOSTILE)));
        let row = section.select(&sel("table.sbs tbody tr")).next().unwrap();
        assert_eq!(row.value().attr("data-a-lines"), Some("3-5"));
        assert_eq!(row.value().attr("data-b-lines"), Some("10-12"));
        let pres: Vec<String> = row
            .select(&sel("pre"))
            .map(|p| p.text().collect())
            .collect();
        assert_eq!(
            pres,
            [
                "fn f() {\n\t\"</pre></td><script>alert(1)</script>\" \\u{202e}\n}\n",
                "fn g() {}\n"
            ]
        );
        assert_eq!(
            section.select(&sel("[data-skipped='too-large']")).count(),
            1
        );
    }

    #[test]
    fn without_the_stage_the_page_has_no_private_section() {
        let summary = summary_of(&class());
        let page = summary_html(&summary);
        assert!(!page.contains("id=\"similarity\""));
        assert!(!page.contains(STYLE));
        let mut empty = file();
        empty.pairs.clear();
        let page = summary_html_with(&summary, Some(&empty));
        let doc = Html::parse_document(&page);
        assert_eq!(
            doc.select(&sel("section#similarity [data-pairs='0']"))
                .count(),
            1
        );
    }
}

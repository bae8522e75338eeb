//! `grade`'s options of the similarity stage: `--no-similarity` and
//! `--similarity-threshold PERCENT` (see `crate::similarity`).

use super::help::Words;
use super::parts::{flag, option};
use crate::catalog::tr;
use clap::{Arg, ArgMatches};

/// `--no-similarity` and `--similarity-threshold PERCENT` of grade.
pub(super) fn options(w: &Words) -> [Arg; 2] {
    [
        flag("no-similarity", w.text("cli.opt.no_similarity")),
        option(
            "similarity-threshold",
            "PERCENT",
            w.text("cli.opt.similarity_threshold"),
        )
        .allow_negative_numbers(true)
        .value_parser(percent),
    ]
}

/// The similarity stage's options, or none with `--no-similarity`.
pub(super) fn read(m: &ArgMatches) -> Option<crate::similarity::Options> {
    if m.get_flag("no-similarity") {
        return None;
    }
    let percent = m
        .get_one::<f64>("similarity-threshold")
        .copied()
        .unwrap_or(crate::similarity::DEFAULT_PERCENT);
    Some(crate::similarity::Options {
        threshold: percent / 100.0,
        ..Default::default()
    })
}

/// A percentage from 0 to 100.
fn percent(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(tr("error.bad_percent", &[("value", &text)])),
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::{parse, Command};

    fn grade(line: &str) -> Result<Option<crate::similarity::Options>, String> {
        let args: Vec<String> = line.split(' ').map(String::from).collect();
        match parse(&args)?.command {
            Command::Grade(g) => Ok(g.similarity),
            _ => panic!("{line}"),
        }
    }

    #[test]
    fn the_stage_is_on_by_default_and_takes_a_threshold_or_no() {
        let on = grade("grade a").unwrap().unwrap();
        assert_eq!((on.threshold, on.min_tokens), (0.8, 40));
        let at = grade("grade --similarity-threshold 92.5 a")
            .unwrap()
            .unwrap();
        assert_eq!(at.threshold, 0.925);
        assert_eq!(grade("grade --no-similarity a").unwrap(), None);
        for bad in ["-1", "101", "x", "NaN", "inf"] {
            let e = grade(&format!("grade --similarity-threshold {bad} a")).unwrap_err();
            assert!(
                e.contains("--similarity-threshold") && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
    }
}

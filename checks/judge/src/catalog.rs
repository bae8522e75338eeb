//! Every word a learner reads, in English and Simplified Chinese, from
//! fixtures/i18n (embedded at build time). The language comes from --lang,
//! then LAB_LANG, then LANG; English otherwise.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const EN: &str = include_str!("../../../fixtures/i18n/en.json");
const ZH: &str = include_str!("../../../fixtures/i18n/zh.json");

/// Each advanced step keeps its words in a file of its own, merged in.
macro_rules! parts {
    ($lang:literal) => {
        [
            include_str!(concat!("../../../fixtures/i18n/", $lang, "/09.json")),
            include_str!(concat!("../../../fixtures/i18n/", $lang, "/10.json")),
            include_str!(concat!("../../../fixtures/i18n/", $lang, "/11.json")),
            include_str!(concat!("../../../fixtures/i18n/", $lang, "/12.json")),
            include_str!(concat!("../../../fixtures/i18n/", $lang, "/13.json")),
        ]
    };
}
const EN_PARTS: [&str; 5] = parts!("en");
const ZH_PARTS: [&str; 5] = parts!("zh");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
}

static ACTIVE: OnceLock<BTreeMap<String, String>> = OnceLock::new();

fn parse_one(text: &str) -> BTreeMap<String, String> {
    serde_json::from_str(text).expect("message catalogs are valid JSON objects of strings")
}

/// A language's whole catalog: the main file and the advanced steps' parts.
fn parse(main: &str) -> BTreeMap<String, String> {
    let parts = if main == ZH { ZH_PARTS } else { EN_PARTS };
    let mut map = parse_one(main);
    for part in parts {
        for (k, v) in parse_one(part) {
            assert!(
                map.insert(k.clone(), v).is_none(),
                "{k} is in two catalog files"
            );
        }
    }
    map
}

pub fn lang_from(name: &str) -> Option<Lang> {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("zh") {
        Some(Lang::Zh)
    } else if lower.starts_with("en") || lower == "c" || lower == "posix" {
        Some(Lang::En)
    } else {
        None
    }
}

/// The language when no --lang was given.
pub fn lang_from_env() -> Lang {
    for var in ["LAB_LANG", "LANG"] {
        if let Some(lang) = std::env::var(var).ok().as_deref().and_then(lang_from) {
            return lang;
        }
    }
    Lang::En
}

static ACTIVE_LANG: OnceLock<Lang> = OnceLock::new();

/// The language chosen at start-up (English when none was).
pub fn active() -> Lang {
    *ACTIVE_LANG.get().unwrap_or(&Lang::En)
}

/// The folder name of a language's texts in fixtures/steps.
pub fn code(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Zh => "zh",
    }
}

/// Chooses the catalog once, at start-up.
pub fn select(lang: Lang) {
    let _ = ACTIVE_LANG.set(lang);
    let _ = ACTIVE.set(parse(match lang {
        Lang::En => EN,
        Lang::Zh => ZH,
    }));
}

/// The message for `key` with `{name}` (or `{name:?}`, quoted) filled in.
pub fn tr(key: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let map = ACTIVE.get_or_init(|| parse(EN));
    let mut text = map.get(key).cloned().unwrap_or_else(|| format!("[{key}]"));
    for (name, value) in args {
        text = text.replace(
            &format!("{{{name}:?}}"),
            &format!("{:?}", value.to_string()),
        );
        text = text.replace(&format!("{{{name}}}"), &value.to_string());
    }
    text
}

/// A message without arguments.
pub fn t(key: &str) -> String {
    tr(key, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_have_exactly_the_same_keys() {
        let (en, zh) = (parse(EN), parse(ZH));
        let only_en: Vec<_> = en.keys().filter(|k| !zh.contains_key(*k)).collect();
        let only_zh: Vec<_> = zh.keys().filter(|k| !en.contains_key(*k)).collect();
        assert!(
            only_en.is_empty() && only_zh.is_empty(),
            "only en: {only_en:?}; only zh: {only_zh:?}"
        );
    }

    #[test]
    fn placeholders_agree_between_languages() {
        let names = |s: &str| -> Vec<String> {
            let mut v: Vec<String> = s
                .split('{')
                .skip(1)
                .filter_map(|p| p.split_once('}'))
                .map(|(n, _)| n.to_string())
                .collect();
            v.sort();
            v
        };
        let (en, zh) = (parse(EN), parse(ZH));
        for (k, v) in &en {
            assert_eq!(names(v), names(&zh[k]), "{k}");
        }
    }

    #[test]
    fn every_clause_has_a_name() {
        let en = parse(EN);
        for (step, _) in crate::suites::all_steps() {
            for clause in crate::suites::build(step, 1).clauses {
                assert!(
                    en.contains_key(&format!("clause.{}", clause.key)),
                    "{}",
                    clause.key
                );
            }
        }
    }

    #[test]
    fn languages_are_read_from_locale_names() {
        assert_eq!(lang_from("zh_CN.UTF-8"), Some(Lang::Zh));
        assert_eq!(lang_from("en_US.UTF-8"), Some(Lang::En));
        assert_eq!(lang_from("C"), Some(Lang::En));
        assert_eq!(lang_from("fr_FR"), None);
    }

    #[test]
    fn arguments_fill_placeholders() {
        assert_eq!(
            tr("error.unknown_step", &[("step", &"14")]),
            "unknown step \"14\": steps are 01 to 13 (09–13 are the advanced track)"
        );
    }
}

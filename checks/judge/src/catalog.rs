//! Every word a learner (or an instructor) reads, in English and Simplified
//! Chinese, from fixtures/i18n and each step folder's `words.{en,zh}.json`
//! (embedded at build time). The language comes
//! from --lang, then LAB_LANG, then LANG; English otherwise.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const EN: &str = include_str!("../../../fixtures/i18n/en.json");
const ZH: &str = include_str!("../../../fixtures/i18n/zh.json");
/// The known mistakes' words (`mistake.<id>`, see `crate::mistakes`).
const EN_MISTAKES: &str = include_str!("../../../fixtures/i18n/en/mistakes.json");
const ZH_MISTAKES: &str = include_str!("../../../fixtures/i18n/zh/mistakes.json");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
}

static ACTIVE: OnceLock<BTreeMap<String, String>> = OnceLock::new();

fn parse_one(text: &str) -> BTreeMap<String, String> {
    serde_json::from_str(text).expect("message catalogs are valid JSON objects of strings")
}

/// A language's whole catalog: the main file, the known mistakes' words
/// and each step's own words.
fn parse(lang: Lang, parts: &[&str]) -> BTreeMap<String, String> {
    let (main, mistakes) = match lang {
        Lang::En => (EN, EN_MISTAKES),
        Lang::Zh => (ZH, ZH_MISTAKES),
    };
    let mut map = parse_one(main);
    for part in std::iter::once(&mistakes).chain(parts) {
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

/// A language's code, as `--lang` takes it and as the steps' text files
/// name it (`text.<code>.md`).
pub fn code(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Zh => "zh",
    }
}

/// The index of a language in the registry's `words` pairs.
pub fn index(lang: Lang) -> usize {
    match lang {
        Lang::En => 0,
        Lang::Zh => 1,
    }
}

/// Chooses the catalog once, at start-up: the language's main file and the
/// steps' words (`parts`, from the registry, which the caller passes so that
/// the catalog needs to know no step).
pub fn select(lang: Lang, parts: &[&str]) {
    let _ = ACTIVE_LANG.set(lang);
    let _ = ACTIVE.set(whole(lang, parts));
}

/// A language's whole catalog, for checks of its keys.
pub fn whole(lang: Lang, parts: &[&str]) -> BTreeMap<String, String> {
    parse(lang, parts)
}

/// The message for `key` with `{name}` (or `{name:?}`, quoted) filled in,
/// and `{name?one|other}` replaced by `one` when the value is 1 and by
/// `other` otherwise (English plurals; the Chinese catalog needs none).
pub fn tr(key: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut text = lookup(key).unwrap_or_else(|| format!("[{key}]"));
    for (name, value) in args {
        let value = value.to_string();
        text = text.replace(&format!("{{{name}:?}}"), &format!("{value:?}"));
        text = text.replace(&format!("{{{name}}}"), &value);
        text = plural(&text, name, value == "1");
    }
    text
}

/// The message for `key` as it stands (no placeholder filled in), or `None`
/// when the catalog has no such key: for words that may be missing, such as
/// a known mistake's description, where the caller shows something else.
pub fn lookup(key: &str) -> Option<String> {
    #[cfg(test)]
    let scoped = SCOPED.with(|s| s.borrow().as_ref().and_then(|m| m.get(key).cloned()));
    #[cfg(not(test))]
    let scoped: Option<String> = None;
    let map = ACTIVE.get_or_init(|| parse(Lang::En, &[]));
    scoped.or_else(|| map.get(key).cloned())
}

/// Replaces every `{name?one|other}` in `text` by `one` or `other`.
fn plural(text: &str, name: &str, one: bool) -> String {
    let open = format!("{{{name}?");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        let Some(end) = after.find('}') else { break };
        let (singular, other) = after[..end].split_once('|').unwrap_or((&after[..end], ""));
        out.push_str(&rest[..at]);
        out.push_str(if one { singular } else { other });
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
thread_local! {
    /// The catalog [`scoped`] lends this thread, over the process's own.
    static SCOPED: std::cell::RefCell<Option<BTreeMap<String, String>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `lang`'s main catalog on this thread only, then gives the
/// thread back the process's catalog (even when `f` panics): a test can
/// render in another language while the tests beside it keep English.
#[cfg(test)]
pub fn scoped<R>(lang: Lang, f: impl FnOnce() -> R) -> R {
    scoped_with(lang, &[], f)
}

/// [`scoped`], with `extra` messages added to the catalog (words a test
/// needs that the main file has not, such as a step's or a mistake's).
#[cfg(test)]
pub fn scoped_with<R>(lang: Lang, extra: &[(&str, &str)], f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.with(|s| s.borrow_mut().take());
        }
    }
    let mut map = whole(lang, &[]);
    map.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    SCOPED.with(|s| *s.borrow_mut() = Some(map));
    let _restore = Restore;
    f()
}

/// A message without arguments.
pub fn t(key: &str) -> String {
    tr(key, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One thing, one name: the reserve of steps 11 and 12 is 预留时间 in
    /// every Chinese text a learner reads (catalogs and step pages).
    #[test]
    fn the_reserve_has_one_chinese_name() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = vec![
            root.join("fixtures/i18n/zh.json"),
            root.join("fixtures/i18n/zh/mistakes.json"),
        ];
        for entry in crate::suites::REGISTRY {
            let dir = root.join(entry.dir());
            for name in ["words.zh.json", "text.zh.md", "hints.zh.md"] {
                files.push(dir.join(name));
            }
        }
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for other in ["保留量", "储备", "保留时间"] {
                assert!(!text.contains(other), "{}: {other}", file.display());
            }
            // "保留" (kept) is fine; "保留 1.0" names the reserve another way.
            for (at, _) in text.match_indices("保留") {
                let next = text[at + "保留".len()..].trim_start().chars().next();
                assert!(
                    !next.is_some_and(|c| c.is_ascii_digit()),
                    "{}: {}",
                    file.display(),
                    &text[at..(at + 16).min(text.len())]
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

    /// lab.sh speaks before the judge exists, from its own small table.
    #[test]
    fn the_shell_words_exist_in_both_languages_for_every_say() {
        let table = include_str!("../../../fixtures/i18n/shell.txt");
        let keys = |lang: &str| -> std::collections::BTreeSet<&str> {
            table
                .lines()
                .filter(|l| !l.starts_with('#'))
                .filter_map(|l| {
                    let mut f = l.split('\t');
                    let (l, k, text) = (f.next()?, f.next()?, f.next()?);
                    (l == lang && !text.is_empty()).then_some(k)
                })
                .collect()
        };
        assert_eq!(keys("en"), keys("zh"));
        let script = include_str!("../../../lab.sh");
        let said: Vec<&str> = script
            .split("say ")
            .skip(1)
            .filter_map(|rest| rest.split([' ', ';', '\n']).next())
            .filter(|k| k.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !k.is_empty())
            .collect();
        assert!(said.len() >= 4, "{said:?}");
        for key in said {
            assert!(
                keys("en").contains(key),
                "lab.sh says {key}, which has no words"
            );
        }
    }

    #[test]
    fn plural_forms_follow_the_count() {
        let text = "drew {n} {n?fraction|fractions}, {n?it|they} {k?was|were} kept";
        let one = plural(&plural(text, "n", true), "k", false);
        assert_eq!(one, "drew {n} fraction, it were kept");
        let many = plural(text, "n", false);
        assert_eq!(many, "drew {n} fractions, they {k?was|were} kept");
        assert_eq!(plural("no form here", "n", true), "no form here");
    }

    #[test]
    fn a_missing_key_is_none_when_looked_up_and_bracketed_when_translated() {
        assert_eq!(lookup("report.summary.build").as_deref(), Some("Build"));
        assert_eq!(lookup("mistake.no-such-mistake"), None);
        assert_eq!(t("mistake.no-such-mistake"), "[mistake.no-such-mistake]");
        let zh = scoped(Lang::Zh, || lookup("report.summary.build"));
        assert_eq!(
            zh,
            whole(Lang::Zh, &[]).get("report.summary.build").cloned()
        );
    }

    #[test]
    fn arguments_fill_placeholders() {
        assert_eq!(
            tr("error.unknown_step", &[("step", &"14"), ("first", &"01")]),
            "unknown step \"14\": steps are 01 to {last} ({advanced} are the advanced track)"
        );
    }
}

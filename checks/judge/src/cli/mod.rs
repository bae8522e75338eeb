//! Command-line parsing, on clap's builder API. Each command and its
//! arguments are declared once, in `spec::COMMANDS`; every about-line, option
//! help, heading and value name comes from the message catalogs, so
//! `COMMAND --help` speaks the language chosen. Bad input gets a one-line
//! error from the catalogs naming the problem (exit status 2), with clap's
//! suggestion when it has one; never clap's own English text, never a
//! backtrace. Values are checked by `spec`'s functions (`seed`, `seconds`,
//! `count`, `shard`, `step`) as clap reads them, and what depends on
//! several arguments (a step count, `--advanced` without `--subject`) after.

mod errors;
mod grade_extras;
mod help;
mod maintainers;
mod output;
mod parts;
mod policy;
mod similarity;
mod spec;

pub use maintainers::{BenchArgs, SelftestArgs, Tool};

use crate::catalog::{lang_from, Lang};
use crate::check::CheckArgs;
use crate::grade::GradeArgs;
use crate::live::TryArgs;
use clap::error::ErrorKind;
use errors::one_line;
use help::{line_up, Words};
use spec::{definition, COMMANDS};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub enum Command {
    Check(CheckArgs),
    Grade(GradeArgs),
    Handout(PathBuf),
    /// `gradescope OUT.zip`: the Gradescope autograder package.
    Gradescope(PathBuf),
    /// `autograde [--root DIR]`: what the package's run_autograder runs.
    Autograde(PathBuf),
    /// `prairielearn DIR`: a PrairieLearn externally graded question.
    PrairieLearn(crate::prairielearn::QuestionArgs),
    /// `prairielearn-grade [--root DIR]`: what that question's image runs.
    PrairieLearnGrade {
        root: PathBuf,
        policy: crate::grade::policy::Policy,
    },
    /// `selftest`, `bench` and `new-step`: the maintainers' tools, which
    /// lab-dev runs (see `maintainers`).
    Tool(Tool),
    Show(&'static str),
    Hint {
        step: &'static str,
        all: bool,
    },
    Status,
    /// `lab.sh try [NN] [--subject PATH] [--advanced PATH]`: a step's code
    /// against real local servers (see `live`).
    Try(TryArgs),
    Watch {
        check: CheckArgs,
        max_checks: Option<usize>,
    },
    /// `None` resets every step of lib.rs.
    Reset(Option<&'static str>),
    /// Creates (or puts back) student/src/advanced.rs from the stubs.
    /// `reset --advanced`; `force` (`--force`) replaces a file with work in it.
    ResetAdvanced {
        force: bool,
    },
    /// The kit's usage text (usage.txt): `help`, `--help`, or no command.
    Help,
    /// `COMMAND --help` (or `help COMMAND`): that command's own usage and
    /// options, rendered in the language chosen.
    HelpFor(String),
}

#[derive(Debug, Clone)]
pub struct Cli {
    pub command: Command,
}

/// The language of the whole run, decided once, before parsing (so that a
/// usage error already speaks it): the last well-formed `--lang X` or
/// `--lang=X`, else `LAB_LANG`, else `LANG`, else English. lab.sh follows
/// the same rule for its own few lines.
pub fn language(args: &[String]) -> Lang {
    lang_asked(args).unwrap_or_else(crate::catalog::lang_from_env)
}

/// The language named by the last well-formed `--lang X` or `--lang=X`
/// (the one `parse` keeps), looked for before the rest is parsed.
pub fn lang_asked(args: &[String]) -> Option<Lang> {
    let mut asked = None;
    for (i, a) in args.iter().enumerate() {
        let value = match a.strip_prefix("--lang=") {
            Some(v) => Some(v),
            None if a == "--lang" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        asked = value.and_then(lang_from).or(asked);
    }
    asked
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Cli, String> {
    parse_in(&Words::new(), args)
}

fn parse_in(w: &Words, args: &[String]) -> Result<Cli, String> {
    let matches = match definition(w).try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => {
            let text = e.render().to_string();
            let text = text.replace("[OPTIONS]", &w.text("cli.usage.options"));
            return Ok(Cli {
                command: Command::HelpFor(line_up(&text)),
            });
        }
        Err(e) => return Err(one_line(&e, args)),
    };
    let command = match matches.subcommand() {
        _ if matches.get_flag("help") => Command::Help,
        None => Command::Help,
        // `help COMMAND` is `COMMAND --help`; an unknown name is an unknown
        // command, with clap's suggestion.
        Some(("help", m)) => match m.get_one::<String>("command") {
            Some(name) => parse_in(w, &[name.clone(), "--help".to_string()])?.command,
            None => Command::Help,
        },
        Some((name, m)) => {
            let spec = COMMANDS
                .iter()
                .find(|s| s.name == name)
                .expect("clap matched a declared command");
            (spec.read)(m)?
        }
    };
    Ok(Cli { command })
}

#[cfg(test)]
mod tests {
    use super::help::split_arg;
    use super::spec::*;
    use super::*;
    use crate::render::display_width;
    use std::collections::BTreeSet;
    use std::time::Duration;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn check_takes_steps_seed_and_limits() {
        let Command::Check(c) = parse(&args("check 4 02 4 --seed 17 --case-timeout 0.5"))
            .unwrap()
            .command
        else {
            panic!("not check")
        };
        assert_eq!(c.steps, vec!["02", "04"]);
        assert_eq!(c.seed, Some(17));
        assert_eq!(c.limits.case, Duration::from_millis(500));
    }

    /// A command's help, in the language its line asks for: the catalog is
    /// chosen before parsing, as `dispatch::run` does.
    fn help_for(line: &str) -> String {
        let line = args(line);
        let lang = lang_asked(&line).unwrap_or(Lang::En);
        match crate::catalog::scoped(lang, || parse(&line)).map(|c| c.command) {
            Ok(Command::HelpFor(text)) => text,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn every_command_takes_help() {
        for spec in COMMANDS {
            let about = crate::catalog::t(&format!("cli.{}.about", spec.name));
            let about = about.split(" (").next().unwrap();
            for flag in ["--help", "-h"] {
                let text = help_for(&format!("{} {flag}", spec.name));
                assert!(
                    text.starts_with(about)
                        && text.contains(&format!("Usage: ./lab.sh {} ", spec.name))
                        && text.contains("-h, --help")
                        && text.contains("--lang <en|zh>"),
                    "{}: {text}",
                    spec.name
                );
            }
        }
        // Also after other arguments, and as `help COMMAND`.
        assert_eq!(help_for("check 04 -h"), help_for("check --help"));
        assert_eq!(help_for("help grade"), help_for("grade --help"));
        assert_eq!(help_for("--lang en hint --help"), help_for("hint -h"));
        // The kit's own usage text.
        for line in ["help", "--help", "-h", "", "--lang zh", "--help check"] {
            assert!(
                matches!(parse(&args(line)).unwrap().command, Command::Help),
                "{line}"
            );
        }
    }

    #[test]
    fn a_command_s_help_lists_its_own_options() {
        let check = help_for("check --help");
        for option in [
            "--case-timeout <SECS>",
            "--seed <S>",
            "--subject <PATH>",
            "[STEP]...",
        ] {
            assert!(check.contains(option), "{option}: {check}");
        }
        assert!(!check.contains("--shard"), "{check}");
        let grade = help_for("grade --help");
        for option in [
            "--shard <I/N>",
            "--merge <DIR>...",
            "--out <DIR>",
            "--unsandboxed",
        ] {
            assert!(grade.contains(option), "{option}: {grade}");
        }
        assert!(!grade.contains("--subject"), "{grade}");
        assert!(help_for("watch --help").contains("--max-checks <N>"));
        assert!(help_for("reset --help").contains("--advanced"));
        assert!(help_for("reset --help").contains("--force"));
        // watch stops on q or Ctrl-C, not on any key (h is the next hint).
        let watch = help_for("watch --help");
        assert!(
            !watch.contains("any key") && watch.contains("q (or Ctrl-C)"),
            "{watch}"
        );
        assert!(!help_for("bench --help").contains("--seed"));
        assert!(help_for("selftest --help").contains("--only <NAME>"));
    }

    #[test]
    fn help_speaks_the_language_asked_for() {
        let zh = help_for("--lang zh grade --help");
        for heading in [
            "用法：./lab.sh grade [选项] [提交]...",
            "\n参数：\n",
            "\n选项：\n",
        ] {
            assert!(zh.contains(heading), "{heading}: {zh}");
        }
        for english in ["Usage", "Options", "Arguments", "[OPTIONS]", "Print help"] {
            assert!(!zh.contains(english), "{english}: {zh}");
        }
        assert_eq!(help_for("grade --help --lang zh"), zh);
        // Every text is in both catalogs, and the descriptions of a section
        // start in one column although a Chinese character is two wide.
        for lang in ["en", "zh"] {
            for spec in COMMANDS {
                let text = help_for(&format!("--lang {lang} {} --help", spec.name));
                assert!(!text.contains("[cli."), "{lang} {}: {text}", spec.name);
                assert!(!text.contains('\u{1b}'), "no colours: {text}");
                let columns: BTreeSet<usize> = text
                    .lines()
                    .filter(|l| l.starts_with("      --") || l.starts_with("  -h"))
                    .filter_map(split_arg)
                    .map(|(name, _)| display_width(name))
                    .collect();
                let widest = columns.iter().max().copied().unwrap_or(0);
                for line in text.lines().filter(|l| l.starts_with("      --")) {
                    let (name, help) = split_arg(line).unwrap();
                    let column = display_width(line) - display_width(help);
                    assert_eq!(column, widest + 2, "{lang} {}: {name}", spec.name);
                }
            }
        }
    }

    #[test]
    fn a_mistyped_option_or_command_gets_a_suggestion() {
        for (line, wanted) in [
            ("check --sed 1", "did you mean --seed?"),
            ("grade --shrad 1/2 x", "did you mean --shard?"),
            ("watch --max-check 2", "did you mean --max-checks?"),
            ("chek", "did you mean check?"),
            ("help stauts", "did you mean status?"),
            // Two commands are alike here; the closer one is named.
            ("grdae", "did you mean grade?"),
            ("gradescop x", "did you mean gradescope?"),
            ("--lnag zh check", "did you mean --lang?"),
        ] {
            let e = parse(&args(line)).unwrap_err();
            assert!(e.contains(wanted) && !e.contains('\n'), "{line}: {e}");
        }
        assert_eq!(
            parse(&args("check --sed 1")).unwrap_err(),
            "unknown option \"--sed\" for check; did you mean --seed? see ./lab.sh check --help"
        );
        // Nothing close: no suggestion, still the command's help named.
        let e = parse(&args("bench --zzz")).unwrap_err();
        assert!(
            !e.contains("did you mean") && e.contains("./lab.sh bench --help"),
            "{e}"
        );
    }

    /// The maintainers' commands are parsed here and handed to lab-dev as
    /// given; new-step's words are lab-dev's to check.
    #[test]
    fn the_maintainers_commands_are_tools() {
        let tool = |line: &str| match parse(&args(line)).unwrap().command {
            Command::Tool(tool) => tool,
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(tool("selftest --only mutant").name(), "selftest");
        assert_eq!(tool("--lang zh bench --quick").name(), "bench");
        let Tool::NewStep(words) = tool("new-step 99 x") else {
            panic!()
        };
        assert_eq!(words, ["99", "x"]);
        assert!(matches!(tool("new-step"), Tool::NewStep(w) if w.is_empty()));
        for command in ["check", "grade --merge a", "try", "status", "handout x"] {
            assert!(
                !matches!(parse(&args(command)).unwrap().command, Command::Tool(_)),
                "{command}"
            );
        }
        // The checker alone names the way to run them, in either language.
        for (lang, wanted) in [
            (Lang::En, "run ./lab.sh bench"),
            (Lang::Zh, "./lab.sh bench"),
        ] {
            let said = crate::catalog::scoped(lang, || {
                crate::catalog::tr("error.maintainers_tool", &[("command", &"bench")])
            });
            assert!(said.contains(wanted) && !said.contains('{'), "{said}");
        }
    }

    #[test]
    fn reset_hint_and_the_language_read_as_before() {
        let command = |line: &str| parse(&args(line)).unwrap().command;
        assert!(matches!(command("reset --all"), Command::Reset(None)));
        assert!(matches!(command("reset 4"), Command::Reset(Some("04"))));
        assert!(matches!(
            command("reset --advanced"),
            Command::ResetAdvanced { force: false }
        ));
        assert!(matches!(
            command("reset --advanced --force"),
            Command::ResetAdvanced { force: true }
        ));
        assert!(matches!(
            command("hint 04 --all"),
            Command::Hint {
                step: "04",
                all: true
            }
        ));
        assert!(matches!(command("status"), Command::Status));
        assert!(matches!(command("handout out"), Command::Handout(d) if d.as_os_str() == "out"));
        let Command::Tool(Tool::Selftest(s)) = command("selftest --seeds 3 --only mutant") else {
            panic!()
        };
        assert_eq!((s.seeds, s.jobs, s.only.as_deref()), (3, 2, Some("mutant")));
        let Command::Tool(Tool::Bench(b)) = command("bench --quick --target-dir t") else {
            panic!()
        };
        assert_eq!(
            (b.quick, b.runs, b.target, b.baseline),
            (true, 5, Some(PathBuf::from("t")), None)
        );
        let Command::Tool(Tool::Bench(b)) = command("bench --baseline 144b944") else {
            panic!()
        };
        assert_eq!(b.baseline.as_deref(), Some("144b944"));
        let Command::Watch { check, max_checks } = command("watch 3 --max-checks 2 --seed 5")
        else {
            panic!()
        };
        assert_eq!(
            (check.steps, check.seed, max_checks),
            (vec!["03"], Some(5), Some(2))
        );
        // The last --lang wins, before or after the command; a repeated
        // option keeps its last value.
        let line = args("--lang en check --seed 1 --seed 2 --lang zh");
        assert_eq!(lang_asked(&line), Some(Lang::Zh));
        let cli = parse(&line).unwrap();
        let Command::Check(c) = cli.command else {
            panic!()
        };
        assert_eq!(c.seed, Some(2));
    }

    #[test]
    fn a_step_command_without_its_step_says_so() {
        for line in ["hint", "show", "hint 1 2", "reset"] {
            let e = parse(&args(line)).unwrap_err();
            assert!(
                e.contains("takes one step number, from 01 to"),
                "{line}: {e}"
            );
        }
    }

    #[test]
    fn the_language_is_found_before_parsing() {
        assert_eq!(lang_asked(&args("check 99 --lang zh")), Some(Lang::Zh));
        assert_eq!(lang_asked(&args("--lang en hint")), Some(Lang::En));
        assert_eq!(lang_asked(&args("--lang fr check")), None);
        assert_eq!(lang_asked(&args("check --lang")), None);
        // With `=` too, the last well-formed one winning.
        assert_eq!(lang_asked(&args("--lang=zh check")), Some(Lang::Zh));
        assert_eq!(
            lang_asked(&args("check --lang=zh --lang en")),
            Some(Lang::En)
        );
        assert_eq!(
            lang_asked(&args("check --lang zh --lang=fr")),
            Some(Lang::Zh)
        );
        assert_eq!(
            lang_asked(&args("--lang en check --lang zh")),
            Some(Lang::Zh)
        );
    }

    #[test]
    fn no_steps_means_all_eight() {
        let Command::Check(c) = parse(&args("check")).unwrap().command else {
            panic!("not check")
        };
        assert_eq!(c.steps.len(), 8);
    }

    #[test]
    fn try_takes_an_optional_step_and_two_paths() {
        let demo = |s: &str| match parse(&args(s)).unwrap().command {
            Command::Try(t) => t,
            other => panic!("{other:?}"),
        };
        assert_eq!(demo("try").step, "08");
        assert_eq!(demo("try --subject x").subject, Some(PathBuf::from("x")));
        let t = demo("try 13 --advanced a.rs --subject x");
        assert_eq!(t.step, "13");
        assert_eq!(t.advanced, Some(PathBuf::from("a.rs")));
        assert_eq!(t.subject, Some(PathBuf::from("x")));
        assert_eq!(demo("try 11").step, "11");
        assert_eq!(demo("try 8").step, "08");
    }

    /// The two-digit numbers of `text`, each once, in order of first use.
    fn steps_named(text: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for n in text.split(|c: char| !c.is_ascii_digit()) {
            if n.len() == 2 && !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }

    #[test]
    fn the_try_texts_name_the_steps_the_registry_gives_a_demonstration() {
        // The texts of `try` are translated prose that describes each
        // demonstration, so they stay written out; they must name exactly
        // the registry's steps with one, the default first, in both languages.
        let live = crate::suites::live_ids();
        let advanced: Vec<&str> = live
            .iter()
            .copied()
            .filter(|s| crate::suites::is_advanced(s))
            .collect();
        let usages = [
            include_str!("../usage.txt"),
            include_str!("../usage.zh.txt"),
        ];
        for (lang, usage) in [Lang::En, Lang::Zh].into_iter().zip(usages) {
            let parts = crate::suites::words(crate::catalog::index(lang));
            let words = crate::catalog::whole(lang, &parts);
            for key in ["cli.opt.try_step", "cli.try.about"] {
                assert_eq!(steps_named(&words[key]), live, "{lang:?} {key}");
            }
            for key in ["cli.opt.try_advanced", "error.try_advanced"] {
                assert_eq!(steps_named(&words[key]), advanced, "{lang:?} {key}");
            }
            let block: String = usage
                .lines()
                .skip_while(|l| !l.starts_with("  try "))
                .take_while(|l| !l.starts_with("  reset "))
                .collect::<Vec<_>>()
                .join("\n");
            assert_eq!(steps_named(&block), live, "{lang:?} usage: {block}");
            assert!(
                block.starts_with(&format!("  try [{}]", live[0])),
                "{lang:?} usage: the default comes first"
            );
        }
    }

    #[test]
    fn grade_takes_shards_and_merges() {
        let Command::Grade(g) = parse(&args("grade --shard 2/4 --jobs 3 a b"))
            .unwrap()
            .command
        else {
            panic!()
        };
        assert_eq!((g.shard, g.jobs, g.submissions.len()), (Some((2, 4)), 3, 2));
        let Command::Grade(g) = parse(&args("grade --merge x y --out z")).unwrap().command else {
            panic!()
        };
        assert_eq!((g.merge.len(), g.out), (2, PathBuf::from("z")));
        // Every folder after --merge is a shard folder, even past an option.
        let Command::Grade(g) = parse(&args("grade a --merge x --jobs 3 y"))
            .unwrap()
            .command
        else {
            panic!()
        };
        let paths = |v: &[PathBuf]| {
            v.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            (paths(&g.submissions), paths(&g.merge)),
            (
                vec!["a".to_string()],
                vec!["x".to_string(), "y".to_string()]
            )
        );
    }

    #[test]
    fn bad_input_is_a_one_line_error() {
        for bad in [
            "show",
            "show 14",
            "hint",
            "reset",
            "reset 1 2",
            "watch --max-checks 0",
            "grade",
            "grade --shard 0/2 a",
            "grade --shard 3/2 a",
            "grade --shard x a",
            "handout",
            "check 14",
            "check --advanced x.rs",
            "check --seed x",
            "check --seed",
            "check --case-timeout -1",
            "frobnicate",
            "check --nope",
            "--lang fr check",
            "try 99",
            "try 09",
            "try x",
            "try 11 13",
            "try --subject",
            "try --advanced a.rs",
            "try 11 --nope",
            "reset --all 4",
            "reset --all --advanced",
            "reset --all --force",
            "reset 4 --force",
            "status now",
            "handout a b",
            "grade --merge",
            "grade --jobs 0 a",
            "bench --runs x",
            "selftest --seeds -2",
            "check --lang",
            "help nothing",
            "new-step --zzz",
            "selftest --only",
        ] {
            let e = parse(&args(bad)).unwrap_err();
            assert!(!e.is_empty() && !e.contains('\n'), "{bad}: {e}");
        }
    }
}

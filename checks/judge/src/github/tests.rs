use super::*;

fn at(file: &str) -> Locator {
    Locator {
        file: file.into(),
        line: 88,
        column: 8,
    }
}

#[test]
fn a_hostile_message_stays_one_error_command() {
    let message = "boom\n::set-output name=x::y\r\n::add-mask::secret %0A done\u{1b}[2J";
    let title = "03 remaining :: a, b: c";
    let line = annotation(&at("sub,dir/lib:1.rs"), title, message);
    assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
    assert_eq!(line.matches("::error ").count(), 1, "{line}");
    assert!(line.starts_with(
        "::error file=sub%2Cdir/lib%3A1.rs,line=88,col=8,title=03 remaining %3A%3A a%2C b%3A c::boom%0A::set-output"
    ), "{line}");
    // A `%0A` the learner printed reaches GitHub as the text `%0A`, not a
    // line feed; a terminal escape is shown, not acted on.
    assert!(line.contains("secret %250A done\\u{1b}[2J"), "{line}");
    assert!(
        line.contains("%0D%0A::add-mask::") || line.contains("\\r%0A::add-mask::"),
        "{line}"
    );
}

#[test]
fn properties_escape_colons_and_commas_and_data_does_not() {
    assert_eq!(data("a:b,c%\r\n"), "a:b,c%25%0D%0A");
    assert_eq!(property("a:b,c%\r\n"), "a%3Ab%2Cc%25%0D%0A");
}

#[test]
fn a_long_message_is_cut() {
    let long = "是".repeat(MESSAGE_CAP);
    let line = annotation(&at("student/src/lib.rs"), "t", &long);
    assert!(line.len() < MESSAGE_CAP + 200, "{}", line.len());
}

#[test]
fn the_summary_is_appended_within_its_bounds() {
    let dir = std::env::temp_dir().join(format!("lab-github-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("summary.md");
    let _ = std::fs::remove_file(&file);
    append_summary(&file, "one\n").unwrap();
    append_summary(&file, "two\n").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\n");
    let full = dir.join("full.md");
    std::fs::write(&full, vec![b'x'; SUMMARY_FILE_CAP as usize]).unwrap();
    append_summary(&full, "more").unwrap();
    assert_eq!(std::fs::metadata(&full).unwrap().len(), SUMMARY_FILE_CAP);
    let table = crate::catalog::scoped(crate::catalog::Lang::En, || {
        summary(&[], &Limits::default())
    });
    assert!(table.contains("|---|---|---|---|---|"), "{table}");
    assert_eq!(cell("a|b\nc"), "a\\|b\\nc");
    let _ = std::fs::remove_dir_all(&dir);
}

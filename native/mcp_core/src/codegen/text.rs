//! Server text made safe for generated source: the sanitizer cage for doc
//! comments ([`sanitize`], [`truncate`], [`wrap`]), the string-literal
//! escaper ([`escape`]) and the `@` backstop ([`scan_for_at`]).

use std::fmt::Write as _;

/// Cap for a tool description, in characters.
pub const DESCRIPTION_CHARS: usize = 400;

/// Cap for a note (a parameter description or a planner reason), in characters.
pub const NOTE_CHARS: usize = 120;

/// What a truncated text ends with (one character, counted in the cap).
const ELLIPSIS: char = '\u{2026}';

/// Codepoints that change text direction or mark it invisibly; removed.
fn is_direction_mark(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` fit for a doc comment: whitespace of every kind (line breaks
/// included: `\n`, `\r`, U+0085, U+2028, U+2029) folds to one space, every
/// other control (C0, DEL, C1) and direction-changing codepoint is removed,
/// both ends are trimmed, and the result is capped at `max_chars` by
/// [`truncate`]. The result never holds a control character.
pub fn sanitize(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = true;
        } else if !c.is_control() && !is_direction_mark(c) {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
    truncate(&out, max_chars)
}

/// At most `max_chars` characters of `text`, cut at a character boundary;
/// a cut text ends in `…` (counted in the cap) with no space before it.
pub fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some(_) if max_chars == 0 => String::new(),
        Some(_) => {
            let kept: String = text.chars().take(max_chars - 1).collect();
            let mut out = kept.trim_end().to_owned();
            out.push(ELLIPSIS);
            out
        }
    }
}

/// A Gleam string literal (quotes included) holding exactly `text`: `\` and
/// `"` are escaped, printable ASCII is kept, and every other codepoint is
/// written `\u{X}` in lowercase hex. Total, and the output is pure
/// printable ASCII.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            ' '..='~' => out.push(c),
            _ => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// Greedy word wrap of sanitized (single-spaced) text into lines of at most
/// `width` characters; a word longer than `width` is split.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_chars = 0;
    for word in text.split(' ').filter(|word| !word.is_empty()) {
        let word_chars = word.chars().count();
        if line_chars > 0 && line_chars + 1 + word_chars > width {
            lines.push(std::mem::take(&mut line));
            line_chars = 0;
        }
        if line_chars > 0 {
            line.push(' ');
            line_chars += 1;
        }
        for c in word.chars() {
            if line_chars == width {
                lines.push(std::mem::take(&mut line));
                line_chars = 0;
            }
            line.push(c);
            line_chars += 1;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `Ok` when every `@` in `source` is inside a `//` comment or a string
/// literal; otherwise the byte offset of the first one outside. Generated
/// code needs no attribute, so an `@` in code means the sanitizer failed.
/// An unterminated string literal runs to the end of the source.
pub fn scan_for_at(source: &str) -> Result<(), usize> {
    scan_for_at_bytes(source.as_bytes())
}

/// [`scan_for_at`] over raw bytes (the delimiters are ASCII, so UTF-8 is not
/// needed to find them).
pub fn scan_for_at_bytes(bytes: &[u8]) -> Result<(), usize> {
    enum State {
        Code,
        StringLiteral,
        Comment,
    }
    let mut state = State::Code;
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        match state {
            State::Code => match byte {
                b'@' => return Err(index),
                b'"' => state = State::StringLiteral,
                b'/' if bytes.get(index + 1) == Some(&b'/') => state = State::Comment,
                _ => {}
            },
            State::StringLiteral => match byte {
                b'\\' => index += 1,
                b'"' => state = State::Code,
                _ => {}
            },
            State::Comment => {
                if byte == b'\n' {
                    state = State::Code;
                }
            }
        }
        index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_folds_whitespace_and_line_breaks() {
        assert_eq!(sanitize("  one\ntwo\r\n\tthree  ", 400), "one two three");
        assert_eq!(sanitize("a\u{2028}b\u{2029}c\u{85}d", 400), "a b c d");
    }

    #[test]
    fn sanitize_removes_controls_and_direction_marks() {
        assert_eq!(sanitize("a\u{0}b\u{7f}c\u{9b}d", 400), "abcd");
        let marks = "x\u{200E}\u{200F}\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{061C}y";
        assert_eq!(sanitize(marks, 400), "xy");
    }

    #[test]
    fn sanitize_keeps_other_text_including_at_signs() {
        assert_eq!(sanitize("@external(erlang, \"os\", \"cmd\") */ caf\u{e9}", 400), "@external(erlang, \"os\", \"cmd\") */ caf\u{e9}");
    }

    #[test]
    fn truncate_keeps_n_characters_and_cuts_n_plus_one() {
        assert_eq!(truncate("abcde", 5), "abcde");
        assert_eq!(truncate("abcdef", 5), "abcd\u{2026}");
        assert_eq!(truncate("\u{e9}\u{e9}\u{e9}", 2), "\u{e9}\u{2026}");
        assert_eq!(truncate("ab cdef", 4), "ab\u{2026}");
        assert_eq!(truncate("abc", 0), "");
        assert_eq!(truncate("", 0), "");
    }

    #[test]
    fn sanitize_caps_after_folding() {
        assert_eq!(sanitize(&"x".repeat(10_000), 400).chars().count(), 400);
        assert_eq!(sanitize(&"x ".repeat(200), 400), "x ".repeat(200).trim_end());
    }

    #[test]
    fn escape_is_total_and_ascii() {
        assert_eq!(escape("plain name"), "\"plain name\"");
        assert_eq!(escape("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(escape("line\nbreak\u{7f}"), "\"line\\u{a}break\\u{7f}\"");
        assert_eq!(escape("\u{202E}\u{1F600}"), "\"\\u{202e}\\u{1f600}\"");
        assert_eq!(escape(""), "\"\"");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_splits_long_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap("", 5), Vec::<String>::new());
        assert_eq!(wrap("ab abcdef", 4), vec!["ab", "abcd", "ef"]);
    }

    #[test]
    fn scan_for_at_accepts_at_in_comments_and_strings() {
        assert_eq!(scan_for_at("/// @external(erlang)\nfn x() { \"@\" }\n"), Ok(()));
        assert_eq!(scan_for_at("let s = \"a\\\"@\""), Ok(()));
        assert_eq!(scan_for_at("\"unterminated @"), Ok(()));
    }

    #[test]
    fn scan_for_at_finds_the_first_at_in_code() {
        assert_eq!(scan_for_at("@external"), Err(0));
        assert_eq!(scan_for_at("// c\n@x"), Err(5));
        assert_eq!(scan_for_at("\"s\" @x @y"), Err(4));
        assert_eq!(scan_for_at("a / @b"), Err(4));
        assert_eq!(scan_for_at("\"\\\\\"@"), Err(4));
    }

    proptest::proptest! {
        #[test]
        fn sanitized_text_is_capped_and_has_no_control_or_break(text in "\\PC*|.*", cap in 0usize..50) {
            let clean = sanitize(&text, cap);
            proptest::prop_assert!(clean.chars().count() <= cap);
            let breaks_or_marks = |c: char| c.is_control() || is_direction_mark(c) || c == '\u{2028}' || c == '\u{2029}';
            proptest::prop_assert!(!clean.chars().any(breaks_or_marks));
            proptest::prop_assert!(!clean.starts_with(' ') && !clean.ends_with(' ') && !clean.contains("  "));
        }

        #[test]
        fn escaped_literals_are_one_string_with_no_at_outside(text in "(?s).*") {
            let literal = escape(&text);
            proptest::prop_assert!(literal.bytes().all(|b| (b' '..=b'~').contains(&b)));
            proptest::prop_assert_eq!(scan_for_at(&format!("{literal}x")), Ok(()));
            proptest::prop_assert_eq!(scan_for_at(&format!("{literal}@")), Err(literal.len()));
        }

        #[test]
        fn wrapped_lines_fit_and_keep_every_character(text in "[a-z ]{0,200}", width in 1usize..30) {
            let folded = sanitize(&text, 1000);
            let lines = wrap(&folded, width);
            proptest::prop_assert!(lines.iter().all(|line| line.chars().count() <= width && !line.is_empty()));
            proptest::prop_assert_eq!(lines.concat().replace(' ', ""), folded.replace(' ', ""));
        }
    }
}

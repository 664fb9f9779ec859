//! Server text made safe for generated source: the sanitizer cage for doc
//! comments ([`sanitize`], [`truncate`], [`prose`], [`wrap`]), the
//! string-literal escaper ([`escape`]) and the `@` backstop ([`scan_for_at`]).
//!
//! Invariant: nothing returned for a comment holds a control character, a
//! line break or a direction mark; the only line breaks in a doc comment are
//! the ones the generator writes between the lines [`wrap`] and [`prose`]
//! hand it.

use std::fmt::Write as _;

/// Cap for a tool description, in characters (after sanitizing, counted over
/// its paragraphs and list items). The longest description of the six real
/// servers in `test/fixtures/codegen/` (sequential-thinking's) is 2,781.
pub const DESCRIPTION_CHARS: usize = 3000;

/// Cap for a note: a parameter's description (or title) or a planner
/// reason, in characters. The longest of the six real servers' is 199.
pub const NOTE_CHARS: usize = 400;

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

/// At most `max_chars` characters of `text`. A cut text ends in `…`
/// (counted in the cap) and is cut where it reads best: after the last
/// sentence end (`. `, `! `, `? `; then ` …`) in the second half of what
/// fits, else at the last space there (then `…`), else mid-word.
pub fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some(_) if max_chars == 0 => String::new(),
        Some(_) => {
            let kept: String = text.chars().take(max_chars - 1).collect();
            // Byte offsets; the delimiters are ASCII, so they are boundaries.
            let half = kept.len() / 2;
            let sentence_end = kept
                .match_indices(". ")
                .chain(kept.match_indices("! "))
                .chain(kept.match_indices("? "))
                .map(|(at, _)| at + 1)
                .filter(|&end| end > half)
                .max();
            let mut out = match (sentence_end, kept.rfind(' ')) {
                (Some(end), _) => format!("{} ", &kept[..end]),
                (None, Some(space)) if space > half => kept[..space].trim_end().to_owned(),
                _ => kept.trim_end().to_owned(),
            };
            out.push(ELLIPSIS);
            out
        }
    }
}

/// One paragraph or list item of a description, sanitized, on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// `""` for a paragraph, `"- "` for a bullet, `"3. "` for a numbered item.
    pub marker: String,
    /// 0, or 1 for an item indented under another item.
    pub depth: usize,
    /// Whether an empty line came before it in the server's text.
    pub after_blank: bool,
    pub text: String,
}

/// Whether `c` ends a line of server text.
fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// The list marker a sanitized line starts with, normalized (`*`, `•`, `+`
/// and `-` become `- `; `12.` and `12)` become `12. `), and the rest.
fn list_marker(line: &str) -> Option<(String, &str)> {
    for bullet in ["- ", "* ", "\u{2022} ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return Some(("- ".to_owned(), rest));
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = line.get(digits..)?;
    match (digits, rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") "))) {
        (1..=3, Some(rest)) => Some((format!("{}. ", &line[..digits]), rest)),
        _ => None,
    }
}

/// `text` as sanitized paragraphs and list items: a blank line ends a
/// paragraph, a line starting with a list marker starts an item (indented
/// under the previous item when it is indented more), and any other line
/// continues the current block. The texts are capped at `max_chars` in
/// total: the block where the cap falls is [`truncate`]d and later ones are
/// dropped.
pub fn prose(text: &str, max_chars: usize) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut open = false;
    let mut base_indent = 0;
    let mut budget = max_chars;
    let mut after_blank = false;
    let text = text.replace("\r\n", "\n");
    for raw_line in text.split(is_line_break) {
        if budget == 0 {
            break;
        }
        let indent = raw_line.chars().take_while(|c| c.is_whitespace()).count();
        let line = sanitize(raw_line, usize::MAX);
        if line.is_empty() {
            open = false;
            after_blank = !blocks.is_empty();
            continue;
        }
        let (new_block, line) = match list_marker(&line) {
            Some((marker, rest)) => {
                let nested = open && blocks.last().is_some_and(|block| !block.marker.is_empty()) && indent > base_indent;
                if !nested {
                    base_indent = indent;
                }
                (Some(Block { marker, depth: usize::from(nested), after_blank, text: String::new() }), rest.to_owned())
            }
            None if open => (None, line),
            None => (Some(Block { marker: String::new(), depth: 0, after_blank, text: String::new() }), line),
        };
        match new_block {
            Some(block) => blocks.push(block),
            None => {
                if let Some(current) = blocks.last_mut() {
                    current.text.push(' ');
                    budget = budget.saturating_sub(1);
                }
            }
        }
        after_blank = false;
        let Some(block) = blocks.last_mut() else { continue };
        let chars = line.chars().count();
        if chars > budget {
            block.text.push_str(&truncate(&line, budget));
            budget = 0;
        } else {
            block.text.push_str(&line);
            budget -= chars;
        }
        open = true;
    }
    blocks.retain(|block| !block.text.trim().is_empty());
    for block in &mut blocks {
        block.text = block.text.trim().to_owned();
    }
    blocks
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
/// `width` characters. A longer word (a URL, a path) gets a line of its own
/// rather than being cut, unless it is longer than twice `width`: then it is
/// split into `width`-character pieces, so no line exceeds `2 * width`.
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
        let split_at = if word_chars > 2 * width { width } else { usize::MAX };
        for c in word.chars() {
            if line_chars == split_at {
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
    fn truncate_prefers_a_sentence_then_a_word_boundary() {
        let text = "First sentence here. Second sentence runs on and on";
        assert_eq!(truncate(text, 30), "First sentence here. \u{2026}");
        assert_eq!(truncate("alpha beta gamma delta", 15), "alpha beta\u{2026}");
        assert_eq!(truncate("a. bcdefghijklmnop", 10), "a. bcdefg\u{2026}");
        let cut = truncate(&"word ".repeat(100), 42);
        assert!(cut.chars().count() <= 42 && cut.ends_with("word\u{2026}"), "{cut}");
    }

    fn block(marker: &str, depth: usize, after_blank: bool, text: &str) -> Block {
        Block { marker: marker.to_owned(), depth, after_blank, text: text.to_owned() }
    }

    #[test]
    fn prose_keeps_paragraphs_and_list_items() {
        let text = "Intro line one\nline two.\n\nWhen:\n- first\n  * nested\n* second\r\n\n1. one\n12) twelve\nmore";
        assert_eq!(
            prose(text, 1000),
            vec![
                block("", 0, false, "Intro line one line two."),
                block("", 0, true, "When:"),
                block("- ", 0, false, "first"),
                block("- ", 1, false, "nested"),
                block("- ", 0, false, "second"),
                block("1. ", 0, true, "one"),
                block("12. ", 0, false, "twelve more"),
            ]
        );
    }

    #[test]
    fn prose_treats_every_line_break_alike_and_drops_controls() {
        let text = "a\u{2028}b\u{2029}c\u{85}d\re\u{202e}\u{0}";
        assert_eq!(prose(text, 100), vec![block("", 0, false, "a b c d e")]);
        assert_eq!(prose(" \n\t\n", 100), vec![]);
    }

    #[test]
    fn prose_is_capped_in_total() {
        let text = "one two three\n\nfour five six\n\nseven";
        let capped = prose(text, 20);
        assert_eq!(capped, vec![block("", 0, false, "one two three"), block("", 0, true, "four\u{2026}")]);
        let total: usize = prose(&"x ".repeat(5000), 3000).iter().map(|b| b.text.chars().count()).sum();
        assert!(total <= 3000);
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
        assert_eq!(wrap("ab abcdef", 4), vec!["ab", "abcdef"]);
        assert_eq!(wrap("ab abcdefghi", 4), vec!["ab", "abcd", "efgh", "i"]);
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
            let fits = |line: &String| line.chars().count() <= width || (!line.contains(' ') && line.chars().count() <= 2 * width);
            proptest::prop_assert!(lines.iter().all(|line| fits(line) && !line.is_empty()));
            proptest::prop_assert_eq!(lines.concat().replace(' ', ""), folded.replace(' ', ""));
        }
    }
}

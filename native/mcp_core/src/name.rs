//! The name mangler (the `mcp/name` module): a server-chosen string into a
//! valid Gleam lowercase identifier (`[a-z][a-z0-9_]*`, not a keyword).
//!
//! Invariants:
//! - The result is always a valid identifier, for every input string.
//! - Names ([`mangle`]: tools and servers, which share one module scope):
//!   whenever mangling changed anything, or the name ran past
//!   [`MAX_NAME_CHARS`] characters (then it is truncated), the result ends in
//!   `_` plus the first eight characters of `digest(original)`, so
//!   `createIssue` and `create_issue` stay distinct and a name's form never
//!   depends on its neighbours. A name that is already a valid identifier of
//!   at most [`MAX_NAME_CHARS`] characters is returned unchanged.
//! - Labels ([`mangle_label`]: parameters, whose scope is one function) are
//!   plain snake_case, so a caller can guess them (`dryRun` → `dry_run`); a
//!   reserved word gets a trailing `_` (`type` → `type_`), and only a label
//!   with no ASCII letter or digit falls back to `unnamed_<digest>`. Two
//!   labels of one tool that come out equal are the planner's business: the
//!   tool degrades to its whole-value form.
//! - The digest is injected (`fn(&str) -> String`, lowercase hex over the
//!   UTF-8 bytes; SHA-256 in production) so tests can force a collision.
//! - Mangled names are display only: wire names travel verbatim.

use std::collections::HashMap;

/// The digest the suffix is taken from: lowercase hex over the UTF-8 bytes.
pub type Digest = fn(&str) -> String;

/// Characters of the mangled name kept before the digest suffix.
pub const MAX_NAME_CHARS: usize = 32;

/// Hex characters of the digest appended to a changed name.
pub const DIGEST_CHARS: usize = 8;

/// Names no mangled identifier may be: Gleam's keywords and reserved words,
/// and the module aliases a generated body refers to (`internal.invoke`,
/// `mcp.string`, `list.map`, the `report` import), which a function or
/// parameter of that name would shadow.
const RESERVED: &[&str] = &[
    "as", "assert", "auto", "case", "const", "delegate", "derive", "echo", "else", "fn", "if", "implement", "import",
    "let", "macro", "opaque", "panic", "pub", "test", "todo", "type", "use", // keywords
    "internal", "list", "mcp", "report", // import aliases of the generated module
];

/// What a name with no usable character becomes (before its digest suffix).
const EMPTY_STAND_IN: &str = "unnamed";

/// Prefix for a name that would start with a digit.
const DIGIT_PREFIX: &str = "n_";

/// A server-chosen name (a tool or server) as a Gleam identifier.
pub fn mangle(name: &str, digest: Digest) -> String {
    let mut base = snake_case(name);
    if base.is_empty() {
        base.push_str(EMPTY_STAND_IN);
    } else if base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert_str(0, DIGIT_PREFIX);
    }
    let too_long = name.chars().count() > MAX_NAME_CHARS;
    let changed = base != name || RESERVED.contains(&base.as_str());
    if !changed && !too_long {
        return base;
    }
    // `base` is ASCII, so a byte index is a character boundary.
    base.truncate(MAX_NAME_CHARS);
    while base.ends_with('_') {
        base.pop();
    }
    base.push('_');
    base.push_str(&suffix(name, digest));
    base
}

/// The [`DIGEST_CHARS`] characters of `digest(name)` a changed name (and
/// `unnamed_<digest>`) carries: its first lowercase hex characters.
pub fn suffix(name: &str, digest: Digest) -> String {
    digest(name).chars().filter(|c| c.is_ascii_digit() || c.is_ascii_lowercase()).take(DIGEST_CHARS).collect()
}

/// Appended to a label that would be a reserved word.
const RESERVED_LABEL_SUFFIX: char = '_';

/// A server-chosen parameter name as a Gleam label and variable: its
/// snake_case (as in [`mangle`], never truncated, no digest); `n_` in front
/// of a leading digit; a trailing `_` on a keyword or import alias; and
/// `unnamed_<digest>` for a name with no ASCII letter or digit (so two such
/// labels of one tool stay distinct).
pub fn mangle_label(name: &str, digest: Digest) -> String {
    let mut base = snake_case(name);
    if base.is_empty() {
        return mangle(name, digest);
    }
    if base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert_str(0, DIGIT_PREFIX);
    }
    if RESERVED.contains(&base.as_str()) {
        base.push(RESERVED_LABEL_SUFFIX);
    }
    base
}

/// The first pair of originals (in list order: the earlier one first) whose
/// mangled forms are equal, judged by `mangler`; byte-identical originals
/// count as a collision.
pub fn first_collision_by<'a, S: AsRef<str>>(
    names: &'a [S],
    mangler: impl Fn(&str) -> String,
) -> Option<(&'a str, &'a str)> {
    let mut seen: HashMap<String, &'a str> = HashMap::with_capacity(names.len());
    for name in names {
        let name = name.as_ref();
        let mangled = mangler(name);
        if let Some(earlier) = seen.get(&mangled) {
            return Some((earlier, name));
        }
        seen.insert(mangled, name);
    }
    None
}

/// [`first_collision_by`] under [`mangle`].
pub fn first_collision<S: AsRef<str>>(names: &[S], digest: Digest) -> Option<(&str, &str)> {
    first_collision_by(names, |name| mangle(name, digest))
}

/// Lowercase snake_case over `[a-z0-9_]`: camelCase humps and acronym ends
/// become `_`, every other character becomes `_`, runs of `_` fold to one,
/// and `_` is trimmed from both ends.
fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    let mut pending_separator = false;
    for (index, &c) in chars.iter().enumerate() {
        let previous = index.checked_sub(1).and_then(|i| chars.get(i)).copied();
        let next = chars.get(index + 1).copied();
        if c.is_ascii_uppercase() {
            let after_lower_or_digit = previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            let acronym_end = previous.is_some_and(|p| p.is_ascii_uppercase()) && next.is_some_and(|n| n.is_ascii_lowercase());
            if after_lower_or_digit || acronym_end {
                pending_separator = true;
            }
            push_word_char(&mut out, &mut pending_separator, c.to_ascii_lowercase());
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            push_word_char(&mut out, &mut pending_separator, c);
        } else {
            pending_separator = true;
        }
    }
    out
}

fn push_word_char(out: &mut String, pending_separator: &mut bool, c: char) {
    if *pending_separator && !out.is_empty() {
        out.push('_');
    }
    *pending_separator = false;
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in digest: the hex of the name's length, padded, so tests can
    /// predict the suffix without SHA-256.
    fn fake_digest(name: &str) -> String {
        format!("{:08x}", name.len())
    }

    fn constant_digest(_: &str) -> String {
        "deadbeefcafe".to_owned()
    }

    fn is_identifier(text: &str) -> bool {
        let mut chars = text.chars();
        chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !RESERVED.contains(&text)
    }

    #[test]
    fn a_valid_identifier_is_unchanged() {
        assert_eq!(mangle("create_issue", fake_digest), "create_issue");
        assert_eq!(mangle("a", fake_digest), "a");
        assert_eq!(mangle("v2", fake_digest), "v2");
    }

    #[test]
    fn camel_case_becomes_snake_case_with_a_digest() {
        assert_eq!(mangle("createIssue", fake_digest), "create_issue_0000000b");
        assert_eq!(mangle("HTTPServer", fake_digest), "http_server_0000000a");
        assert_eq!(mangle("getV2Items", fake_digest), "get_v2_items_0000000a");
    }

    #[test]
    fn kebab_dotted_and_spaced_names_become_snake_case() {
        assert_eq!(mangle("get-sum", fake_digest), "get_sum_00000007");
        assert_eq!(mangle("repo.list", fake_digest), "repo_list_00000009");
        assert_eq!(mangle("  two  words ", fake_digest), "two_words_0000000d");
        assert_eq!(mangle("caf\u{e9}", fake_digest), "caf_00000005");
    }

    #[test]
    fn leading_digit_empty_and_symbol_only_names_are_made_safe() {
        assert_eq!(mangle("3d", fake_digest), "n_3d_00000002");
        assert_eq!(mangle("", fake_digest), "unnamed_00000000");
        assert_eq!(mangle("@@", fake_digest), "unnamed_00000002");
        assert_eq!(mangle("_private", fake_digest), "private_00000008");
    }

    #[test]
    fn keywords_and_import_aliases_get_a_digest() {
        assert_eq!(mangle("type", fake_digest), "type_00000004");
        assert_eq!(mangle("echo", fake_digest), "echo_00000004");
        assert_eq!(mangle("list", fake_digest), "list_00000004");
        assert_eq!(mangle("report", fake_digest), "report_00000006");
    }

    #[test]
    fn labels_are_plain_snake_case() {
        assert_eq!(mangle_label("owner", fake_digest), "owner");
        assert_eq!(mangle_label("dryRun", fake_digest), "dry_run");
        assert_eq!(mangle_label("dry_run", fake_digest), "dry_run");
        assert_eq!(mangle_label("nextThoughtNeeded", fake_digest), "next_thought_needed");
        assert_eq!(mangle_label("HTTPServer", fake_digest), "http_server");
        assert_eq!(mangle_label("repo-path", fake_digest), "repo_path");
        assert_eq!(mangle_label("_private", fake_digest), "private");
        assert_eq!(mangle_label("caf\u{e9}s", fake_digest), "caf_s");
        assert_eq!(mangle_label("3d", fake_digest), "n_3d");
        let long = "a".repeat(40);
        assert_eq!(mangle_label(&long, fake_digest), long);
    }

    #[test]
    fn reserved_labels_get_a_trailing_underscore() {
        assert_eq!(mangle_label("type", fake_digest), "type_");
        assert_eq!(mangle_label("use", fake_digest), "use_");
        assert_eq!(mangle_label("list", fake_digest), "list_");
        assert_eq!(mangle_label("mcp", fake_digest), "mcp_");
        assert_eq!(mangle_label("Internal", fake_digest), "internal_");
        assert_eq!(mangle_label("report", fake_digest), "report_");
    }

    #[test]
    fn labels_without_an_ascii_letter_or_digit_fall_back_to_a_digest() {
        assert_eq!(mangle_label("", fake_digest), "unnamed_00000000");
        assert_eq!(mangle_label("\u{540d}\u{524d}", fake_digest), "unnamed_00000006");
        assert_eq!(mangle_label("--", fake_digest), "unnamed_00000002");
    }

    #[test]
    fn thirty_two_characters_pass_and_thirty_three_are_truncated() {
        let at_limit = "a".repeat(32);
        assert_eq!(mangle(&at_limit, fake_digest), at_limit);
        let over = "a".repeat(33);
        assert_eq!(mangle(&over, fake_digest), format!("{}_00000021", "a".repeat(32)));
    }

    #[test]
    fn truncation_drops_a_trailing_separator_before_the_suffix() {
        let name = format!("{}_b", "a".repeat(31)) + "cdef";
        assert_eq!(mangle(&name, fake_digest), format!("{}_00000025", "a".repeat(31)));
    }

    #[test]
    fn the_suffix_keeps_only_eight_lowercase_hex_characters() {
        assert_eq!(mangle("X", constant_digest), "x_deadbeef");
        assert_eq!(mangle("X", |_| "AB-cd".to_owned()), "x_cd");
    }

    #[test]
    fn first_collision_names_the_earlier_original_first() {
        let names = ["alpha", "createIssue", "beta", "createIssue"];
        assert_eq!(first_collision(&names, fake_digest), Some(("createIssue", "createIssue")));
        let distinct = ["createIssue", "create_issue", "create-issue"];
        assert_eq!(first_collision(&distinct, fake_digest), None);
    }

    #[test]
    fn a_forced_digest_collision_is_found() {
        let names = ["createIssue", "create-issue"];
        assert_eq!(first_collision(&names, constant_digest), Some(("createIssue", "create-issue")));
    }

    proptest::proptest! {
        #[test]
        fn every_name_mangles_to_an_identifier(name in ".*") {
            let mangled = mangle(&name, fake_digest);
            proptest::prop_assert!(is_identifier(&mangled), "{:?} -> {:?}", name, mangled);
            proptest::prop_assert!(mangled.len() <= MAX_NAME_CHARS + 1 + DIGEST_CHARS);
            let label = mangle_label(&name, fake_digest);
            proptest::prop_assert!(is_identifier(&label), "{:?} -> label {:?}", name, label);
        }

        #[test]
        fn an_unchanged_name_was_already_a_short_identifier(name in "[a-zA-Z0-9_-]{0,40}") {
            let mangled = mangle(&name, fake_digest);
            if mangled == name {
                proptest::prop_assert!(is_identifier(&name) && name.len() <= MAX_NAME_CHARS);
            } else {
                proptest::prop_assert!(mangled.ends_with(&fake_digest(&name)));
            }
        }
    }
}

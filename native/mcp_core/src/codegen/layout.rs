//! Laying out generated Gleam code exactly as `gleam format` (Gleam 1.17)
//! would, so a generated module is byte-identical to its formatted self.
//!
//! This is a port of the small part of the formatter the generator needs:
//! its document algebra and printer (Lindig's "Strictly Pretty" with
//! Gleam's `ForceBroken` and `NextBreakFits` extensions, `compiler-core/src/
//! pretty.rs`) and the document shapes `compiler-core/src/format.rs` builds
//! for the constructs a generated function uses: a function definition with
//! labelled, annotated parameters, calls (with the "last argument hugs"
//! rule), tuples, a list written with a trailing comma (always one element
//! per line), an anonymous function and qualified names.
//!
//! Invariants:
//! - Only code goes through here; doc comments are written verbatim by the
//!   caller (the formatter never reflows them).
//! - Every string handed to [`Doc::text`] is printable ASCII (identifiers and
//!   [`super::escape`]d literals), so its width is its byte length, which is
//!   what the formatter counts (grapheme clusters) for such text.
//! - Documents are built by the generator with a fixed, small nesting depth,
//!   and the printer keeps its own work queue, so nothing recurses on input.

use std::collections::VecDeque;

/// The formatter's line width. Code is laid out at it, and doc comment lines
/// (`/// ` included) are wrapped at it too (a single word longer than a
/// line may pass it, see `text::wrap`).
pub(super) const LINE_WIDTH: usize = 80;

/// The formatter's indentation step.
const INDENT: usize = 2;

/// A document: text with the places it may break.
#[derive(Debug, Clone)]
pub enum Doc {
    Text(String),
    /// A mandatory line break.
    Line,
    /// `broken` then a newline when its group is broken, else `unbroken`.
    Break { broken: &'static str, unbroken: &'static str },
    /// Indent the inner document (only when its group is broken, if `if_broken`).
    Nest { if_broken: bool, doc: Box<Doc> },
    Group(Box<Doc>),
    ForceBroken(Box<Doc>),
    /// `enabled`: the next break counts as fitting; disabled: undo an outer one.
    NextBreakFits { enabled: bool, doc: Box<Doc> },
    Seq(Vec<Doc>),
}

impl Doc {
    pub fn text(text: impl Into<String>) -> Doc {
        Doc::Text(text.into())
    }

    fn group(self) -> Doc {
        Doc::Group(Box::new(self))
    }

    fn nest(self) -> Doc {
        Doc::Nest { if_broken: false, doc: Box::new(self) }
    }

    fn nest_if_broken(self) -> Doc {
        Doc::Nest { if_broken: true, doc: Box::new(self) }
    }

    fn force_break(self) -> Doc {
        Doc::ForceBroken(Box::new(self))
    }

    fn next_break_fits(self, enabled: bool) -> Doc {
        Doc::NextBreakFits { enabled, doc: Box::new(self) }
    }
}

fn strict_break(broken: &'static str, unbroken: &'static str) -> Doc {
    Doc::Break { broken, unbroken }
}

fn join(docs: Vec<Doc>, separator: impl Fn() -> Doc) -> Vec<Doc> {
    let mut joined = Vec::with_capacity(docs.len() * 2);
    for (index, doc) in docs.into_iter().enumerate() {
        if index > 0 {
            joined.push(separator());
        }
        joined.push(doc);
    }
    joined
}

/// An expression, with what the formatter needs to know about its kind.
pub struct Expr {
    doc: Doc,
    kind: ExprKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ExprKind {
    /// A name, a qualified name or a literal: never breaks.
    Atom,
    Call,
    /// A list, tuple or anonymous function.
    Breakable,
}

impl Expr {
    /// A name, a `module.name` or a string literal.
    pub fn atom(text: impl Into<String>) -> Expr {
        Expr { doc: Doc::text(text), kind: ExprKind::Atom }
    }

    /// `function(arguments…)`.
    pub fn call(function: &str, arguments: Vec<Expr>) -> Expr {
        let arity = arguments.len();
        Expr { doc: inlinable_wrapped_args(Doc::text(function), arguments, arity), kind: ExprKind::Call }
    }

    /// `#(elements…)`.
    pub fn tuple(elements: Vec<Expr>) -> Expr {
        let elements = elements.into_iter().map(|e| Expr { doc: e.doc.group(), kind: e.kind }).collect::<Vec<_>>();
        let arity = elements.len();
        Expr { doc: inlinable_wrapped_args(Doc::text("#"), elements, arity), kind: ExprKind::Breakable }
    }

    /// A list written one element per line with a trailing comma, which the
    /// formatter keeps broken (`[]` when empty).
    pub fn broken_list(elements: Vec<Expr>) -> Expr {
        if elements.is_empty() {
            return Expr { doc: Doc::text("[]"), kind: ExprKind::Breakable };
        }
        let items = join(elements.into_iter().map(|e| e.doc.group()).collect(), || strict_break(",", ", "));
        let opened = Doc::Seq(vec![strict_break("[", "["), Doc::Seq(items).next_break_fits(false)]).nest();
        let doc = Doc::Seq(vec![opened, strict_break(",", ""), Doc::text("]")]).force_break();
        Expr { doc, kind: ExprKind::Breakable }
    }

    /// `fn(parameter) { body }` (one untyped parameter, one expression).
    pub fn anonymous_fn(parameter: &str, body: Expr) -> Expr {
        let parameters = wrap_args(vec![Doc::text(parameter).group()]).group().next_break_fits(false);
        let block = Doc::Seq(vec![
            Doc::Seq(vec![strict_break("{", "{ "), Doc::Seq(vec![body.doc.group()])]).nest(),
            strict_break("", " "),
            Doc::text("}"),
        ]);
        let doc = Doc::Seq(vec![Doc::text("fn"), parameters, Doc::text(" "), block]).group();
        Expr { doc, kind: ExprKind::Breakable }
    }
}

/// Whether the formatter lets this last argument break before the others.
fn is_breakable_argument(kind: ExprKind, arity: usize) -> bool {
    match kind {
        ExprKind::Call => arity == 1,
        ExprKind::Breakable => true,
        ExprKind::Atom => false,
    }
}

/// `format.rs`'s `append_inlinable_wrapped_args`: when the last argument
/// can break, it is tried broken before every argument goes on its own line.
fn inlinable_wrapped_args(head: Doc, mut arguments: Vec<Expr>, arity: usize) -> Doc {
    match arguments.pop() {
        Some(last) if is_breakable_argument(last.kind, arity) => {
            let mut docs: Vec<Doc> = arguments.into_iter().map(|argument| argument.doc).collect();
            docs.push(last.doc.group().next_break_fits(true));
            Doc::Seq(vec![head, function_call_args(docs)]).next_break_fits(false).group()
        }
        last => {
            let mut docs: Vec<Doc> = arguments.into_iter().map(|argument| argument.doc).collect();
            docs.extend(last.map(|argument| argument.doc));
            Doc::Seq(vec![head, function_call_args(docs)]).group()
        }
    }
}

/// `format.rs`'s `wrap_function_call_args`.
fn function_call_args(docs: Vec<Doc>) -> Doc {
    if docs.is_empty() {
        return Doc::text("()");
    }
    let mut inner = vec![strict_break("", "")];
    inner.extend(join(docs, || strict_break(",", ", ")));
    Doc::Seq(vec![Doc::text("("), Doc::Seq(inner).nest_if_broken(), strict_break(",", ""), Doc::text(")")]).group()
}

/// `format.rs`'s `wrap_args` (parameters of a definition or an anonymous fn).
fn wrap_args(docs: Vec<Doc>) -> Doc {
    if docs.is_empty() {
        return Doc::text("()");
    }
    let mut opened = vec![strict_break("(", "(")];
    opened.extend(join(docs, || strict_break(",", ", ")));
    Doc::Seq(vec![Doc::Seq(opened).nest_if_broken(), strict_break(",", ""), Doc::text(")")])
}

/// A type annotation: a possibly qualified name applied to type arguments
/// (`mcp.Optional(List(String))`).
pub struct TypeExpr {
    name: String,
    arguments: Vec<TypeExpr>,
}

impl TypeExpr {
    pub fn new(name: &str, arguments: Vec<TypeExpr>) -> TypeExpr {
        TypeExpr { name: name.to_owned(), arguments }
    }

    fn doc(self) -> Doc {
        if self.arguments.is_empty() {
            return Doc::text(self.name).group();
        }
        let arguments = self.arguments.into_iter().map(TypeExpr::doc).collect();
        Doc::Seq(vec![Doc::text(self.name), wrap_args(arguments)]).group()
    }
}

/// `pub fn name(label name: Type, …) -> return_type {` body `}`, ending in
/// a newline; `body` is one expression.
pub fn public_function(name: &str, parameters: Vec<(String, TypeExpr)>, return_type: TypeExpr, body: Expr) -> String {
    let parameters = parameters
        .into_iter()
        .map(|(label, annotation)| {
            Doc::Seq(vec![Doc::text(format!("{label} {label}")), Doc::text(": "), annotation.doc()]).group()
        })
        .collect();
    // Gleam 1.17 measures the signature with its ` {` (checked against the
    // oracle: an 81-column `pub fn …(…) -> mcp.Outcome {` is broken).
    let signature = Doc::Seq(vec![
        Doc::text(format!("pub fn {name}")),
        wrap_args(parameters),
        Doc::text(" -> "),
        return_type.doc(),
        Doc::text(" {"),
    ])
    .group();
    let body = Doc::Seq(vec![Doc::Line, Doc::Seq(vec![body.doc.group()])]).nest().group();
    let definition = Doc::Seq(vec![signature, body, Doc::Line, Doc::text("}")]).group();
    let mut out = pretty(&definition);
    out.push('\n');
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Broken,
    Unbroken,
    ForcedBroken,
    ForcedUnbroken,
}

/// Whether the queued documents fit in `limit` columns from `width` (the
/// formatter's `fits`).
fn fits(limit: usize, mut width: usize, mut queue: VecDeque<(usize, Mode, &Doc)>) -> bool {
    loop {
        if width > limit {
            return false;
        }
        let Some((indent, mode, doc)) = queue.pop_front() else {
            return true;
        };
        match doc {
            Doc::ForceBroken(inner) => match mode {
                Mode::ForcedBroken => queue.push_front((indent, mode, inner)),
                Mode::Broken | Mode::Unbroken | Mode::ForcedUnbroken => return false,
            },
            Doc::Line => return true,
            Doc::Nest { if_broken: true, doc } => queue.push_front((indent, mode, doc)),
            Doc::Nest { if_broken: false, doc } => queue.push_front((indent + INDENT, mode, doc)),
            Doc::Group(inner) => {
                let mode = if mode == Mode::Broken { Mode::Unbroken } else { mode };
                queue.push_front((indent, mode, inner));
            }
            Doc::Text(text) => width += text.len(),
            Doc::Break { unbroken, .. } => match mode {
                Mode::Broken | Mode::ForcedBroken => return true,
                Mode::Unbroken | Mode::ForcedUnbroken => width += unbroken.len(),
            },
            Doc::NextBreakFits { enabled: false, doc } => queue.push_front((indent, Mode::ForcedUnbroken, doc)),
            Doc::NextBreakFits { enabled: true, doc } => {
                let mode = if mode == Mode::ForcedUnbroken { mode } else { Mode::ForcedBroken };
                queue.push_front((indent, mode, doc));
            }
            Doc::Seq(docs) => {
                for doc in docs.iter().rev() {
                    queue.push_front((indent, mode, doc));
                }
            }
        }
    }
}

/// The formatter's printer at [`LINE_WIDTH`], from column 0.
fn pretty(doc: &Doc) -> String {
    let mut out = String::new();
    let mut width = 0;
    let mut queue: VecDeque<(usize, Mode, &Doc)> = VecDeque::from([(0, Mode::Unbroken, doc)]);
    let newline = |out: &mut String, indent: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', indent));
    };
    while let Some((indent, mode, doc)) = queue.pop_front() {
        match doc {
            Doc::Line => {
                newline(&mut out, indent);
                width = indent;
            }
            Doc::Break { broken, unbroken } => match mode {
                Mode::Broken | Mode::ForcedBroken => {
                    out.push_str(broken);
                    newline(&mut out, indent);
                    width = indent;
                }
                Mode::Unbroken | Mode::ForcedUnbroken => {
                    out.push_str(unbroken);
                    width += unbroken.len();
                }
            },
            Doc::Text(text) => {
                out.push_str(text);
                width += text.len();
            }
            Doc::Seq(docs) => {
                for doc in docs.iter().rev() {
                    queue.push_front((indent, mode, doc));
                }
            }
            Doc::Nest { if_broken, doc } => {
                let indent = if !*if_broken || mode == Mode::Broken { indent + INDENT } else { indent };
                queue.push_front((indent, mode, doc));
            }
            Doc::Group(inner) => {
                let mode = if fits(LINE_WIDTH, width, VecDeque::from([(indent, Mode::Unbroken, &**inner)])) {
                    Mode::Unbroken
                } else {
                    Mode::Broken
                };
                queue.push_front((indent, mode, inner));
            }
            Doc::ForceBroken(inner) | Doc::NextBreakFits { doc: inner, .. } => queue.push_front((indent, mode, inner)),
        }
    }
    // A broken group never leaves trailing spaces in this module's shapes,
    // but an indented empty line would; the formatter writes none.
    out.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string_type() -> TypeExpr {
        TypeExpr::new("String", vec![])
    }

    fn outcome() -> TypeExpr {
        TypeExpr::new("mcp.Outcome", vec![])
    }

    #[test]
    fn a_short_function_stays_on_one_line_and_the_list_stays_broken() {
        let body = Expr::call(
            "internal.invoke",
            vec![
                Expr::atom("\"s\""),
                Expr::atom("\"t\""),
                Expr::broken_list(vec![Expr::tuple(vec![
                    Expr::atom("\"a\""),
                    Expr::call("mcp.string", vec![Expr::atom("a")]),
                ])]),
            ],
        );
        let text = public_function("f", vec![("a".to_owned(), string_type())], outcome(), body);
        assert_eq!(
            text,
            "pub fn f(a a: String) -> mcp.Outcome {\n  internal.invoke(\"s\", \"t\", [\n    #(\"a\", mcp.string(a)),\n  ])\n}\n"
        );
    }

    #[test]
    fn a_head_too_long_to_hug_breaks_every_argument() {
        let long = format!("\"{}\"", "x".repeat(70));
        let body = Expr::call("internal.invoke", vec![Expr::atom(long.clone()), Expr::atom("\"t\""), Expr::broken_list(vec![])]);
        let text = public_function("f", vec![], outcome(), body);
        assert_eq!(text, format!("pub fn f() -> mcp.Outcome {{\n  internal.invoke(\n    {long},\n    \"t\",\n    [],\n  )\n}}\n"));
    }

    #[test]
    fn a_long_signature_puts_one_parameter_per_line() {
        let parameters = (0..4).map(|i| (format!("parameter_{i}"), string_type())).collect();
        let body = Expr::call("internal.invoke_whole", vec![Expr::atom("\"s\""), Expr::atom("\"t\""), Expr::atom("x")]);
        let text = public_function("f", parameters, outcome(), body);
        assert!(text.starts_with("pub fn f(\n  parameter_0 parameter_0: String,\n"), "{text}");
        assert!(text.contains("\n) -> mcp.Outcome {\n"), "{text}");
    }
}

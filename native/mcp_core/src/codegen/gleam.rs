//! Rendering one planned tool as a documented Gleam function and as its
//! surface entry.
//!
//! Everything server-chosen reaches the output in one of three forms only:
//! a mangled identifier, an [`escape`]d string literal, or sanitized text
//! after `/// ` on a line this file breaks itself. Code goes through
//! [`layout`](super::layout), so it is laid out as `gleam format` would.

use super::facts::{allowed_values, default_value, hints, returns, shape};
use super::layout::{public_function, Expr, TypeExpr, LINE_WIDTH};
use super::text::{escape, prose, sanitize, wrap, Block, DESCRIPTION_CHARS, NOTE_CHARS};
use crate::json::Json;
use crate::name::{mangle, Digest};
use crate::protocol::ToolDescriptor;
use crate::schema::{plan, Param, ParamType, Plan, Scalar};

/// What a doc comment line starts with.
const DOC: &str = "/// ";

/// The name of the single parameter of a whole-value function.
const WHOLE_VALUE_PARAM: &str = "arguments";

/// Sentence endings after which a note's next fact needs no `.` of its own.
const SENTENCE_ENDS: &[char] = &['.', '!', '?', ':', '\u{2026}'];

/// One tool, planned and ready to render.
pub struct ToolFunction {
    name: String,
    wire_name: String,
    plan: Plan,
    /// The doc comment's lines, without their `/// ` (an empty line is `///`).
    doc: Vec<String>,
}

impl ToolFunction {
    pub fn new(tool: &ToolDescriptor, digest: Digest) -> ToolFunction {
        let plan = plan(&tool.input_schema, digest);
        let doc = doc_lines(tool, &plan);
        ToolFunction { name: mangle(&tool.name, digest), wire_name: tool.name.clone(), plan, doc }
    }

    /// Whether the body maps a list (so the module needs `gleam/list`).
    pub fn maps_a_list(&self) -> bool {
        match &self.plan {
            Plan::Typed(params) => params.iter().any(|param| matches!(param.param_type, ParamType::ListOf(_))),
            Plan::WholeValue(_) => false,
        }
    }

    /// The documented function, ending in a newline.
    pub fn render(&self, server_literal: &str, out: &mut String) {
        self.render_doc(out);
        let tool_literal = Expr::atom(escape(&self.wire_name));
        let (params, body) = match &self.plan {
            Plan::Typed(params) => {
                let declared = params.iter().map(|param| (param.label.clone(), source_type(param))).collect();
                let arguments = params
                    .iter()
                    .map(|param| Expr::tuple(vec![Expr::atom(escape(&param.wire_name)), argument(param)]))
                    .collect();
                let body = Expr::call(
                    "internal.invoke",
                    vec![Expr::atom(server_literal), tool_literal, Expr::broken_list(arguments)],
                );
                (declared, body)
            }
            Plan::WholeValue(_) => (
                vec![(WHOLE_VALUE_PARAM.to_owned(), TypeExpr::new("mcp.Value", vec![]))],
                Expr::call(
                    "internal.invoke_whole",
                    vec![Expr::atom(server_literal), tool_literal, Expr::atom(WHOLE_VALUE_PARAM)],
                ),
            ),
        };
        out.push_str(&public_function(&self.name, params, TypeExpr::new("mcp.Outcome", vec![]), body));
    }

    /// The surface entry: the same doc lines as the source, then
    /// `name: fn(label: Type, ...) -> Outcome`.
    pub fn render_surface(&self, out: &mut String) {
        self.render_doc(out);
        let params: Vec<String> = match &self.plan {
            Plan::Typed(params) => params.iter().map(|p| format!("{}: {}", p.label, surface_type(p))).collect(),
            Plan::WholeValue(_) => vec![format!("{WHOLE_VALUE_PARAM}: Value")],
        };
        out.push_str(&format!("{}: fn({}) -> Outcome\n", self.name, params.join(", ")));
    }

    fn render_doc(&self, out: &mut String) {
        for line in &self.doc {
            if line.is_empty() {
                out.push_str("///\n");
            } else {
                out.push_str(DOC);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
}

/// The doc comment: the description's paragraphs and lists (or the title),
/// the hints and returned shape, then one `- label: note` per parameter
/// with something to say (or the whole-value note); sections are separated
/// by an empty line.
fn doc_lines(tool: &ToolDescriptor, plan: &Plan) -> Vec<String> {
    let width = LINE_WIDTH - DOC.len();
    let described = tool.description.as_deref().filter(|text| !sanitize(text, 1).is_empty());
    let mut sections: Vec<Vec<String>> = vec![blocks_lines(&prose(described.or(tool.title.as_deref()).unwrap_or(""), DESCRIPTION_CHARS), width)];
    let facts: Vec<String> = [tool.annotations.as_ref().and_then(hints), tool.output_schema.as_ref().filter(|schema| matches!(schema, Json::Object(_))).map(returns)]
        .into_iter()
        .flatten()
        .flat_map(|fact| wrap(&fact, width))
        .collect();
    sections.push(facts);
    sections.push(match plan {
        Plan::WholeValue(reason) => wrap(
            &sentences(&[
                format!("Takes the whole arguments object as an mcp.Value ({}).", sanitize(reason, NOTE_CHARS)),
                format!("Shape: {}.", shape(&tool.input_schema, &tool.input_schema)),
            ]),
            width,
        ),
        Plan::Typed(params) => params_notes(params, &tool.input_schema)
            .into_iter()
            .zip(params)
            .filter(|(note, _)| !note.is_empty())
            .flat_map(|(note, param)| hanging_wrap("- ", &format!("{}: {}", param.label, note), width))
            .collect(),
    });
    let mut lines: Vec<String> = Vec::new();
    for section in sections.into_iter().filter(|section| !section.is_empty()) {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(section);
    }
    lines
}

/// Description blocks as lines, each wrapped with a hanging indent: an
/// empty line before a paragraph that follows anything, and before a list
/// item that had one in the server's text.
fn blocks_lines(blocks: &[Block], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for block in blocks {
        let is_item = !block.marker.is_empty();
        if !lines.is_empty() && (block.after_blank || !is_item) {
            lines.push(String::new());
        }
        let indent = "  ".repeat(block.depth);
        let marker = format!("{indent}{}", block.marker);
        lines.extend(hanging_wrap(&marker, &block.text, width));
    }
    lines
}

/// `text` wrapped after `marker`, continuation lines indented to align
/// with the text.
fn hanging_wrap(marker: &str, text: &str, width: usize) -> Vec<String> {
    let hang = marker.chars().count();
    let text_width = width.saturating_sub(hang).max(20);
    wrap(text, text_width)
        .into_iter()
        .enumerate()
        .map(|(index, line)| if index == 0 { format!("{marker}{line}") } else { format!("{}{line}", " ".repeat(hang)) })
        .collect()
}

/// Non-empty sentences joined by spaces, each ending in a stop.
fn sentences(parts: &[String]) -> String {
    let parts: Vec<&String> = parts.iter().filter(|part| !part.is_empty()).collect();
    let mut out = String::new();
    for (index, part) in parts.iter().enumerate() {
        if index > 0 {
            out.push(' ');
        }
        out.push_str(part);
        if index + 1 < parts.len() && !part.ends_with(SENTENCE_ENDS) {
            out.push('.');
        }
    }
    out
}

/// Each parameter's note, from the property at the same position in
/// `properties`: its description (else its title), its allowed values, its
/// default and, when structured, its shape.
fn params_notes(params: &[Param], schema: &Json) -> Vec<String> {
    // `schema` is also the root local `$ref`s in a shape resolve against.
    let properties: &[(String, Json)] = match schema.get("properties") {
        Some(Json::Object(members)) => members,
        _ => &[],
    };
    params
        .iter()
        .enumerate()
        .map(|(index, param)| {
            let Some((_, property)) = properties.get(index) else { return String::new() };
            let text = |key: &str| property.get(key).and_then(Json::as_str).map(|text| sanitize(text, NOTE_CHARS));
            let summary = text("description").filter(|text| !text.is_empty()).or_else(|| text("title")).unwrap_or_default();
            let shape = match &param.param_type {
                ParamType::Structured(_) => Some(format!("Shape: {}.", shape(property, schema))),
                _ => None,
            };
            let facts = [Some(summary), allowed_values(property), default_value(property), shape];
            sentences(&facts.into_iter().flatten().collect::<Vec<_>>())
        })
        .collect()
}

/// The `mcp.Arg` expression for one parameter.
fn argument(param: &Param) -> Expr {
    let label = || Expr::atom(param.label.clone());
    let list_of = |scalar: Scalar| {
        Expr::call("mcp.list", vec![Expr::call("list.map", vec![label(), Expr::atom(scalar_converter(scalar))])])
    };
    let optional = |converter: Expr| Expr::call("mcp.optional", vec![label(), converter]);
    match (&param.param_type, param.optional) {
        (ParamType::Simple(scalar), false) => Expr::call(scalar_converter(*scalar), vec![label()]),
        (ParamType::Simple(scalar), true) => optional(Expr::atom(scalar_converter(*scalar))),
        (ParamType::ListOf(scalar), false) => list_of(*scalar),
        (ParamType::ListOf(scalar), true) => optional(Expr::anonymous_fn(&param.label, list_of(*scalar))),
        (ParamType::Structured(_), false) => Expr::call("mcp.value", vec![label()]),
        (ParamType::Structured(_), true) => optional(Expr::atom("mcp.value")),
    }
}

fn scalar_converter(scalar: Scalar) -> &'static str {
    match scalar {
        Scalar::String => "mcp.string",
        Scalar::Int => "mcp.int",
        Scalar::Float => "mcp.float",
        Scalar::Bool => "mcp.bool",
    }
}

fn scalar_type(scalar: Scalar) -> &'static str {
    match scalar {
        Scalar::String => "String",
        Scalar::Int => "Int",
        Scalar::Float => "Float",
        Scalar::Bool => "Bool",
    }
}

/// A parameter's Gleam type as source.
fn source_type(param: &Param) -> TypeExpr {
    let required = match &param.param_type {
        ParamType::Simple(scalar) => TypeExpr::new(scalar_type(*scalar), vec![]),
        ParamType::ListOf(scalar) => TypeExpr::new("List", vec![TypeExpr::new(scalar_type(*scalar), vec![])]),
        ParamType::Structured(_) => TypeExpr::new("mcp.Value", vec![]),
    };
    if param.optional {
        TypeExpr::new("mcp.Optional", vec![required])
    } else {
        required
    }
}

/// A parameter's type on the surface: `mcp` types unqualified.
fn surface_type(param: &Param) -> String {
    let required = match &param.param_type {
        ParamType::Simple(scalar) => scalar_type(*scalar).to_owned(),
        ParamType::ListOf(scalar) => format!("List({})", scalar_type(*scalar)),
        ParamType::Structured(_) => "Value".to_owned(),
    };
    if param.optional {
        format!("Optional({required})")
    } else {
        required
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(name: &str) -> String {
        format!("{:08x}", name.len())
    }

    /// A description of one-letter words is re-wrapped to lines of at most
    /// `LINE_WIDTH` columns, `/// ` included, and filled to it.
    #[test]
    fn doc_lines_are_wrapped_at_the_line_width() {
        let tool = ToolDescriptor {
            name: "t".into(),
            title: None,
            description: Some("a ".repeat(300)),
            input_schema: Json::Object(vec![("type".into(), Json::str("object"))]),
            output_schema: None,
            annotations: None,
            execution: None,
        };
        let mut source = String::new();
        ToolFunction::new(&tool, digest).render("\"s\"", &mut source);
        let widths: Vec<usize> = source.lines().filter(|line| line.starts_with(DOC)).map(|line| line.chars().count()).collect();
        assert!(widths.len() > 5, "{source}");
        assert!(widths.iter().all(|&width| width <= LINE_WIDTH), "{source}");
        assert!(widths[..widths.len() - 1].iter().all(|&width| width >= LINE_WIDTH - 1), "{source}");
    }
}

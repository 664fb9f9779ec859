//! Rendering one planned tool as a Gleam function and as a surface line.
//!
//! Everything server-chosen reaches the output in one of three forms only:
//! a mangled identifier, an [`escape`]d string literal, or [`sanitize`]d
//! text after `/// ` on a line this file breaks itself.

use super::text::{escape, sanitize, wrap, DESCRIPTION_CHARS, NOTE_CHARS};
use crate::json::Json;
use crate::name::{mangle, Digest};
use crate::protocol::ToolDescriptor;
use crate::schema::{plan, Param, ParamType, Plan, Scalar};

/// Columns a generated line aims to stay within.
const LINE_WIDTH: usize = 80;

/// What a doc comment line starts with.
const DOC: &str = "/// ";

/// The name of the single parameter of a whole-value function.
const WHOLE_VALUE_PARAM: &str = "arguments";

/// One tool, planned and ready to render.
pub struct ToolFunction {
    name: String,
    wire_name: String,
    summary: String,
    plan: Plan,
    /// One sanitized note per parameter (empty when it has none), in plan order.
    notes: Vec<String>,
}

impl ToolFunction {
    pub fn new(tool: &ToolDescriptor, digest: Digest) -> ToolFunction {
        let summary_source = tool.description.as_deref().filter(|text| !text.trim().is_empty()).or(tool.title.as_deref());
        let plan = plan(&tool.input_schema, digest);
        let notes = match &plan {
            Plan::Typed(params) => params_notes(params, &tool.input_schema),
            Plan::WholeValue(_) => Vec::new(),
        };
        ToolFunction {
            name: mangle(&tool.name, digest),
            wire_name: tool.name.clone(),
            summary: sanitize(summary_source.unwrap_or(""), DESCRIPTION_CHARS),
            plan,
            notes,
        }
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
        let (params, body) = match &self.plan {
            Plan::Typed(params) => {
                let declared: Vec<String> =
                    params.iter().map(|p| format!("{} {}: {}", p.label, p.label, source_type(p))).collect();
                (declared, typed_body(server_literal, &self.wire_name, params))
            }
            Plan::WholeValue(_) => (
                vec![format!("{WHOLE_VALUE_PARAM} {WHOLE_VALUE_PARAM}: mcp.Value")],
                format!("  internal.invoke_whole({server_literal}, {}, {WHOLE_VALUE_PARAM})\n", escape(&self.wire_name)),
            ),
        };
        let one_line = format!("pub fn {}({}) -> mcp.Outcome {{\n", self.name, params.join(", "));
        if one_line.len() <= LINE_WIDTH + 1 {
            out.push_str(&one_line);
        } else {
            out.push_str(&format!("pub fn {}(\n", self.name));
            for param in &params {
                out.push_str(&format!("  {param},\n"));
            }
            out.push_str(") -> mcp.Outcome {\n");
        }
        out.push_str(&body);
        out.push_str("}\n");
    }

    /// The surface entry: the one-line summary as a comment (when there is
    /// one), then `name: fn(label: Type, ...) -> Outcome`.
    pub fn render_surface(&self, out: &mut String) {
        if !self.summary.is_empty() {
            out.push_str(DOC);
            out.push_str(&self.summary);
            out.push('\n');
        }
        let params: Vec<String> = match &self.plan {
            Plan::Typed(params) => params.iter().map(|p| format!("{}: {}", p.label, surface_type(p))).collect(),
            Plan::WholeValue(_) => vec![format!("{WHOLE_VALUE_PARAM}: Value")],
        };
        out.push_str(&format!("{}: fn({}) -> Outcome\n", self.name, params.join(", ")));
    }

    fn render_doc(&self, out: &mut String) {
        let width = LINE_WIDTH - DOC.len();
        let mut paragraphs: Vec<Vec<String>> = Vec::new();
        if !self.summary.is_empty() {
            paragraphs.push(wrap(&self.summary, width));
        }
        let notes: Vec<String> = match &self.plan {
            Plan::WholeValue(reason) => wrap(
                &format!("Takes the whole arguments object as an mcp.Value ({}).", sanitize(reason, NOTE_CHARS)),
                width,
            ),
            Plan::Typed(params) => params
                .iter()
                .zip(&self.notes)
                .filter(|(_, note)| !note.is_empty())
                .flat_map(|(param, note)| hanging_wrap(&format!("- {}: {}", param.label, note), width))
                .collect(),
        };
        if !notes.is_empty() {
            paragraphs.push(notes);
        }
        for (index, lines) in paragraphs.iter().enumerate() {
            if index > 0 {
                out.push_str("///\n");
            }
            for line in lines {
                out.push_str(DOC);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
}

/// Wraps a `- item`, indenting continuation lines by two spaces.
fn hanging_wrap(item: &str, width: usize) -> Vec<String> {
    let mut lines = wrap(item, width);
    if lines.len() > 1 {
        let rest = lines.split_off(1).join(" ");
        lines.extend(wrap(&rest, width - 2).into_iter().map(|line| format!("  {line}")));
    }
    lines
}

/// A parameter's note: why it is structured (if it is) and its sanitized
/// description, from the property at the same position in `properties`.
fn params_notes(params: &[Param], schema: &Json) -> Vec<String> {
    let properties: &[(String, Json)] = match schema.get("properties") {
        Some(Json::Object(members)) => members,
        _ => &[],
    };
    params
        .iter()
        .enumerate()
        .map(|(index, param)| {
            let description = properties
                .get(index)
                .and_then(|(_, property)| property.get("description"))
                .and_then(Json::as_str)
                .map(|text| sanitize(text, NOTE_CHARS))
                .unwrap_or_default();
            match (&param.param_type, description.is_empty()) {
                (ParamType::Structured(reason), true) => format!("JSON value ({reason})."),
                (ParamType::Structured(reason), false) => format!("JSON value ({reason}). {description}"),
                (_, _) => description,
            }
        })
        .collect()
}

fn typed_body(server_literal: &str, wire_name: &str, params: &[Param]) -> String {
    let call = format!("  internal.invoke({server_literal}, {}, [", escape(wire_name));
    if params.is_empty() {
        return format!("{call}])\n");
    }
    let mut body = format!("{call}\n");
    for param in params {
        body.push_str(&format!("    #({}, {}),\n", escape(&param.wire_name), argument(param)));
    }
    body.push_str("  ])\n");
    body
}

/// The `mcp.Arg` expression for one parameter.
fn argument(param: &Param) -> String {
    let label = &param.label;
    let converter = match &param.param_type {
        ParamType::Simple(scalar) => scalar_converter(*scalar).to_owned(),
        ParamType::ListOf(scalar) if param.optional => {
            format!("fn({label}) {{ mcp.list(list.map({label}, {})) }}", scalar_converter(*scalar))
        }
        ParamType::ListOf(scalar) => return format!("mcp.list(list.map({label}, {}))", scalar_converter(*scalar)),
        ParamType::Structured(_) => "mcp.value".to_owned(),
    };
    if param.optional {
        format!("mcp.optional({label}, {converter})")
    } else {
        format!("{converter}({label})")
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

/// A parameter's Gleam type with `mcp` types qualified as `qualifier`.
fn param_type_text(param: &Param, qualifier: &str) -> String {
    let required = match &param.param_type {
        ParamType::Simple(scalar) => scalar_type(*scalar).to_owned(),
        ParamType::ListOf(scalar) => format!("List({})", scalar_type(*scalar)),
        ParamType::Structured(_) => format!("{qualifier}Value"),
    };
    if param.optional {
        format!("{qualifier}Optional({required})")
    } else {
        required
    }
}

fn source_type(param: &Param) -> String {
    param_type_text(param, "mcp.")
}

fn surface_type(param: &Param) -> String {
    param_type_text(param, "")
}

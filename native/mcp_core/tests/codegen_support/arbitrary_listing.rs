//! A tool listing made from arbitrary bytes, shared by the proptest
//! (`codegen_props.rs`) and the cargo-fuzz target (`fuzz/fuzz_targets/
//! codegen_generate.rs`) and the `gleam format` check (`codegen_format.rs`).
//! Every byte string gives a listing; the bytes steer towards what matters
//! to the generator: hostile characters in names and descriptions (line
//! breaks and list markers included), every schema shape the planner
//! distinguishes, the facts a doc comment shows (titles, allowed values,
//! defaults, hints, output schemas), duplicated names, long names that make
//! the layout break lines, and listings around the 256-tool limit.

use mcp_core::json::Json;
use mcp_core::protocol::ToolDescriptor;

/// Deepest schema nesting built (the planner looks three levels down).
const MAX_SCHEMA_DEPTH: usize = 4;

/// Characters the generator must treat with care, and some ordinary ones.
const ALPHABET: &[char] = &[
    'a', 'b', 'z', 'A', 'Q', 'Z', '0', '7', '_', '-', '.', ' ', '@', '"', '\\', '\n', '\r', '\t', '/', '*', '\0',
    '\u{7f}', '\u{85}', '\u{202e}', '\u{2066}', '\u{2028}', '\u{200f}', '\u{e9}', '\u{1f600}', '{', '}',
];

/// Reads the input a byte at a time; past the end every byte is 0.
pub struct ByteReader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(data: &'a [u8]) -> ByteReader<'a> {
        ByteReader { data, at: 0 }
    }

    fn byte(&mut self) -> u8 {
        let byte = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }

    fn below(&mut self, bound: u8) -> u8 {
        self.byte() % bound
    }

    fn text(&mut self, max_chars: u8) -> String {
        let length = self.below(max_chars);
        (0..length)
            .map(|_| {
                let pick = usize::from(self.byte());
                match ALPHABET.get(pick % (ALPHABET.len() + 1)) {
                    Some(c) => *c,
                    None => char::from_u32(u32::from(self.byte()) << 8 | u32::from(self.byte())).unwrap_or('?'),
                }
            })
            .collect()
    }
}

fn object(members: Vec<(&str, Json)>) -> Json {
    Json::Object(members.into_iter().map(|(key, value)| (key.to_owned(), value)).collect())
}

fn typed(name: &str) -> Json {
    object(vec![("type", Json::str(name))])
}

const SCALARS: &[&str] = &["string", "integer", "number", "boolean"];

fn scalar_name(reader: &mut ByteReader<'_>) -> &'static str {
    SCALARS.get(usize::from(reader.below(4))).copied().unwrap_or("string")
}

/// One property schema, of a shape chosen by the next byte.
fn property_schema(reader: &mut ByteReader<'_>, depth: usize) -> Json {
    let kind = if depth >= MAX_SCHEMA_DEPTH { 0 } else { reader.below(13) };
    let mut schema = match kind {
        0..=3 => typed(scalar_name(reader)),
        4 => object(vec![("type", Json::str("array")), ("items", property_schema(reader, depth + 1))]),
        5 => object(vec![("type", Json::str("object")), ("properties", object(vec![("x", property_schema(reader, depth + 1))]))]),
        6 => object(vec![("anyOf", Json::Array(vec![property_schema(reader, depth + 1), typed("null")]))]),
        7 => object(vec![("type", Json::Array(vec![Json::str(scalar_name(reader)), Json::str("null")]))]),
        8 => object(vec![("$ref", Json::str(if reader.below(2) == 0 { "#/$defs/x" } else { "#" }))]),
        9 => Json::Int(i64::from(reader.byte())),
        10 => object(vec![("oneOf", Json::Array(vec![property_schema(reader, depth + 1), property_schema(reader, depth + 1)]))]),
        11 => object(vec![("type", Json::str("array"))]),
        _ => object(vec![]),
    };
    if let Json::Object(members) = &mut schema {
        let facts = reader.byte();
        if facts & 1 == 1 {
            members.push(("description".to_owned(), Json::String(reader.text(40))));
        }
        if facts & 2 == 2 {
            members.push(("title".to_owned(), Json::String(reader.text(12))));
        }
        if facts & 4 == 4 {
            let values = (0..reader.below(5)).map(|_| any_value(reader)).collect();
            members.push(("enum".to_owned(), Json::Array(values)));
        }
        if facts & 8 == 8 {
            members.push(("default".to_owned(), any_value(reader)));
        }
        if facts & 16 == 16 {
            members.push(("const".to_owned(), any_value(reader)));
        }
    }
    schema
}

/// A small JSON value for `enum`, `const` and `default`.
fn any_value(reader: &mut ByteReader<'_>) -> Json {
    match reader.below(6) {
        0 => Json::Null,
        1 => Json::Bool(reader.below(2) == 1),
        2 => Json::Int(i64::from(reader.byte()) - 100),
        3 => Json::Float(f64::from(reader.byte()) / 8.0),
        4 => Json::Array(vec![Json::String(reader.text(6))]),
        _ => Json::String(reader.text(20)),
    }
}

/// An `annotations` object: each hint absent, a boolean, or not a boolean.
fn annotations(reader: &mut ByteReader<'_>) -> Json {
    let hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
    Json::Object(
        hints
            .iter()
            .filter_map(|hint| match reader.below(4) {
                0 => None,
                1 => Some(((*hint).to_owned(), Json::Bool(true))),
                2 => Some(((*hint).to_owned(), Json::Bool(false))),
                _ => Some(((*hint).to_owned(), Json::String(reader.text(8)))),
            })
            .collect(),
    )
}

fn input_schema(reader: &mut ByteReader<'_>) -> Json {
    match reader.below(10) {
        0 => Json::String(reader.text(8)),
        1 => object(vec![("anyOf", Json::Array(vec![typed("object")]))]),
        2 => object(vec![("type", Json::str("object")), ("properties", Json::Array(vec![]))]),
        _ => {
            let count = reader.below(6);
            let mut properties = Vec::new();
            let mut required = Vec::new();
            for _ in 0..count {
                let name = match reader.below(8) {
                    0 => format!("a_rather_long_parameter_name_{}", reader.text(6)),
                    _ => reader.text(10),
                };
                if reader.below(2) == 1 {
                    required.push(Json::String(name.clone()));
                }
                properties.push((name, property_schema(reader, 1)));
            }
            if reader.below(8) == 0 {
                required.push(Json::String(reader.text(6)));
            }
            let mut schema = vec![("properties".to_owned(), Json::Object(properties)), ("required".to_owned(), Json::Array(required))];
            if reader.below(4) != 0 {
                schema.insert(0, ("type".to_owned(), Json::str("object")));
            }
            if reader.below(4) == 0 {
                schema.push(("$defs".to_owned(), object(vec![("x", property_schema(reader, 1))])));
            }
            Json::Object(schema)
        }
    }
}

fn tool(reader: &mut ByteReader<'_>, names: &[String]) -> ToolDescriptor {
    let name = match (reader.below(32), names.last()) {
        (0, Some(earlier)) => earlier.clone(),
        (1, _) => format!("{}{}", "long_tool_name_".repeat(3), reader.text(8)),
        _ => reader.text(40),
    };
    let description = match reader.below(4) {
        0 => None,
        1 => Some(reader.text(20).repeat(usize::from(reader.byte()) * 4)),
        _ => Some(reader.text(120)),
    };
    let title = (reader.below(4) == 0).then(|| reader.text(20));
    let input_schema = input_schema(reader);
    let output_schema = (reader.below(3) == 0).then(|| property_schema(reader, 1));
    let annotations = (reader.below(2) == 0).then(|| annotations(reader));
    let execution = (reader.below(4) == 0).then(|| execution(reader));
    ToolDescriptor { name, title, description, input_schema, output_schema, annotations, execution }
}

/// An `execution` object: `taskSupport` absent, one of the spec's three
/// values (`"required"` leaves the tool out of the module), or not a string.
fn execution(reader: &mut ByteReader<'_>) -> Json {
    match reader.below(5) {
        0 => Json::Object(vec![]),
        1 => object(vec![("taskSupport", Json::str("forbidden"))]),
        2 => object(vec![("taskSupport", Json::str("optional"))]),
        3 => object(vec![("taskSupport", Json::str("required"))]),
        _ => object(vec![("taskSupport", Json::Bool(true))]),
    }
}

/// A server name and its listing, built from `data`.
pub fn listing_from_bytes(data: &[u8]) -> (String, Vec<ToolDescriptor>) {
    let mut reader = ByteReader::new(data);
    let server = reader.text(24);
    let count = match reader.byte() {
        // Around the 256-tool limit, with small distinct tools.
        255 => return (server, (0..250 + usize::from(reader.below(12))).map(numbered_tool).collect()),
        byte => byte % 10,
    };
    let mut tools: Vec<ToolDescriptor> = Vec::new();
    for _ in 0..count {
        let names: Vec<String> = tools.iter().map(|tool| tool.name.clone()).collect();
        tools.push(tool(&mut reader, &names));
    }
    (server, tools)
}

fn numbered_tool(index: usize) -> ToolDescriptor {
    ToolDescriptor {
        name: format!("tool{index}"),
        title: None,
        description: None,
        input_schema: typed("object"),
        output_schema: None,
        annotations: None,
        execution: None,
    }
}

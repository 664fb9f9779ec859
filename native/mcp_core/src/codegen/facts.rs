//! What a tool's schemas and annotations tell a caller, as short sanitized
//! sentences for its doc comment: a parameter's allowed values and default,
//! the shape of a structured value, the tool's hints and the shape of what
//! it returns.
//!
//! Invariants:
//! - Every sentence is [`sanitize`]d and each fact is capped at
//!   [`FACT_CHARS`]; values are written as compact JSON.
//! - A shape looks at most [`SHAPE_DEPTH`] containers or `$ref` hops deep
//!   (`…` beyond), so [`shape`]'s recursion is bounded by that constant, not
//!   by the input, and a `$ref` cycle ends there too.

use super::text::{sanitize, truncate};
use crate::json::{to_bytes, Json};

/// Cap, in characters, of one fact: the allowed values, the default, a
/// shape, the hints or the returned shape.
pub const FACT_CHARS: usize = 300;

/// Containers a shape shows (objects and arrays, the outermost counted).
pub const SHAPE_DEPTH: usize = 4;

/// Cap, in characters, of one value inside a list of allowed values.
const VALUE_CHARS: usize = 60;

/// What stands for the part of a shape that is not shown.
const ELIDED: &str = "\u{2026}";

/// Stops building a shape once it is this many bytes (it is capped anyway):
/// with `$ref`s a schema can name the same wide subschema many times, and
/// this bound keeps the work proportional to what is shown.
const SHAPE_BUILD_BYTES: usize = FACT_CHARS * 8;

/// A JSON value as compact JSON, fit for a comment and capped at `max_chars`.
fn value_text(value: &Json, max_chars: usize) -> String {
    match to_bytes(value) {
        Ok(bytes) => sanitize(&String::from_utf8_lossy(&bytes), max_chars),
        Err(_) => ELIDED.to_owned(),
    }
}

/// The subschema holding a property's allowed values: the property itself,
/// or the non-null member of a nullable `anyOf`/`oneOf`.
fn values_source<'a>(property: &'a Json, key: &str) -> Option<&'a Json> {
    if let Some(values) = property.get(key) {
        return Some(values);
    }
    let union = property.get("anyOf").or_else(|| property.get("oneOf"));
    match union {
        Some(Json::Array(members)) => members.iter().find_map(|member| member.get(key)),
        _ => None,
    }
}

/// `One of: "a", "b".` from `enum`, or `Always: "a".` from `const`.
pub fn allowed_values(property: &Json) -> Option<String> {
    if let Some(Json::Array(values)) = values_source(property, "enum") {
        let listed: Vec<String> = values.iter().map(|value| value_text(value, VALUE_CHARS)).collect();
        return Some(truncate(&format!("One of: {}.", listed.join(", ")), FACT_CHARS));
    }
    values_source(property, "const").map(|value| truncate(&format!("Always: {}.", value_text(value, FACT_CHARS)), FACT_CHARS))
}

/// `Default: 3.` from `default`.
pub fn default_value(property: &Json) -> Option<String> {
    property.get("default").map(|value| truncate(&format!("Default: {}.", value_text(value, FACT_CHARS)), FACT_CHARS))
}

/// A compact shape of `schema`: `String`, `Int`, `Float`, `Bool`, `Nil`,
/// `List(T)`, `{name: T, optional?: T}`, `Dict(String, T)`, `Object`,
/// unions `A | B`, `Value` for anything else; a local `$ref`
/// (`#/$defs/…`, `#/definitions/…`, `#`) is followed within `root`.
/// Capped at [`FACT_CHARS`].
pub fn shape(schema: &Json, root: &Json) -> String {
    let mut out = String::new();
    Shaper { root }.write(schema, 0, &mut out);
    truncate(&sanitize(&out, usize::MAX), FACT_CHARS)
}

/// The schema a local `$ref` points to inside `root`.
fn resolve<'a>(root: &'a Json, reference: &str) -> Option<&'a Json> {
    let pointer = reference.strip_prefix('#')?;
    pointer
        .split('/')
        .skip(1)
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .try_fold(root, |node, token| node.get(&token))
}

/// Writes shapes, following local references within `root`.
struct Shaper<'a> {
    root: &'a Json,
}

impl Shaper<'_> {
    fn write(&self, schema: &Json, depth: usize, out: &mut String) {
        if out.len() > SHAPE_BUILD_BYTES {
            return;
        }
        let Json::Object(_) = schema else {
            out.push_str("Value");
            return;
        };
        if let Some(Json::String(reference)) = schema.get("$ref") {
            match resolve(self.root, reference) {
                _ if depth >= SHAPE_DEPTH => out.push_str(ELIDED),
                Some(target) => self.write(target, depth + 1, out),
                None => out.push_str("Value"),
            }
            return;
        }
        let union = schema.get("anyOf").or_else(|| schema.get("oneOf"));
        if let (None, Some(Json::Array(members))) = (schema.get("type"), union) {
            return self.write_joined(members, " | ", depth, out);
        }
        match schema.get("type") {
            Some(Json::String(name)) => self.write_named(schema, name, depth, out),
            Some(Json::Array(names)) => {
                for (index, name) in names.iter().enumerate() {
                    if out.len() > SHAPE_BUILD_BYTES {
                        break;
                    }
                    if index > 0 {
                        out.push_str(" | ");
                    }
                    self.write_named(schema, name.as_str().unwrap_or(""), depth, out);
                }
            }
            _ if schema.get("properties").is_some() => self.write_named(schema, "object", depth, out),
            _ => out.push_str("Value"),
        }
    }

    fn write_joined(&self, members: &[Json], separator: &str, depth: usize, out: &mut String) {
        for (index, member) in members.iter().enumerate() {
            if out.len() > SHAPE_BUILD_BYTES {
                break;
            }
            if index > 0 {
                out.push_str(separator);
            }
            self.write(member, depth, out);
        }
    }

    fn write_named(&self, schema: &Json, name: &str, depth: usize, out: &mut String) {
        match name {
            "string" => out.push_str("String"),
            "integer" => out.push_str("Int"),
            "number" => out.push_str("Float"),
            "boolean" => out.push_str("Bool"),
            "null" => out.push_str("Nil"),
            "array" | "object" if depth >= SHAPE_DEPTH => out.push_str(ELIDED),
            "array" => {
                out.push_str("List(");
                match schema.get("items") {
                    Some(items @ Json::Object(_)) => self.write(items, depth + 1, out),
                    _ => out.push_str("Value"),
                }
                out.push(')');
            }
            "object" => self.write_object(schema, depth, out),
            _ => out.push_str("Value"),
        }
    }

    fn write_object(&self, schema: &Json, depth: usize, out: &mut String) {
        let required: Vec<&str> = match schema.get("required") {
            Some(Json::Array(names)) => names.iter().filter_map(Json::as_str).collect(),
            _ => Vec::new(),
        };
        match (schema.get("properties"), schema.get("additionalProperties")) {
            (Some(Json::Object(members)), _) if !members.is_empty() => {
                out.push('{');
                for (index, (name, property)) in members.iter().enumerate() {
                    if out.len() > SHAPE_BUILD_BYTES {
                        break;
                    }
                    if index > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(name);
                    if !required.contains(&name.as_str()) {
                        out.push('?');
                    }
                    out.push_str(": ");
                    self.write(property, depth + 1, out);
                }
                out.push('}');
            }
            (_, Some(values @ Json::Object(_))) => {
                out.push_str("Dict(String, ");
                self.write(values, depth + 1, out);
                out.push(')');
            }
            _ => out.push_str("Object"),
        }
    }
}

/// The hints of `annotations` that are declared as booleans, in a fixed
/// order: `Hints: read-only: yes, destructive: no, ….`
pub fn hints(annotations: &Json) -> Option<String> {
    const HINTS: [(&str, &str); 4] = [
        ("readOnlyHint", "read-only"),
        ("destructiveHint", "destructive"),
        ("idempotentHint", "idempotent"),
        ("openWorldHint", "open-world"),
    ];
    let declared: Vec<String> = HINTS
        .iter()
        .filter_map(|(key, word)| match annotations.get(key) {
            Some(Json::Bool(true)) => Some(format!("{word}: yes")),
            Some(Json::Bool(false)) => Some(format!("{word}: no")),
            _ => None,
        })
        .collect();
    (!declared.is_empty()).then(|| format!("Hints: {}.", declared.join(", ")))
}

/// `Returns structuredContent: <shape>.` for a declared `outputSchema`.
pub fn returns(output_schema: &Json) -> String {
    truncate(&format!("Returns structuredContent: {}.", shape(output_schema, output_schema)), FACT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn json(text: &str) -> Json {
        match parse(text.as_bytes()) {
            Ok(value) => value,
            Err(report) => panic!("test JSON does not parse: {report:?}"),
        }
    }

    fn shape_alone(schema: &Json) -> String {
        shape(schema, schema)
    }

    #[test]
    fn local_references_are_followed_to_the_depth_limit() {
        let time = json(r##"{"type":"object","properties":{"source":{"$ref":"#/$defs/T"},"x":{"$ref":"#/definitions/U"}},
            "required":["source"],"$defs":{"T":{"type":"object","properties":{"tz":{"type":"string"}},"required":["tz"]}}}"##);
        assert_eq!(shape_alone(&time), "{source: {tz: String}, x?: Value}");
        let cycle = json(r##"{"type":"object","properties":{"next":{"$ref":"#"}}}"##);
        assert_eq!(shape_alone(&cycle), "{next?: {next?: \u{2026}}}");
        let self_loop = json(r##"{"$defs":{"A":{"$ref":"#/$defs/A"}},"$ref":"#/$defs/A"}"##);
        assert_eq!(shape_alone(&self_loop), "\u{2026}");
        assert_eq!(shape_alone(&json(r##"{"$ref":"https://example.com/x"}"##)), "Value");
        let escaped = json(r##"{"a/b":{"type":"integer"},"$ref":"#/a~1b"}"##);
        assert_eq!(shape_alone(&escaped), "Int");
    }

    #[test]
    fn scalars_lists_and_objects_have_compact_shapes() {
        let entities = r#"{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},
            "entityType":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}},
            "required":["name","observations"]}}"#;
        assert_eq!(shape_alone(&json(entities)), "List({name: String, entityType?: String, observations: List(String)})");
        assert_eq!(shape_alone(&json(r#"{"type":["boolean","string"]}"#)), "Bool | String");
        assert_eq!(shape_alone(&json(r#"{"anyOf":[{"type":"integer"},{"type":"null"}]}"#)), "Int | Nil");
        assert_eq!(shape_alone(&json(r#"{"type":"object"}"#)), "Object");
        assert_eq!(shape_alone(&json(r#"{"type":"object","additionalProperties":{"type":"number"}}"#)), "Dict(String, Float)");
        assert_eq!(shape_alone(&json(r##"{"$ref":"#/x"}"##)), "Value");
        assert_eq!(shape_alone(&json("true")), "Value");
        assert_eq!(shape_alone(&json(r#"{"type":"array"}"#)), "List(Value)");
    }

    #[test]
    fn shapes_stop_at_the_depth_limit() {
        let four = r#"{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"string"}}}}}"#;
        assert_eq!(shape_alone(&json(four)), "List(List(List(List(String))))");
        let five = r#"{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"object"}}}}}"#;
        assert_eq!(shape_alone(&json(five)), "List(List(List(List(\u{2026}))))");
    }

    #[test]
    fn a_wide_reference_cycle_is_cheap() {
        let members: Vec<String> = (0..2000).map(|i| format!(r##""f{i}":{{"$ref":"#"}}"##)).collect();
        let wide = json(&format!(r#"{{"type":"object","properties":{{{}}}}}"#, members.join(",")));
        // Without the build bound this is 2000^4 visits and never finishes.
        let capped = shape_alone(&wide);
        assert!(capped.chars().count() <= FACT_CHARS && capped.ends_with('\u{2026}'));
    }

    #[test]
    fn a_huge_shape_is_capped() {
        let members: Vec<String> = (0..500).map(|i| format!(r#""field{i}":{{"type":"string"}}"#)).collect();
        let wide = format!(r#"{{"type":"object","properties":{{{}}}}}"#, members.join(","));
        let capped = shape_alone(&json(&wide));
        assert!(capped.chars().count() <= FACT_CHARS && capped.chars().count() > FACT_CHARS / 2);
        assert!(capped.ends_with('\u{2026}'));
    }

    #[test]
    fn allowed_values_and_defaults_are_compact_json() {
        let city = json(r#"{"type":"string","enum":["New York","Chicago"],"default":"Chicago"}"#);
        assert_eq!(allowed_values(&city).as_deref(), Some(r#"One of: "New York", "Chicago"."#));
        assert_eq!(default_value(&city).as_deref(), Some(r#"Default: "Chicago"."#));
        assert_eq!(default_value(&json(r#"{"type":"integer","default":3}"#)).as_deref(), Some("Default: 3."));
        assert_eq!(allowed_values(&json(r#"{"const":1}"#)).as_deref(), Some("Always: 1."));
        let nullable = json(r#"{"anyOf":[{"type":"string","enum":["a"]},{"type":"null"}],"default":null}"#);
        assert_eq!(allowed_values(&nullable).as_deref(), Some(r#"One of: "a"."#));
        assert_eq!(default_value(&nullable).as_deref(), Some("Default: null."));
        assert_eq!(allowed_values(&json(r#"{"type":"string"}"#)), None);
    }

    #[test]
    fn values_lose_controls() {
        let hostile = json(r#"{"enum":["a\nb","\u202e"]}"#);
        assert_eq!(allowed_values(&hostile).as_deref(), Some(r#"One of: "a\nb", ""."#));
    }

    #[test]
    fn hints_list_every_declared_boolean() {
        let declared = json(r#"{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false,"title":"x"}"#);
        assert_eq!(hints(&declared).as_deref(), Some("Hints: read-only: yes, destructive: no, idempotent: yes, open-world: no."));
        assert_eq!(hints(&json(r#"{"openWorldHint":true}"#)).as_deref(), Some("Hints: open-world: yes."));
        assert_eq!(hints(&json(r#"{"readOnlyHint":"yes"}"#)), None);
    }

    #[test]
    fn returns_names_structured_content() {
        let weather = json(r#"{"type":"object","properties":{"temperature":{"type":"number"}},"required":["temperature"]}"#);
        assert_eq!(returns(&weather), "Returns structuredContent: {temperature: Float}.");
    }
}

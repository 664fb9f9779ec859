//! The schema planner (the `mcp/schema` module): the total three-tier reading
//! of a tool's raw `inputSchema`.
//!
//! Invariants:
//! - Total, no error case: every JSON value plans as [`Plan::Typed`] or
//!   [`Plan::WholeValue`]; tier 3 is the failure mode, carried as data.
//! - No parameter is ever dropped: every declared property becomes a
//!   [`Param`], in wire order; what the typed subset cannot express is
//!   [`ParamType::Structured`].
//! - Shallow: the planner looks at most three containers deep (top level,
//!   a property, its `items` or `anyOf` members), so it never recurses.
//!
//! The rule table is in `docs/codegen.md`.

use crate::json::Json;
use crate::name::{first_collision_by, mangle_label, Digest};

/// The scalar types the typed subset maps to Gleam's `String`, `Int`,
/// `Float` and `Bool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    String,
    Int,
    Float,
    Bool,
}

/// How one parameter is passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamType {
    Simple(Scalar),
    ListOf(Scalar),
    /// Anything else: passed as a raw `mcp.Value`, with why.
    Structured(String),
}

/// One parameter: its wire name (verbatim), its Gleam label, its type, and
/// whether it may be omitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub wire_name: String,
    pub label: String,
    pub param_type: ParamType,
    pub optional: bool,
}

/// A tool's calling convention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    Typed(Vec<Param>),
    /// The top level is unusable: the tool takes one whole `mcp.Value`.
    WholeValue(String),
}

/// The combinators that make a top level unusable.
const TOP_LEVEL_COMBINATORS: &[&str] = &["anyOf", "oneOf", "allOf", "$ref"];

/// Plans `schema`; labels are mangled with `digest`.
pub fn plan(schema: &Json, digest: Digest) -> Plan {
    match typed_params(schema, digest) {
        Ok(params) => Plan::Typed(params),
        Err(reason) => Plan::WholeValue(reason),
    }
}

fn typed_params(schema: &Json, digest: Digest) -> Result<Vec<Param>, String> {
    let Json::Object(_) = schema else {
        return Err("schema is not an object".to_owned());
    };
    if let Some(combinator) = TOP_LEVEL_COMBINATORS.iter().find(|key| schema.get(key).is_some()) {
        return Err(format!("top-level {combinator}"));
    }
    let properties = schema.get("properties");
    match schema.get("type") {
        Some(Json::String(kind)) if kind == "object" => {}
        Some(_) => return Err("top-level type is not object".to_owned()),
        None if properties.is_some() => {}
        None => return Err("no type and no properties".to_owned()),
    }
    let members: &[(String, Json)] = match properties {
        None => &[],
        Some(Json::Object(members)) => members,
        Some(_) => return Err("properties is not an object".to_owned()),
    };
    let required = required_names(schema.get("required"))?;
    if let Some(undeclared) = required.iter().find(|name| !members.iter().any(|(key, _)| key == *name)) {
        return Err(format!("required names an undeclared property: {undeclared}"));
    }
    let wire_names: Vec<&str> = members.iter().map(|(key, _)| key.as_str()).collect();
    if let Some((first, second)) = first_collision_by(&wire_names, |name| mangle_label(name, digest)) {
        return Err(format!("label collision: {first}, {second}"));
    }
    Ok(members
        .iter()
        .map(|(wire_name, property)| Param {
            wire_name: wire_name.clone(),
            label: mangle_label(wire_name, digest),
            param_type: param_type(property),
            optional: !required.contains(&wire_name.as_str()),
        })
        .collect())
}

fn required_names(required: Option<&Json>) -> Result<Vec<&str>, String> {
    let not_strings = || "required is not a list of strings".to_owned();
    match required {
        None => Ok(Vec::new()),
        Some(Json::Array(items)) => items.iter().map(|item| item.as_str().ok_or_else(not_strings)).collect(),
        Some(_) => Err(not_strings()),
    }
}

/// One property's type: a scalar, a list of scalars, or structured.
fn param_type(property: &Json) -> ParamType {
    match simple_type(property) {
        Ok(Shape::Scalar(scalar)) => ParamType::Simple(scalar),
        Ok(Shape::Array(array)) => match array.get("items") {
            None => ParamType::Structured("array without items".to_owned()),
            Some(items) => match simple_type(items) {
                Ok(Shape::Scalar(scalar)) => ParamType::ListOf(scalar),
                Ok(Shape::Array(_)) => ParamType::Structured("array of arrays".to_owned()),
                Err(reason) => ParamType::Structured(format!("array of {reason}")),
            },
        },
        Err(reason) => ParamType::Structured(reason),
    }
}

/// What a (sub)schema declares, before `items` is looked at.
enum Shape<'a> {
    Scalar(Scalar),
    /// An array, with the (sub)schema that holds its `items`.
    Array(&'a Json),
}

/// The non-null type a schema names, through the nullable forms
/// `type: [T, "null"]` and `anyOf`/`oneOf: [{type: T}, {type: "null"}]`;
/// otherwise why it is structured.
fn simple_type(schema: &Json) -> Result<Shape<'_>, String> {
    let Json::Object(_) = schema else {
        return Err("a schema that is not an object".to_owned());
    };
    if schema.get("$ref").is_some() {
        return Err("$ref".to_owned());
    }
    if schema.get("allOf").is_some() {
        return Err("allOf".to_owned());
    }
    let union = schema.get("anyOf").or_else(|| schema.get("oneOf"));
    match (schema.get("type"), union) {
        (Some(_), Some(_)) => Err("type beside a union".to_owned()),
        (Some(kind), None) => declared_type(schema, kind),
        (None, Some(Json::Array(members))) => nullable_member(members),
        (None, Some(_)) => Err("malformed union".to_owned()),
        (None, None) => Err("no type".to_owned()),
    }
}

/// `anyOf: [S, {type: "null"}]` (either order) plans as S, when S is not
/// itself a union.
fn nullable_member(members: &[Json]) -> Result<Shape<'_>, String> {
    let is_null = |member: &Json| matches!(member.get("type"), Some(Json::String(kind)) if kind == "null");
    match members {
        [first, second] if is_null(second) && !is_null(first) => non_union_type(first),
        [first, second] if is_null(first) && !is_null(second) => non_union_type(second),
        _ => Err("union".to_owned()),
    }
}

fn non_union_type(member: &Json) -> Result<Shape<'_>, String> {
    match member.get("type") {
        Some(kind) if member.get("$ref").is_none() => declared_type(member, kind),
        _ => Err("union".to_owned()),
    }
}

/// The `type` keyword `kind` of `schema`: one type name, or `[T]` /
/// `[T, "null"]` in either order.
fn declared_type<'a>(schema: &'a Json, kind: &Json) -> Result<Shape<'a>, String> {
    match kind {
        Json::String(name) => named_type(schema, name),
        Json::Array(names) => {
            let non_null: Vec<&Json> = names.iter().filter(|name| name.as_str() != Some("null")).collect();
            match non_null[..] {
                [Json::String(name)] if names.len() <= 2 => named_type(schema, name),
                _ => Err("union of types".to_owned()),
            }
        }
        _ => Err("malformed type".to_owned()),
    }
}

fn named_type<'a>(schema: &'a Json, name: &str) -> Result<Shape<'a>, String> {
    match name {
        "string" => Ok(Shape::Scalar(Scalar::String)),
        "integer" => Ok(Shape::Scalar(Scalar::Int)),
        "number" => Ok(Shape::Scalar(Scalar::Float)),
        "boolean" => Ok(Shape::Scalar(Scalar::Bool)),
        "array" => Ok(Shape::Array(schema)),
        "object" => Err("object".to_owned()),
        "null" => Err("null".to_owned()),
        _ => Err("unknown type".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn fake_digest(name: &str) -> String {
        format!("{:08x}", name.len())
    }

    fn plan_text(schema: &str) -> Plan {
        match parse(schema.as_bytes()) {
            Ok(value) => plan(&value, fake_digest),
            Err(report) => panic!("test schema does not parse: {report:?}"),
        }
    }

    fn whole(reason: &str) -> Plan {
        Plan::WholeValue(reason.to_owned())
    }

    fn param(wire: &str, label: &str, param_type: ParamType, optional: bool) -> Param {
        Param { wire_name: wire.to_owned(), label: label.to_owned(), param_type, optional }
    }

    /// The type of the single property `p` in `{"type":"object","properties":{"p": <property>}}`.
    fn property_type(property: &str) -> ParamType {
        match plan_text(&format!(r#"{{"type":"object","properties":{{"p":{property}}}}}"#)) {
            Plan::Typed(params) => match &params[..] {
                [only] => only.param_type.clone(),
                other => panic!("expected one param, got {other:?}"),
            },
            other => panic!("expected typed, got {other:?}"),
        }
    }

    fn structured(reason: &str) -> ParamType {
        ParamType::Structured(reason.to_owned())
    }

    #[test]
    fn an_object_schema_without_properties_has_no_parameters() {
        assert_eq!(plan_text(r#"{"type":"object"}"#), Plan::Typed(vec![]));
        assert_eq!(plan_text(r#"{"type":"object","additionalProperties":false}"#), Plan::Typed(vec![]));
    }

    #[test]
    fn properties_without_type_is_an_object_schema() {
        let expected = Plan::Typed(vec![param("q", "q", ParamType::Simple(Scalar::String), false)]);
        assert_eq!(plan_text(r#"{"properties":{"q":{"type":"string"}},"required":["q"]}"#), expected);
    }

    #[test]
    fn unusable_top_levels_take_the_whole_value() {
        assert_eq!(plan_text("[]"), whole("schema is not an object"));
        assert_eq!(plan_text("true"), whole("schema is not an object"));
        assert_eq!(plan_text("{}"), whole("no type and no properties"));
        assert_eq!(plan_text(r#"{"type":"string"}"#), whole("top-level type is not object"));
        assert_eq!(plan_text(r#"{"type":["object","null"]}"#), whole("top-level type is not object"));
        assert_eq!(plan_text(r#"{"anyOf":[{"type":"object"}]}"#), whole("top-level anyOf"));
        assert_eq!(plan_text(r#"{"type":"object","oneOf":[]}"#), whole("top-level oneOf"));
        assert_eq!(plan_text(r#"{"type":"object","allOf":[]}"#), whole("top-level allOf"));
        assert_eq!(plan_text(r##"{"$ref":"#/defs/x"}"##), whole("top-level $ref"));
        assert_eq!(plan_text(r#"{"type":"object","properties":[]}"#), whole("properties is not an object"));
    }

    #[test]
    fn a_bad_required_takes_the_whole_value() {
        let props = r#""type":"object","properties":{"a":{"type":"string"}}"#;
        assert_eq!(plan_text(&format!(r#"{{{props},"required":"a"}}"#)), whole("required is not a list of strings"));
        assert_eq!(plan_text(&format!(r#"{{{props},"required":[1]}}"#)), whole("required is not a list of strings"));
        assert_eq!(
            plan_text(&format!(r#"{{{props},"required":["a","b"]}}"#)),
            whole("required names an undeclared property: b")
        );
        assert!(matches!(plan_text(&format!(r#"{{{props},"required":["a"]}}"#)), Plan::Typed(_)));
    }

    #[test]
    fn scalars_map_to_simple_types() {
        assert_eq!(property_type(r#"{"type":"string"}"#), ParamType::Simple(Scalar::String));
        assert_eq!(property_type(r#"{"type":"string","enum":["a","b"]}"#), ParamType::Simple(Scalar::String));
        assert_eq!(property_type(r#"{"type":"string","format":"uri"}"#), ParamType::Simple(Scalar::String));
        assert_eq!(property_type(r#"{"type":"integer"}"#), ParamType::Simple(Scalar::Int));
        assert_eq!(property_type(r#"{"type":"number"}"#), ParamType::Simple(Scalar::Float));
        assert_eq!(property_type(r#"{"type":"boolean"}"#), ParamType::Simple(Scalar::Bool));
    }

    #[test]
    fn arrays_of_scalars_are_lists() {
        assert_eq!(property_type(r#"{"type":"array","items":{"type":"string"}}"#), ParamType::ListOf(Scalar::String));
        assert_eq!(property_type(r#"{"type":"array","items":{"type":"number"}}"#), ParamType::ListOf(Scalar::Float));
        let nullable_items = r#"{"type":"array","items":{"type":["integer","null"]}}"#;
        assert_eq!(property_type(nullable_items), ParamType::ListOf(Scalar::Int));
    }

    #[test]
    fn nullable_forms_plan_as_their_scalar() {
        let pydantic = r#"{"anyOf":[{"type":"string"},{"type":"null"}],"default":null}"#;
        assert_eq!(property_type(pydantic), ParamType::Simple(Scalar::String));
        let null_first = r#"{"oneOf":[{"type":"null"},{"type":"boolean"}]}"#;
        assert_eq!(property_type(null_first), ParamType::Simple(Scalar::Bool));
        assert_eq!(property_type(r#"{"type":["integer","null"]}"#), ParamType::Simple(Scalar::Int));
        assert_eq!(property_type(r#"{"type":["null","number"]}"#), ParamType::Simple(Scalar::Float));
        assert_eq!(property_type(r#"{"type":["string"]}"#), ParamType::Simple(Scalar::String));
        let nullable_list = r#"{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}"#;
        assert_eq!(property_type(nullable_list), ParamType::ListOf(Scalar::String));
    }

    #[test]
    fn everything_else_is_structured() {
        assert_eq!(property_type(r#"{"type":"object"}"#), structured("object"));
        assert_eq!(property_type(r#"{"type":"array","items":{"type":"object"}}"#), structured("array of object"));
        assert_eq!(property_type(r#"{"type":"array"}"#), structured("array without items"));
        assert_eq!(property_type(r#"{"type":"array","items":[{"type":"string"}]}"#), structured("array of a schema that is not an object"));
        let nested = r#"{"type":"array","items":{"type":"array","items":{"type":"string"}}}"#;
        assert_eq!(property_type(nested), structured("array of arrays"));
        assert_eq!(property_type(r#"{"type":["string","integer"]}"#), structured("union of types"));
        assert_eq!(property_type(r#"{"type":["string","integer","null"]}"#), structured("union of types"));
        assert_eq!(property_type(r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#), structured("union"));
        assert_eq!(property_type(r#"{"anyOf":[{"type":"null"},{"type":"null"}]}"#), structured("union"));
        assert_eq!(property_type(r##"{"anyOf":[{"$ref":"#/x"},{"type":"null"}]}"##), structured("union"));
        assert_eq!(property_type(r#"{"anyOf":{}}"#), structured("malformed union"));
        assert_eq!(property_type(r##"{"$ref":"#/defs/x"}"##), structured("$ref"));
        assert_eq!(property_type(r#"{"allOf":[{"type":"string"}]}"#), structured("allOf"));
        assert_eq!(property_type(r#"{"enum":["a"]}"#), structured("no type"));
        assert_eq!(property_type("{}"), structured("no type"));
        assert_eq!(property_type("true"), structured("a schema that is not an object"));
        assert_eq!(property_type(r#"{"type":"null"}"#), structured("null"));
        assert_eq!(property_type(r#"{"type":"date"}"#), structured("unknown type"));
        assert_eq!(property_type(r#"{"type":7}"#), structured("malformed type"));
        assert_eq!(property_type(r#"{"type":"string","anyOf":[]}"#), structured("type beside a union"));
    }

    #[test]
    fn optional_unless_required_and_wire_order_kept() {
        let schema = r#"{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}},"required":["alpha"]}"#;
        let expected = Plan::Typed(vec![
            param("zeta", "zeta", ParamType::Simple(Scalar::String), true),
            param("alpha", "alpha", ParamType::Simple(Scalar::Int), false),
        ]);
        assert_eq!(plan_text(schema), expected);
    }

    #[test]
    fn labels_are_mangled_and_wire_names_kept() {
        let schema = r#"{"type":"object","properties":{"repoOwner":{"type":"string"},"type":{"type":"string"}}}"#;
        let expected = Plan::Typed(vec![
            param("repoOwner", "repo_owner", ParamType::Simple(Scalar::String), true),
            param("type", "type_", ParamType::Simple(Scalar::String), true),
        ]);
        assert_eq!(plan_text(schema), expected);
    }

    #[test]
    fn a_label_collision_degrades_the_tool() {
        let duplicate = r#"{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"integer"}}}"#;
        assert_eq!(plan_text(duplicate), whole("label collision: a, a"));
        let kebab_and_dotted = r#"{"type":"object","properties":{"ab":{},"a-b":{},"a.b":{}}}"#;
        assert_eq!(plan_text(kebab_and_dotted), whole("label collision: a-b, a.b"));
        let camel_and_snake = r#"{"type":"object","properties":{"dryRun":{"type":"boolean"},"dry_run":{"type":"boolean"}}}"#;
        assert_eq!(plan_text(camel_and_snake), whole("label collision: dryRun, dry_run"));
        let keyword_and_suffixed = r#"{"type":"object","properties":{"type":{"type":"string"},"type_":{"type":"string"}}}"#;
        assert_eq!(plan_text(keyword_and_suffixed), whole("label collision: type, type_"));
        let two_non_ascii = r#"{"type":"object","properties":{"名":{"type":"string"},"名年":{"type":"string"}}}"#;
        assert!(matches!(plan_text(two_non_ascii), Plan::Typed(_)), "fallback labels carry a digest of the original");
    }

    proptest::proptest! {
        #[test]
        fn planning_is_total_and_keeps_every_property(
            names in proptest::collection::vec("[a-zA-Z_.-]{0,6}", 0..6),
            kinds in proptest::collection::vec(0usize..6, 6),
        ) {
            let types = ["\"string\"", "\"object\"", "[\"integer\",\"null\"]", "\"array\"", "7", "\"number\""];
            let members: Vec<(String, Json)> = names.iter().zip(&kinds).map(|(name, kind)| {
                let kind = parse(types[*kind].as_bytes()).unwrap_or(Json::Null);
                (name.clone(), Json::Object(vec![("type".to_owned(), kind)]))
            }).collect();
            let count = members.len();
            let schema = Json::Object(vec![("properties".to_owned(), Json::Object(members))]);
            match plan(&schema, fake_digest) {
                Plan::Typed(params) => proptest::prop_assert_eq!(params.len(), count),
                Plan::WholeValue(reason) => proptest::prop_assert!(reason.starts_with("label collision: ")),
            }
        }
    }
}

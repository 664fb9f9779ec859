//! Terms of the code mode generator (docs/design.md: `mcp/schema`, `mcp/name`,
//! `mcp/codegen`) to and from `mcp_core`, and the production digest.

use crate::atoms;
use crate::json_terms::{binary_term, json_from_term, pair, utf8_binary, ListCells};
use mcp_core::codegen::{GenerateError, Generated};
use mcp_core::protocol::ToolDescriptor;
use mcp_core::schema::{Param, ParamType, Plan, Scalar};
use rustler::types::tuple::{get_tuple, make_tuple};
use rustler::{Atom, Encoder, Env, Error, NifResult, Term};
use sha2::{Digest as _, Sha256};
use std::fmt::Write as _;

/// The generator's limits, each defined once in `mcp_core` and read by the
/// Erlang modules from here: `{MaxTools, MaxSurfaceBytes, DescriptionChars,
/// NoteChars, FactChars, ShapeDepth, MaxNameChars}`.
pub fn limits() -> (usize, usize, usize, usize, usize, usize, usize) {
    use mcp_core::codegen::{DESCRIPTION_CHARS, FACT_CHARS, MAX_SURFACE_BYTES, MAX_TOOLS, NOTE_CHARS, SHAPE_DEPTH};
    (MAX_TOOLS, MAX_SURFACE_BYTES, DESCRIPTION_CHARS, NOTE_CHARS, FACT_CHARS, SHAPE_DEPTH, mcp_core::name::MAX_NAME_CHARS)
}

/// SHA-256 of the UTF-8 bytes as lowercase hex: the mangler's digest.
pub fn sha256_hex(text: &str) -> String {
    let mut hex = String::with_capacity(64);
    for byte in Sha256::digest(text.as_bytes()) {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

fn string_term<'a>(env: Env<'a>, text: &str) -> Term<'a> {
    binary_term(env, text.as_bytes())
}

fn tagged<'a>(env: Env<'a>, tag: Atom, fields: &[Term<'a>]) -> Term<'a> {
    let mut elements = Vec::with_capacity(fields.len() + 1);
    elements.push(tag.encode(env));
    elements.extend_from_slice(fields);
    make_tuple(env, &elements)
}

/// `{typed, [param()]} | {whole_value, Reason}`.
pub fn plan_term<'a>(env: Env<'a>, plan: &Plan) -> Term<'a> {
    match plan {
        Plan::Typed(params) => {
            let params: Vec<Term<'a>> = params.iter().map(|param| param_term(env, param)).collect();
            tagged(env, atoms::typed(), &[params.encode(env)])
        }
        Plan::WholeValue(reason) => tagged(env, atoms::whole_value(), &[string_term(env, reason)]),
    }
}

/// `{param, WireName, Label, param_type(), Optional}`.
fn param_term<'a>(env: Env<'a>, param: &Param) -> Term<'a> {
    let param_type = match &param.param_type {
        ParamType::Simple(scalar) => tagged(env, atoms::simple(), &[scalar_atom(*scalar).encode(env)]),
        ParamType::ListOf(scalar) => tagged(env, atoms::list_of(), &[scalar_atom(*scalar).encode(env)]),
        ParamType::Structured(reason) => tagged(env, atoms::structured(), &[string_term(env, reason)]),
    };
    tagged(
        env,
        atoms::param(),
        &[string_term(env, &param.wire_name), string_term(env, &param.label), param_type, param.optional.encode(env)],
    )
}

fn scalar_atom(scalar: Scalar) -> Atom {
    match scalar {
        Scalar::String => atoms::string(),
        Scalar::Int => atoms::int(),
        Scalar::Float => atoms::float(),
        Scalar::Bool => atoms::bool(),
    }
}

/// A list of UTF-8 binaries, else `badarg`.
pub fn names_from_term(term: Term<'_>) -> NifResult<Vec<&str>> {
    ListCells::new(term)?.map(|cell| utf8_binary(cell?)).collect()
}

/// `{some, {A, B}} | none`.
pub fn collision_term<'a>(env: Env<'a>, collision: Option<(&str, &str)>) -> Term<'a> {
    match collision {
        Some((a, b)) => (atoms::some(), (string_term(env, a), string_term(env, b))).encode(env),
        None => atoms::none().encode(env),
    }
}

/// `[tool_descriptor()]` as core values, else `badarg`.
pub fn tools_from_term(term: Term<'_>) -> NifResult<Vec<ToolDescriptor>> {
    ListCells::new(term)?.map(|cell| tool_descriptor(cell?)).collect()
}

/// `{tool_descriptor, Name, Title, Description, InputSchema, OutputSchema,
/// Annotations, Execution}` as a [`ToolDescriptor`], else `badarg`.
pub fn tool_descriptor(term: Term<'_>) -> NifResult<ToolDescriptor> {
    let fields = get_tuple(term)?;
    let [tag, name, title, description, input_schema, output_schema, annotations, execution] = fields[..] else {
        return Err(Error::BadArg);
    };
    if tag != atoms::tool_descriptor().encode(term.get_env()) {
        return Err(Error::BadArg);
    }
    Ok(ToolDescriptor {
        name: utf8_binary(name)?.to_owned(),
        title: option_from_term(title, |text| Ok(utf8_binary(text)?.to_owned()))?,
        description: option_from_term(description, |text| Ok(utf8_binary(text)?.to_owned()))?,
        input_schema: json_from_term(input_schema)?,
        output_schema: option_from_term(output_schema, json_from_term)?,
        annotations: option_from_term(annotations, json_from_term)?,
        execution: option_from_term(execution, json_from_term)?,
    })
}

/// `{some, V} | none`, else `badarg`.
fn option_from_term<'a, T>(term: Term<'a>, value: impl FnOnce(Term<'a>) -> NifResult<T>) -> NifResult<Option<T>> {
    let env = term.get_env();
    if term == atoms::none().encode(env) {
        return Ok(None);
    }
    let (tag, inner) = pair(term)?;
    if tag != atoms::some().encode(env) {
        return Err(Error::BadArg);
    }
    value(inner).map(Some)
}

/// `{ok, {generated, ModuleName, Source, Surface}} | {error, generate_error()}`.
pub fn generate_result_term<'a>(env: Env<'a>, result: &Result<Generated, GenerateError>) -> Term<'a> {
    match result {
        Ok(generated) => {
            let fields = [
                string_term(env, &generated.module_name),
                string_term(env, &generated.source),
                string_term(env, &generated.surface),
            ];
            (atoms::ok(), tagged(env, atoms::generated(), &fields)).encode(env)
        }
        Err(error) => (atoms::error(), generate_error_term(env, error)).encode(env),
    }
}

fn generate_error_term<'a>(env: Env<'a>, error: &GenerateError) -> Term<'a> {
    match error {
        GenerateError::TooManyTools { count, max } => {
            tagged(env, atoms::too_many_tools(), &[count.encode(env), max.encode(env)])
        }
        GenerateError::ToolNameCollision { a, b } => {
            tagged(env, atoms::tool_name_collision(), &[string_term(env, a), string_term(env, b)])
        }
        GenerateError::SurfaceTooLarge { bytes, max } => {
            tagged(env, atoms::surface_too_large(), &[bytes.encode(env), max.encode(env)])
        }
        GenerateError::SanitizerBreach { offset } => tagged(env, atoms::sanitizer_breach(), &[offset.encode(env)]),
    }
}

/// A `generate_error()` term as the core error, else `badarg`.
pub fn generate_error_from_term<'a>(term: Term<'a>) -> NifResult<GenerateError> {
    let fields = get_tuple(term)?;
    let env = term.get_env();
    let is = |tag: Term<'a>, atom: Atom| tag == atom.encode(env);
    match fields[..] {
        [tag, count, max] if is(tag, atoms::too_many_tools()) => {
            Ok(GenerateError::TooManyTools { count: count.decode()?, max: max.decode()? })
        }
        [tag, a, b] if is(tag, atoms::tool_name_collision()) => {
            Ok(GenerateError::ToolNameCollision { a: utf8_binary(a)?.to_owned(), b: utf8_binary(b)?.to_owned() })
        }
        [tag, bytes, max] if is(tag, atoms::surface_too_large()) => {
            Ok(GenerateError::SurfaceTooLarge { bytes: bytes.decode()?, max: max.decode()? })
        }
        [tag, offset] if is(tag, atoms::sanitizer_breach()) => Ok(GenerateError::SanitizerBreach { offset: offset.decode()? }),
        _ => Err(Error::BadArg),
    }
}

/// `ok | {error, Offset}`.
pub fn scan_result_term<'a>(env: Env<'a>, result: Result<(), usize>) -> Term<'a> {
    match result {
        Ok(()) => atoms::ok().encode(env),
        Err(offset) => (atoms::error(), offset).encode(env),
    }
}

/// A binary term for a core string.
pub fn text_term<'a>(env: Env<'a>, text: &str) -> Term<'a> {
    string_term(env, text)
}

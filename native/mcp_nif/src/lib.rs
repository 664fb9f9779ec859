//! mcp_nif: the NIF entry points. This file lists every `#[rustler::nif]`;
//! each one only translates terms (helpers in the sibling modules) and calls
//! `mcp_core`. No logic lives here, and every atom is a fixed constant.
//!
//! Functions whose work grows with the input come in two variants: the plain
//! one runs on a normal scheduler, `*_dirty` on a dirty CPU scheduler; the
//! public Erlang module picks by input size.

mod atoms;
mod interchange_terms;
mod json_terms;
mod wire_terms;

use mcp_core::stdio::Pending;
use rustler::{Binary, Env, NifResult, Term};

// ---- mcp_nif ---------------------------------------------------------------

#[rustler::nif]
fn nif_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

// ---- mcp_json --------------------------------------------------------------

#[rustler::nif]
fn json_decode<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
    json_terms::decode_to_result(env, line.as_slice())
}

#[rustler::nif(schedule = "DirtyCpu")]
fn json_decode_dirty<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
    json_terms::decode_to_result(env, line.as_slice())
}

/// The encoding, or `dirty` once the output would pass `budget` bytes.
#[rustler::nif]
fn json_encode<'a>(env: Env<'a>, value: Term<'a>, budget: usize) -> NifResult<Term<'a>> {
    json_terms::encode_to_binary(env, value, Some(budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn json_encode_dirty<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    json_terms::encode_to_binary(env, value, None)
}

// ---- mcp_jsonrpc / mcp_protocol / mcp_stdio (wire codecs) -------------------

#[rustler::nif]
fn jsonrpc_decode<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
    wire_terms::jsonrpc_decode(env, line.as_slice())
}

#[rustler::nif(schedule = "DirtyCpu")]
fn jsonrpc_decode_dirty<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
    wire_terms::jsonrpc_decode(env, line.as_slice())
}

// The protocol decoders take a json() term whose size is unknown without a
// walk as long as the conversion itself; they run once per handshake, page
// or tool call, so they always run on a dirty CPU scheduler.

#[rustler::nif(schedule = "DirtyCpu")]
fn protocol_decode_initialize_result<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    wire_terms::decode_initialize_result(env, value)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn protocol_decode_tools_page<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    wire_terms::decode_tools_page(env, value)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn protocol_decode_call_tool_result<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    wire_terms::decode_call_tool_result(env, value)
}

/// The framing of one chunk, or `dirty` when it holds more than `newline_budget` newlines.
#[rustler::nif]
fn stdio_scan<'a>(env: Env<'a>, chunk: Binary<'a>, pending: (usize, bool), newline_budget: usize) -> NifResult<Term<'a>> {
    wire_terms::stdio_scan(env, chunk, Pending { bytes: pending.0, ends_with_cr: pending.1 }, Some(newline_budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn stdio_scan_dirty<'a>(env: Env<'a>, chunk: Binary<'a>, pending: (usize, bool)) -> NifResult<Term<'a>> {
    wire_terms::stdio_scan(env, chunk, Pending { bytes: pending.0, ends_with_cr: pending.1 }, None)
}

// ---- mcp_schema / mcp_name / mcp_codegen (code mode generator) --------------

// ---- mcp_interchange --------------------------------------------------------
// Term-input NIFs take a work budget and answer `dirty` past it (see
// interchange_terms::Budget); byte-input ones come in a `_dirty` pair.

#[rustler::nif]
fn interchange_to_json<'a>(env: Env<'a>, value: Term<'a>, budget: usize) -> NifResult<Term<'a>> {
    interchange_terms::to_json(env, value, Some(budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn interchange_to_json_dirty<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    interchange_terms::to_json(env, value, None)
}

#[rustler::nif]
fn interchange_to_msgpack<'a>(env: Env<'a>, value: Term<'a>, budget: usize) -> NifResult<Term<'a>> {
    interchange_terms::to_msgpack(env, value, Some(budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn interchange_to_msgpack_dirty<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    interchange_terms::to_msgpack(env, value, None)
}

#[rustler::nif]
fn msgpack_decode<'a>(env: Env<'a>, bytes: Binary<'a>) -> Term<'a> {
    interchange_terms::decode(env, bytes.as_slice())
}

#[rustler::nif(schedule = "DirtyCpu")]
fn msgpack_decode_dirty<'a>(env: Env<'a>, bytes: Binary<'a>) -> Term<'a> {
    interchange_terms::decode(env, bytes.as_slice())
}

#[rustler::nif]
fn msgpack_encode<'a>(env: Env<'a>, value: Term<'a>, budget: usize) -> NifResult<Term<'a>> {
    interchange_terms::encode(env, value, Some(budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn msgpack_encode_dirty<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    interchange_terms::encode(env, value, None)
}

#[rustler::nif]
fn msgpack_to_json_line<'a>(env: Env<'a>, bytes: Binary<'a>) -> Term<'a> {
    interchange_terms::line_result(env, mcp_core::interchange::msgpack_to_json_line(bytes.as_slice()))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn msgpack_to_json_line_dirty<'a>(env: Env<'a>, bytes: Binary<'a>) -> Term<'a> {
    interchange_terms::line_result(env, mcp_core::interchange::msgpack_to_json_line(bytes.as_slice()))
}

#[rustler::nif]
fn json_to_msgpack_bytes<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
    interchange_terms::line_result(env, mcp_core::interchange::json_to_msgpack_bytes(line.as_slice()))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn json_to_msgpack_bytes_dirty<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
    interchange_terms::line_result(env, mcp_core::interchange::json_to_msgpack_bytes(line.as_slice()))
}

rustler::init!("mcp_nif");

//! mcp_nif: the NIF entry points. This file lists every `#[rustler::nif]`
//! but the event-stream decoder's (`event_stream_nifs`, which holds a resource);
//! each one only translates terms (helpers in the sibling modules) and calls
//! `mcp_core` (or `mcp_os`). No rule lives here, and every atom is a fixed
//! constant.
//!
//! Functions whose work grows with the input come in two variants, by one of
//! two mechanisms, or yield:
//!
//! - **Dirty twins** (`nif_with_dirty_twin!`): one body declared twice,
//!   `foo` on a normal scheduler and `foo_dirty` on a dirty CPU scheduler.
//!   The public Erlang module picks by input size (`byte_size(X) >=
//!   ?DIRTY_THRESHOLD`).
//! - **Budgeted, redone dirty**: the normal variant takes a work budget
//!   (`stdio_scan`, `interchange_to_json`, `interchange_to_msgpack`,
//!   `msgpack_encode`) and answers the atom `dirty` once it is spent; the
//!   caller then redoes the call on the `_dirty` variant, which has no
//!   budget. These pairs differ in their arguments or body, so they are
//!   written out.
//! - **Steps** (`json_decode`, `json_encode`): one NIF that works within a
//!   step budget and continues itself through `enif_schedule_nif`
//!   (`json_terms::decode`, `json_terms::encode`; docs/json.md).
//!
//! Rustler registers every `#[rustler::nif]` fn, macro-generated ones
//! included, through `inventory` when the library loads (`rustler::init!`
//! below lists none); the Erlang names are the fn names.

mod atoms;
mod beam_alloc;
mod child_watch_terms;
mod codegen_terms;
mod event_stream_nifs;
mod interchange_terms;
mod jail_terms;
mod json_terms;
mod wire_terms;

use mcp_core::stdio::Pending;
use rustler::{Binary, Env, NifResult, Term};

/// Declares one NIF body twice: `$name` on a normal scheduler and `$dirty`
/// (which must be `$name` + `_dirty`, checked at compile time) on a dirty
/// CPU scheduler; doc comments go to both. The first parameter is the `Env`.
///
/// ```ignore
/// nif_with_dirty_twin! {
///     fn foo / foo_dirty<'a>(env: Env<'a>, bytes: Binary<'a>) -> Term<'a> { ... }
/// }
/// ```
///
/// `#[rustler::nif]` passes its own `Env` binding to the fn by the
/// parameter's name, and names written here and names written at the call
/// site do not see each other (macro hygiene): so the `Env` parameter is
/// declared here and bound to the caller's name inside the body. The other
/// parameters pass through as plain tokens, which the attribute reads as if
/// written by hand (a `$t:ty` fragment would reach it as an opaque group).
macro_rules! nif_with_dirty_twin {
    (
        $(#[$attribute:meta])*
        fn $name:ident / $dirty:ident <$lifetime:lifetime> ($env:ident: Env<$_env:lifetime>, $($parameters:tt)*)
            -> $result:ty $body:block
    ) => {
        const _: () = assert!(
            is_dirty_twin_name(stringify!($name), stringify!($dirty)),
            concat!(stringify!($dirty), " is not ", stringify!($name), "_dirty")
        );

        $(#[$attribute])*
        #[rustler::nif]
        fn $name<$lifetime>(env: Env<$lifetime>, $($parameters)*) -> $result {
            let $env = env;
            $body
        }

        $(#[$attribute])*
        #[rustler::nif(schedule = "DirtyCpu")]
        fn $dirty<$lifetime>(env: Env<$lifetime>, $($parameters)*) -> $result {
            let $env = env;
            $body
        }
    };
}

/// Whether `dirty` is `name` followed by `_dirty`.
const fn is_dirty_twin_name(name: &str, dirty: &str) -> bool {
    const SUFFIX: &[u8] = b"_dirty";
    let (name, dirty) = (name.as_bytes(), dirty.as_bytes());
    if dirty.len() != name.len() + SUFFIX.len() {
        return false;
    }
    let mut at = 0;
    while at < dirty.len() {
        let expected = if at < name.len() { name[at] } else { SUFFIX[at - name.len()] };
        if dirty[at] != expected {
            return false;
        }
        at += 1;
    }
    true
}

// ---- mcp_json --------------------------------------------------------------

/// `{ok, Json} | {error, CorruptionReport}`, parsed in steps of at most
/// `step_bytes` input bytes and `step_values` values on the caller's
/// scheduler (`json_terms::decode`).
#[rustler::nif]
fn json_decode<'a>(env: Env<'a>, line: Binary<'a>, step_bytes: usize, step_values: usize, repeats: bool) -> Term<'a> {
    let budget = mcp_core::json::Budget { bytes: step_bytes, values: step_values.max(1) };
    json_terms::decode::start(env, line.to_term(env), line.as_slice(), budget, repeats)
}

/// The core's nesting limit, the one definition `mcp_json:max_depth/0` and
/// `mcp_interchange` report.
#[rustler::nif]
fn json_max_depth() -> usize {
    mcp_core::json::MAX_DEPTH
}

/// The core's integer literal limit (decimal digits), for both directions.
#[rustler::nif]
fn json_max_integer_digits() -> usize {
    mcp_core::json::MAX_INTEGER_DIGITS
}

/// The encoding (plus `\n` when `newline`), written in steps of at most
/// `step_bytes` output bytes and `step_values` values on the caller's
/// scheduler (`json_terms::encode`); `badarg` outside `json()`.
#[rustler::nif]
fn json_encode<'a>(env: Env<'a>, value: Term<'a>, newline: bool, step_bytes: usize, step_values: usize) -> NifResult<Term<'a>> {
    let budget = mcp_core::json::Budget { bytes: step_bytes, values: step_values.max(1) };
    json_terms::encode::start(env, value, newline, budget).ok_or(rustler::Error::BadArg)
}

// ---- mcp_jsonrpc / mcp_protocol / mcp_stdio (wire codecs) -------------------

nif_with_dirty_twin! {
    fn jsonrpc_decode / jsonrpc_decode_dirty<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
        wire_terms::jsonrpc_decode(env, line.as_slice())
    }
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

/// The standard JSON-RPC error codes, `{ParseError, InvalidRequest,
/// MethodNotFound, InvalidParams, InternalError}`, defined by the core
/// (`jsonrpc::PARSE_ERROR` ...) for `mcp_jsonrpc`.
#[rustler::nif]
fn jsonrpc_error_codes() -> (i64, i64, i64, i64, i64) {
    use mcp_core::jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};
    (PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR)
}

/// The wire limits defined by the core, so Erlang has no copy of them.
#[rustler::nif]
fn wire_limits<'a>(env: Env<'a>) -> NifResult<Term<'a>> {
    wire_terms::wire_limits(env)
}

nif_with_dirty_twin! {
    /// One inbound line read as the client actor needs it (`mcp_protocol:read/2`).
    fn protocol_read / protocol_read_dirty<'a>(env: Env<'a>, line: Binary<'a>, expect: Term<'a>) -> Term<'a> {
        wire_terms::protocol_read(env, line.as_slice(), expect)
    }
}

/// The parts of a held line joined into one binary (`mcp_stdio`, large lines).
#[rustler::nif(schedule = "DirtyCpu")]
fn stdio_join_dirty<'a>(env: Env<'a>, parts: Vec<Binary<'a>>) -> NifResult<Term<'a>> {
    wire_terms::stdio_join(env, &parts)
}

/// The framing of one chunk under the buffer's cap, or `dirty` when it holds
/// more than `newline_budget` newlines.
#[rustler::nif]
fn stdio_scan<'a>(
    env: Env<'a>,
    chunk: Binary<'a>,
    pending: (usize, bool, u64),
    max_line_bytes: usize,
    newline_budget: usize,
) -> NifResult<Term<'a>> {
    let (bytes, ends_with_cr, base) = pending;
    wire_terms::stdio_scan(env, chunk, Pending { bytes, ends_with_cr }, base, max_line_bytes, Some(newline_budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn stdio_scan_dirty<'a>(env: Env<'a>, chunk: Binary<'a>, pending: (usize, bool, u64), max_line_bytes: usize) -> NifResult<Term<'a>> {
    let (bytes, ends_with_cr, base) = pending;
    wire_terms::stdio_scan(env, chunk, Pending { bytes, ends_with_cr }, base, max_line_bytes, None)
}

// ---- mcp_schema / mcp_name / mcp_codegen (code mode generator) --------------

// Planning and generation walk a whole schema or listing, so they always run
// dirty; the text functions are dirty twins picked by `byte_size`.

#[rustler::nif(schedule = "DirtyCpu")]
fn schema_plan_dirty<'a>(env: Env<'a>, schema: Term<'a>) -> NifResult<Term<'a>> {
    let schema = json_terms::json_from_term(schema)?;
    Ok(codegen_terms::plan_term(env, &mcp_core::schema::plan(&schema, codegen_terms::sha256_hex)))
}

fn mangle_with<'a>(env: Env<'a>, name: Term<'a>, mangler: fn(&str, mcp_core::name::Digest) -> String) -> NifResult<Term<'a>> {
    let name = json_terms::utf8_binary(name)?;
    Ok(codegen_terms::text_term(env, &mangler(name, codegen_terms::sha256_hex)))
}

nif_with_dirty_twin! {
    fn name_mangle / name_mangle_dirty<'a>(env: Env<'a>, name: Term<'a>) -> NifResult<Term<'a>> {
        mangle_with(env, name, mcp_core::name::mangle)
    }
}

nif_with_dirty_twin! {
    fn name_mangle_label / name_mangle_label_dirty<'a>(env: Env<'a>, name: Term<'a>) -> NifResult<Term<'a>> {
        mangle_with(env, name, mcp_core::name::mangle_label)
    }
}

nif_with_dirty_twin! {
    fn name_digest / name_digest_dirty<'a>(env: Env<'a>, name: Term<'a>) -> NifResult<Term<'a>> {
        mangle_with(env, name, mcp_core::name::suffix)
    }
}

nif_with_dirty_twin! {
    fn name_first_collision / name_first_collision_dirty<'a>(env: Env<'a>, names: Term<'a>) -> NifResult<Term<'a>> {
        let names = codegen_terms::names_from_term(names)?;
        Ok(codegen_terms::collision_term(env, mcp_core::name::first_collision(&names, codegen_terms::sha256_hex)))
    }
}

#[rustler::nif(schedule = "DirtyCpu")]
fn codegen_generate_dirty<'a>(env: Env<'a>, server: Term<'a>, tools: Term<'a>) -> NifResult<Term<'a>> {
    let server = json_terms::utf8_binary(server)?;
    let tools = codegen_terms::tools_from_term(tools)?;
    let result = mcp_core::codegen::generate(server, &tools, codegen_terms::sha256_hex);
    Ok(codegen_terms::generate_result_term(env, &result))
}

/// Whether the generator leaves this tool out (it may only run as a task).
/// Always dirty: the descriptor's schemas are read with it.
#[rustler::nif(schedule = "DirtyCpu")]
fn codegen_requires_tasks_dirty(tool: Term<'_>) -> NifResult<bool> {
    Ok(mcp_core::codegen::requires_tasks(&codegen_terms::tool_descriptor(tool)?))
}

#[rustler::nif]
fn codegen_limits() -> (usize, usize, usize, usize, usize, usize, usize) {
    codegen_terms::limits()
}

nif_with_dirty_twin! {
    fn codegen_describe / codegen_describe_dirty<'a>(env: Env<'a>, error: Term<'a>) -> NifResult<Term<'a>> {
        let error = codegen_terms::generate_error_from_term(error)?;
        Ok(codegen_terms::text_term(env, &error.to_string()))
    }
}

fn text_with_cap<'a>(env: Env<'a>, text: Term<'a>, max_chars: usize, edit: fn(&str, usize) -> String) -> NifResult<Term<'a>> {
    Ok(codegen_terms::text_term(env, &edit(json_terms::utf8_binary(text)?, max_chars)))
}

nif_with_dirty_twin! {
    fn codegen_sanitize / codegen_sanitize_dirty<'a>(env: Env<'a>, text: Term<'a>, max_chars: usize) -> NifResult<Term<'a>> {
        text_with_cap(env, text, max_chars, mcp_core::codegen::sanitize)
    }
}

nif_with_dirty_twin! {
    fn codegen_truncate / codegen_truncate_dirty<'a>(env: Env<'a>, text: Term<'a>, max_chars: usize) -> NifResult<Term<'a>> {
        text_with_cap(env, text, max_chars, mcp_core::codegen::truncate)
    }
}

nif_with_dirty_twin! {
    fn codegen_escape / codegen_escape_dirty<'a>(env: Env<'a>, text: Term<'a>) -> NifResult<Term<'a>> {
        Ok(codegen_terms::text_term(env, &mcp_core::codegen::escape(json_terms::utf8_binary(text)?)))
    }
}

nif_with_dirty_twin! {
    /// `scan_for_at` reads bytes, so any binary is accepted (UTF-8 or not).
    fn codegen_scan_for_at / codegen_scan_for_at_dirty<'a>(env: Env<'a>, source: Binary<'a>) -> Term<'a> {
        codegen_terms::scan_result_term(env, mcp_core::codegen::scan_for_at_bytes(source.as_slice()))
    }
}

// ---- mcp_interchange --------------------------------------------------------
// Term-input NIFs take a work budget and answer `dirty` past it (see
// interchange_terms::Budget); byte-input ones are dirty twins.

/// The integer range MessagePack carries, `{Min, Max}`
/// (`interchange::{MIN,MAX}_MSGPACK_INT`), for `mcp_interchange`.
#[rustler::nif]
fn interchange_limits() -> (i128, i128) {
    (mcp_core::interchange::MIN_MSGPACK_INT, mcp_core::interchange::MAX_MSGPACK_INT)
}

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

nif_with_dirty_twin! {
    fn msgpack_decode / msgpack_decode_dirty<'a>(env: Env<'a>, bytes: Binary<'a>) -> Term<'a> {
        interchange_terms::decode(env, bytes.as_slice())
    }
}

#[rustler::nif]
fn msgpack_encode<'a>(env: Env<'a>, value: Term<'a>, budget: usize) -> NifResult<Term<'a>> {
    interchange_terms::encode(env, value, Some(budget))
}

#[rustler::nif(schedule = "DirtyCpu")]
fn msgpack_encode_dirty<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    interchange_terms::encode(env, value, None)
}

nif_with_dirty_twin! {
    fn msgpack_to_json_line / msgpack_to_json_line_dirty<'a>(env: Env<'a>, bytes: Binary<'a>) -> Term<'a> {
        interchange_terms::line_result(env, mcp_core::interchange::msgpack_to_json_line(bytes.as_slice()))
    }
}

nif_with_dirty_twin! {
    fn json_to_msgpack_bytes / json_to_msgpack_bytes_dirty<'a>(env: Env<'a>, line: Binary<'a>) -> Term<'a> {
        interchange_terms::line_result(env, mcp_core::interchange::json_to_msgpack_bytes(line.as_slice()))
    }
}

// ---- mcp_port: the child watch ----------------------------------------------

#[rustler::nif]
fn child_watch_open(env: Env<'_>, os_pid: i32) -> Term<'_> {
    child_watch_terms::opened(env, mcp_os::ChildWatch::open(os_pid))
}

#[rustler::nif]
fn child_watch_exited(env: Env<'_>, watch: child_watch_terms::Watch) -> Term<'_> {
    child_watch_terms::exited(env, watch.0.exited())
}

#[rustler::nif]
fn child_watch_kill(watch: child_watch_terms::Watch) -> rustler::Atom {
    watch.0.signal_tree(child_watch_terms::SIGKILL);
    atoms::ok()
}

// ---- mcp_jail -----------------------------------------------------------------

/// The seccomp filter a jailed server runs under, as bwrap's `--seccomp`
/// reads it (`{ok, Bytes}`), or `{error, unsupported_architecture}`;
/// `unix_sockets` is the jail spec's option of that name.
#[rustler::nif]
fn jail_seccomp_filter<'a>(env: Env<'a>, unix_sockets: bool) -> Term<'a> {
    let policy = mcp_core::seccomp::Policy { unix_sockets };
    jail_terms::seccomp_filter(env, mcp_core::seccomp::native_filter(policy))
}

rustler::init!("mcp_nif");

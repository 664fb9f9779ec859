//! Terms of the wire codecs (docs/design.md: `mcp/jsonrpc`, `mcp/protocol`,
//! `mcp/stdio`) built from `mcp_core` values. Raw JSON parts go through
//! [`json_to_term`], except a `tools/call` result's `structuredContent` read
//! by `mcp_protocol:read/2`, which is built once, straight from its bytes,
//! as the term the caller asked for (`json()` or `msgpack()`); nothing here
//! interprets anything.

use crate::atoms;
use crate::interchange_terms::{fault_term, MsgpackTermSink};
use crate::json_terms::{binary_term, corruption_report_term, json_from_term, json_to_term, owned_binary, TermBuilder, TermSink};
use mcp_core::interchange::MsgpackFromJson;
use mcp_core::json::{self, CorruptionReport, Json};
use mcp_core::jsonrpc::{self, Id, Inbound, Integer, MessageFault, RpcError};
use mcp_core::protocol::read::{self as protocol_read_core, Answer, Expect, LineFault, Outcome, Reading, STRUCTURED_DEPTH};
use mcp_core::protocol::{self, CallToolResult, ContentBlock, InitializeResult, ProtocolFault, ToolDescriptor, ToolsPage};
use mcp_core::stdio::{self, Completion, FramingFault, Pending};
use rustler::types::tuple::make_tuple;
use rustler::{Atom, Binary, Encoder, Env, NifResult, Term};
use std::cell::Cell;

fn text<'a>(env: Env<'a>, value: &str) -> Term<'a> {
    binary_term(env, value.as_bytes())
}

fn tuple<'a>(env: Env<'a>, parts: &[Term<'a>]) -> Term<'a> {
    make_tuple(env, parts)
}

/// `{some, V} | none`.
fn option<'a, T>(env: Env<'a>, value: Option<&T>, to_term: impl FnOnce(Env<'a>, &T) -> Term<'a>) -> Term<'a> {
    match value {
        Some(value) => (atoms::some(), to_term(env, value)).encode(env),
        None => atoms::none().encode(env),
    }
}

fn ok<'a>(env: Env<'a>, value: Term<'a>) -> Term<'a> {
    (atoms::ok(), value).encode(env)
}

fn error<'a>(env: Env<'a>, reason: Term<'a>) -> Term<'a> {
    (atoms::error(), reason).encode(env)
}

// ---- mcp_jsonrpc --------------------------------------------------------------

fn integer_term<'a>(env: Env<'a>, value: &Integer) -> Term<'a> {
    match value {
        Integer::Small(small) => small.encode(env),
        Integer::Big(big) => big.encode(env),
    }
}

fn id_term<'a>(env: Env<'a>, id: &Id) -> Term<'a> {
    match id {
        Id::Int(int) => (atoms::id_int(), integer_term(env, int)).encode(env),
        Id::String(value) => (atoms::id_string(), text(env, value)).encode(env),
    }
}

fn rpc_error_term<'a>(env: Env<'a>, error: &RpcError) -> Term<'a> {
    tuple(
        env,
        &[
            atoms::rpc_error().encode(env),
            integer_term(env, &error.code),
            text(env, &error.message),
            option(env, error.data.as_ref(), json_to_term),
        ],
    )
}

fn inbound_term<'a>(env: Env<'a>, message: &Inbound) -> Term<'a> {
    match message {
        Inbound::Response { id, outcome } => {
            let outcome = match outcome {
                Ok(result) => ok(env, json_to_term(env, result)),
                Err(rpc_error) => error(env, rpc_error_term(env, rpc_error)),
            };
            tuple(env, &[atoms::response().encode(env), id_term(env, id), outcome])
        }
        Inbound::ServerRequest { id, method, params } => tuple(
            env,
            &[atoms::server_request().encode(env), id_term(env, id), text(env, method), option(env, params.as_ref(), json_to_term)],
        ),
        Inbound::Notification { method, params } => {
            tuple(env, &[atoms::notification().encode(env), text(env, method), option(env, params.as_ref(), json_to_term)])
        }
    }
}

/// `{ok, inbound()} | {error, message_fault()}` for one line.
pub fn jsonrpc_decode<'a>(env: Env<'a>, line: &[u8]) -> Term<'a> {
    match jsonrpc::decode(line) {
        Ok(message) => ok(env, inbound_term(env, &message)),
        Err(fault) => error(env, message_fault_term(env, &fault)),
    }
}

// ---- mcp_protocol ---------------------------------------------------------------

fn protocol_fault_term<'a>(env: Env<'a>, fault: &ProtocolFault) -> Term<'a> {
    match fault {
        ProtocolFault::Fault { path, reason } => {
            tuple(env, &[atoms::protocol_fault().encode(env), text(env, path), text(env, reason)])
        }
        ProtocolFault::UnsupportedVersion { requested, offered } => {
            tuple(env, &[atoms::unsupported_version().encode(env), text(env, requested), text(env, offered)])
        }
    }
}

/// Converts the `json()` term, decodes it with `decode`, and builds the
/// `{ok, T} | {error, protocol_fault()}` term; `badarg` outside `json()`.
fn decode_json_term<'a, T>(
    env: Env<'a>,
    value: Term<'a>,
    decode: impl FnOnce(Json) -> Result<T, ProtocolFault>,
    to_term: impl FnOnce(Env<'a>, &T) -> Term<'a>,
) -> NifResult<Term<'a>> {
    let value = json_from_term(value)?;
    Ok(match decode(value) {
        Ok(decoded) => ok(env, to_term(env, &decoded)),
        Err(fault) => error(env, protocol_fault_term(env, &fault)),
    })
}

fn initialize_result_term<'a>(env: Env<'a>, result: &InitializeResult) -> Term<'a> {
    let tools = option(env, result.tools.as_ref(), |env, tools| {
        (atoms::tools_capability(), tools.list_changed).encode(env)
    });
    let server_info =
        tuple(env, &[atoms::server_info().encode(env), text(env, &result.server_info.name), text(env, &result.server_info.version)]);
    tuple(
        env,
        &[
            atoms::initialize_result().encode(env),
            text(env, &result.protocol_version),
            tools,
            server_info,
            option(env, result.instructions.as_ref(), |env, value| text(env, value)),
        ],
    )
}

fn tool_descriptor_term<'a>(env: Env<'a>, tool: &ToolDescriptor) -> Term<'a> {
    tuple(
        env,
        &[
            atoms::tool_descriptor().encode(env),
            text(env, &tool.name),
            option(env, tool.title.as_ref(), |env, value| text(env, value)),
            option(env, tool.description.as_ref(), |env, value| text(env, value)),
            json_to_term(env, &tool.input_schema),
            option(env, tool.output_schema.as_ref(), json_to_term),
            option(env, tool.annotations.as_ref(), json_to_term),
            option(env, tool.execution.as_ref(), json_to_term),
        ],
    )
}

fn tools_page_term<'a>(env: Env<'a>, page: &ToolsPage) -> Term<'a> {
    let tools: Vec<Term<'a>> = page.tools.iter().map(|tool| tool_descriptor_term(env, tool)).collect();
    tuple(
        env,
        &[atoms::tools_page().encode(env), tools.encode(env), option(env, page.next_cursor.as_ref(), |env, value| text(env, value))],
    )
}

fn content_block_term<'a>(env: Env<'a>, block: &ContentBlock) -> Term<'a> {
    match block {
        ContentBlock::Text(value) => (atoms::text(), text(env, value)).encode(env),
        ContentBlock::Other(kind) => (atoms::other(), text(env, kind)).encode(env),
    }
}

/// A text block of at least this many bytes becomes a binary over the
/// block's own string (`owned_binary`) instead of a copy of it: the text
/// of a 1.18 MB tool result was then copied once more than by
/// `mcp_json:decode/1` of the same line.
const OWNED_TEXT_BYTES: usize = 64 * 1024;

/// [`content_block_term`] of a block this call owns: a long text is not
/// copied.
fn owned_content_block_term(env: Env<'_>, block: ContentBlock) -> Term<'_> {
    match block {
        ContentBlock::Text(value) if value.len() >= OWNED_TEXT_BYTES => {
            (atoms::text(), owned_binary(env, value)).encode(env)
        }
        block => content_block_term(env, &block),
    }
}

/// `{Tag, Content, IsError, {some, S} | none}`, `Content` the blocks'
/// terms, `S` built by `structured`.
fn call_tool_result_term<'a, S>(
    env: Env<'a>,
    tag: Atom,
    content: Vec<Term<'a>>,
    result: &CallToolResult<S>,
    structured: impl FnOnce(Env<'a>, &S) -> Term<'a>,
) -> Term<'a> {
    tuple(
        env,
        &[tag.encode(env), content.encode(env), result.is_error.encode(env), option(env, result.structured_content.as_ref(), structured)],
    )
}

pub fn decode_initialize_result<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    decode_json_term(env, value, |value| protocol::decode_initialize_result(&value), initialize_result_term)
}

pub fn decode_tools_page<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    decode_json_term(env, value, |value| protocol::decode_tools_page(&value), tools_page_term)
}

pub fn decode_call_tool_result<'a>(env: Env<'a>, value: Term<'a>) -> NifResult<Term<'a>> {
    decode_json_term(env, value, protocol::decode_call_tool_result, |env, result| {
        let content = result.content.iter().map(|block| content_block_term(env, block)).collect();
        call_tool_result_term(env, atoms::call_tool_result(), content, result, json_to_term)
    })
}

// ---- limits ---------------------------------------------------------------------

/// `#{max_line_bytes => N, requested_version => V, supported_versions => [V]}`.
pub fn wire_limits<'a>(env: Env<'a>) -> NifResult<Term<'a>> {
    let versions: Vec<Term<'a>> = protocol::SUPPORTED_VERSIONS.iter().map(|version| text(env, version)).collect();
    Term::map_from_pairs(
        env,
        &[
            (read_atoms::max_line_bytes().encode(env), stdio::MAX_LINE_BYTES.encode(env)),
            (read_atoms::requested_version().encode(env), text(env, protocol::REQUESTED_VERSION)),
            (read_atoms::supported_versions().encode(env), versions.encode(env)),
        ],
    )
}

// ---- mcp_protocol:read/2 ---------------------------------------------------------

mod read_atoms {
    rustler::atoms! {
        answer,
        reply,
        ignored,
        initialize,
        call_tool,
        call_tool_msgpack,
        routed_call_tool,
        routed_call_tool_msgpack,
        routed_result,
        routed,
        question,
        msgpack_call_tool_result,
        input_required,
        ping,
        invalid_utf8,
        server_error,
        result_malformed,
        max_line_bytes,
        requested_version,
        supported_versions,
    }
}

fn message_fault_term<'a>(env: Env<'a>, fault: &MessageFault) -> Term<'a> {
    match fault {
        MessageFault::Malformed(report) => (atoms::malformed_message(), corruption_report_term(env, report)).encode(env),
        MessageFault::Bad(reason) => (atoms::bad_message(), text(env, reason)).encode(env),
    }
}

/// The term a `tools/call` result's `structuredContent` is built as.
#[derive(Clone, Copy)]
enum Structured {
    /// `json()`, in a `call_tool_result()` (expectation `call_tool`).
    Json,
    /// `{ok, msgpack()} | {error, interchange_fault()}`, in a
    /// `msgpack_call_tool_result()` (expectation `call_tool_msgpack`).
    Msgpack,
}

/// What the request with this id expects, from the actor's `#{Id => Kind}`;
/// a `tools/call` also says, in `structured`, which term it wants.
fn expectation<'a>(env: Env<'a>, expect: Term<'a>, id: i64, structured: &Cell<Structured>) -> Option<Expect> {
    let kind = expect.map_get(id.encode(env)).ok()?;
    let (expected, form) = [
        (read_atoms::initialize(), Expect::Initialize, Structured::Json),
        (atoms::tools_page(), Expect::ToolsPage, Structured::Json),
        (read_atoms::call_tool(), Expect::CallTool, Structured::Json),
        (read_atoms::call_tool_msgpack(), Expect::CallTool, Structured::Msgpack),
        (read_atoms::routed_call_tool(), Expect::RoutedCallTool, Structured::Json),
        (read_atoms::routed_call_tool_msgpack(), Expect::RoutedCallTool, Structured::Msgpack),
        (read_atoms::routed_result(), Expect::RoutedResult, Structured::Json),
        (read_atoms::ping(), Expect::Ping, Structured::Json),
    ]
    .into_iter()
    .find(|(atom, _, _)| kind == atom.encode(env))
    .map(|(_, expected, form)| (expected, form))?;
    structured.set(form);
    Some(expected)
}

/// A `structuredContent` built from its bytes in one parse, as the term
/// `form` names.
fn structured_term<'a>(env: Env<'a>, form: Structured, bytes: &[u8]) -> Result<Term<'a>, CorruptionReport> {
    let build = TermBuilder::new(env);
    Ok(match form {
        Structured::Json => build.term(json::parse_within(bytes, &mut TermSink::new(env), STRUCTURED_DEPTH)?),
        Structured::Msgpack => {
            let mut sink = MsgpackFromJson::new(MsgpackTermSink::new(env));
            let value = json::parse_within(bytes, &mut sink, STRUCTURED_DEPTH)?;
            match sink.finish(value, bytes) {
                Ok(value) => ok(env, build.term(value)),
                Err(fault) => error(env, fault_term(env, &fault)),
            }
        }
    })
}

fn outcome_term<'a>(env: Env<'a>, outcome: Outcome<Term<'a>>, form: Structured) -> Term<'a> {
    match outcome {
        Outcome::Answer(Answer::Initialize(result)) => ok(env, initialize_result_term(env, &result)),
        Outcome::Answer(Answer::ToolsPage(page)) => ok(env, tools_page_term(env, &page)),
        Outcome::Answer(Answer::CallTool(mut result)) => {
            let tag = match form {
                Structured::Json => atoms::call_tool_result(),
                Structured::Msgpack => read_atoms::msgpack_call_tool_result(),
            };
            let blocks = std::mem::take(&mut result.content);
            let content = blocks.into_iter().map(|block| owned_content_block_term(env, block)).collect();
            ok(env, call_tool_result_term(env, tag, content, &result, |_, structured| *structured))
        }
        Outcome::Answer(Answer::InputRequired(result)) => {
            ok(env, (read_atoms::input_required(), json_to_term(env, &result)).encode(env))
        }
        Outcome::Answer(Answer::Pong) => atoms::ok().encode(env),
        Outcome::ServerError(rpc_error) => error(env, (read_atoms::server_error(), rpc_error_term(env, &rpc_error)).encode(env)),
        Outcome::Malformed(fault) => error(env, (read_atoms::result_malformed(), protocol_fault_term(env, &fault)).encode(env)),
    }
}

/// `{answer, Id, Reply} | {routed, Id} | {reply, Bytes} | ignored | {error, Fault}` for
/// one line; `Reply` is what the waiting caller gets (`ok` for a ping).
pub fn protocol_read<'a>(env: Env<'a>, line: &[u8], expect: Term<'a>) -> Term<'a> {
    let form = Cell::new(Structured::Json);
    let reading = protocol_read_core::read_with(
        line,
        |id| expectation(env, expect, id, &form),
        |bytes| structured_term(env, form.get(), bytes),
    );
    match reading {
        Ok(Reading::Answer { id, outcome }) => {
            tuple(env, &[read_atoms::answer().encode(env), id.encode(env), outcome_term(env, outcome, form.get())])
        }
        Ok(Reading::Reply(bytes)) => (read_atoms::reply(), binary_term(env, &bytes)).encode(env),
        Ok(Reading::Question(bytes)) => (read_atoms::question(), binary_term(env, &bytes)).encode(env),
        Ok(Reading::Routed { id }) => (read_atoms::routed(), id).encode(env),
        Ok(Reading::Ignored) => read_atoms::ignored().encode(env),
        Err(LineFault::Message(fault)) => error(env, message_fault_term(env, &fault)),
        Err(LineFault::InvalidUtf8(offset)) => error(env, (read_atoms::invalid_utf8(), offset).encode(env)),
    }
}

// ---- mcp_stdio (held lines) -----------------------------------------------------

/// One binary of every part's bytes, in order (sized by bytes received).
pub fn stdio_join<'a>(env: Env<'a>, parts: &[Binary<'a>]) -> NifResult<Term<'a>> {
    let total = parts.iter().map(|part| part.len()).sum();
    let mut joined = rustler::NewBinary::new(env, total);
    let mut at = 0;
    for part in parts {
        joined.as_mut_slice()[at..at + part.len()].copy_from_slice(part.as_slice());
        at += part.len();
    }
    Ok(Binary::from(joined).to_term(env))
}

// ---- mcp_stdio (framing) ------------------------------------------------------------------

/// Frames one chunk after `pending` held bytes, the chunk starting at byte
/// `base` of the stream, refusing lines longer than `max_line_bytes` (capped
/// by the core at `stdio::MAX_LINE_BYTES`): `{ok, Completion, [{Offset,
/// Line}], Rest, RestEndsWithCr}` where `Completion` is `continues | empty |
/// {line, Keep, Part}` and `Offset` is the line's stream offset; `Part`,
/// every `Line` and `Rest` are sub-binaries of `chunk` (no copy). `{error,
/// {line_too_long, Bytes}}`. With a `newline_budget`, the atom `dirty`
/// instead (before any framing) when the chunk holds more newlines than
/// that: the work grows with the lines, and the caller then redoes the call
/// on a dirty scheduler.
pub fn stdio_scan<'a>(
    env: Env<'a>,
    chunk: Binary<'a>,
    pending: Pending,
    base: u64,
    max_line_bytes: usize,
    newline_budget: Option<usize>,
) -> NifResult<Term<'a>> {
    let bytes = chunk.as_slice();
    if newline_budget.is_some_and(|budget| stdio::has_more_newlines_than(bytes, budget)) {
        return Ok(atoms::dirty().encode(env));
    }
    let framing = match stdio::scan(pending, bytes, max_line_bytes) {
        Ok(framing) => framing,
        Err(FramingFault::LineTooLong { bytes }) => {
            return Ok(error(env, (atoms::line_too_long(), bytes).encode(env)));
        }
    };
    let completion = match framing.completion {
        Completion::Continues => atoms::continues().encode(env),
        Completion::Empty => atoms::empty().encode(env),
        Completion::Line { keep, end } => (atoms::line(), keep, chunk.make_subbinary(0, end)?).encode(env),
    };
    let lines = framing
        .lines
        .iter()
        .map(|range| {
            let line = chunk.make_subbinary(range.start, range.end - range.start)?;
            Ok((base.saturating_add(range.start as u64), line).encode(env))
        })
        .collect::<NifResult<Vec<Term<'a>>>>()?;
    let rest = chunk.make_subbinary(framing.rest, bytes.len() - framing.rest)?;
    Ok(tuple(
        env,
        &[atoms::ok().encode(env), completion, lines.encode(env), rest.to_term(env), framing.pending.ends_with_cr.encode(env)],
    ))
}

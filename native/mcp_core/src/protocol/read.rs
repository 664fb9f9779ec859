//! One inbound line read the way the client actor needs it, in one pass:
//! the envelope, and for a response to a request the actor is waiting for,
//! the result decoded as that request expects ([`Expect`]).
//!
//! Only what the actor uses is built. A notification, a response to an id
//! nobody waits for (a string id, an unknown or bignum integer id) and the
//! result of a `ping` are validated and dropped ([`envelope::SkipSink`]); a
//! server request becomes the response line to write back (its params are
//! only validated). A `tools/call` result's `structuredContent` (its bulk,
//! as a rule) is built once, straight from its bytes, by the builder the
//! caller of [`read_with`] passes (the NIF builds the program's term:
//! JSON or MessagePack); the rest of the result is decoded as
//! [`decode_call_tool_result`] decodes it. Faults are those of
//! [`jsonrpc::decode`], except that a corruption caused by bytes that are
//! not UTF-8 is reported as [`LineFault::InvalidUtf8`] at the first such
//! byte.

use super::plain;
use super::{
    decode_call_tool_result, decode_initialize_result, decode_tools_page, CallToolResult, InitializeResult,
    ProtocolFault, ToolsPage,
};
use crate::json::{self, CorruptionReport, Json, TreeSink, MAX_DEPTH};
use crate::jsonrpc::envelope::{self, Envelope, Member, Shape, Span};
use crate::jsonrpc::{self, decode_error, Id, Integer, MessageFault, RpcError};

/// What the actor expects as the result of one of its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    Initialize,
    ToolsPage,
    CallTool,
    /// A `tools/call` whose complete result its caller reads itself: the
    /// result is validated without being built and the line handed over
    /// ([`Reading::Routed`]); an `input_required` result and an error are
    /// decoded as for [`Expect::CallTool`] (the actor acts on them). A line
    /// shorter than [`ROUTED_FROM_BYTES`] is read as for
    /// [`Expect::CallTool`], whatever it holds.
    RoutedCallTool,
    /// A result its request's owner reads itself, when it chooses (the
    /// actor: a `tools/list` page within the listing's byte budget, a
    /// probe's answer): a result of any length is validated without being
    /// built and the line handed over ([`Reading::Routed`]); an error is
    /// decoded.
    RoutedResult,
    /// Any result: only its arrival matters.
    Ping,
}

/// A result decoded as expected; `S` is what a `tools/call` result's
/// `structuredContent` is built as.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<S = Json> {
    Initialize(InitializeResult),
    ToolsPage(ToolsPage),
    CallTool(CallToolResult<S>),
    /// A `tools/call` result whose `resultType` is `"input_required"` (the
    /// 2026-07-28 revision's multi-round tools): the whole result, for the
    /// actor to read its `inputRequests` and `requestState`.
    InputRequired(Json),
    Pong,
}

/// How a request the actor waits for was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<S = Json> {
    Answer(Answer<S>),
    ServerError(RpcError),
    /// The result does not decode as expected.
    Malformed(ProtocolFault),
}

/// What one line means to the actor.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading<S = Json> {
    /// A response to the pending request `id`.
    Answer { id: i64, outcome: Outcome<S> },
    /// A server request: the response to write back (without its newline):
    /// an empty result for `ping`, `-32601` for any other method.
    Reply(Vec<u8>),
    /// A server's `elicitation/create` (its method however written): the
    /// `-32601` response to write when nothing else answers it. The actor
    /// may read the line whole for its input handler; no other request
    /// is read further.
    Question(Vec<u8>),
    /// A complete result to the pending request `id` that expects
    /// [`Expect::RoutedCallTool`], on a line of [`ROUTED_FROM_BYTES`] or
    /// more, or a result to one that expects [`Expect::RoutedResult`]:
    /// the whole line is valid JSON-RPC and reading it again (with
    /// [`Expect::CallTool`], [`Expect::ToolsPage`]) gives its answer.
    Routed { id: i64 },
    /// Nothing the actor acts on; validated and dropped.
    Ignored,
}

/// Why a line ends the connection.
#[derive(Debug, Clone, PartialEq)]
pub enum LineFault {
    Message(MessageFault),
    /// The first byte that is not UTF-8, from the start of the line.
    InvalidUtf8(usize),
}

/// The shortest line whose [`Expect::RoutedCallTool`] result is routed: a
/// shorter one is read whole where it is validated, one read instead of
/// two (the caller's read of an echo answer cost more than the building
/// and the copy of its answer), while a longer one's answer is built by its
/// caller, in parallel with others.
pub const ROUTED_FROM_BYTES: usize = 1024;

/// What a line is read as, for what its request expects.
fn read_as(expected: Expect, line: &[u8]) -> Expect {
    match expected {
        Expect::RoutedCallTool if line.len() < ROUTED_FROM_BYTES => Expect::CallTool,
        expected => expected,
    }
}

/// The longest `error` whose `data` is read: a longer one is validated and
/// keeps its `code` and `message` only (its `data` is `None`), so that what
/// an error costs the actor, who reads every error, does not grow with it.
pub const MAX_ERROR_BYTES: usize = 64 * 1024;

/// The longest result the actor reads whole, an `initialize` result or an
/// `input_required` one (its `inputRequests` and `requestState`): a
/// longer one is [`Outcome::Malformed`], unbuilt.
pub const MAX_WHOLE_RESULT_BYTES: usize = 256 * 1024;

/// The longest `resultType` read: a string longer than `"input_required"`
/// written with every character escaped (`\uXXXX`) cannot be it.
const MAX_RESULT_TYPE_BYTES: usize = 2 + 6 * "input_required".len();

/// The longest `code` of a long `error` read (an integer's text).
const MAX_ERROR_CODE_BYTES: usize = 64;

/// Containers a `tools/call` result's `structuredContent` may nest: the
/// envelope and the result around it are two of the line's [`MAX_DEPTH`].
pub const STRUCTURED_DEPTH: usize = MAX_DEPTH - 2;

/// Reads one line (without its newline). `expect` names what the request
/// with integer id `id` expects, or `None` when nobody waits for it. A
/// `structuredContent` is built as a [`Json`] tree.
pub fn read(line: &[u8], expect: impl FnOnce(i64) -> Option<Expect>) -> Result<Reading, LineFault> {
    read_with(line, expect, |bytes| json::parse_within(bytes, &mut TreeSink, STRUCTURED_DEPTH))
}

/// [`read`], with `structured` building a `tools/call` result's
/// `structuredContent` from its bytes: it is called at most once, only
/// when the rest of the result decodes, and must parse the bytes as one
/// JSON value of at most [`STRUCTURED_DEPTH`] containers
/// ([`json::parse_within`] with a sink of its own); its `Err` is reported
/// as the line's corruption.
pub fn read_with<S>(
    line: &[u8],
    expect: impl FnOnce(i64) -> Option<Expect>,
    structured: impl FnOnce(&[u8]) -> Result<S, CorruptionReport>,
) -> Result<Reading<S>, LineFault> {
    let Some(plain) = plain::scan(line) else {
        return read_envelope(line, expect, structured).map_err(|fault| line_fault(line, fault));
    };
    // The scan read what these expectations read from the line (texts
    // with escapes are read or validated here); the others, and a text
    // that is not a valid string, read the line again.
    let id = plain.id;
    let is_error = plain.is_error;
    match expect(id).map(|expected| read_as(expected, line)) {
        Some(Expect::CallTool) => match plain.content() {
            Some(content) => Ok(Reading::Answer {
                id,
                outcome: Outcome::Answer(Answer::CallTool(CallToolResult {
                    content,
                    is_error,
                    structured_content: None,
                })),
            }),
            None => {
                read_envelope(line, |_| Some(Expect::CallTool), structured).map_err(|fault| line_fault(line, fault))
            }
        },
        Some(Expect::RoutedCallTool | Expect::RoutedResult) if plain.validated() => Ok(Reading::Routed { id }),
        None if plain.validated() => Ok(Reading::Ignored),
        expected => read_envelope(line, |_| expected, structured).map_err(|fault| line_fault(line, fault)),
    }
}

/// [`read`] without the scan of [`plain`] first: every line read the full
/// way (for the checks that compare the two; they answer alike).
pub fn read_in_full(line: &[u8], expect: impl FnOnce(i64) -> Option<Expect>) -> Result<Reading, LineFault> {
    read_envelope(line, expect, |bytes| json::parse_within(bytes, &mut TreeSink, STRUCTURED_DEPTH))
        .map_err(|fault| line_fault(line, fault))
}

fn read_envelope<S>(
    line: &[u8],
    expect: impl FnOnce(i64) -> Option<Expect>,
    structured: impl FnOnce(&[u8]) -> Result<S, CorruptionReport>,
) -> Result<Reading<S>, MessageFault> {
    let envelope = envelope::split(line)?;
    match envelope.shape()? {
        Shape::Notification { params, .. } => {
            params.map(|span| envelope.skip(span)).transpose()?;
            Ok(Reading::Ignored)
        }
        Shape::Request { id, method, params } => {
            params.map(|span| envelope.skip(span)).transpose()?;
            Ok(reply(&id, &method).map_or(Reading::Ignored, |response| match method.as_str() {
                "elicitation/create" => Reading::Question(response),
                _ => Reading::Reply(response),
            }))
        }
        Shape::Response { id, outcome } => {
            let waiting = match id {
                Id::Int(Integer::Small(id)) => expect(id).map(|expected| (id, read_as(expected, line))),
                _ => None,
            };
            let Some((id, expected)) = waiting else {
                let (Ok(span) | Err(span)) = outcome;
                envelope.skip(span)?;
                return Ok(Reading::Ignored);
            };
            let outcome = match (outcome, expected) {
                (Ok(result), Expect::RoutedCallTool) => {
                    if let Some(outcome) = input_required_answer(&envelope, result)? {
                        return Ok(Reading::Answer { id, outcome });
                    }
                    envelope.skip(result)?;
                    return Ok(Reading::Routed { id });
                }
                (Ok(result), Expect::RoutedResult) => {
                    envelope.skip(result)?;
                    return Ok(Reading::Routed { id });
                }
                (Ok(result), Expect::Ping) => {
                    envelope.skip(result)?;
                    Outcome::Answer(Answer::Pong)
                }
                (Ok(result), Expect::Initialize) if result.bytes.len() > MAX_WHOLE_RESULT_BYTES => {
                    envelope.skip(result)?;
                    Outcome::Malformed(too_long("an initialize result longer than 262144 bytes"))
                }
                (Ok(result), Expect::Initialize) => {
                    decided(decode_initialize_result(&envelope.tree(result)?).map(Answer::Initialize))
                }
                (Ok(result), Expect::ToolsPage) => decided(decode_tools_page(&envelope.tree(result)?).map(Answer::ToolsPage)),
                (Ok(result), Expect::CallTool) => call_tool(&envelope, result, structured)?,
                (Err(error), _) => Outcome::ServerError(server_error(&envelope, error)?),
            };
            Ok(Reading::Answer { id, outcome })
        }
    }
}

/// An `error` decoded; one longer than [`MAX_ERROR_BYTES`] is validated,
/// and only its `code` and `message` are built.
fn server_error<'a>(envelope: &Envelope<'a>, error: Span<'a>) -> Result<RpcError, MessageFault> {
    let tree = if error.bytes.len() <= MAX_ERROR_BYTES {
        envelope.tree(error)?
    } else {
        envelope.skip(error)?;
        match envelope.members(error) {
            Some(members) => {
                let mut kept = Vec::new();
                let mut data = 0;
                for (key, value) in members {
                    let key = envelope.key_text(key)?;
                    // A code or a message of another shape is not built: it is
                    // the same fault as a null one.
                    let built = match &*key {
                        "code" if value.bytes.len() <= MAX_ERROR_CODE_BYTES => envelope.tree_inner(value)?,
                        "message" if value.bytes.first() == Some(&b'"') => envelope.tree_inner(value)?,
                        "code" | "message" => Json::Null,
                        "data" => {
                            data += 1;
                            continue;
                        }
                        _ => continue,
                    };
                    kept.push((key.into_owned(), built));
                }
                if data > 1 {
                    return Err(envelope.fault(MessageFault::Bad("duplicate key error.data")));
                }
                Json::Object(kept)
            }
            None => envelope.tree(error)?,
        }
    };
    decode_error(tree).map_err(|fault| envelope.fault(fault))
}

fn decided<S>(decoded: Result<Answer<S>, ProtocolFault>) -> Outcome<S> {
    decoded.map_or_else(Outcome::Malformed, Outcome::Answer)
}

/// A `tools/call` result read member by member. `content` and `isError`
/// (their first occurrences, as the decoder reads them) are parsed and
/// decoded by [`decode_call_tool_result`] beside a stand-in for
/// `structuredContent`, whose first occurrence is built by `structured`
/// only once the rest decoded (`null` counts as absent). Every other member
/// is validated without being built.
fn call_tool<'a, S>(
    envelope: &Envelope<'a>,
    result: Span<'a>,
    structured: impl FnOnce(&[u8]) -> Result<S, CorruptionReport>,
) -> Result<Outcome<S>, MessageFault> {
    if let Some(outcome) = input_required_answer(envelope, result)? {
        return Ok(outcome);
    }
    let (stand_in, structured_span) = match envelope.result_members() {
        Some(members) => call_tool_members(envelope, members)?,
        // Not an object: the decoder names the fault.
        None => (envelope.tree(result)?, None),
    };
    let decoded = match decode_call_tool_result(stand_in) {
        Ok(decoded) => decoded,
        Err(fault) => {
            if let Some(span) = structured_span {
                envelope.skip_inner(span)?;
            }
            return Ok(Outcome::Malformed(fault));
        }
    };
    let structured_content = match structured_span {
        Some(span) => Some(structured(span.bytes).map_err(|_| envelope.corruption())?),
        None => None,
    };
    Ok(Outcome::Answer(Answer::CallTool(CallToolResult {
        content: decoded.content,
        is_error: decoded.is_error,
        structured_content,
    })))
}

/// A `tools/call` result whose `resultType` is `"input_required"`, kept
/// whole; `None` for a complete result (or one that is not an object).
fn input_required_answer<'a, S>(envelope: &Envelope<'a>, result: Span<'a>) -> Result<Option<Outcome<S>>, MessageFault> {
    match envelope.result_members() {
        Some(members) if input_required(envelope, members)? => {
            if result.bytes.len() > MAX_WHOLE_RESULT_BYTES {
                envelope.skip(result)?;
                return Ok(Some(Outcome::Malformed(too_long("an input_required result longer than 262144 bytes"))));
            }
            Ok(Some(Outcome::Answer(Answer::InputRequired(envelope.tree(result)?))))
        }
        _ => Ok(None),
    }
}

/// The fault of a result longer than [`MAX_WHOLE_RESULT_BYTES`] (the
/// reason names the length).
fn too_long(reason: &'static str) -> ProtocolFault {
    ProtocolFault::Fault { path: "$".to_owned(), reason }
}

/// Whether the first `resultType` member of a result is the string
/// `"input_required"` (absent, or any other value: a complete result). Only
/// a string of at most [`MAX_RESULT_TYPE_BYTES`] is built to be compared;
/// any other value is validated with the rest of the result.
fn input_required<'a>(envelope: &Envelope<'a>, members: &[Member<'a>]) -> Result<bool, MessageFault> {
    for &(key, value) in members {
        if envelope.key_text(key)? == "resultType" {
            return Ok(value.bytes == b"\"input_required\""
                || (value.bytes.first() == Some(&b'"')
                    && value.bytes.len() <= MAX_RESULT_TYPE_BYTES
                    && envelope.tree_inner(value)? == Json::String("input_required".to_owned())));
        }
    }
    Ok(false)
}

/// The result object with its `content` and `isError` parsed and a stand-in
/// for its `structuredContent`, and the span of that `structuredContent`.
fn call_tool_members<'a>(envelope: &Envelope<'a>, members: &[Member<'a>]) -> Result<(Json, Option<Span<'a>>), MessageFault> {
    let mut content = None;
    let mut is_error = None;
    let mut structured = None;
    for &(key, value) in members {
        let slot = match &*envelope.key_text(key)? {
            "content" => &mut content,
            "isError" => &mut is_error,
            "structuredContent" if structured.is_none() => {
                structured = Some((value.bytes != b"null").then_some(value));
                continue;
            }
            _ => {
                envelope.skip_inner(value)?;
                continue;
            }
        };
        match slot {
            Some(_) => envelope.skip_inner(value)?,
            None => *slot = Some(envelope.tree_inner(value)?),
        }
    }
    let structured = structured.flatten();
    let stand_in = [
        ("content", content),
        ("isError", is_error),
        ("structuredContent", structured.map(|_| Json::Bool(true))),
    ]
    .into_iter()
    .filter_map(|(key, value)| Some((key.to_owned(), value?)))
    .collect();
    Ok((Json::Object(stand_in), structured))
}

/// The response to a server request; the id is echoed in the same pass, so
/// its cost belongs to the line that carried it.
fn reply(id: &Id, method: &str) -> Option<Vec<u8>> {
    let response = if method == "ping" {
        jsonrpc::result_response(id, Json::Object(Vec::new()))
    } else {
        jsonrpc::error_response(id, &Integer::Small(jsonrpc::METHOD_NOT_FOUND), "Method not found")
    };
    json::to_bytes(&response).ok()
}

/// A corruption at a byte that is not UTF-8 (inside a string or not) is
/// reported as such.
fn line_fault(line: &[u8], fault: MessageFault) -> LineFault {
    match (&fault, std::str::from_utf8(line)) {
        (MessageFault::Malformed(report), Err(invalid)) if invalid.valid_up_to() <= report.offset => {
            LineFault::InvalidUtf8(invalid.valid_up_to())
        }
        _ => LineFault::Message(fault),
    }
}

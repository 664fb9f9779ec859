//! One inbound line read the way the client actor needs it, in one pass:
//! the envelope, and for a response to a request the actor is waiting for,
//! the result decoded as that request expects ([`Expect`]).
//!
//! Only what the actor uses is built. A notification, a response to an id
//! nobody waits for (a string id, an unknown or bignum integer id) and the
//! result of a `ping` are validated and dropped ([`envelope::SkipSink`]); a
//! server request becomes the response line to write back (its params are
//! only validated). Faults are those of [`jsonrpc::decode`], except that a
//! corruption caused by bytes that are not UTF-8 is reported as
//! [`LineFault::InvalidUtf8`] at the first such byte.

use super::{
    decode_call_tool_result, decode_initialize_result, decode_tools_page, CallToolResult, InitializeResult,
    ProtocolFault, ToolsPage,
};
use crate::json::{self, Json};
use crate::jsonrpc::envelope::{self, Shape};
use crate::jsonrpc::{self, decode_error, Id, Integer, MessageFault, RpcError};

/// What the actor expects as the result of one of its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    Initialize,
    ToolsPage,
    CallTool,
    /// Any result: only its arrival matters.
    Ping,
}

/// A result decoded as expected.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Initialize(InitializeResult),
    ToolsPage(ToolsPage),
    CallTool(CallToolResult),
    Pong,
}

/// How a request the actor waits for was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answer(Answer),
    ServerError(RpcError),
    /// The result does not decode as expected.
    Malformed(ProtocolFault),
}

/// What one line means to the actor.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// A response to the pending request `id`.
    Answer { id: i64, outcome: Outcome },
    /// A server request: the response to write back (without its newline):
    /// an empty result for `ping`, `-32601` for any other method.
    Reply(Vec<u8>),
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

/// Reads one line (without its newline). `expect` names what the request
/// with integer id `id` expects, or `None` when nobody waits for it.
pub fn read(line: &[u8], expect: impl FnOnce(i64) -> Option<Expect>) -> Result<Reading, LineFault> {
    read_envelope(line, expect).map_err(|fault| line_fault(line, fault))
}

fn read_envelope(line: &[u8], expect: impl FnOnce(i64) -> Option<Expect>) -> Result<Reading, MessageFault> {
    let envelope = envelope::split(line)?;
    match envelope.shape()? {
        Shape::Notification { params, .. } => {
            params.map(|span| envelope.skip(span)).transpose()?;
            Ok(Reading::Ignored)
        }
        Shape::Request { id, method, params } => {
            params.map(|span| envelope.skip(span)).transpose()?;
            Ok(reply(&id, &method).map_or(Reading::Ignored, Reading::Reply))
        }
        Shape::Response { id, outcome } => {
            let waiting = match id {
                Id::Int(Integer::Small(id)) => expect(id).map(|expected| (id, expected)),
                _ => None,
            };
            let Some((id, expected)) = waiting else {
                let (Ok(span) | Err(span)) = outcome;
                envelope.skip(span)?;
                return Ok(Reading::Ignored);
            };
            let outcome = match outcome {
                Ok(result) if expected == Expect::Ping => {
                    envelope.skip(result)?;
                    Outcome::Answer(Answer::Pong)
                }
                Ok(result) => answer(expected, envelope.tree(result)?),
                Err(error) => {
                    Outcome::ServerError(decode_error(envelope.tree(error)?).map_err(|fault| envelope.fault(fault))?)
                }
            };
            Ok(Reading::Answer { id, outcome })
        }
    }
}

fn answer(expected: Expect, result: Json) -> Outcome {
    let decoded = match expected {
        Expect::Initialize => decode_initialize_result(&result).map(Answer::Initialize),
        Expect::ToolsPage => decode_tools_page(&result).map(Answer::ToolsPage),
        Expect::CallTool => decode_call_tool_result(result).map(Answer::CallTool),
        Expect::Ping => Ok(Answer::Pong),
    };
    decoded.map_or_else(Outcome::Malformed, Outcome::Answer)
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

//! The JSON-RPC 2.0 envelope (the `mcp/jsonrpc` module): a total decoder for
//! one inbound line, the replies to a server request, and the inverse of the
//! decoder. The client's own requests and notifications are built in Erlang
//! (`mcp_jsonrpc`).
//!
//! Strict envelope, tolerant content: `jsonrpc` must be exactly `"2.0"`, an
//! id is an integer or a string, a response carries exactly one of
//! `result`/`error`, a duplicated envelope key and a top-level array (batch)
//! are faults. Unknown members are ignored; `params`, `result` and error
//! `data` cross raw.
//!
//! Decoding reads the envelope lazily ([`envelope`]): the top-level object
//! is cut into members (so duplicated keys are visible), and `result`,
//! `error` and `params` are parsed only by a reader that needs them. Every
//! fault is the one a whole-line parse and interpretation would give.

pub mod envelope;

use crate::json::{CorruptionReport, Json};
use envelope::Shape;
use num_bigint::BigInt;

/// An integer as JSON carries it: `i64` when it fits, else a bignum (the
/// same normal form as [`Json::Int`] / [`Json::BigInt`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Integer {
    Small(i64),
    Big(BigInt),
}

impl Integer {
    fn from_json(value: &Json) -> Option<Integer> {
        match value {
            Json::Int(small) => Some(Integer::Small(*small)),
            Json::BigInt(big) => Some(Integer::Big(big.clone())),
            _ => None,
        }
    }

    fn to_json(&self) -> Json {
        match self {
            Integer::Small(small) => Json::Int(*small),
            Integer::Big(big) => Json::from_big_int(big.clone()),
        }
    }
}

/// A request id: `{id_int, I}` or `{id_string, S}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Id {
    Int(Integer),
    String(String),
}

impl Id {
    fn to_json(&self) -> Json {
        match self {
            Id::Int(int) => int.to_json(),
            Id::String(text) => Json::String(text.clone()),
        }
    }
}

/// A JSON-RPC error object; `data` crosses raw.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: Integer,
    pub message: String,
    pub data: Option<Json>,
}

/// One decoded inbound message.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    Response { id: Id, outcome: Result<Json, RpcError> },
    ServerRequest { id: Id, method: String, params: Option<Json> },
    Notification { method: String, params: Option<Json> },
}

/// Why a line is not an inbound message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MessageFault {
    /// The line is not JSON.
    #[error("{0}")]
    Malformed(CorruptionReport),
    /// The line is JSON but not a JSON-RPC 2.0 message; a fixed phrase.
    #[error("bad message: {0}")]
    Bad(&'static str),
}

/// The standard error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// Decodes one line (without its newline) as an inbound message.
pub fn decode(line: &[u8]) -> Result<Inbound, MessageFault> {
    let envelope = envelope::split(line)?;
    Ok(match envelope.shape()? {
        Shape::Request { id, method, params } => {
            Inbound::ServerRequest { id, method, params: params.map(|span| envelope.tree(span)).transpose()? }
        }
        Shape::Notification { method, params } => {
            Inbound::Notification { method, params: params.map(|span| envelope.tree(span)).transpose()? }
        }
        Shape::Response { id, outcome: Ok(result) } => Inbound::Response { id, outcome: Ok(envelope.tree(result)?) },
        Shape::Response { id, outcome: Err(error) } => {
            let error = decode_error(envelope.tree(error)?).map_err(|fault| envelope.fault(fault))?;
            Inbound::Response { id, outcome: Err(error) }
        }
    })
}

pub(crate) fn decode_id(value: &Json) -> Result<Id, MessageFault> {
    match value {
        Json::String(text) => Ok(Id::String(text.clone())),
        Json::Null => Err(MessageFault::Bad("id is null")),
        other => Integer::from_json(other).map(Id::Int).ok_or(MessageFault::Bad("id is not an integer or a string")),
    }
}

pub(crate) fn decode_error(value: Json) -> Result<RpcError, MessageFault> {
    let Json::Object(members) = value else {
        return Err(MessageFault::Bad("error is not an object"));
    };
    let (mut code, mut message, mut data) = (None, None, None);
    for (key, value) in members {
        let (slot, duplicate) = match key.as_str() {
            "code" => (&mut code, "duplicate key error.code"),
            "message" => (&mut message, "duplicate key error.message"),
            "data" => (&mut data, "duplicate key error.data"),
            _ => continue,
        };
        if slot.replace(value).is_some() {
            return Err(MessageFault::Bad(duplicate));
        }
    }
    let code = match code {
        Some(value) => Integer::from_json(&value).ok_or(MessageFault::Bad("error code is not an integer"))?,
        None => return Err(MessageFault::Bad("error without code")),
    };
    let message = match message {
        Some(Json::String(text)) => text,
        Some(_) => return Err(MessageFault::Bad("error message is not a string")),
        None => return Err(MessageFault::Bad("error without message")),
    };
    Ok(RpcError { code, message, data })
}

// ---- encoders ---------------------------------------------------------------

fn envelope(members: Vec<(&str, Json)>) -> Json {
    let mut object = vec![("jsonrpc".to_owned(), Json::str("2.0"))];
    object.extend(members.into_iter().map(|(key, value)| (key.to_owned(), value)));
    Json::Object(object)
}

/// `{"jsonrpc":"2.0","id":Id,"result":Result}`.
pub(crate) fn result_response(id: &Id, result: Json) -> Json {
    envelope(vec![("id", id.to_json()), ("result", result)])
}

/// `{"jsonrpc":"2.0","id":Id,"error":{"code":Code,"message":Message}}`.
pub(crate) fn error_response(id: &Id, code: &Integer, message: &str) -> Json {
    let error = Json::Object(vec![("code".to_owned(), code.to_json()), ("message".to_owned(), Json::str(message))]);
    envelope(vec![("id", id.to_json()), ("error", error)])
}

/// The message an inbound value was decoded from, re-encoded (the inverse of
/// [`decode`] up to member order and ignored members): the wire bytes of the
/// decoder's round trips, in the tests and the `jsonrpc_decode` fuzz target.
pub fn encode_inbound(message: &Inbound) -> Json {
    let with_params = |mut members: Vec<(&'static str, Json)>, params: &Option<Json>| {
        members.extend(params.clone().map(|params| ("params", params)));
        envelope(members)
    };
    match message {
        Inbound::Response { id, outcome: Ok(result) } => result_response(id, result.clone()),
        Inbound::Response { id, outcome: Err(error) } => {
            let mut members = vec![("code".to_owned(), error.code.to_json()), ("message".to_owned(), Json::str(&error.message))];
            members.extend(error.data.clone().map(|data| ("data".to_owned(), data)));
            envelope(vec![("id", id.to_json()), ("error", Json::Object(members))])
        }
        Inbound::ServerRequest { id, method, params } => with_params(vec![("id", id.to_json()), ("method", Json::str(method))], params),
        Inbound::Notification { method, params } => with_params(vec![("method", Json::str(method))], params),
    }
}

#[cfg(test)]
pub(crate) mod tests;

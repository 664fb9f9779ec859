//! MCP protocol messages (the `mcp/protocol` module): the revisions the
//! client speaks and total decoders for the results it reads ([`read`] reads
//! a whole inbound line). The parameters the client sends are built in
//! Erlang (`mcp_protocol`).
//!
//! Strict where the client depends on a member, tolerant elsewhere: unknown
//! members are ignored, schemas, annotations, `execution` and `structuredContent` cross
//! raw, and an optional member given as `null` counts as absent. A member
//! present with the wrong type is a fault naming its path
//! (`$.tools[3].inputSchema`). One bad tool fails the whole page. Where a
//! key is duplicated, the first occurrence is read (as [`Json::get`] does).

use crate::json::Json;

mod plain;
pub mod read;

/// One tool from a `tools/list` page. The schemas, annotations and
/// `execution` cross raw.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDescriptor {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Json,
    pub output_schema: Option<Json>,
    pub annotations: Option<Json>,
    /// `execution` (e.g. `{"taskSupport": "required"}`): how the tool may be
    /// run; the generator leaves out a tool that requires tasks.
    pub execution: Option<Json>,
}

/// The protocol revision the client asks for.
pub const REQUESTED_VERSION: &str = "2025-11-25";

/// The revisions the client accepts, newest first.
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// `capabilities.tools` of an initialize result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolsCapability {
    pub list_changed: bool,
}

/// `serverInfo` of an initialize result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

/// A decoded `initialize` result; `protocol_version` is one of
/// [`SUPPORTED_VERSIONS`] by construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitializeResult {
    pub protocol_version: String,
    pub tools: Option<ToolsCapability>,
    pub server_info: ServerInfo,
    pub instructions: Option<String>,
}

/// One `tools/list` result page.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolsPage {
    pub tools: Vec<ToolDescriptor>,
    pub next_cursor: Option<String>,
}

/// One block of a tool call's `content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentBlock {
    Text(String),
    /// Any block that is not text, by its `type`.
    Other(String),
}

/// A decoded `tools/call` result. `S` is what `structuredContent` is built
/// as: a [`Json`] tree here, whatever the caller of
/// [`read::read_with`] builds there.
#[derive(Debug, Clone, PartialEq)]
pub struct CallToolResult<S = Json> {
    pub content: Vec<ContentBlock>,
    pub is_error: bool,
    pub structured_content: Option<S>,
}

/// Why a result does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolFault {
    /// The member at `path` is missing or has the wrong type.
    #[error("{path}: {reason}")]
    Fault { path: String, reason: &'static str },
    /// The server answered with a revision outside [`SUPPORTED_VERSIONS`].
    #[error("unsupported protocol version {offered} (requested {requested})")]
    UnsupportedVersion { requested: String, offered: String },
}

// ---- decoders ---------------------------------------------------------------

/// A position in the value being decoded, rendered `$.tools[3].name`.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Member(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root => "$".to_owned(),
            Path::Member(parent, key) => format!("{}.{key}", parent.render()),
            Path::Index(parent, index) => format!("{}[{index}]", parent.render()),
        }
    }

    fn fault<T>(&self, reason: &'static str) -> Result<T, ProtocolFault> {
        Err(ProtocolFault::Fault { path: self.render(), reason })
    }
}

/// An object's members, read with its path for faults.
struct Members<'a> {
    path: &'a Path<'a>,
    members: &'a [(String, Json)],
}

impl<'a> Members<'a> {
    fn of(value: &'a Json, path: &'a Path<'a>) -> Result<Members<'a>, ProtocolFault> {
        match value {
            Json::Object(members) => Ok(Members { path, members }),
            _ => path.fault("expected an object"),
        }
    }

    /// The member `key`, treating `null` as absent.
    fn optional(&self, key: &str) -> Option<&'a Json> {
        self.members.iter().find(|(k, _)| k == key).map(|(_, value)| value).filter(|value| **value != Json::Null)
    }

    fn required(&self, key: &'a str) -> Result<&'a Json, ProtocolFault> {
        match self.optional(key) {
            Some(value) => Ok(value),
            None => Path::Member(self.path, key).fault("missing"),
        }
    }

    fn string(&self, key: &'a str) -> Result<&'a str, ProtocolFault> {
        let value = self.required(key)?;
        value.as_str().map_or_else(|| Path::Member(self.path, key).fault("expected a string"), Ok)
    }

    fn optional_string(&self, key: &'a str) -> Result<Option<String>, ProtocolFault> {
        match self.optional(key) {
            None => Ok(None),
            Some(Json::String(text)) => Ok(Some(text.clone())),
            Some(_) => Path::Member(self.path, key).fault("expected a string"),
        }
    }

    fn optional_bool(&self, key: &'a str) -> Result<Option<bool>, ProtocolFault> {
        match self.optional(key) {
            None => Ok(None),
            Some(Json::Bool(flag)) => Ok(Some(*flag)),
            Some(_) => Path::Member(self.path, key).fault("expected a boolean"),
        }
    }

    fn optional_object(&self, key: &'a str) -> Result<Option<Json>, ProtocolFault> {
        match self.optional(key) {
            None => Ok(None),
            Some(value @ Json::Object(_)) => Ok(Some(value.clone())),
            Some(_) => Path::Member(self.path, key).fault("expected an object"),
        }
    }

    fn array(&self, key: &'a str) -> Result<&'a [Json], ProtocolFault> {
        match self.required(key)? {
            Json::Array(items) => Ok(items),
            _ => Path::Member(self.path, key).fault("expected an array"),
        }
    }
}

/// Decodes an `initialize` result. A `protocolVersion` outside
/// [`SUPPORTED_VERSIONS`] is [`ProtocolFault::UnsupportedVersion`].
pub fn decode_initialize_result(value: &Json) -> Result<InitializeResult, ProtocolFault> {
    let root = Members::of(value, &Path::Root)?;
    let protocol_version = root.string("protocolVersion")?;
    if !SUPPORTED_VERSIONS.contains(&protocol_version) {
        return Err(ProtocolFault::UnsupportedVersion {
            requested: REQUESTED_VERSION.to_owned(),
            offered: protocol_version.to_owned(),
        });
    }
    let capabilities_path = Path::Member(&Path::Root, "capabilities");
    let capabilities = Members::of(root.required("capabilities")?, &capabilities_path)?;
    let tools_path = Path::Member(&capabilities_path, "tools");
    let tools = match capabilities.optional("tools") {
        None => None,
        Some(tools) => {
            let tools = Members::of(tools, &tools_path)?;
            Some(ToolsCapability { list_changed: tools.optional_bool("listChanged")?.unwrap_or(false) })
        }
    };
    let server_info_path = Path::Member(&Path::Root, "serverInfo");
    let server_info = Members::of(root.required("serverInfo")?, &server_info_path)?;
    Ok(InitializeResult {
        protocol_version: protocol_version.to_owned(),
        tools,
        server_info: ServerInfo {
            name: server_info.string("name")?.to_owned(),
            version: server_info.string("version")?.to_owned(),
        },
        instructions: root.optional_string("instructions")?,
    })
}

/// Decodes a `tools/list` result page; the first bad entry fails the page.
pub fn decode_tools_page(value: &Json) -> Result<ToolsPage, ProtocolFault> {
    let root = Members::of(value, &Path::Root)?;
    let tools_path = Path::Member(&Path::Root, "tools");
    let tools = root
        .array("tools")?
        .iter()
        .enumerate()
        .map(|(index, entry)| decode_tool(entry, &Path::Index(&tools_path, index)))
        .collect::<Result<_, _>>()?;
    Ok(ToolsPage { tools, next_cursor: root.optional_string("nextCursor")? })
}

fn decode_tool(value: &Json, path: &Path<'_>) -> Result<ToolDescriptor, ProtocolFault> {
    let tool = Members::of(value, path)?;
    let name = tool.string("name")?;
    if name.is_empty() {
        return Path::Member(path, "name").fault("empty");
    }
    let input_schema = match tool.optional_object("inputSchema")? {
        Some(schema) => schema,
        None => return Path::Member(path, "inputSchema").fault("missing"),
    };
    Ok(ToolDescriptor {
        name: name.to_owned(),
        title: tool.optional_string("title")?,
        description: tool.optional_string("description")?,
        input_schema,
        output_schema: tool.optional_object("outputSchema")?,
        annotations: tool.optional_object("annotations")?,
        execution: tool.optional_object("execution")?,
    })
}

/// Decodes a `tools/call` result. `content` may be absent only when
/// `structuredContent` is present; `isError` defaults to false. The value is
/// consumed: text blocks and `structuredContent` (the bulk of a large
/// result) are moved out of it, not copied.
pub fn decode_call_tool_result(value: Json) -> Result<CallToolResult, ProtocolFault> {
    let root = Members::of(&value, &Path::Root)?;
    let is_error = root.optional_bool("isError")?.unwrap_or(false);
    let has_structured = root.optional("structuredContent").is_some();
    let content_path = Path::Member(&Path::Root, "content");
    let kinds = match (root.optional("content"), has_structured) {
        (None, true) => None,
        _ => Some(
            root.array("content")?
                .iter()
                .enumerate()
                .map(|(index, block)| content_kind(block, &Path::Index(&content_path, index)))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    // Checked: now move the parts out (the fallbacks below cannot happen).
    let Json::Object(mut members) = value else {
        return Path::Root.fault("expected an object");
    };
    let content = match (kinds, take(&mut members, "content")) {
        (Some(kinds), Some(Json::Array(blocks))) => kinds
            .into_iter()
            .zip(blocks)
            .enumerate()
            .map(|(index, (kind, block))| match (kind, block) {
                (Some(other), _) => Ok(ContentBlock::Other(other)),
                (None, Json::Object(mut block)) => match take(&mut block, "text") {
                    Some(Json::String(text)) => Ok(ContentBlock::Text(text)),
                    _ => Path::Index(&content_path, index).fault("expected a string"),
                },
                (None, _) => Path::Index(&content_path, index).fault("expected an object"),
            })
            .collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    Ok(CallToolResult { content, is_error, structured_content: take(&mut members, "structuredContent") })
}

/// A content block's kind: `None` for a text block (its text checked),
/// `Some(type)` for any other.
fn content_kind(value: &Json, path: &Path<'_>) -> Result<Option<String>, ProtocolFault> {
    let block = Members::of(value, path)?;
    match block.string("type")? {
        "text" => block.string("text").map(|_| None),
        other => Ok(Some(other.to_owned())),
    }
}

/// Moves out the member `key` as [`Members::optional`] reads it: the first
/// occurrence, `null` counting as absent.
fn take(members: &mut [(String, Json)], key: &str) -> Option<Json> {
    let (_, value) = members.iter_mut().find(|(k, _)| k == key)?;
    Some(std::mem::replace(value, Json::Null)).filter(|value| *value != Json::Null)
}

#[cfg(test)]
mod tests;

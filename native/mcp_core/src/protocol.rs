//! MCP protocol messages (the `mcp/protocol` module).

use crate::json::Json;

/// One tool from a `tools/list` page. The schemas and annotations cross raw.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDescriptor {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Json,
    pub output_schema: Option<Json>,
    pub annotations: Option<Json>,
}

import gleam/option.{None, Some}
import mcp/json.{Bool, Int, Object, String}
import mcp/protocol.{
  CallToolResult, InitializeResult, Other, ProtocolFault, ServerInfo, Text,
  ToolDescriptor, ToolsCapability, ToolsPage, UnsupportedVersion,
}

fn parsed(text: String) -> json.JsonValue {
  let assert Ok(value) = json.parse(text)
  value
}

pub fn versions_test() {
  let assert "2025-11-25" = protocol.requested_version()
  let assert ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] =
    protocol.supported_versions()
}

pub fn initialize_params_declare_no_capabilities_test() {
  let assert Object(members) = protocol.initialize_params("me", "1.0")
  let assert [
    #("protocolVersion", String("2025-11-25")),
    #("capabilities", Object([])),
    #(
      "clientInfo",
      Object([#("name", String("me")), #("version", String("1.0"))]),
    ),
  ] = members
}

pub fn initialize_result_test() {
  let assert Ok(InitializeResult(
    "2025-03-26",
    Some(ToolsCapability(list_changed: True)),
    ServerInfo("srv", "2"),
    None,
  )) =
    protocol.decode_initialize_result(parsed(
      "{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"srv\",\"version\":\"2\"}}",
    ))
  let assert Error(UnsupportedVersion(
    requested: "2025-11-25",
    offered: "1999-01-01",
  )) =
    protocol.decode_initialize_result(parsed(
      "{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}",
    ))
}

pub fn tools_page_test() {
  let assert Ok(ToolsPage(
    [ToolDescriptor("t", None, Some("d"), Object([]), None, None, None)],
    Some("next"),
  )) =
    protocol.decode_tools_page(parsed(
      "{\"tools\":[{\"name\":\"t\",\"description\":\"d\",\"inputSchema\":{}}],\"nextCursor\":\"next\"}",
    ))
  let assert Error(ProtocolFault("$.tools[1].inputSchema", "missing")) =
    protocol.decode_tools_page(parsed(
      "{\"tools\":[{\"name\":\"a\",\"inputSchema\":{}},{\"name\":\"b\"}]}",
    ))
}

pub fn call_tool_result_test() {
  let assert Ok(CallToolResult([Text("hi"), Other("image")], True, Some(Int(1)))) =
    protocol.decode_call_tool_result(parsed(
      "{\"content\":[{\"type\":\"text\",\"text\":\"hi\"},{\"type\":\"image\",\"data\":\"x\"}],\"isError\":true,\"structuredContent\":1}",
    ))
}

pub fn params_builders_test() {
  let assert Object([]) = protocol.tools_list_params(None)
  let assert Object([#("cursor", String("c"))]) =
    protocol.tools_list_params(Some("c"))
  let assert Object([#("name", String("echo")), #("arguments", Bool(True))]) =
    protocol.tools_call_params("echo", Bool(True))
}

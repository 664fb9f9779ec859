//// The error vocabulary inside `mcp.Outcome`.

pub type Report {
  /// No client is registered under this server name.
  UnknownServer(server: String)
  /// The arguments have no JSON form (`detail` names the path).
  BadArguments(server: String, tool: String, detail: String)
  /// The tool ran and reported an error (`isError`); `text` is what it said.
  ToolFailed(server: String, tool: String, text: String)
  /// The call did not complete (timeout, dead server, malformed result...);
  /// `detail` is `client.describe_client_error`'s sentence.
  CallFailed(server: String, tool: String, detail: String)
  /// The tool answered, but its `structuredContent` has no `Value` form
  /// (`detail` names the path, e.g. an integer past the MessagePack range).
  ResultUntranslatable(server: String, tool: String, detail: String)
}

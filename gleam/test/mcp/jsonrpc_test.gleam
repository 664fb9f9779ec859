import gleam/option.{None, Some}
import mcp/json.{Array, Int, Null, Object}
import mcp/jsonrpc.{
  BadMessage, IdInt, IdString, MalformedMessage, Notification, Response,
  RpcError, ServerRequest,
}

pub fn response_with_result_test() {
  let assert Ok(Response(IdInt(7), Ok(Object([#("x", Int(1))])))) =
    jsonrpc.decode(<<
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"x\":1}}":utf8,
    >>)
}

pub fn response_with_error_test() {
  let assert Ok(Response(
    IdString("a"),
    Error(RpcError(-32_601, "nope", Some(Null))),
  )) =
    jsonrpc.decode(<<
      "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32601,\"message\":\"nope\",\"data\":null}}":utf8,
    >>)
}

pub fn server_request_and_notification_test() {
  let assert Ok(ServerRequest(IdInt(1), "ping", None)) =
    jsonrpc.decode(<<"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}":utf8>>)
  let assert Ok(Notification("notifications/message", Some(Array([])))) =
    jsonrpc.decode(<<
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":[]}":utf8,
    >>)
}

pub fn faults_test() {
  let assert Error(MalformedMessage(json.CorruptionReport(byte_offset: 0, ..))) =
    jsonrpc.decode(<<"hello":utf8>>)
  let assert Error(BadMessage("jsonrpc is not \"2.0\"")) =
    jsonrpc.decode(<<"{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":1}":utf8>>)
  let assert Error(BadMessage("batch not supported")) =
    jsonrpc.decode(<<"[]":utf8>>)
  let assert Error(BadMessage("id is null")) =
    jsonrpc.decode(<<"{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}":utf8>>)
}

pub fn builders_encode_the_wire_form_test() {
  let assert "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{}}" =
    encoded(jsonrpc.request(IdInt(3), "tools/list", Some(Object([]))))
  let assert "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" =
    encoded(jsonrpc.notification("notifications/initialized", None))
  let assert "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":{}}" =
    encoded(jsonrpc.result_response(IdString("s"), Object([])))
  let assert "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}" =
    encoded(jsonrpc.error_response(
      IdInt(1),
      jsonrpc.method_not_found(),
      "Method not found",
    ))
  let assert True =
    encoded(jsonrpc.request(IdInt(1), "x", None)) |> has_no_params
}

fn encoded(value: json.JsonValue) -> String {
  let assert Ok(text) = json.encode(value)
  text
}

fn has_no_params(text: String) -> Bool {
  text == "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}"
}

pub fn error_codes_test() {
  let assert [-32_700, -32_600, -32_601, -32_602, -32_603] = [
    jsonrpc.parse_error(),
    jsonrpc.invalid_request(),
    jsonrpc.method_not_found(),
    jsonrpc.invalid_params(),
    jsonrpc.internal_error(),
  ]
}

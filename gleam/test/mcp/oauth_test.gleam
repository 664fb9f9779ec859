//// A `Remote` with `oauth` against a protected server and its
//// authorization server (`mcp_oauth_fake`, shared with the EUnit suites):
//// the client credentials grant end to end, and the refusals as typed
//// errors that hold no secret.

import gleam/list
import gleam/option.{None, Some}
import gleam/string
import mcp/client.{
  AuthorizationFailed, ConsentNeeded, ConsentTimeoutOutOfRange, HandshakeFailed,
  HttpFailed, HttpStatus, OAuthUnusable, OtherAuthorizationFailure,
  PrivateKeyUnreadable, RedirectPortOutOfRange, SecretVariableUnset,
  TokenFilePermissions, TokenRefused, TokenStoreRefused, TransportFailed,
  Unavailable,
}
import mcp/json.{Object}
import mcp/protocol.{CallToolResult, Text}
import mcp/transport.{
  AssertionFromEnv, AuthorizationCode, Browser, ClientCredentials,
  DynamicRegistration, HttpTransport, JwtBearer, NoConsent, NoTokenStore, OAuth,
  PrivateKeyFile, Remote, TokenDirectory,
}

type Fake

@external(erlang, "mcp_test_ffi", "protected_server")
fn protected_server(refuse_tokens: Bool) -> #(String, Fake)

@external(erlang, "mcp_test_ffi", "stop_protected_server")
fn stop_protected_server(fake: Fake) -> Nil

@external(erlang, "mcp_test_ffi", "token_request_credentials")
fn token_request_credentials(fake: Fake) -> List(String)

@external(erlang, "mcp_test_ffi", "dpop_protected_server")
fn dpop_protected_server() -> #(String, Fake)

@external(erlang, "mcp_test_ffi", "proven_mcp_requests")
fn proven_mcp_requests(fake: Fake) -> Int

@external(erlang, "mcp_test_ffi", "token_request_assertions")
fn token_request_assertions(fake: Fake) -> List(String)

@external(erlang, "mcp_test_ffi", "set_env")
fn set_env(name: String, value: String) -> Nil

@external(erlang, "mcp_test_ffi", "unset_env")
fn unset_env(name: String) -> Nil

@external(erlang, "mcp_test_ffi", "occupied_loopback_port")
fn occupied_loopback_port() -> #(Taken, Int)

@external(erlang, "mcp_test_ffi", "release_port")
fn release_port(taken: Taken) -> Nil

type Taken

@external(erlang, "mcp_test_ffi", "directory_others_may_read")
fn directory_others_may_read() -> String

@external(erlang, "mcp_test_ffi", "remove_directory")
fn remove_directory(path: String) -> Nil

const secret_variable = "MCP_GLEAM_TEST_CLIENT_SECRET"

const secret = "s3cret-gleam-5e2a"

fn with_oauth(url: String, oauth: transport.OAuth) -> transport.Transport {
  HttpTransport(Remote(..transport.remote(url), oauth: Some(oauth)))
}

/// Without `oauth` the server's 401 ends the handshake: the server is
/// protected.
pub fn a_protected_server_refuses_a_remote_without_oauth_test() {
  let #(url, fake) = protected_server(False)
  let assert Error(HandshakeFailed(Unavailable(HttpFailed(HttpStatus(401))))) =
    client.start(HttpTransport(transport.remote(url)), client.default_options())
  stop_protected_server(fake)
}

/// The client credentials grant, the secret read from its variable: the
/// token endpoint gets `client:secret`, the server the token, and a tool
/// call is answered.
pub fn client_credentials_reach_a_protected_server_test() {
  set_env(secret_variable, secret)
  let #(url, fake) = protected_server(False)
  let assert Ok(#(client, _)) =
    client.start(
      with_oauth(url, transport.client_credentials("client", secret_variable)),
      client.default_options(),
    )
  let assert Ok([]) = client.list_tools(client)
  let assert Ok(CallToolResult([Text("called echo")], False, _)) =
    client.call_tool(client, "echo", Object([]), 5000)
  let assert Ok(_) = client.shutdown(client, 5000)
  assert token_request_credentials(fake) == ["client:" <> secret]
  stop_protected_server(fake)
  unset_env(secret_variable)
}

/// A token endpoint answering 401 `invalid_client` reaches Gleam as
/// `TokenRefused`; the secret it was sent is in neither the error nor its
/// sentence.
pub fn a_refused_token_is_a_typed_error_without_the_secret_test() {
  set_env(secret_variable, secret)
  let #(url, fake) = protected_server(True)
  let assert Error(error) =
    client.start(
      with_oauth(url, transport.client_credentials("client", secret_variable)),
      client.default_options(),
    )
  let assert HandshakeFailed(Unavailable(HttpFailed(AuthorizationFailed(reason)))) =
    error
  assert reason == TokenRefused(401, Some("invalid_client"))
  assert token_request_credentials(fake) == ["client:" <> secret]
  assert !string.contains(string.inspect(error), secret)
  let sentence = client.describe_start_error(error)
  assert string.contains(sentence, "401")
  assert !string.contains(sentence, secret)
  stop_protected_server(fake)
  unset_env(secret_variable)
}

/// The authorization code grant with no way to reach a person fails as
/// `ConsentNeeded`.
pub fn consent_needed_is_a_typed_error_test() {
  let #(url, fake) = protected_server(False)
  let oauth =
    OAuth(
      grant: AuthorizationCode(DynamicRegistration, NoConsent, 300_000, None),
      scopes: [],
      store: NoTokenStore,
      dpop: False,
    )
  let assert Error(HandshakeFailed(Unavailable(HttpFailed(AuthorizationFailed(
    ConsentNeeded,
  ))))) = client.start(with_oauth(url, oauth), client.default_options())
  stop_protected_server(fake)
}

/// A token directory others may read is refused at connect, before any
/// request.
pub fn a_token_directory_others_may_read_is_refused_test() {
  set_env(secret_variable, secret)
  let directory = directory_others_may_read()
  let oauth =
    OAuth(
      ..transport.client_credentials("client", secret_variable),
      store: TokenDirectory(directory),
    )
  let assert Error(TransportFailed(TokenStoreRefused(TokenFilePermissions(path)))) =
    client.start(
      with_oauth("http://127.0.0.1:1/mcp", oauth),
      client.default_options(),
    )
  assert path == directory
  remove_directory(directory)
  unset_env(secret_variable)
}

/// An unset secret variable, an unreadable key file and a consent timeout
/// out of range are refused before any client is made, naming the variable
/// or file.
pub fn an_unusable_oauth_is_refused_before_anything_starts_test() {
  unset_env(secret_variable)
  let url = "http://127.0.0.1:1/mcp"
  let assert Error(OAuthUnusable(SecretVariableUnset(variable)) as unset) =
    client.prepare(
      with_oauth(url, transport.client_credentials("client", secret_variable)),
      client.default_options(),
    )
  assert variable == secret_variable
  assert string.contains(client.describe_start_error(unset), secret_variable)
  let key = "/nonexistent/mcp-gleam-key.pem"
  let keyed =
    OAuth(
      grant: ClientCredentials("client", PrivateKeyFile(key, "ES256")),
      scopes: [],
      store: NoTokenStore,
      dpop: False,
    )
  let assert Error(OAuthUnusable(PrivateKeyUnreadable(path, _)) as unreadable) =
    client.start(with_oauth(url, keyed), client.default_options())
  assert path == key
  assert string.contains(client.describe_start_error(unreadable), key)
}

/// `consent_timeout_ms` is 1 to `max_timeout_ms()`: both ends are taken,
/// one past either is refused.
pub fn the_consent_timeout_is_checked_at_both_ends_test() {
  let prepared = fn(timeout_ms) {
    let oauth =
      OAuth(
        grant: AuthorizationCode(
          DynamicRegistration,
          NoConsent,
          timeout_ms,
          None,
        ),
        scopes: [],
        store: NoTokenStore,
        dpop: False,
      )
    client.prepare(
      with_oauth("http://127.0.0.1:1/mcp", oauth),
      client.default_options(),
    )
  }
  list.each([1, client.max_timeout_ms()], fn(timeout_ms) {
    let assert Ok(parked) = prepared(timeout_ms)
    client.stop(parked)
  })
  list.each([0, client.max_timeout_ms() + 1], fn(timeout_ms) {
    let assert Error(OAuthUnusable(ConsentTimeoutOutOfRange(refused))) =
      prepared(timeout_ms)
    assert refused == timeout_ms
  })
}

/// `redirect_port` is 1 to 65535: both ends are taken, one past either is
/// refused.
pub fn the_redirect_port_is_checked_at_both_ends_test() {
  let prepared = fn(port) {
    let oauth =
      OAuth(
        grant: AuthorizationCode(
          DynamicRegistration,
          NoConsent,
          1000,
          Some(port),
        ),
        scopes: [],
        store: NoTokenStore,
        dpop: False,
      )
    client.prepare(
      with_oauth("http://127.0.0.1:1/mcp", oauth),
      client.default_options(),
    )
  }
  list.each([1, 65_535], fn(port) {
    let assert Ok(parked) = prepared(port)
    client.stop(parked)
  })
  list.each([0, 65_536], fn(port) {
    let assert Error(OAuthUnusable(RedirectPortOutOfRange(refused))) =
      prepared(port)
    assert refused == port
  })
}

/// The redirect comes to the port given: with that port taken, the
/// authorization cannot listen there and says so.
pub fn the_redirect_port_is_where_the_flow_listens_test() {
  let #(url, fake) = protected_server(False)
  let #(taken, port) = occupied_loopback_port()
  let oauth =
    OAuth(
      grant: AuthorizationCode(
        DynamicRegistration,
        Browser("true"),
        1000,
        Some(port),
      ),
      scopes: [],
      store: NoTokenStore,
      dpop: False,
    )
  let assert Error(HandshakeFailed(Unavailable(HttpFailed(AuthorizationFailed(OtherAuthorizationFailure(
    description,
  )))))) = client.start(with_oauth(url, oauth), client.default_options())
  assert string.contains(description, "address in use")
    || string.contains(description, "eaddrinuse")
  release_port(taken)
  stop_protected_server(fake)
}

/// `default_token_directory` is where `mcp-gen login` keeps tokens.
pub fn the_default_token_directory_is_the_command_lines_test() {
  assert string.ends_with(transport.default_token_directory(), "/mcp/oauth")
}

/// `dpop: True` against a server whose tokens are DPoP-bound: the token
/// goes as `Authorization: DPoP` with a proof, and the tools are listed.
/// The same server's token is refused, not sent as Bearer, by a client
/// with `dpop: False`, as an `OtherAuthorizationFailure` that says so.
pub fn dpop_binds_the_token_to_a_key_test() {
  set_env(secret_variable, secret)
  let #(url, fake) = dpop_protected_server()
  let bound =
    OAuth(..transport.client_credentials("client", secret_variable), dpop: True)
  let assert Ok(#(client, _)) =
    client.start(with_oauth(url, bound), client.default_options())
  let assert Ok([]) = client.list_tools(client)
  let assert Ok(_) = client.shutdown(client, 5000)
  assert proven_mcp_requests(fake) >= 2
  let assert Error(HandshakeFailed(Unavailable(HttpFailed(AuthorizationFailed(OtherAuthorizationFailure(
    description,
  )))))) =
    client.start(
      with_oauth(url, transport.client_credentials("client", secret_variable)),
      client.default_options(),
    )
  assert string.contains(description, "DPoP")
  assert proven_mcp_requests(fake) == 0
  stop_protected_server(fake)
  unset_env(secret_variable)
}

/// `JwtBearer` with the assertion in an environment variable: the token
/// request presents it, read when the token is asked for.
pub fn a_workload_assertion_is_presented_test() {
  let variable = "MCP_GLEAM_TEST_WORKLOAD_JWT"
  let assertion = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2ln"
  set_env(variable, assertion)
  let #(url, fake) = protected_server(False)
  let oauth =
    OAuth(
      grant: JwtBearer("workload", AssertionFromEnv(variable)),
      scopes: [],
      store: NoTokenStore,
      dpop: False,
    )
  let assert Ok(#(client, _)) =
    client.start(with_oauth(url, oauth), client.default_options())
  let assert Ok([]) = client.list_tools(client)
  let assert Ok(_) = client.shutdown(client, 5000)
  assert token_request_assertions(fake) == [assertion]
  stop_protected_server(fake)
  unset_env(variable)
}

//// The seam the client is written against (`mcp_transport`): which server
//// to run and how to reach it. Production servers are OS processes behind an
//// Erlang port (`PortTransport`, `mcp_port`) or remote servers over
//// Streamable HTTP (`HttpTransport`, `mcp_http`); `ChannelTransport` runs the
//// server as a peer BEAM process (`mcp_channel`), which is how the client's
//// behaviour is tested without an OS process.
////
//// `mcp_transport:open/2`, `send/2`, `event/2`, `terminate/1` and `os_pid/1`
//// have no bindings on purpose: they may only be called by the client actor
//// that owns the connection (see `docs/client.md`).

import gleam/erlang/process.{type Pid}
import gleam/option.{type Option, None}

/// An OS process to start: executable plus argv (never a shell string).
/// A name without a `/` is looked up on `PATH`.
pub type Spawn {
  Spawn(
    executable: String,
    args: List(String),
    /// Variables set (`Set`) or removed (`Unset`) in the child's environment.
    env: List(#(String, EnvValue)),
    /// The child's working directory; `None` keeps the VM's.
    cwd: Option(String),
    /// `True` passes the VM's whole environment to the child; `False` passes
    /// only the documented allow-list (`docs/server-processes.md`).
    inherit_env: Bool,
    /// `Some(n)` refuses a line longer than `n` bytes (1 to
    /// `stdio.max_line_bytes()`) with `LineTooLong`; `None` keeps that
    /// maximum, 16 MiB. Decoding a line can take ~49 times its size in VM
    /// memory, so this bounds what one server can make the VM spend
    /// (`docs/json.md`, "Memory per value shape").
    max_line_bytes: Option(Int),
    /// Milliseconds between SIGTERM and SIGKILL when the server is retired
    /// (0 to `max_shutdown_grace_ms()`); 0, the default, sends SIGKILL at
    /// once. The server's exit status stays the only proof either way.
    shutdown_grace_ms: Int,
    /// `Some(jail)` runs the server in a bubblewrap jail (`docs/jail.md`):
    /// it reads everything except the deny list (credential stores) and the
    /// host's `/tmp` and `/run`, writes only a private `/tmp` and the
    /// grants, has no network and no Unix sockets. `None`,
    /// the default, spawns it unjailed. A jail that cannot run here fails
    /// the start before anything is spawned, never falling back.
    jail: Option(Jail),
    /// Where the server's stderr goes; never into its stdout
    /// (`docs/server-processes.md`, "Server stderr").
    stderr: Stderr,
  )
}

/// A spawned server's stderr.
pub type Stderr {
  /// The VM's own stderr (the default).
  InheritStderr
  /// Dropped.
  DiscardStderr
  /// Appended to the file at `path`, at most `max_bytes` of each spawn's
  /// stderr (1 to `max_stderr_file_bytes()`); the rest is read and dropped,
  /// so the server never blocks on it. A path that cannot be appended to
  /// fails the start before anything is spawned.
  StderrToFile(path: String, max_bytes: Int)
  /// Each line on the VM's stderr after `label` (several servers sharing a
  /// terminal); a line longer than 4,096 bytes comes out in labelled
  /// pieces. A label holding a newline or NUL fails the start.
  LabelledStderr(label: String)
}

/// The bound `StderrToFile` is usually given: 16 MiB.
@external(erlang, "mcp_stderr", "default_file_bytes")
pub fn default_stderr_file_bytes() -> Int

/// The largest bound a `StderrToFile` may give: 1 GiB.
@external(erlang, "mcp_stderr", "max_file_bytes")
pub fn max_stderr_file_bytes() -> Int

/// What a jailed server may reach beyond the default profile. Every path
/// is absolute (no `..`); grants must exist. `Jail`'s fields mirror the
/// Erlang spec `#{write, read, deny, net, unix_sockets, landlock, profile,
/// bwrap}`.
pub type Jail {
  Jail(
    /// Directories (or files) the server may write, bound read-write.
    write: List(String),
    /// Paths the jail hides (under `/tmp`, `/run` or a denied path) that
    /// the server may read.
    read: List(String),
    /// Paths hidden in addition to the default deny list.
    deny: List(String),
    /// `True` shares the host's network.
    net: Bool,
    /// `True` lets the server create Unix sockets (and connect to any it
    /// can see).
    unix_sockets: Bool,
    /// `False` accepts the weaker jail of a kernel without Landlock (with
    /// `True`, the default, such a kernel refuses the start).
    landlock: Bool,
    /// What the server may read: `DefaultProfile` (everything but the deny
    /// list) or `StrictProfile` (the system, its install tree, its working
    /// directory and the grants; docs/jail.md).
    profile: JailProfile,
    /// The bwrap executable; `None` looks it up on `PATH`.
    bwrap: Option(String),
  )
}

/// How a jail's reads are decided (docs/jail.md, "Which profile").
pub type JailProfile {
  /// Everything is readable but the deny list.
  DefaultProfile
  /// Only what is listed is readable.
  StrictProfile
}

/// The default jail: no grant, no extra deny, no network, no Unix sockets,
/// Landlock required, the default profile, bwrap from `PATH`.
pub fn default_jail() -> Jail {
  Jail(
    write: [],
    read: [],
    deny: [],
    net: False,
    unix_sockets: False,
    landlock: True,
    profile: DefaultProfile,
    bwrap: None,
  )
}

pub type EnvValue {
  Set(String)
  Unset
}

/// A remote server over Streamable HTTP (`mcp_http`, `docs/client.md`).
pub type Remote {
  Remote(
    /// An absolute `http` or `https` URL, without `user:password@`.
    url: String,
    /// Sent with every request, to this URL's origin only. `${NAME}` in a
    /// value is the environment variable `NAME` (unset: the start fails
    /// naming it). Values are never printed, logged or put in an error;
    /// a plain `http` URL to a host other than the loopback refuses them.
    headers: List(#(String, String)),
    /// `Some(n)` refuses an event or JSON body longer than `n` bytes (1 to
    /// `stdio.max_line_bytes()`); `None` keeps that maximum, 16 MiB.
    max_line_bytes: Option(Int),
    /// `Some(oauth)` answers the server's 401 with OAuth 2.1
    /// (`docs/authorization.md`); `None` sends no token and a 401 ends the
    /// connection with `HttpStatus(401)`.
    oauth: Option(OAuth),
  )
}

/// A remote server at `url`, without headers, with the default cap, without
/// authorization.
pub fn remote(url: String) -> Remote {
  Remote(url: url, headers: [], max_line_bytes: None, oauth: None)
}

/// How the client obtains tokens for a remote server that asks for them:
/// the Erlang spec's `oauth` map (`mcp_oauth:config()`). No field holds a
/// secret: a client secret is named by the environment variable holding
/// it and a private key by its PEM file, both read when `prepare` or
/// `start` builds the connection (`OAuthUnusable` if they cannot be), then
/// kept inside a closure that no report prints.
pub type OAuth {
  OAuth(
    grant: Grant,
    /// The scopes to ask for; `[]` asks for the server's (its challenge's,
    /// else its metadata's `scopes_supported`).
    scopes: List(String),
    /// Where tokens are kept between runs.
    store: TokenStore,
    /// `True` binds the tokens to a key of this client (DPoP, RFC 9449):
    /// every token request and every request to the server carries a
    /// proof of it, the token goes as `Authorization: DPoP`, and a Bearer
    /// token the authorization server answers is refused (an
    /// `OtherAuthorizationFailure` saying so). `False`: Bearer tokens, and
    /// a DPoP-bound one is refused.
    dpop: Bool,
  )
}

/// How a token is obtained.
pub type Grant {
  /// A person consents in a browser (authorization code with PKCE S256,
  /// redirect to `http://127.0.0.1:PORT/callback`).
  AuthorizationCode(
    registration: Registration,
    consent: Consent,
    /// How long to wait for the redirect after the URL is handed on
    /// (1 ms to a day; 300000 is the command line's).
    consent_timeout_ms: Int,
    /// The loopback port the redirect comes to: `Some(port)` (1 to 65535)
    /// for a pre-registered client whose redirect URI is
    /// `http://127.0.0.1:PORT/callback` (the command line's
    /// `--redirect-port`); `None` takes a free port.
    redirect_port: Option(Int),
  )
  /// No person: the client credentials grant, with a client the
  /// authorization server already knows.
  ClientCredentials(client_id: String, secret: ClientSecret)
  /// No person: the JWT-bearer grant (RFC 7523) of an assertion the
  /// environment gives this workload (workload identity federation),
  /// read anew for each token request.
  JwtBearer(client_id: String, assertion: Assertion)
  /// No person: enterprise-managed authorization. The identity provider's
  /// ID token is exchanged at `idp_token_endpoint` (token exchange, RFC
  /// 8693; as `idp_client_id` when `Some`) for an identity assertion
  /// grant (ID-JAG) for the authorization server, which the JWT-bearer
  /// grant presents with the client's `secret`.
  EnterpriseManaged(
    client_id: String,
    secret: ClientSecret,
    id_token: Assertion,
    idp_token_endpoint: String,
    idp_client_id: Option(String),
  )
}

/// Where an assertion (a JWT) is read from, when it is used. Neither holds
/// the assertion itself.
pub type Assertion {
  /// The file at `path` (trimmed of surrounding white space).
  AssertionFile(path: String)
  /// The value of this environment variable.
  AssertionFromEnv(variable: String)
}

/// How the authorization server knows this client, for the authorization
/// code grant.
pub type Registration {
  /// Dynamic client registration (RFC 7591) at the server's
  /// `registration_endpoint`.
  DynamicRegistration
  /// This client's metadata document at `url`, its client id where the
  /// authorization server advertises `client_id_metadata_document_supported`;
  /// dynamic registration where it does not.
  ClientMetadataDocument(url: String)
  /// A client id registered beforehand; `secret` authenticates it at the
  /// token endpoint (`None`: a public client).
  PreRegistered(client_id: String, secret: Option(ClientSecret))
}

/// How a client authenticates at the token endpoint. Neither holds the
/// secret itself.
pub type ClientSecret {
  /// The secret is the value of this environment variable
  /// (`client_secret_basic`, or `client_secret_post` where only that is
  /// allowed).
  SecretFromEnv(variable: String)
  /// `private_key_jwt`: assertions signed with the PEM key in this file,
  /// with `signing_algorithm` (`"ES256"`, `"RS256"`, ...).
  PrivateKeyFile(path: String, signing_algorithm: String)
}

/// Where the authorization URL goes when a person's consent is needed.
pub type Consent {
  /// Nowhere: a server that needs consent fails with `ConsentNeeded`
  /// (a token stored by `mcp-gen login` is still used and renewed).
  NoConsent
  /// Printed on the VM's stderr for a person to open.
  PrintAuthorizationUrl
  /// Handed to this executable (looked up on `PATH`), run with the URL as
  /// its only argument, without a shell.
  Browser(executable: String)
}

/// Where tokens and the client registration are kept between runs.
pub type TokenStore {
  /// Nowhere: each connection authorizes anew.
  NoTokenStore
  /// A 0600 file per server in this directory (created 0700); a file or
  /// directory others may read or write is refused and never read.
  TokenDirectory(path: String)
}

/// The client credentials grant with a secret read from `variable`, asking
/// for the server's scopes, keeping no token.
pub fn client_credentials(client_id: String, variable: String) -> OAuth {
  OAuth(
    grant: ClientCredentials(client_id:, secret: SecretFromEnv(variable)),
    scopes: [],
    store: NoTokenStore,
    dpop: False,
  )
}

/// The directory `bin/mcp-gen` keeps tokens in (`~/.config/mcp/oauth`):
/// a program using it uses the tokens `mcp-gen login` obtained.
@external(erlang, "mcp_gleam_ffi", "default_token_directory")
pub fn default_token_directory() -> String

/// A peer process standing in for a server, talking through a `Channel`.
pub type Channel

pub type Transport {
  PortTransport(Spawn)
  HttpTransport(Remote)
  /// `start` runs inside the client actor when it connects; it starts the
  /// peer, hands it the channel and returns its pid, or says why it could
  /// not (`client.PeerStartFailed(reason)`).
  ChannelTransport(start: fn(Channel) -> Result(Pid, String))
}

pub type ResolveError {
  ExecutableNotFound(executable: String)
}

/// A `Spawn` with no extra environment, the VM's working directory, the
/// default (allow-listed) environment, the 16 MiB line cap, no grace
/// before SIGKILL, no jail and the VM's stderr.
pub fn spawn(executable: String, args: List(String)) -> Spawn {
  Spawn(
    executable:,
    args:,
    env: [],
    cwd: None,
    inherit_env: False,
    max_line_bytes: None,
    shutdown_grace_ms: 0,
    jail: None,
    stderr: InheritStderr,
  )
}

/// Why `write` delivered nothing.
pub type WriteError {
  /// `bytes` is a `BitArray` of `bits` bits, not whole bytes: no stdout
  /// carries one.
  ChunkNotWholeBytes(bits: Int)
}

/// The peer's side of a channel: delivers bytes as the server's stdout.
@external(erlang, "mcp_gleam_ffi", "channel_write")
pub fn write(channel: Channel, bytes: BitArray) -> Result(Nil, WriteError)

/// The client actor at the other end of a channel (a peer should monitor it).
@external(erlang, "mcp_channel", "client")
pub fn client(channel: Channel) -> Pid

/// Where `PortTransport` would find an executable.
@external(erlang, "mcp_gleam_ffi", "resolve_executable")
pub fn resolve_executable(executable: String) -> Result(String, ResolveError)

/// The VM variables a child receives when `inherit_env` is `False`.
@external(erlang, "mcp_gleam_ffi", "inherited_env_names")
pub fn inherited_env_names() -> List(String)

/// Bytes that may queue towards a child not reading its stdin before a write
/// fails.
@external(erlang, "mcp_port", "max_queue_bytes")
pub fn max_queue_bytes() -> Int

/// The largest `shutdown_grace_ms` (a minute).
@external(erlang, "mcp_port", "max_shutdown_grace_ms")
pub fn max_shutdown_grace_ms() -> Int

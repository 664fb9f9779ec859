%% @doc Every reason the library can hand a person, as a sentence they can
%% act on: start errors, client errors, the death reasons they carry,
%% retirement errors and retirement evidence, and code generation refusals.
%% `bin/mcp-gen' prints these sentences, the wire log spells its events with
%% `words/1', and the Gleam `describe_*' functions return the same text.
%%
%% Invariants:
%% <ul>
%% <li>No rendering contains Erlang term syntax: every constructor of
%%     `mcp_client''s start, client, death and retirement vocabularies has a
%%     clause of its own, and a term none of them knows goes through
%%     `words/1', which spells atoms, numbers, text and nested tuples as
%%     words (no braces, brackets or binary markers).</li>
%% <li>Every server-chosen string passes through `mcp_printable:printable/3'
%%     with a cap, so a reason is one bounded line whatever the server
%%     sent.</li>
%% </ul>
%% The sentences start in lower case: the command line prefixes them with
%% `mcp-gen: '.
-module(mcp_describe).

-export([start_error/1, client_error/1, death/1, evidence/1,
         retirement_error/1, retirement/1, refusal/1, words/1,
         jail_unavailable/1, bad_jail/1, bad_stderr/1, authorization_failure/1, offline_launcher/1]).

-define(MAX_DEPTH, 4).
-define(MAX_ITEMS, 8).

%% ---- start errors (mcp_client:connect/1, start/2) ----

-spec start_error(term()) -> iolist().
start_error({transport_failed, {executable_not_found, Name}}) ->
    ["executable not found: ", name(Name), " (check the command and PATH)"];
start_error({transport_failed, {spawn_failed, Posix}}) when is_atom(Posix) ->
    ["could not start the server: ", erl_posix_msg:message(Posix),
     " (check the executable's permissions and the --cwd directory)"];
start_error({transport_failed, already_connected}) ->
    "the client is already connected";
start_error({transport_failed, {not_parked, custodian_down}}) ->
    "the client cannot be started: the process that owned it has ended";
start_error({transport_failed, {not_parked, {reconnecting, _Reason}}}) ->
    "the client is already started and is waiting to reconnect to its server on its own";
start_error({transport_failed, {not_parked, _Reason}}) ->
    "the client was already started once and cannot be started again";
start_error({transport_failed, {bad_spawn, _Spec}}) ->
    "the server command is not a valid spawn specification";
start_error({transport_failed, native_library_not_loaded}) ->
    "the native library of the mcp application (priv/libmcp_nif.so) is not loaded, so no server can run: "
    "build it with `rebar3 compile` in the mcp checkout (it needs cargo, the Rust toolchain), or put a built "
    "mcp application on the code path; mcp_nif's warning names the path tried";
start_error({transport_failed, {bad_transport_spec, _Spec}}) ->
    "the transport specification is not valid";
start_error({transport_failed, {oauth, {token_file_permissions, Path}}}) ->
    ["the token file or directory ", name(Path), " may be read or written by others than its owner; "
     "it was not used (chmod 600 the file, 700 the directory)"];
start_error({transport_failed, {oauth, Reason}}) ->
    ["the token store cannot be used: ", words(Reason)];
start_error({transport_failed, {jail_unavailable, Why}}) ->
    ["the server was not started: the jail cannot run here (", jail_unavailable(Why), ")"];
start_error({transport_failed, {bad_stderr, Why}}) ->
    ["the server was not started: ", bad_stderr(Why)];
start_error({transport_failed, {bad_jail, Why}}) ->
    ["the server was not started: the jail is not valid: ", bad_jail(Why)];
start_error({transport_failed, {not_for_http, Keys}}) ->
    ["a remote server (url) is not a process: ", lists:join(", ", [words(Key) || Key <- Keys]),
     " cannot apply to it"];
start_error({transport_failed, {unsupported_proxy, Variable}}) ->
    ["the proxy in the environment variable ", name(unicode:characters_to_binary(Variable)),
     " is not an http:// proxy without credentials, the only kind this client speaks"];
start_error({transport_failed, {plaintext_headers, Host}}) ->
    ["headers are never sent in plaintext to ", name(Host),
     ", which is not this machine: use https, or allow it with --allow-plaintext (allow_plaintext_headers)"];
start_error({transport_failed, {header_variable_unset, Name}}) ->
    ["a header names the environment variable ", name(Name), ", which is not set"];
start_error({transport_failed, {bad_header, Name}}) ->
    ["the header ", name(Name), " is not a valid HTTP header (a token name, a value without CR, LF or NUL)"];
start_error({transport_failed, {bad_url, Why}}) ->
    ["the URL is not usable: ", words(Why), " (an absolute http or https URL, without user:password@)"];
start_error({transport_failed, Reason}) ->
    ["could not start the server: ", words(Reason)];
start_error({handshake_failed, {unavailable, Death}}) ->
    ["the handshake failed because ", death(Death)];
start_error({handshake_failed, call_timed_out}) ->
    "the server did not answer the initialize request in time "
    "(raise --timeout if it is slow to start)";
start_error({handshake_failed, {server_error, {rpc_error, -32601, _Message, _Data}}}) ->
    "the handshake failed: the server answered its first request with JSON-RPC error -32601 (method not "
    "found), so it is not an MCP server of this protocol era (--era chooses another), or it is a program "
    "that writes back what it reads, as cat does";
start_error({handshake_failed, ClientError}) ->
    ["the handshake failed: ", client_error(ClientError)];
start_error({version_unsupported, Requested, Offered}) ->
    ["the server offered protocol version ", name(Offered), "; this client asked for ",
     name(Requested), " and supports no common version"];
start_error(tools_not_declared) ->
    "the server does not declare the tools capability, so it has no tools to list or call";
start_error({cleanup_unconfirmed, Cause, Retirement, _Client}) ->
    [start_error(Cause), "; then ", retirement_error(Retirement)];
start_error(Other) ->
    ["could not start the server: ", words(Other)].

%% @doc Why a jail cannot run here, completing "the jail cannot run here
%% (...)".
-spec jail_unavailable(term()) -> iodata().
jail_unavailable({bwrap_not_found, "bwrap"}) ->
    "bwrap is not on PATH; install bubblewrap";
jail_unavailable({bwrap_not_found, Path}) ->
    ["no bwrap at ", path(Path)];
jail_unavailable({probe_failed, Status, Output}) when is_integer(Status) ->
    [io_lib:format("a jailed test command exited with status ~b: ", [Status]), text(Output),
     "; user namespaces may be disabled on this host"];
jail_unavailable(probe_timed_out) ->
    "a jailed test command did not finish";
jail_unavailable({unsupported_architecture, Architecture}) ->
    ["the seccomp filter does not know this architecture, ", path(Architecture)];
jail_unavailable({launcher_missing, Path}) ->
    ["the jail's launcher is missing at ", path(Path), "; rebuild the package (native/build.sh installs it)"];
jail_unavailable(landlock_unavailable) ->
    ["this kernel has no Landlock (Linux 5.13 or later with landlock among its security modules), "
     "which the jail relies on to refuse writes into FIFOs on read-only mounts and to keep the server "
     "off the jail's init; to run the server in the weaker jail without it, say so: "
     "--no-landlock with --jail, \"landlock\": false in a configuration file's jail, "
     "landlock => false in an Erlang spec, landlock: False in a Gleam Jail"];
jail_unavailable(Other) ->
    words(Other).

%% @doc Why a spawn's `stderr' was refused, as a clause.
-spec bad_stderr(term()) -> iodata().
bad_stderr({Path, Posix}) when is_atom(Posix) ->
    ["its stderr cannot go to ", name(Path), " (", erl_posix_msg:message(Posix), ")"];
bad_stderr(Described) when is_binary(Described) ->
    text(Described);
bad_stderr(_Other) ->
    "its stderr setting is not inherit, discard or a file".

%% @doc What is wrong with a jail, completing "the jail is not valid: ...".
-spec bad_jail(term()) -> iodata().
bad_jail({unknown_option, Option}) -> ["it has an unknown option ", words(Option)];
bad_jail({not_a_boolean, {Option, _}}) -> [words(Option), " must be true or false"];
bad_jail({unknown_profile, Profile}) -> ["its profile ", words(Profile), " is neither default nor strict"];
bad_jail({not_a_list, {Option, _}}) -> [words(Option), " must be a list of paths"];
bad_jail({not_a_path, _}) -> "a grant or deny entry is not a path";
bad_jail({relative_path, Path}) -> ["the path ", path(Path), " is not absolute"];
bad_jail({parent_reference, Path}) -> ["the path ", path(Path), " contains .."];
bad_jail({nul_character, _Path}) -> "a path contains a NUL character";
bad_jail({missing_grant, Path}) -> ["the granted path ", path(Path), " does not exist"];
bad_jail({symlinked_grant, Path}) ->
    ["the granted path ", path(Path), " goes through a symbolic link; grant the real path it leads to"];
bad_jail({setid_file_in_grant, Path}) ->
    ["the write grant holds the set-user-ID or set-group-ID file ", path(Path), ", which a jailed server could "
     "rewrite keeping its bit (and any local user would then run its code as the file's owner): remove the bit "
     "(chmod u-s,g-s) or grant a directory without it"];
bad_jail({executable_hidden, {Link, Real, Grant}}) ->
    ["the executable ", path(Link), " is a link to ", path(Real), ", which is hidden inside the jail (under /tmp, "
     "/run or a denied path), so the link leads nowhere there; granting the link's directory does not show its "
     "target: grant ", path(Grant), " with --allow-read"];
bad_jail({executable_hidden, Path}) ->
    ["the executable ", path(Path), " is hidden inside the jail (under /tmp, /run or a denied path); "
     "grant it with --allow-read"];
bad_jail({cd_hidden, Path}) ->
    ["the working directory ", path(Path), " is hidden inside the jail (under /tmp, /run or a denied "
     "path); grant it with --allow-read or --allow-write"];
bad_jail(Other) -> words(Other).

path(Path) -> name(unicode:characters_to_binary(Path)).

%% @doc Why a jailed launcher (`mcp_jail:offline_launcher/2') may have
%% ended before the handshake, completing a start error after "; ".
-spec offline_launcher(mcp_jail_launcher:launcher()) -> iolist().
offline_launcher(#{launcher := Kind, caches := Caches}) ->
    Name = case Kind of
               npx -> "npx";
               npm_exec -> "npm exec";
               uvx -> "uvx";
               uv_tool_run -> "uv tool run";
               pipx_run -> "pipx run"
           end,
    [Name, " runs without the network in the jail, from its cache (",
     lists:join(", ", [path(Cache) || Cache <- Caches]),
     "): a package that is not in the cache yet cannot be fetched; --allow-net gives it the network (what it "
     "fetches stays in the jail's copy and is gone after the run), or fill the cache outside the jail first "
     "(docs/jail.md, \"Launchers\")"].

%% ---- client errors (list_tools, call_tool, ping) ----

-spec client_error(term()) -> iolist().
client_error({unavailable, Death}) ->
    ["the server is unavailable: ", death(Death)];
client_error(call_timed_out) ->
    "the request timed out (raise --timeout if the server is slow)";
client_error({server_error, {rpc_error, Code, Message, _Data}}) when is_integer(Code) ->
    [io_lib:format("server error ~b: ", [Code]), text(Message)];
client_error({result_malformed, {protocol_fault, Path, Reason}}) ->
    ["the server's result is malformed at ", name(Path), ": ", text(Reason)];
client_error({result_malformed, {unsupported_version, Requested, Offered}}) ->
    ["the server answered with protocol version ", name(Offered), " to a request for ",
     name(Requested), ", which this client does not support"];
client_error({result_malformed, Fault}) ->
    ["the server's result is malformed: ", words(Fault)];
client_error(too_many_pages) ->
    io_lib:format("tools/list did not end: more than ~b pages or a repeated cursor",
                  [mcp_client:max_tool_pages()]);
client_error({listing_too_large, MaxBytes}) when is_integer(MaxBytes) ->
    io_lib:format("tools/list sent pages of more than ~b bytes together", [MaxBytes]);
client_error({request_refused, {http_status, Status}}) when is_integer(Status) ->
    io_lib:format("the server refused the request with HTTP status ~b and no response", [Status]);
client_error({tool_left_out, Why}) ->
    ["the tool is left out: ", text(Why)];
client_error(no_input_handler) ->
    "the server asked for input (elicitation) and no input handler is given (mcp-gen: --elicit defaults)";
client_error({input_unsupported, Method}) ->
    ["the server asked for input the client does not give: ", name(Method)];
client_error({too_many_input_rounds, Max}) when is_integer(Max) ->
    io_lib:format("the server asked for input more than ~b times in one call", [Max]);
client_error(Other) ->
    ["the request failed: ", words(Other)].

%% ---- death reasons: what {unavailable, Reason} carries ----

%% @doc Why a client's connection is gone, completing "the server is
%% unavailable: ..." or "the handshake failed because ...".
-spec death(term()) -> iolist().
death({transport_ended, Evidence}) ->
    ["the server exited on its own", evidence_clause(Evidence),
     " (its stderr, above, may say why)"];
death(transport_ended) ->
    "the connection to the server ended (its stderr, above, may say why)";
death({invalid_utf8, Offset}) when is_integer(Offset) ->
    io_lib:format("the server wrote bytes that are not UTF-8 at byte ~b of its output; "
                  "MCP messages are UTF-8 JSON, one per line", [Offset]);
death({line_too_long, Bytes}) when is_integer(Bytes) ->
    io_lib:format("the server wrote a line of at least ~b bytes, more than one message may hold "
                  "(the spawn's max_line_bytes: ~b unless set lower)", [Bytes, mcp_stdio:max_line_bytes()]);
death({malformed_message, {corruption_report, Offset, Reason}}) when is_integer(Offset) ->
    ["the server wrote a line that is not JSON (", text(Reason),
     io_lib:format(" at byte ~b); servers must keep stdout for protocol messages, so a banner "
                   "or log line printed there ends the session: see its stderr above", [Offset])];
death({malformed_message, Fault}) ->
    ["the server wrote a line that is not a JSON-RPC message: ", words(Fault)];
death({bad_message, Reason}) ->
    ["the server sent JSON that is not a valid JSON-RPC 2.0 message: ", text(Reason)];
death({write_failed, busy}) ->
    io_lib:format("the server stopped reading its input: more than ~b bytes were waiting for it",
                  [mcp_port:max_queue_bytes()]);
death({write_failed, closed}) ->
    "the connection to the server was already closed when the client wrote to it";
death({flooded, Bytes}) when is_integer(Bytes) ->
    io_lib:format("the server sent more than the client can process: ~b bytes of its output "
                  "were waiting, past the client's budget, so it was stopped", [Bytes]);
death({http_status, 400}) ->
    "the server answered HTTP 400 (a server that speaks only the handshake era answers the 2026-07-28 "
    "revision's requests so: with --era modern, try --era auto)";
death({http_status, Status}) when is_integer(Status) ->
    io_lib:format("the server answered HTTP ~b", [Status]);
death({content_type, Type}) ->
    ["the server answered with content type ", name(Type), ", neither JSON nor an event stream"];
death({http_failed, {failed_connect, [{to_address, {Host, Port}}, {_Family, _Options, Cause} | _]}})
  when is_integer(Port) ->
    ["could not connect to ", name(unicode:characters_to_binary(io_lib:format("~ts:~b", [host_text(Host), Port]))),
     ": ", connect_cause(Cause)];
death({http_failed, Reason}) ->
    ["the HTTP request failed: ", words(Reason)];
death({event_too_long, Bytes}) when is_integer(Bytes) ->
    io_lib:format("the server sent an event of at least ~b bytes, more than one message may hold "
                  "(max_line_bytes: ~b unless set lower)", [Bytes, mcp_stdio:max_line_bytes()]);
death({response_too_large, Bytes}) when is_integer(Bytes) ->
    io_lib:format("the server's answer held ~b bytes before it could be read as a message (endless "
                  "headers, or the body of a status other than 200), more than max_line_bytes allows", [Bytes]);
death({authorization_failed, Reason}) ->
    ["the server requires authorization, which failed: ", authorization(Reason)];
death(session_expired) ->
    "the server no longer knows the session (HTTP 404 to a request carrying it)";
death({bad_session_id, Bytes}) when is_integer(Bytes) ->
    io_lib:format("the server assigned a session id of ~b bytes that is not visible ASCII of at most 1024", [Bytes]);
death({unresponsive, SilentMs}) when is_integer(SilentMs) ->
    io_lib:format("the server sent nothing for ~b ms: a request's deadline passed and a ping went unanswered", [SilentMs]);
death({stream_lost, Reason}) ->
    ["the server's event stream ended before its response and could not be resumed (", words(Reason), ")"];
death(stopped) ->
    "the client was stopped";
death(retired) ->
    "the client was shut down";
death(custodian_down) ->
    "the process that owned the client ended, so the server was stopped";
death(not_connected) ->
    "the client is not connected to a server yet";
death({reconnecting, Reason}) ->
    ["the client is waiting to reconnect, because ", death(Reason)];
death({client_down, noproc}) ->
    "the client process no longer exists (an earlier shutdown or stop retired it, or it crashed)";
death({client_down, Reason}) ->
    ["the client process is gone (", words(Reason), ")"];
death({transport_failed, _} = StartError) ->
    start_error(StartError);
death({version_unsupported, _, _} = StartError) ->
    start_error(StartError);
death(tools_not_declared = StartError) ->
    start_error(StartError);
death({handshake_failed, _} = StartError) ->
    start_error(StartError);
death(Other) ->
    ["the connection ended for a reason this version does not describe: ", words(Other)].

host_text(Host) when is_list(Host) -> Host;
host_text(Host) when is_tuple(Host) -> inet:ntoa(Host);
host_text(_) -> "?".

%% Why a connection could not be made (`httpc''s `failed_connect').
connect_cause(econnrefused) -> "the connection was refused (nothing listens on that port)";
connect_cause(nxdomain) -> "the host name does not resolve";
connect_cause(Timeout) when Timeout =:= timeout; Timeout =:= etimedout -> "no answer within the connect timeout";
connect_cause(ehostunreach) -> "the host is unreachable";
connect_cause(enetunreach) -> "the network is unreachable";
connect_cause({tls_alert, {unexpected_message, _}}) ->
    "TLS failed: the port does not speak TLS (a plain http server? then use an http:// URL)";
connect_cause({tls_alert, {unknown_ca, _}}) ->
    "TLS failed: the server's certificate is not signed by an authority this machine trusts";
connect_cause({tls_alert, {Kind, _}}) ->
    ["TLS failed (", words(Kind), ")"];
connect_cause(Other) ->
    words(Other).

%% @doc Why an authorization failed (`{authorization_failed, Reason}'),
%% as the clause that ends "which failed: ..." (the Gleam adapter's
%% `OtherAuthorizationFailure' text, so both read alike).
-spec authorization_failure(term()) -> iodata().
authorization_failure(Reason) ->
    authorization(Reason).

%% An authorization failure (`mcp_oauth'): its terms name steps, statuses
%% and OAuth error codes, never a token or secret.
authorization(consent_needed) ->
    "a person's consent is needed: run `mcp-gen login` with the same server options";
authorization(consent_timeout) ->
    "no authorization response reached the loopback redirect in time";
authorization(too_many_challenges) ->
    "the server refused the token after three authorizations in a row";
authorization({resource_mismatch, _}) ->
    "the protected-resource metadata names another resource than this server, so no authorization server was asked";
authorization({issuer_mismatch, _}) ->
    "the authorization server's metadata names another issuer than the one it was looked up for, so none of its endpoints was used";
authorization({issuer_not_trusted, Issuer}) when is_binary(Issuer) ->
    ["the server named the authorization server ", name(Issuer), ", not the one the client's credentials belong ",
     "to (the configured --issuer, or the one they were first used with), so they were not sent"];
authorization(iss_mismatch) ->
    "the authorization response came from another issuer (RFC 9207 `iss`), so its code was not used";
authorization(iss_missing) ->
    "the authorization response lacks the `iss` its server advertises, so its code was not used";
authorization(state_mismatch) ->
    "the authorization response carried another `state` than the one sent, so its code was not used";
authorization({token_refused, Status, Code}) when is_integer(Status) ->
    io_lib:format("the token endpoint answered HTTP ~b (~ts)", [Status, words(Code)]);
authorization({registration_refused, Status}) when is_integer(Status) ->
    io_lib:format("client registration was refused (HTTP ~b)", [Status]);
authorization({registration_refused, Status, Code}) when is_integer(Status) ->
    io_lib:format("client registration was refused (HTTP ~b, ~ts)", [Status, words(Code)]);
authorization(no_client_registration) ->
    "the authorization server offers no registration and no client id was given";
authorization({local_endpoint, Url}) ->
    ["the remote server pointed the authorization flow at this machine (", words(Url), "), which is refused"];
authorization({private_endpoint, Url}) ->
    ["the remote server pointed the authorization flow at a private network address (", words(Url),
     "), which is refused unless the server itself is on a private network"];
authorization({unresolved_endpoint, Url}) ->
    ["the host of ", words(Url), " in the authorization flow does not resolve"];
authorization({body_too_long, Bytes}) when is_integer(Bytes) ->
    io_lib:format("an answer in the authorization flow held ~b bytes, more than it may (1 MiB)", [Bytes]);
authorization({token_unusable, malformed}) ->
    "the authorization server issued an access token with characters a token may not hold (RFC 6750), "
    "which would have gone into a request header, so it was refused";
authorization({token_unusable, too_long}) ->
    io_lib:format("the authorization server issued an access token longer than ~b bytes, so it was refused",
                  [mcp_oauth_token:max_token_bytes()]);
authorization({token_type_unsupported, <<"DPoP">>}) ->
    "the authorization server issued a DPoP-bound token to a client that did not ask for DPoP, "
    "so it was refused rather than sent as Bearer (turn DPoP on: --dpop, dpop => true)";
authorization({token_type_unsupported, Type}) ->
    ["the authorization server issued a token of type ", words(Type),
     ", not the one this client asked for (Bearer, or DPoP with DPoP on), so it was refused rather than used "
     "unbound or sent as Bearer"];
authorization(dpop_nonce_refused) ->
    "the server asked for a DPoP nonce again after the request had gone again with the nonce it gave";
authorization(dpop_nonce_unusable) ->
    io_lib:format("the server asked for a DPoP nonce but gave none that may go into a proof "
                  "(1 to ~b visible characters without quotes or backslashes)", [mcp_oauth_dpop:max_nonce_bytes()]);
authorization({token_exchange_refused, Status, Code}) when is_integer(Status) ->
    io_lib:format("the identity provider's token exchange answered HTTP ~b (~ts)", [Status, words(Code)]);
authorization({assertion_unreadable, {Kind, Where}}) ->
    ["the assertion's ", words(Kind), " ", name(Where), " cannot be read"];
authorization({assertion_unusable, {Kind, Where}}) ->
    io_lib:format("the assertion in the ~ts ~ts is not a JWT of at most ~b bytes",
                  [words(Kind), name(Where), mcp_oauth_grant:max_assertion_bytes()]);
authorization({assertion_unusable, harness}) ->
    "the assertion the harness gave is not a JWT";
authorization(no_assertion) ->
    "the grant needs an assertion and none is configured";
authorization({unstated_endpoint, Endpoint}) ->
    ["the server publishes no authorization metadata, so its default ", words(Endpoint),
     " is not trusted with the configured client credentials"];
authorization({challenge_too_long, Bytes}) when is_integer(Bytes) ->
    io_lib:format("the server's WWW-Authenticate challenge held ~b bytes, more than ~b, so it was not read",
                  [Bytes, mcp_oauth_discovery:max_challenge_bytes()]);
authorization({plaintext_headers, Host}) ->
    ["a token is never sent in plaintext to ", name(Host),
     ", which is not this machine: use https, or allow it with --allow-plaintext (allow_plaintext_headers)"];
authorization(no_token) ->
    "no token is held yet and the server has not asked for one";
authorization(no_refresh_token) ->
    "the token expired and there is no refresh token to renew it: run `mcp-gen login` again";
authorization({token_store, {token_file_permissions, Path}}) ->
    ["the token file or directory ", name(Path), " may be read or written by others than its owner, "
     "so the token obtained was not kept (chmod 600 the file, 700 the directory)"];
authorization(Other) ->
    words(Other).

%% ---- evidence: how the server's process ended ----

%% @doc How the server's process ended, as a clause: "with exit status 3".
-spec evidence(term()) -> iodata().
evidence(Evidence) ->
    string:trim(evidence_clause(Evidence), leading).

evidence_clause({exit_status, Status}) when is_integer(Status) ->
    exit_status(Status);
evidence_clause({exited, {status, Status}}) when is_integer(Status) ->
    exit_status(Status);
evidence_clause({exited, Status}) when is_integer(Status) ->     % a port's raw exit status
    exit_status(Status);
evidence_clause({exited, {signal, Signal}}) ->
    [" killed by ", signal(Signal)];
evidence_clause({exited, unknown}) ->
    " (its exit was witnessed after its pipe closed, which lost the exit status)";
evidence_clause({exited, {peer_down, {http_session, deleted}}}) ->
    " (its HTTP session was ended with DELETE and every connection closed)";
evidence_clause({exited, {peer_down, {http_session, no_session}}}) ->
    " (it kept no HTTP session; every connection closed)";
evidence_clause({exited, {peer_down, {http_session, {status, Status}}}}) when is_integer(Status) ->
    io_lib:format(" (it answered the session's DELETE with HTTP ~b; every connection closed)", [Status]);
evidence_clause({exited, {peer_down, {http_session, {failed, Reason}}}}) ->
    [" (the session's DELETE failed: ", words(Reason), "; every connection closed)"];
evidence_clause({exited, {peer_down, Reason}}) ->
    [" (its peer process ended: ", words(Reason), ")"];
evidence_clause({exited, Reason}) ->
    [" (", words(Reason), ")"];
evidence_clause({unconfirmed, Reason}) ->
    [", but without an exit status to prove it (", words(Reason), ")"];
evidence_clause(Other) ->
    [" (", words(Other), ")"].

%% How a remote session ended, as a clause after "every connection closed".
session(deleted) -> " and its HTTP session was ended with DELETE";
session(no_session) -> " (it kept no HTTP session)";
session({status, Status}) when is_integer(Status) ->
    io_lib:format(" (it answered the session's DELETE with HTTP ~b)", [Status]);
session({failed, Reason}) -> [" (the session's DELETE failed: ", words(Reason), ")"];
session(Other) -> [" (", words(Other), ")"].

%% A port reports a child killed by signal N as exit status 128 + N.
exit_status(Status) when Status > 128 ->
    case signal_name(Status - 128) of
        undefined -> io_lib:format(" with exit status ~b", [Status]);
        Name -> io_lib:format(" with exit status ~b (128 + ~s)", [Status, Name])
    end;
exit_status(Status) ->
    io_lib:format(" with exit status ~b", [Status]).

signal(Number) when is_integer(Number) ->
    case signal_name(Number) of
        undefined -> io_lib:format("signal ~b", [Number]);
        Name -> io_lib:format("~s (signal ~b)", [Name, Number])
    end;
signal(Name) when is_atom(Name) ->
    ["SIG", string:uppercase(atom_to_list(Name))];
signal(Other) ->
    ["signal ", words(Other)].

signal_name(1) -> "SIGHUP";
signal_name(2) -> "SIGINT";
signal_name(3) -> "SIGQUIT";
signal_name(6) -> "SIGABRT";
signal_name(9) -> "SIGKILL";
signal_name(11) -> "SIGSEGV";
signal_name(13) -> "SIGPIPE";
signal_name(15) -> "SIGTERM";
signal_name(_) -> undefined.

%% ---- retirement (mcp_client:shutdown/2) ----

-spec retirement_error(term()) -> iolist().
retirement_error(retirement_timed_out) ->
    "the server's shutdown timed out: its process may still be running";
retirement_error({retirement_unconfirmed, {port_exited, Reason}}) ->
    ["the server's shutdown is unconfirmed: its connection closed without an exit status (",
     words(Reason), "), so nothing proves the process is gone"];
retirement_error({retirement_unconfirmed, {actor_down, noproc}}) ->
    "the client process no longer exists (an earlier shutdown or stop retired it, or it crashed), "
    "so this shutdown proves nothing more about its server";
retirement_error({retirement_unconfirmed, {actor_down, Reason}}) ->
    ["the server's shutdown is unconfirmed: the client process ended first (", words(Reason), ")"];
retirement_error({retirement_unconfirmed, Reason}) ->
    ["the server's shutdown is unconfirmed: ", words(Reason)];
retirement_error(Other) ->
    ["the server's shutdown failed: ", words(Other)].

%% @doc A successful retirement's evidence as a sentence.
-spec retirement(term()) -> iolist().
retirement(no_resource) ->
    "the server was never started, so there was nothing to stop";
retirement({exited, {peer_down, {http_session, Session}}}) ->
    ["every connection to the remote server closed", session(Session), "; the server itself runs on"];
retirement({exited, {signal, _}} = Evidence) ->
    ["the server was", evidence_clause(Evidence)];
retirement(Evidence) ->
    ["the server exited", evidence_clause(Evidence)].

%% ---- code generation refusals ----

%% @doc `mcp_codegen:describe/1' of the refusal, with the server-chosen
%% names in it capped first (two 8 MB names must not become one 16 MB line).
-spec refusal(term()) -> iodata().
refusal({tool_name_collision, A, B}) when is_binary(A), is_binary(B) ->
    describe({tool_name_collision, cap(A), cap(B)});
refusal({too_many_tools, _, _} = Refusal) -> describe(Refusal);
refusal({surface_too_large, _, _} = Refusal) -> describe(Refusal);
refusal({sanitizer_breach, _} = Refusal) -> describe(Refusal);
refusal(Other) -> ["code generation refused: ", words(Other)].

describe(Refusal) ->
    mcp_printable:printable(mcp_codegen:describe(Refusal), line, 2 * mcp_printable:text_chars()).

cap(Name) ->
    mcp_printable:printable(Name, line, mcp_printable:name_chars()).

%% ---- any term, in words ----

%% @doc A term spelt without Erlang syntax: atoms as words (`_' as space),
%% numbers, text (made printable and capped), and a tagged tuple as
%% `tag (field, field)'. Deep or long terms are elided with `…'.
-spec words(term()) -> binary().
words(Term) ->
    mcp_printable:printable(unicode:characters_to_binary(words(Term, ?MAX_DEPTH)), line,
                           mcp_printable:text_chars()).

words(_Term, 0) -> "…";
words(Atom, _Depth) when is_atom(Atom) -> string:replace(atom_to_list(Atom), "_", " ", all);
words(Integer, _Depth) when is_integer(Integer) -> integer_to_list(Integer);
words(Float, _Depth) when is_float(Float) -> float_to_list(Float, [short]);
words(Binary, _Depth) when is_binary(Binary) -> cap(Binary);
words(Pid, _Depth) when is_pid(Pid) -> "a process";
words(Port, _Depth) when is_port(Port) -> "a port";
words(Ref, _Depth) when is_reference(Ref) -> "a reference";
words(Fun, _Depth) when is_function(Fun) -> "a function";
words([], _Depth) -> "nothing";
words(List, Depth) when is_list(List) ->
    case io_lib:printable_unicode_list(List) of
        true -> cap(unicode:characters_to_binary(List));
        false -> items(List, Depth)
    end;
words(Tuple, Depth) when is_tuple(Tuple), tuple_size(Tuple) > 1, is_atom(element(1, Tuple)) ->
    [_ | Fields] = tuple_to_list(Tuple),
    [words(element(1, Tuple), Depth), " (", items(Fields, Depth), ")"];
words(Tuple, Depth) when is_tuple(Tuple) ->
    items(tuple_to_list(Tuple), Depth);
words(Map, Depth) when is_map(Map) ->
    lists:join(", ", [[words(K, Depth - 1), ": ", words(V, Depth - 1)]
                      || {K, V} <- lists:sublist(maps:to_list(Map), ?MAX_ITEMS)]);
words(_Other, _Depth) ->
    "something unprintable".

items(List, Depth) ->
    {Shown, More} = take(List, ?MAX_ITEMS, []),
    lists:join(", ", [words(Item, Depth - 1) || Item <- Shown] ++ ["…" || More]).

%% At most N elements of a list that may be improper (its tail counts as
%% one more element), and whether any were left out.
take([], _N, Acc) -> {lists:reverse(Acc), false};
take(_List, 0, Acc) -> {lists:reverse(Acc), true};
take([Head | Tail], N, Acc) -> take(Tail, N - 1, [Head | Acc]);
take(Improper, _N, Acc) -> {lists:reverse([Improper | Acc]), false}.

%% ---- server-chosen text ----

name(Text) when is_binary(Text) -> cap(Text);
name(Other) -> words(Other).

text(Text) when is_binary(Text) -> mcp_printable:printable(Text, line, mcp_printable:text_chars());
text(Other) -> words(Other).

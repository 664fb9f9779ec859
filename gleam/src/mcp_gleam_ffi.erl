%% @doc The thin adapter between the Gleam bindings (`src/mcp/*.gleam') and
%% the Erlang modules, for the results whose Erlang shape has no Gleam type:
%% 3-tuples (`{ok, Client, Init}', `{ok, Lines, Buffer}'), bare `ok', maps
%% (options, spawn specs), and open-ended reason terms.
%%
%% Invariants:
%% <ul>
%% <li>Every reason reaching Gleam is a constructor of `mcp/client' with
%%     typed fields. The closed Erlang types (`mcp_client:start_error()',
%%     `client_error()', `death_reason()', `retirement_error()') are mapped
%%     alternative by alternative, with no catch-all: a term outside them
%%     raises `function_clause' here, as the Erlang API raises for a term
%%     outside its types. Where an Erlang type says `term()' (a peer's exit
%%     reason, a transport's own open or write failure, the reason behind
%%     an unconfirmed end, a spawn failure other than a POSIX name), the
%%     field holds its `mcp_describe:words/1' text, never a raw term.</li>
%% <li>`describe_*' map the Gleam value back onto the Erlang vocabulary and
%%     ask `mcp_describe' for the sentence, so Gleam and the command line
%%     say the same thing; only the Gleam-only refusals (out-of-range
%%     timeouts and reconnect policies, an unusable `oauth', unencodable
%%     arguments) have sentences here.</li>
%% <li>No well-typed Gleam argument raises: timeouts and the reconnect
%%     policy's fields are checked before the call, arguments with no JSON text are answered `unencodable_arguments',
%%     and encoders answer an error instead of `badarg'. Two kinds of value
%%     the Gleam types admit and no decoder produces are answered too: a
%%     `BitArray' that is not whole bytes (a decoder's report at its last
%%     whole byte, `ChunkNotWholeBytes', `PayloadNotWholeBytes'), and a
%%     `JsonValue' nested deeper than `mcp_json:max_depth()' or holding an
%%     integer longer than `max_integer_digits()' (`json_limit_fault/1'
%%     names the first such part: a protocol fault, a whole-value plan, a
%%     `ValueBeyondLimits' refusal). `gleam/test/totality_test.erl' feeds
%%     every public function of the package such values.</li>
%% </ul>
%% No codec logic lives here: every function is a call plus a reshaping;
%% where an Erlang function raises `badarg' for a well-typed Gleam value, a
%% walk of that value (on that path only) finds which refusal it is.
-module(mcp_gleam_ffi).

-export([default_options/0, prepare/2, prepare_owned/3, connect/1, start/2,
         list_tools/1, list_tools_within/2, tools/1, subscribe/1, tools_changed/1, connection_event/1,
         left_out_tools/1, call_tool/4, call_tool_msgpack/4, ping/2, stop/1,
         shutdown/2, os_pid/1, reconnect/1, default_token_directory/0,
         describe_client_error/1, describe_start_error/1, describe_retirement_error/1]).
%% The translations themselves, for the suite that checks that a translated
%% reason is described exactly as the command line describes the original.
-export([start_error/1, client_error/1, retirement_error/1]).
-export([stdio_new_capped/1, stdio_push/2, stdio_push_with_offsets/2, channel_write/2,
         resolve_executable/1, inherited_env_names/0, scan_for_at/1, sanitize/2, truncate/2,
         json_decode/1, json_encode/1, json_encode_line/1, jsonrpc_decode/1,
         to_json/1, msgpack_decode/1, msgpack_encode/1,
         msgpack_to_json_line/1, json_to_msgpack_bytes/1,
         schema_plan/1, decode_initialize_result/1, decode_tools_page/1,
         decode_call_tool_result/1, codegen_generate/2, codegen_requires_tasks/1,
         codegen_describe/1]).

-define(IS_TIMEOUT(T), (is_integer(T) andalso T >= 0 andalso T =< 86400000)).
%% A status and the OAuth `error' code `mcp_oauth' read with it.
-define(IS_CODE(Status, Code), (is_integer(Status) andalso (is_binary(Code) orelse Code =:= none))).

%%% ------------------------------------------------------------ client

default_options() ->
    #{client_info := Info, handshake_timeout_ms := Handshake,
      list_timeout_ms := List, shutdown_timeout_ms := Shutdown,
      input_timeout_ms := Input} = mcp_client:default_options(),
    {options, Info, Handshake, List, Shutdown, handshake, none, Input, none}.

%% A `Reconnect' of `Attempts' with `mcp_reconnect''s default durations.
reconnect(Attempts) ->
    #{backoff_ms := Backoff, max_backoff_ms := MaxBackoff, reset_after_ms := ResetAfter,
      unresponsive_ms := Unresponsive} = mcp_reconnect:defaults(),
    {reconnect, Attempts, Backoff, MaxBackoff, ResetAfter, Unresponsive}.

prepare(Transport, Options) ->
    checked(Transport, Options, fun(Spec, Opts) -> mcp_client:prepare(Spec, Opts) end).

prepare_owned(Transport, Options, Custodian) ->
    checked(Transport, Options, fun(Spec, Opts) -> mcp_client:prepare_owned(Spec, Opts, Custodian) end).

connect(Client) ->
    started(mcp_client:connect(Client)).

start(Transport, Options) ->
    checked(Transport, Options,
            fun(Spec, Opts) ->
                    case mcp_client:start(Spec, Opts) of
                        {ok, Client, Initialized} -> {ok, {Client, Initialized}};
                        {error, _} = Error -> started(Error)
                    end
            end).

%% `Call' with the spec and options, once the timeouts, the reconnect
%% policy and a `Remote''s `oauth' (its secret or key read now) are found
%% usable.
checked(Transport, Options, Call) ->
    case {bad_timeout_option(Options), bad_reconnect_field(Options)} of
        {{Name, Timeout}, _} ->
            {error, {timeout_option_out_of_range, Name, Timeout}};
        {none, {Field, Value}} ->
            {error, {reconnect_out_of_range, Field, Value}};
        {none, none} ->
            case spec(Transport) of
                {ok, Spec} -> Call(Spec, options(Options));
                {error, Refusal} -> {error, {o_auth_unusable, Refusal}}
            end
    end.

list_tools(Client) -> answered(mcp_client:list_tools(Client)).

left_out_tools(Client) -> answered(mcp_client:left_out_tools(Client)).

tools(Client) -> answered(mcp_client:tools(Client)).

subscribe(Client) ->
    case mcp_client:subscribe(Client) of
        ok -> {ok, nil};
        Error -> answered(Error)
    end.

%% A subscription's message as a `ToolsChanged'.
tools_changed({mcp_tools_changed, Pid, Generation}) -> {tools_changed, Pid, Generation}.

%% A subscription's connection message as a `ConnectionEvent'.
connection_event({mcp_reconnecting, Pid, Attempt, Reason}) ->
    {connection_lost, Pid, Attempt, death_reason(Reason)};
connection_event({mcp_reconnected, Pid, Attempt}) ->
    {connection_restored, Pid, Attempt};
connection_event({mcp_gave_up, Pid, Reason}) ->
    {connection_given_up, Pid, death_reason(Reason)}.

list_tools_within(Client, Timeout) when ?IS_TIMEOUT(Timeout) ->
    answered(mcp_client:list_tools(Client, Timeout));
list_tools_within(_Client, Timeout) ->
    {error, {timeout_out_of_range, Timeout}}.

call_tool(Client, Name, Arguments, Timeout) when ?IS_TIMEOUT(Timeout) ->
    tool_called(fun() -> mcp_client:call_tool(Client, Name, Arguments, Timeout) end);
call_tool(_Client, _Name, _Arguments, Timeout) ->
    {error, {timeout_out_of_range, Timeout}}.

call_tool_msgpack(Client, Name, Arguments, Timeout) when ?IS_TIMEOUT(Timeout) ->
    tool_called(fun() -> mcp_client:call_tool_msgpack(Client, Name, Arguments, Timeout) end);
call_tool_msgpack(_Client, _Name, _Arguments, Timeout) ->
    {error, {timeout_out_of_range, Timeout}}.

%% The only `badarg' a `tools/call' can raise once the name and timeout are
%% well-typed is the actor's refusal of arguments with no JSON text (raised
%% in the caller, nothing sent).
tool_called(Call) ->
    try Call() of
        Result -> answered(Result)
    catch
        error:badarg -> {error, unencodable_arguments}
    end.

ping(Client, Timeout) when ?IS_TIMEOUT(Timeout) ->
    case mcp_client:ping(Client, Timeout) of
        ok -> {ok, nil};
        Error -> answered(Error)
    end;
ping(_Client, Timeout) ->
    {error, {timeout_out_of_range, Timeout}}.

stop(Client) ->
    ok = mcp_client:stop(Client),
    nil.

shutdown(Client, Timeout) when ?IS_TIMEOUT(Timeout) ->
    case mcp_client:shutdown(Client, Timeout) of
        {ok, no_resource} -> {ok, no_resource};
        {ok, {exited, Evidence}} -> {ok, {exited, exit_evidence(Evidence)}};
        {error, Error} -> {error, retirement_error(Error)}
    end;
shutdown(_Client, Timeout) ->
    {error, {shutdown_timeout_out_of_range, Timeout}}.

os_pid(Client) ->
    case mcp_client:os_pid(Client) of
        {ok, OsPid} -> {some, OsPid};
        none -> none
    end.

%% The first `Options' timeout outside 0..max_timeout_ms(), by field name.
bad_timeout_option({options, _Info, Handshake, List, Shutdown, _Era, _Handler, Input, _Reconnect}) ->
    Named = [{<<"handshake_timeout_ms">>, Handshake}, {<<"list_timeout_ms">>, List},
             {<<"shutdown_timeout_ms">>, Shutdown}, {<<"input_timeout_ms">>, Input}],
    case [Bad || {_, Timeout} = Bad <- Named, not ?IS_TIMEOUT(Timeout)] of
        [] -> none;
        [First | _] -> First
    end.

%% The first field of a `Reconnect' outside its range
%% (`mcp_reconnect:out_of_range/1'), by name.
bad_reconnect_field({options, _Info, _Handshake, _List, _Shutdown, _Era, _Handler, _Input, none}) ->
    none;
bad_reconnect_field({options, _Info, _Handshake, _List, _Shutdown, _Era, _Handler, _Input, {some, Reconnect}}) ->
    case mcp_reconnect:out_of_range(reconnect_policy(Reconnect)) of
        none -> none;
        {Field, Value} -> {atom_to_binary(Field), Value}
    end.

%% Gleam `Transport' to an `mcp_transport:spec()', or the refusal of a
%% `Remote''s `oauth' (`oauth_config/1').
spec({port_transport, {spawn, Executable, Args, Env, Cwd, InheritEnv, MaxLineBytes, Grace, Jail, Stderr}}) ->
    Spawn = #{executable => Executable, args => Args, inherit_env => InheritEnv,
              shutdown_grace_ms => Grace, stderr => stderr(Stderr),
              env => [{Name, env_value(Value)} || {Name, Value} <- Env]},
    Optional = [{cd, Cwd}, {max_line_bytes, MaxLineBytes}, {jail, jail(Jail)}],
    {ok, maps:merge(Spawn, maps:from_list([{Key, Value} || {Key, {some, Value}} <- Optional]))};
spec({http_transport, {remote, Url, Headers, MaxLineBytes, OAuth}}) ->
    Remote = maps:merge(#{url => Url, headers => Headers},
                        maps:from_list([{max_line_bytes, Max} || {some, Max} <- [MaxLineBytes]])),
    case OAuth of
        none -> {ok, mcp_http:seal(Remote)};
        {some, Given} ->
            case oauth_config(Given) of
                {ok, Config} -> {ok, mcp_http:seal(Remote#{oauth => Config})};
                {error, _} = Refused -> Refused
            end
    end;
spec({channel_transport, Start}) ->
    {ok, {mcp_channel, Start}}.

%% Gleam `OAuth' to `mcp_oauth:config()': the secret read from its
%% variable and the key from its file here, as the command line does
%% (`mcp_cli_oauth:config/3'); `mcp_http:seal/1' then shuts the map in a
%% closure. A refusal names the variable or the file, never a value.
oauth_config({o_auth, Grant, Scopes, Store, Dpop}) ->
    Base = maps:from_list([{store, token_store(Store)}, {dpop, Dpop} | [{scopes, Scopes} || Scopes =/= []]]),
    case grant(Grant) of
        {ok, Config} -> {ok, maps:merge(Base, Config)};
        {error, _} = Refused -> Refused
    end.

token_store(no_token_store) -> none;
token_store({token_directory, Path}) -> {dir, Path}.

grant({client_credentials, ClientId, Secret}) ->
    with_secret(#{grant => client_credentials, client_id => ClientId}, {some, Secret});
grant({jwt_bearer, ClientId, Assertion}) ->
    {ok, #{grant => jwt_bearer, client_id => ClientId, assertion => assertion_source(Assertion)}};
grant({enterprise_managed, ClientId, Secret, IdToken, IdpTokenEndpoint, IdpClientId}) ->
    with_secret(maps:from_list([{grant, token_exchange}, {client_id, ClientId},
                                {identity_assertion, assertion_source(IdToken)},
                                {idp_token_endpoint, IdpTokenEndpoint}
                                | [{idp_client_id, Id} || {some, Id} <- [IdpClientId]]]), {some, Secret});
grant({authorization_code, _Registration, _Consent, Timeout, _Port}) when not ?IS_TIMEOUT(Timeout); Timeout =< 0 ->
    {error, {consent_timeout_out_of_range, Timeout}};
grant({authorization_code, _Registration, _Consent, _Timeout, {some, Port}}) when Port < 1; Port > 65535 ->
    {error, {redirect_port_out_of_range, Port}};
grant({authorization_code, Registration, Consent, Timeout, Port}) ->
    Fixed = case Port of
                {some, Number} -> #{redirect_port => Number};
                none -> #{}
            end,
    registration(Registration, Fixed#{grant => authorization_code, browser => browser(Consent),
                                      consent_timeout_ms => Timeout}).

registration(dynamic_registration, Config) -> {ok, Config};
registration({client_metadata_document, Url}, Config) -> {ok, Config#{client_metadata_url => Url}};
registration({pre_registered, ClientId, Secret}, Config) -> with_secret(Config#{client_id => ClientId}, Secret).

%% An assertion is read where it is used (`mcp_oauth_grant:assertion/1').
assertion_source({assertion_file, Path}) -> {file, Path};
assertion_source({assertion_from_env, Variable}) -> {env, unicode:characters_to_list(Variable)}.

browser(no_consent) -> none;
browser(print_authorization_url) -> print;
browser({browser, Executable}) -> unicode:characters_to_list(Executable).

with_secret(Config, none) ->
    {ok, Config};
with_secret(Config, {some, {secret_from_env, Variable}}) ->
    case environment_variable(Variable) of
        false -> {error, {secret_variable_unset, Variable}};
        Secret -> {ok, Config#{client_secret => unicode:characters_to_binary(Secret)}}
    end;
with_secret(Config, {some, {private_key_file, Path, Algorithm}}) ->
    case read_file(Path) of
        {ok, Pem} -> {ok, Config#{private_key_pem => Pem, signing_algorithm => Algorithm}};
        {error, Reason} -> {error, {private_key_unreadable, Path, sentence(file:format_error(Reason))}}
    end.

%% A name no environment can hold (`=', NUL) is unset, not `badarg'.
environment_variable(Name) ->
    try os:getenv(unicode:characters_to_list(Name))
    catch error:badarg -> false
    end.

read_file(Path) ->
    try file:read_file(Path)
    catch error:badarg -> {error, einval}
    end.

default_token_directory() ->
    unicode:characters_to_binary(mcp_oauth_token_store:default_dir()).

%% Gleam `Option(Jail)' to `mcp_jail:spec()' (the map form, bwrap only
%% when given).
jail(none) -> none;
jail({some, {jail, Write, Read, Deny, Net, UnixSockets, Landlock, Profile, Bwrap}}) ->
    Options = #{write => Write, read => Read, deny => Deny, net => Net, unix_sockets => UnixSockets,
                landlock => Landlock, profile => jail_profile(Profile)},
    {some, maps:merge(Options, maps:from_list([{bwrap, Path} || {some, Path} <- [Bwrap]]))}.

jail_profile(default_profile) -> default;
jail_profile(strict_profile) -> strict.

stderr(inherit_stderr) -> inherit;
stderr(discard_stderr) -> discard;
stderr({stderr_to_file, Path, MaxBytes}) -> {file, Path, MaxBytes};
stderr({labelled_stderr, Label}) -> {labelled, Label}.

env_value({set, Value}) -> Value;
env_value(unset) -> false.

%% The Gleam handler's request and answer are `mcp_input''s terms as they
%% are (`ElicitationRequest', `Accept | Decline | Cancel').
options({options, Info, Handshake, List, Shutdown, Era, Handler, Input, Reconnect}) ->
    maps:merge(#{client_info => Info, handshake_timeout_ms => Handshake, list_timeout_ms => List,
                 shutdown_timeout_ms => Shutdown, era => Era, input_timeout_ms => Input},
               maps:from_list([{input_handler, Fun} || {some, Fun} <- [Handler]]
                              ++ [{reconnect, reconnect_policy(Policy)} || {some, Policy} <- [Reconnect]])).

reconnect_policy({reconnect, Attempts, Backoff, MaxBackoff, ResetAfter, Unresponsive}) ->
    #{attempts => Attempts, backoff_ms => Backoff, max_backoff_ms => MaxBackoff, reset_after_ms => ResetAfter,
      unresponsive_ms => Unresponsive}.

started({ok, _} = Ok) -> Ok;
started({error, Error}) -> {error, start_error(Error)}.

answered({ok, _} = Ok) -> Ok;
answered({error, Error}) -> {error, client_error(Error)}.

%%% ------------------------------------- Erlang reasons to Gleam values

start_error({transport_failed, Reason}) -> {transport_failed, transport_failure(Reason)};
start_error({handshake_failed, Error}) -> {handshake_failed, client_error(Error)};
start_error({version_unsupported, _, _} = Error) -> Error;
start_error(tools_not_declared) -> tools_not_declared;
start_error({cleanup_unconfirmed, Cause, Retirement, Client}) ->
    {cleanup_unconfirmed, start_error(Cause), retirement_error(Retirement), Client}.

client_error({unavailable, Reason}) -> {unavailable, death_reason(Reason)};
client_error(call_timed_out) -> call_timed_out;
client_error({server_error, _} = Error) -> Error;
client_error({result_malformed, _} = Error) -> Error;
client_error(too_many_pages) -> too_many_pages;
client_error({listing_too_large, MaxBytes}) when is_integer(MaxBytes) -> {listing_too_large, MaxBytes};
client_error({request_refused, Reason}) -> {request_refused, words(Reason)};
client_error({tool_left_out, Why}) when is_binary(Why) -> {tool_left_out, Why};
client_error(no_input_handler) -> no_input_handler;
client_error({input_unsupported, Method}) when is_binary(Method) -> {input_unsupported, Method};
client_error({too_many_input_rounds, Max}) when is_integer(Max) -> {too_many_input_rounds, Max}.

transport_failure({executable_not_found, Executable}) ->
    {executable_not_found, text(Executable)};
transport_failure({spawn_failed, Posix}) when is_atom(Posix) ->
    {spawn_failed, atom_to_binary(Posix)};
transport_failure({spawn_failed, Reason}) -> {spawn_failed, words(Reason)};
transport_failure({bad_transport_spec, Detail}) -> {bad_transport_spec, words(Detail)};
transport_failure({bad_spawn, Spawn}) -> {bad_spawn, words(Spawn)};
transport_failure(already_connected) -> already_connected;
transport_failure(native_library_not_loaded) -> native_library_not_loaded;
transport_failure({not_parked, Reason}) -> {not_parked, death_reason(Reason)};
transport_failure({jail_unavailable, Why}) ->
    {jail_unavailable, sentence(mcp_describe:jail_unavailable(Why))};
transport_failure({bad_stderr, Why}) ->
    {bad_stderr, sentence(mcp_describe:bad_stderr(Why))};
transport_failure({bad_jail, Why}) ->
    {bad_jail, sentence(mcp_describe:bad_jail(Why))};
transport_failure({oauth, {token_file_permissions, Path}}) when is_binary(Path) ->
    {token_store_refused, {token_file_permissions, Path}};
transport_failure({oauth, Reason}) ->
    {token_store_refused, {other_authorization_failure, words(Reason)}};
transport_failure(Reason) when is_binary(Reason) -> {peer_start_failed, Reason};
transport_failure(Other) -> {other_transport_failure, words(Other)}.

death_reason(Reason) when Reason =:= not_connected; Reason =:= retired;
                          Reason =:= stopped; Reason =:= custodian_down ->
    Reason;
death_reason({transport_ended, End}) -> {transport_ended, transport_end(End)};
death_reason({transport_failed, Reason}) -> {open_failed, transport_failure(Reason)};
death_reason({write_failed, busy}) -> {write_failed, input_backlog_full};
death_reason({write_failed, closed}) -> {write_failed, write_after_close};
death_reason({write_failed, Other}) -> {write_failed, {other_write_failure, words(Other)}};
death_reason({invalid_utf8, Offset} = Reason) when is_integer(Offset) -> Reason;
death_reason({line_too_long, Bytes} = Reason) when is_integer(Bytes) -> Reason;
death_reason({malformed_message, _} = Fault) -> {invalid_message, Fault};
death_reason({bad_message, _} = Fault) -> {invalid_message, Fault};
death_reason({flooded, Bytes} = Reason) when is_integer(Bytes) -> Reason;
death_reason({unresponsive, SilentMs} = Reason) when is_integer(SilentMs) -> Reason;
death_reason({http_status, Code}) when is_integer(Code) -> {http_failed, {http_status, Code}};
death_reason({content_type, Type}) when is_binary(Type) -> {http_failed, {unexpected_content_type, Type}};
death_reason({http_failed, Reason}) -> {http_failed, {request_failed, words(Reason)}};
death_reason({event_too_long, Bytes}) when is_integer(Bytes) -> {http_failed, {event_too_long, Bytes}};
death_reason({response_too_large, Bytes}) when is_integer(Bytes) -> {http_failed, {response_too_large, Bytes}};
death_reason(session_expired) -> {http_failed, session_expired};
death_reason({bad_session_id, Bytes}) when is_integer(Bytes) -> {http_failed, {bad_session_id, Bytes}};
death_reason({stream_lost, Reason}) -> {http_failed, {stream_lost, words(Reason)}};
death_reason({authorization_failed, Reason}) -> {http_failed, {authorization_failed, authorization_failure(Reason)}};
death_reason({client_down, noproc}) -> client_gone;
death_reason({client_down, Reason}) -> {client_down, words(Reason)};
death_reason(tools_not_declared) -> handshake_without_tools;
death_reason({version_unsupported, Requested, Offered}) ->
    {handshake_version_unsupported, Requested, Offered};
death_reason({handshake_failed, Error}) -> {handshake_request_failed, client_error(Error)};
death_reason({reconnecting, Reason}) -> {reconnecting, death_reason(Reason)}.

%% `{authorization_failed, Reason}' (`mcp_http', `mcp_oauth*'): the Erlang
%% type of `Reason' is open (`mcp_oauth:error_reason()'), so the last
%% clause takes what the others do not name, as the command line's clause
%% (`mcp_describe:authorization_failure/1'). Text from a peer
%% (a resource, an issuer) is put in words too: printable and capped.
authorization_failure(Atom) when Atom =:= consent_needed; Atom =:= too_many_challenges;
                                 Atom =:= no_resource_in_metadata; Atom =:= no_authorization_server;
                                 Atom =:= no_client_registration; Atom =:= state_mismatch;
                                 Atom =:= iss_mismatch; Atom =:= iss_missing;
                                 Atom =:= no_authorization_code; Atom =:= bad_private_key ->
    Atom;
authorization_failure(consent_timeout) -> consent_timed_out;
authorization_failure({browser_not_found, Executable}) -> {browser_not_found, words(Executable)};
authorization_failure({resource_mismatch, Resource}) -> {resource_mismatch, words(Resource)};
authorization_failure({bad_issuer, Issuer}) -> {bad_issuer, words(Issuer)};
authorization_failure({no_authorization_server_metadata, Issuer}) ->
    {no_authorization_server_metadata, words(Issuer)};
authorization_failure({issuer_mismatch, none}) -> {issuer_mismatch, none};
authorization_failure({issuer_mismatch, Issuer}) -> {issuer_mismatch, {some, words(Issuer)}};
authorization_failure({no_endpoint, Key}) when is_binary(Key) -> {no_endpoint, Key};
authorization_failure({bad_endpoint, Key}) when is_binary(Key) -> {bad_endpoint, Key};
authorization_failure({plaintext_endpoint, Url}) -> {plaintext_endpoint, words(Url)};
authorization_failure({local_endpoint, Url}) -> {local_endpoint, words(Url)};
authorization_failure({body_too_long, Bytes}) when is_integer(Bytes) -> {answer_too_large, Bytes};
authorization_failure({registration_refused, Status}) when is_integer(Status) ->
    {registration_without_client_id, Status};
authorization_failure({registration_refused, Status, Code}) when ?IS_CODE(Status, Code) ->
    {registration_refused, Status, error_code(Code)};
authorization_failure({authorization_denied, Code}) when is_binary(Code) -> {authorization_denied, Code};
authorization_failure({token_refused, 200, no_access_token}) -> no_access_token;
authorization_failure({token_refused, Status, Code}) when ?IS_CODE(Status, Code) ->
    {token_refused, Status, error_code(Code)};
authorization_failure({token_store, {token_file_permissions, Path}}) when is_binary(Path) ->
    {token_file_permissions, Path};
authorization_failure({http_failed, Url, Reason}) -> {authorization_request_failed, words(Url), words(Reason)};
authorization_failure(Other) -> {other_authorization_failure, sentence(mcp_describe:authorization_failure(Other))}.

%% An OAuth `error' code as `mcp_oauth' keeps it (printable, at most 64
%% bytes), or `none'.
error_code(none) -> none;
error_code(Code) -> {some, Code}.

transport_end({exited, Evidence}) -> {proven, exit_evidence(Evidence)};
transport_end({unconfirmed, Reason}) -> {unconfirmed, words(Reason)}.

exit_evidence({status, Code}) when is_integer(Code) -> {exit_code, Code};
exit_evidence({signal, Number}) when is_integer(Number) -> {killed_by_signal, Number};
exit_evidence(unknown) -> status_unknown;
exit_evidence({peer_down, Reason}) -> {peer_down, words(Reason)}.

retirement_error(retirement_timed_out) -> retirement_timed_out;
retirement_error({retirement_unconfirmed, {port_exited, Reason}}) ->
    {closed_without_status, words(Reason)};
retirement_error({retirement_unconfirmed, {actor_down, noproc}}) -> client_already_gone;
retirement_error({retirement_unconfirmed, {actor_down, Reason}}) ->
    {client_ended_first, words(Reason)};
retirement_error({retirement_unconfirmed, Reason}) -> {retirement_unconfirmed, words(Reason)}.

words(Term) -> sentence(mcp_describe:words(Term)).

sentence(IoList) -> unicode:characters_to_binary(IoList).

text(Value) when is_binary(Value) -> Value;
text(Value) -> unicode:characters_to_binary(Value).

%%% ---------------- sentences: Gleam values back onto the Erlang vocabulary

describe_client_error({timeout_out_of_range, Timeout}) -> timeout_sentence(<<"the request's">>, Timeout);
describe_client_error(unencodable_arguments) ->
    sentence(io_lib:format("the arguments have no JSON text (nested deeper than ~b or an integer of "
                           "more than ~b digits), so nothing was sent",
                           [mcp_json:max_depth(), mcp_json:max_integer_digits()]));
describe_client_error(Error) -> sentence(mcp_describe:client_error(erl_client_error(Error))).

describe_start_error({timeout_option_out_of_range, Name, Timeout}) ->
    timeout_sentence(<<"the option ", Name/binary, "'s">>, Timeout);
describe_start_error({o_auth_unusable, Refusal}) ->
    oauth_refusal_sentence(Refusal);
describe_start_error({reconnect_out_of_range, <<"attempts">>, Attempts}) ->
    sentence(io_lib:format("the reconnect policy's attempts of ~b is outside 1 to ~b, so nothing was started",
                           [Attempts, mcp_reconnect:max_attempts()]));
describe_start_error({reconnect_out_of_range, <<"reset_after_ms">> = Field, Ms}) ->
    sentence(io_lib:format("the reconnect policy's ~ts of ~b ms is outside ~b to ~b ms, so nothing was started",
                           [words(Field), Ms, mcp_reconnect:min_reset_after_ms(), mcp_client:max_timeout_ms()]));
describe_start_error({reconnect_out_of_range, Field, Ms}) ->
    sentence(io_lib:format("the reconnect policy's ~ts of ~b ms is outside 0 to ~b ms, so nothing was started",
                           [words(Field), Ms, mcp_client:max_timeout_ms()]));
describe_start_error({cleanup_unconfirmed, Cause, Retirement, _Client}) ->
    <<(describe_start_error(Cause))/binary, "; then ", (describe_retirement_error(Retirement))/binary>>;
describe_start_error({handshake_failed, {timeout_out_of_range, _} = Error}) ->
    describe_client_error(Error);
describe_start_error(Error) -> sentence(mcp_describe:start_error(erl_start_error(Error))).

describe_retirement_error({shutdown_timeout_out_of_range, Timeout}) ->
    timeout_sentence(<<"the shutdown's">>, Timeout);
describe_retirement_error(Error) -> sentence(mcp_describe:retirement_error(erl_retirement_error(Error))).

oauth_refusal_sentence({secret_variable_unset, Variable}) ->
    <<"the client secret's variable ", (words(Variable))/binary, " is not set, so nothing was started">>;
oauth_refusal_sentence({private_key_unreadable, Path, Reason}) ->
    <<"the private key file ", (words(Path))/binary, " cannot be read (", Reason/binary,
      "), so nothing was started">>;
oauth_refusal_sentence({consent_timeout_out_of_range, Timeout}) ->
    sentence(io_lib:format("the consent timeout of ~b ms is outside 1 to ~b ms, so nothing was started",
                           [Timeout, mcp_client:max_timeout_ms()]));
oauth_refusal_sentence({redirect_port_out_of_range, Port}) ->
    sentence(io_lib:format("the redirect port ~b is outside 1 to 65535, so nothing was started", [Port])).

timeout_sentence(Whose, Timeout) ->
    sentence(io_lib:format("~s timeout of ~b ms is outside 0 to ~b ms, so nothing was done",
                           [Whose, Timeout, mcp_client:max_timeout_ms()])).

erl_start_error({transport_failed, Failure}) -> {transport_failed, erl_transport_failure(Failure)};
erl_start_error({handshake_failed, Error}) -> {handshake_failed, erl_client_error(Error)};
erl_start_error({cleanup_unconfirmed, Cause, Retirement, Client}) ->
    {cleanup_unconfirmed, erl_start_error(Cause), erl_retirement_error(Retirement), Client};
erl_start_error(Error) -> Error.

erl_client_error({unavailable, Reason}) -> {unavailable, erl_death(Reason)};
erl_client_error(Error) -> Error.

erl_transport_failure({spawn_failed, Name}) ->
    {spawn_failed, try binary_to_existing_atom(Name) catch error:badarg -> Name end};
erl_transport_failure({not_parked, Reason}) -> {not_parked, erl_death(Reason)};
erl_transport_failure({peer_start_failed, Reason}) -> Reason;
erl_transport_failure({token_store_refused, {token_file_permissions, Path}}) ->
    {oauth, {token_file_permissions, Path}};
erl_transport_failure({token_store_refused, Failure}) -> {oauth, erl_authorization(Failure)};
erl_transport_failure({other_transport_failure, Description}) -> Description;
erl_transport_failure(Failure) -> Failure.

erl_death({transport_ended, {proven, Evidence}}) -> {transport_ended, {exited, erl_evidence(Evidence)}};
erl_death({transport_ended, {unconfirmed, Reason}}) -> {transport_ended, {unconfirmed, Reason}};
erl_death({open_failed, Failure}) -> {transport_failed, erl_transport_failure(Failure)};
erl_death({write_failed, input_backlog_full}) -> {write_failed, busy};
erl_death({write_failed, write_after_close}) -> {write_failed, closed};
erl_death({write_failed, {other_write_failure, Description}}) -> {write_failed, Description};
erl_death({invalid_message, Fault}) -> Fault;
erl_death(handshake_without_tools) -> tools_not_declared;
erl_death({handshake_version_unsupported, Requested, Offered}) ->
    {version_unsupported, Requested, Offered};
erl_death({handshake_request_failed, Error}) -> {handshake_failed, erl_client_error(Error)};
erl_death(client_gone) -> {client_down, noproc};
erl_death({reconnecting, Reason}) -> {reconnecting, erl_death(Reason)};
erl_death({http_failed, {unexpected_content_type, Type}}) -> {content_type, Type};
erl_death({http_failed, {request_failed, Reason}}) -> {http_failed, Reason};
erl_death({http_failed, {authorization_failed, Failure}}) -> {authorization_failed, erl_authorization(Failure)};
erl_death({http_failed, Fault}) -> Fault;
erl_death(Reason) -> Reason.

erl_authorization(consent_timed_out) -> consent_timeout;
erl_authorization({issuer_mismatch, {some, Issuer}}) -> {issuer_mismatch, Issuer};
erl_authorization({registration_without_client_id, Status}) -> {registration_refused, Status};
erl_authorization({registration_refused, Status, Code}) -> {registration_refused, Status, erl_code(Code)};
erl_authorization(no_access_token) -> {token_refused, 200, no_access_token};
erl_authorization({answer_too_large, Bytes}) -> {body_too_long, Bytes};
erl_authorization({token_refused, Status, Code}) -> {token_refused, Status, erl_code(Code)};
erl_authorization({token_file_permissions, Path}) -> {token_store, {token_file_permissions, Path}};
erl_authorization({authorization_request_failed, Url, Reason}) -> {http_failed, Url, Reason};
erl_authorization({other_authorization_failure, Description}) -> Description;
erl_authorization(Failure) -> Failure.

erl_code({some, Code}) -> Code;
erl_code(none) -> none.

erl_evidence({exit_code, Code}) -> {status, Code};
erl_evidence({killed_by_signal, Number}) -> {signal, Number};
erl_evidence(status_unknown) -> unknown;
erl_evidence({peer_down, _} = PeerDown) -> PeerDown.

erl_retirement_error({closed_without_status, Reason}) -> {retirement_unconfirmed, {port_exited, Reason}};
erl_retirement_error({client_ended_first, Reason}) -> {retirement_unconfirmed, {actor_down, Reason}};
erl_retirement_error(client_already_gone) -> {retirement_unconfirmed, {actor_down, noproc}};
erl_retirement_error(Error) -> Error.

%%% ------------------------------------------------------- the others

%% `Error' instead of `badarg' for a value with no JSON text: which limit it
%% broke is found by a walk on that path only.
json_encode(Value) ->
    try {ok, mcp_json:encode(Value)}
    catch error:badarg -> {error, json_refusal(Value)}
    end.

json_encode_line(Value) ->
    try {ok, mcp_json:encode_line(Value)}
    catch error:badarg -> {error, json_refusal(Value)}
    end.

json_refusal(Value) ->
    {_Path, Limit} = beyond_limits(Value),
    Limit.

%% The first part of a JSON value past the codec's limits, as
%% `{Path, nested_too_deep | integer_too_long}' (`$.a[2]' paths), or `none'.
%% Called only after a NIF refused the value with `badarg'.
json_limit_fault(Value) ->
    json_limit_fault(Value, <<"$">>, 0, mcp_json:max_depth(), mcp_json:max_integer_digits()).

json_limit_fault({int, Int}, Path, _Depth, _MaxDepth, MaxDigits) ->
    case length(integer_to_list(abs(Int))) > MaxDigits of
        true -> {Path, integer_too_long};
        false -> none
    end;
json_limit_fault({Container, _}, Path, Depth, MaxDepth, _MaxDigits)
  when (Container =:= array orelse Container =:= object), Depth >= MaxDepth ->
    {Path, nested_too_deep};
json_limit_fault({array, Items}, Path, Depth, MaxDepth, MaxDigits) ->
    first_limit_fault([{<<Path/binary, "[", (integer_to_binary(Index - 1))/binary, "]">>, Item}
                       || {Index, Item} <- lists:enumerate(Items)], Depth + 1, MaxDepth, MaxDigits);
json_limit_fault({object, Members}, Path, Depth, MaxDepth, MaxDigits) ->
    first_limit_fault([{<<Path/binary, ".", Key/binary>>, Item} || {Key, Item} <- Members],
                      Depth + 1, MaxDepth, MaxDigits);
json_limit_fault(_Scalar, _Path, _Depth, _MaxDepth, _MaxDigits) ->
    none.

first_limit_fault([], _Depth, _MaxDepth, _MaxDigits) -> none;
first_limit_fault([{Path, Item} | Rest], Depth, MaxDepth, MaxDigits) ->
    case json_limit_fault(Item, Path, Depth, MaxDepth, MaxDigits) of
        none -> first_limit_fault(Rest, Depth, MaxDepth, MaxDigits);
        Fault -> Fault
    end.

%% `json_limit_fault/1' of a value a NIF refused with `badarg'; a refusal
%% the walk cannot explain is raised again, never answered wrongly.
beyond_limits(Value) ->
    case json_limit_fault(Value) of
        none -> erlang:error(badarg, [Value]);
        Fault -> Fault
    end.

limit_phrase(nested_too_deep) -> <<"nesting too deep">>;
limit_phrase(integer_too_long) -> <<"integer too long">>.

%% A protocol decoder's answer for a result past the JSON limits: the fault
%% a decoder gives for what it cannot read, at the part's path.
decode_initialize_result(Result) ->
    within_limits(fun mcp_protocol:decode_initialize_result/1, Result).

decode_tools_page(Result) ->
    within_limits(fun mcp_protocol:decode_tools_page/1, Result).

decode_call_tool_result(Result) ->
    within_limits(fun mcp_protocol:decode_call_tool_result/1, Result).

within_limits(Decode, Result) ->
    try Decode(Result)
    catch error:badarg ->
        {Path, Limit} = beyond_limits(Result),
        {error, {protocol_fault, Path, limit_phrase(Limit)}}
    end.

%% A schema past the JSON limits has no typed reading: the whole value.
schema_plan(Schema) ->
    try mcp_schema:plan(Schema)
    catch error:badarg ->
        {Path, Limit} = beyond_limits(Schema),
        {whole_value, <<(limit_phrase(Limit))/binary, " at ", Path/binary>>}
    end.

%% A tool whose schemas, annotations or execution are past the JSON limits
%% is refused as `value_beyond_limits', naming the tool and the part.
codegen_generate(Server, Tools) ->
    try mcp_codegen:generate(Server, Tools)
    catch error:badarg ->
        case [{Name, Fault} || {tool_descriptor, Name, _, _, _, _, _, _} = Tool <- Tools,
                               Fault <- [tool_limit_fault(Tool)], Fault =/= none] of
            [{Name, {Path, Limit}} | _] -> {error, {value_beyond_limits, Name, Path, limit_phrase(Limit)}};
            [] -> erlang:error(badarg, [Server, Tools])
        end
    end.

tool_limit_fault({tool_descriptor, _Name, _Title, _Description, Input, Output, Annotations, Execution}) ->
    Parts = [{<<"inputSchema">>, Input} | [{Key, Value} || {Key, {some, Value}} <- [{<<"outputSchema">>, Output},
                                                                                  {<<"annotations">>, Annotations},
                                                                                  {<<"execution">>, Execution}]]],
    first_limit_fault([{<<"$.", Key/binary>>, Value} || {Key, Value} <- Parts], 0,
                      mcp_json:max_depth(), mcp_json:max_integer_digits()).

%% `execution.taskSupport' is read at depth 1 and compared with a string,
%% so the parts past the limits (always deeper, or an integer) cannot decide
%% it: they are read as `null', and the schemas, which the rule does not
%% read, as empty objects.
codegen_requires_tasks(Tool) ->
    try mcp_codegen:requires_tasks(Tool)
    catch error:badarg ->
        {tool_descriptor, Name, _, _, _, _, _, Execution} = Tool,
        Pruned = case Execution of
                     {some, Value} -> {some, prune(Value, 0, mcp_json:max_depth(), mcp_json:max_integer_digits())};
                     none -> none
                 end,
        mcp_codegen:requires_tasks({tool_descriptor, Name, none, none, {object, []}, none, none, Pruned})
    end.

prune(Value, Depth, MaxDepth, MaxDigits) ->
    case json_limit_fault(Value, <<>>, Depth, MaxDepth, MaxDigits) of
        none -> Value;
        _ ->
            case Value of
                {array, Items} when Depth < MaxDepth ->
                    {array, [prune(Item, Depth + 1, MaxDepth, MaxDigits) || Item <- Items]};
                {object, Members} when Depth < MaxDepth ->
                    {object, [{Key, prune(Item, Depth + 1, MaxDepth, MaxDigits)} || {Key, Item} <- Members]};
                _ -> null
            end
    end.

%% The generator's refusals are the core's sentences; `value_beyond_limits'
%% is this adapter's, and a count no refusal holds (negative, or past a
%% machine word) is spelt in words.
codegen_describe({value_beyond_limits, Tool, Path, Reason}) ->
    <<"tool ", Tool/binary, " has no module: its ", Path/binary, " is past the JSON limits (", Reason/binary, ")">>;
codegen_describe(Refusal) ->
    try mcp_codegen:describe(Refusal)
    catch error:badarg -> words(Refusal)
    end.

%% ---- bit arrays that are not whole bytes

%% A decoder's report for input that is not whole bytes: it stops at the
%% last whole byte.
not_whole_bytes(Bits) ->
    {corruption_report, bit_size(Bits) div 8, <<"input is not whole bytes">>}.

json_decode(Bytes) when is_binary(Bytes) -> mcp_json:decode(Bytes);
json_decode(Bits) -> {error, not_whole_bytes(Bits)}.

jsonrpc_decode(Line) when is_binary(Line) -> mcp_jsonrpc:decode(Line);
jsonrpc_decode(Bits) -> {error, {malformed_message, not_whole_bytes(Bits)}}.

msgpack_decode(Bytes) when is_binary(Bytes) -> mcp_interchange:msgpack_decode(Bytes);
msgpack_decode(Bits) -> {error, not_whole_bytes(Bits)}.

%% `mcp_interchange:to_json/1' raises `badarg' for a bin or ext whose
%% payload is not whole bytes, or an ext type outside -128..127: no
%% `msgpack()' term holds them. Every bin and ext is refused anyway, so the
%% same value with empty payloads and ext type 0 answers the same fault at
%% the same path.
to_json(Value) ->
    try mcp_interchange:to_json(Value)
    catch error:badarg -> mcp_interchange:to_json(refusable(Value))
    end.

refusable({binary_value, _}) -> {binary_value, <<>>};
refusable({ext_value, _, _}) -> {ext_value, 0, <<>>};
refusable({array_value, Items}) -> {array_value, [refusable(Item) || Item <- Items]};
refusable({map_value, Pairs}) -> {map_value, [{refusable(K), refusable(V)} || {K, V} <- Pairs]};
refusable(Value) -> Value.

%% `Error' instead of `badarg': the first integer or ext type out of
%% range or payload that is not whole bytes, else the nesting.
msgpack_encode(Value) ->
    try {ok, mcp_interchange:msgpack_encode(Value)}
    catch error:badarg ->
        case msgpack_range_fault(Value) of
            none -> {error, msgpack_too_deep};
            Fault -> {error, Fault}
        end
    end.

msgpack_range_fault({int_value, Int}) ->
    case Int >= mcp_interchange:min_msgpack_int() andalso Int =< mcp_interchange:max_msgpack_int() of
        true -> none;
        false -> {int_out_of_range, Int}
    end;
msgpack_range_fault({ext_value, Type, _}) when Type < -128; Type > 127 -> {ext_type_out_of_range, Type};
msgpack_range_fault({ext_value, _, Data}) when not is_binary(Data) -> payload_not_whole_bytes;
msgpack_range_fault({binary_value, Data}) when not is_binary(Data) -> payload_not_whole_bytes;
msgpack_range_fault({array_value, Items}) -> first_fault(Items);
msgpack_range_fault({map_value, Pairs}) -> first_fault(lists:append([[K, V] || {K, V} <- Pairs]));
msgpack_range_fault(_) -> none.

first_fault([]) -> none;
first_fault([Item | Rest]) ->
    case msgpack_range_fault(Item) of
        none -> first_fault(Rest);
        Fault -> Fault
    end.

%% A negative `MaxChars' is refused (`{error, nil}'); one past 2^32 is
%% taken as 2^32 (the NIF takes a machine word, and no text that long fits
%% in memory, so the answer is the same).
sanitize(_Text, MaxChars) when MaxChars < 0 -> {error, nil};
sanitize(Text, MaxChars) -> {ok, mcp_codegen:sanitize(Text, min(MaxChars, 1 bsl 32))}.

truncate(_Text, MaxChars) when MaxChars < 0 -> {error, nil};
truncate(Text, MaxChars) -> {ok, mcp_codegen:truncate(Text, min(MaxChars, 1 bsl 32))}.

stdio_new_capped(MaxLineBytes) ->
    try {ok, mcp_stdio:new(MaxLineBytes)}
    catch error:badarg -> {error, nil}
    end.

stdio_push_with_offsets(Buffer, Chunk) when is_binary(Chunk) ->
    case mcp_stdio:push_with_offsets(Buffer, Chunk) of
        {ok, Lines, Next} -> {ok, {Lines, Next}};
        {error, _} = Error -> Error
    end;
stdio_push_with_offsets(_Buffer, Bits) ->
    {error, {chunk_not_whole_bytes, bit_size(Bits)}}.

stdio_push(Buffer, Chunk) when is_binary(Chunk) ->
    case mcp_stdio:push(Buffer, Chunk) of
        {ok, Lines, Next} -> {ok, {Lines, Next}};
        {error, _} = Error -> Error
    end;
stdio_push(_Buffer, Bits) ->
    {error, {chunk_not_whole_bytes, bit_size(Bits)}}.

channel_write(Channel, Bytes) when is_binary(Bytes) ->
    ok = mcp_channel:write(Channel, Bytes),
    {ok, nil};
channel_write(_Channel, Bits) ->
    {error, {chunk_not_whole_bytes, bit_size(Bits)}}.

resolve_executable(Executable) ->
    case mcp_port:resolve_executable(Executable) of
        {ok, Path} -> {ok, text(Path)};
        {error, {executable_not_found, Name}} -> {error, {executable_not_found, text(Name)}}
    end.

inherited_env_names() -> [text(Name) || Name <- mcp_port:inherited_env_names()].

scan_for_at(Source) ->
    case mcp_codegen:scan_for_at(Source) of
        ok -> {ok, nil};
        {error, _} = Error -> Error
    end.

msgpack_to_json_line(Bytes) when is_binary(Bytes) -> line_result(mcp_interchange:msgpack_to_json_line(Bytes));
msgpack_to_json_line(Bits) -> {error, {corrupt, not_whole_bytes(Bits)}}.

json_to_msgpack_bytes(Line) when is_binary(Line) -> line_result(mcp_interchange:json_to_msgpack_bytes(Line));
json_to_msgpack_bytes(Bits) -> {error, {corrupt, not_whole_bytes(Bits)}}.

line_result({ok, _} = Ok) -> Ok;
line_result({error, {corruption_report, _, _} = Report}) -> {error, {corrupt, Report}};
line_result({error, {interchange_fault, _, _} = Fault}) -> {error, {untranslatable, Fault}}.

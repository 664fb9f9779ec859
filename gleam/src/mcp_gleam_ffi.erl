%% @doc The thin adapter between the Gleam bindings (`src/mcp/*.gleam') and
%% the Erlang modules, for the few results whose Erlang shape has no Gleam
%% type: 3-tuples (`{ok, Client, Init}', `{ok, Lines, Buffer}'), bare `ok',
%% maps (options, spawn specs), and open-ended reason terms, which are mapped
%% onto the closed Gleam types of `mcp/client' (anything unknown is kept in an
%% `other_reason' / `peer_down' wrapper, never dropped). No codec logic lives
%% here: every function is a call plus a reshaping of its result.
-module(mcp_gleam_ffi).

-export([default_options/0, prepare/2, prepare_owned/3, connect/1, start/2,
         list_tools/1, list_tools_within/2, call_tool/4, ping/2, stop/1,
         shutdown/2, os_pid/1]).
-export([stdio_new_capped/1, stdio_push/2, stdio_read/2, channel_write/2, resolve_executable/1,
         inherited_env_names/0, scan_for_at/1,
         msgpack_to_json_line/1, json_to_msgpack_bytes/1]).

%%% ------------------------------------------------------------ client

default_options() ->
    #{client_info := Info, handshake_timeout_ms := Handshake,
      list_timeout_ms := List, shutdown_timeout_ms := Shutdown} = mcp_client:default_options(),
    {options, Info, Handshake, List, Shutdown}.

prepare(Transport, Options) ->
    {ok, Client} = mcp_client:prepare(spec(Transport), options(Options)),
    Client.

prepare_owned(Transport, Options, Custodian) ->
    {ok, Client} = mcp_client:prepare_owned(spec(Transport), options(Options), Custodian),
    Client.

connect(Client) ->
    started(mcp_client:connect(Client)).

start(Transport, Options) ->
    case mcp_client:start(spec(Transport), options(Options)) of
        {ok, Client, Initialized} -> {ok, {Client, Initialized}};
        {error, _} = Error -> started(Error)
    end.

list_tools(Client) -> answered(mcp_client:list_tools(Client)).

list_tools_within(Client, Timeout) -> answered(mcp_client:list_tools(Client, Timeout)).

call_tool(Client, Name, Arguments, Timeout) ->
    answered(mcp_client:call_tool(Client, Name, Arguments, Timeout)).

ping(Client, Timeout) ->
    case mcp_client:ping(Client, Timeout) of
        ok -> {ok, nil};
        Error -> answered(Error)
    end.

stop(Client) ->
    ok = mcp_client:stop(Client),
    nil.

shutdown(Client, Timeout) ->
    case mcp_client:shutdown(Client, Timeout) of
        {ok, no_resource} -> {ok, no_resource};
        {ok, {exited, Evidence}} -> {ok, {exited, exit_evidence(Evidence)}};
        {error, _} = Error -> Error
    end.

os_pid(Client) ->
    case mcp_client:os_pid(Client) of
        {ok, OsPid} -> {some, OsPid};
        none -> none
    end.

%% Gleam `Transport' to an `mcp_transport:spec()'.
spec({port_transport, {spawn, Executable, Args, Env, Cwd, InheritEnv, MaxLineBytes, Grace, Jail, Stderr}}) ->
    Spawn = #{executable => Executable, args => Args, inherit_env => InheritEnv,
              shutdown_grace_ms => Grace, stderr => stderr(Stderr),
              env => [{Name, env_value(Value)} || {Name, Value} <- Env]},
    Optional = [{cd, Cwd}, {max_line_bytes, MaxLineBytes}, {jail, jail(Jail)}],
    maps:merge(Spawn, maps:from_list([{Key, Value} || {Key, {some, Value}} <- Optional]));
spec({channel_transport, Start}) ->
    {mcp_channel, Start}.

%% Gleam `Option(Jail)' to `mcp_jail:spec()' (the map form, bwrap only
%% when given).
jail(none) -> none;
jail({some, {jail, Write, Read, Deny, Net, UnixSockets, Bwrap}}) ->
    Options = #{write => Write, read => Read, deny => Deny, net => Net, unix_sockets => UnixSockets},
    {some, maps:merge(Options, maps:from_list([{bwrap, Path} || {some, Path} <- [Bwrap]]))}.

stderr(inherit_stderr) -> inherit;
stderr(discard_stderr) -> discard;
stderr({stderr_to_file, Path, MaxBytes}) -> {file, Path, MaxBytes}.

env_value({set, Value}) -> Value;
env_value(unset) -> false.

options({options, Info, Handshake, List, Shutdown}) ->
    #{client_info => Info, handshake_timeout_ms => Handshake,
      list_timeout_ms => List, shutdown_timeout_ms => Shutdown}.

started({ok, _} = Ok) -> Ok;
started({error, Error}) -> {error, start_error(Error)}.

start_error({transport_failed, Reason}) -> {transport_failed, transport_failure(Reason)};
start_error({handshake_failed, Error}) -> {handshake_failed, client_error(Error)};
start_error({cleanup_unconfirmed, Cause, Retirement, Client}) ->
    {cleanup_unconfirmed, start_error(Cause), Retirement, Client};
start_error(Error) -> Error.

answered({ok, _} = Ok) -> Ok;
answered({error, Error}) -> {error, client_error(Error)}.

client_error({unavailable, Reason}) -> {unavailable, death_reason(Reason)};
client_error(Error) -> Error.

transport_failure({executable_not_found, Executable}) ->
    {executable_not_found, text(Executable)};
transport_failure({spawn_failed, _} = Failure) -> Failure;
transport_failure({bad_transport_spec, _} = Failure) -> Failure;
transport_failure({bad_spawn, Spawn}) -> {bad_transport_spec, Spawn};
transport_failure(already_connected) -> already_connected;
transport_failure({not_parked, Reason}) -> {not_parked, death_reason(Reason)};
transport_failure({jail_unavailable, _} = Failure) ->
    {jail_unavailable, sentence(mcp_cli_reason:start_error({transport_failed, Failure}))};
transport_failure({bad_stderr, _} = Failure) ->
    {bad_stderr, sentence(mcp_cli_reason:start_error({transport_failed, Failure}))};
transport_failure({bad_jail, _} = Failure) ->
    {bad_jail, sentence(mcp_cli_reason:start_error({transport_failed, Failure}))};
transport_failure(Other) -> {spawn_failed, Other}.

sentence(IoList) -> unicode:characters_to_binary(IoList).

death_reason(Reason) when Reason =:= not_connected; Reason =:= retired;
                          Reason =:= stopped; Reason =:= custodian_down ->
    Reason;
death_reason({transport_ended, End}) -> {transport_ended, transport_end(End)};
death_reason({transport_failed, Reason}) -> {open_failed, transport_failure(Reason)};
death_reason({write_failed, _} = Reason) -> Reason;
death_reason({invalid_utf8, Offset} = Reason) when is_integer(Offset) -> Reason;
death_reason({line_too_long, Bytes} = Reason) when is_integer(Bytes) -> Reason;
death_reason({malformed_message, _} = Fault) -> {invalid_message, Fault};
death_reason({bad_message, _} = Fault) -> {invalid_message, Fault};
death_reason({flooded, Bytes} = Reason) when is_integer(Bytes) -> Reason;
death_reason({client_down, _} = Reason) -> Reason;
death_reason(tools_not_declared) -> {handshake_ended, tools_not_declared};
death_reason({version_unsupported, _, _} = Error) -> {handshake_ended, Error};
death_reason({handshake_failed, _} = Error) -> {handshake_ended, start_error(Error)};
death_reason(Other) -> {other_reason, Other}.

transport_end({exited, Evidence}) -> {proven, exit_evidence(Evidence)};
transport_end({unconfirmed, Reason}) -> {unconfirmed, Reason}.

exit_evidence({status, Code}) when is_integer(Code) -> {exit_code, Code};
exit_evidence({signal, Number}) when is_integer(Number) -> {killed_by_signal, Number};
exit_evidence(unknown) -> status_unknown;
exit_evidence({peer_down, _} = PeerDown) -> PeerDown.

text(Value) when is_binary(Value) -> Value;
text(Value) -> unicode:characters_to_binary(Value).

%%% ------------------------------------------------------- the others

stdio_new_capped(MaxLineBytes) ->
    try {ok, mcp_stdio:new(MaxLineBytes)}
    catch error:badarg -> {error, nil}
    end.

stdio_read(Buffer, Chunk) ->
    case mcp_stdio:read(Buffer, Chunk) of
        {ok, Lines, Next} -> {ok, {Lines, Next}};
        {error, _} = Error -> Error
    end.

stdio_push(Buffer, Chunk) ->
    case mcp_stdio:push(Buffer, Chunk) of
        {ok, Lines, Next} -> {ok, {Lines, Next}};
        {error, _} = Error -> Error
    end.

channel_write(Channel, Bytes) ->
    ok = mcp_channel:write(Channel, Bytes),
    nil.

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

msgpack_to_json_line(Bytes) -> line_result(mcp_interchange:msgpack_to_json_line(Bytes)).

json_to_msgpack_bytes(Line) -> line_result(mcp_interchange:json_to_msgpack_bytes(Line)).

line_result({ok, _} = Ok) -> Ok;
line_result({error, {corruption_report, _, _} = Report}) -> {error, {corrupt, Report}};
line_result({error, {interchange_fault, _, _} = Fault}) -> {error, {untranslatable, Fault}}.

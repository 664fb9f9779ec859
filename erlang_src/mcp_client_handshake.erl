%% @doc The client actor's handshake (`mcp_client_actor'): `initialize'
%% (the handshake era) or the `server/discover' probe (the modern era; in
%% `auto' it falls back to `initialize'), and what their answers make of
%% the connection: `{connected, Data}', `{ok, Data}' (another request
%% sent), or `{close, StartError, Data}' with the connect caller answered.
%% Functions of the actor's state (`mcp_client_actor.hrl'); the effects
%% (requests, replies, the `initialized' notification) are the actor's.
%%
%% Invariants: the connect caller is answered exactly once, when the
%% handshake succeeds or fails; a refusal's versions come from the server
%% and are kept to `?MAX_VERSIONS_BYTES' each.
-module(mcp_client_handshake).

-export([initialize/3, capabilities/1, probe/5, probe_settled/4, handshake_settled/3, handshake_failed/3]).

-include("mcp_client_actor.hrl").

%% What a version refusal keeps of the versions the server named, and a
%% refused handshake of the server's error message.
-define(MAX_VERSIONS_BYTES, 256).

now_ms() -> erlang:monotonic_time(millisecond).

initialize(From, Deadline, #data{options = Options} = Data) ->
    {Name, Version} = maps:get(client_info, Options),
    Params = mcp_protocol:initialize_params(Name, Version, capabilities(Options)),
    mcp_client_actor:send_request(From, handshake, Deadline, <<"initialize">>, {some, Params}, Data#data{era = handshake}).

capabilities(Options) -> mcp_input:capabilities(maps:get(input_handler, Options, none)).

%% The `server/discover' probe. In `auto' it has half the handshake's time,
%% so that the fallback to `initialize' has the rest.
probe(From, Mode, Reprobed, HandshakeDeadline, Data) ->
    Deadline = case Mode of
                   auto -> now_ms() + max(0, HandshakeDeadline - now_ms()) div 2;
                   modern -> HandshakeDeadline
               end,
    mcp_client_actor:send_request(From, {discover, Mode, Reprobed, HandshakeDeadline}, Deadline,
                                  <<"server/discover">>, none,
                 Data#data{era = modern}).

%% The probe's answer: `{ok, Result}', `{error, RpcError}', `{rejected,
%% Reason}' (the transport's) or `timed_out'.
probe_settled({ok, Result}, {discover, Mode, _, HandshakeDeadline}, From, Data) ->
    case mcp_modern:decode_discover(Result) of
        {ok, {initialize_result, _, {some, _}, _, _} = Initialized} ->
            mcp_client_actor:reply(From, {ok, Initialized}),
            {connected, Data};
        {ok, _WithoutTools} ->
            handshake_failed(tools_not_declared, From, Data);
        {error, _} when Mode =:= auto ->
            initialize(From, HandshakeDeadline, Data);
        {error, {version_unsupported, Requested, Offered}} ->
            handshake_failed(version_unsupported(Requested, Offered), From, Data);
        {error, Fault} ->
            handshake_failed({handshake_failed, {result_malformed, Fault}}, From, Data)
    end;
probe_settled({error, RpcError}, {discover, Mode, false, HandshakeDeadline}, From, Data) ->
    case mcp_modern:mutual_version(RpcError) of
        true -> probe(From, Mode, true, HandshakeDeadline, Data);
        false -> probe_failed({server_error, RpcError}, Mode, HandshakeDeadline, From, Data)
    end;
probe_settled({error, RpcError}, {discover, Mode, true, HandshakeDeadline}, From, Data) ->
    probe_failed({server_error, RpcError}, Mode, HandshakeDeadline, From, Data);
probe_settled({rejected, Reason}, {discover, Mode, _, HandshakeDeadline}, From, Data) ->
    probe_failed({request_refused, Reason}, Mode, HandshakeDeadline, From, Data);
probe_settled(timed_out, {discover, Mode, _, HandshakeDeadline}, From, Data) ->
    probe_failed(call_timed_out, Mode, HandshakeDeadline, From, Data).

probe_failed(_Error, auto, HandshakeDeadline, From, Data) ->
    initialize(From, HandshakeDeadline, Data);
probe_failed({server_error, RpcError} = Error, modern, _, From, Data) ->
    case mcp_modern:offered_versions(RpcError) of
        {ok, Offered} -> handshake_failed(version_unsupported(mcp_modern:version(), Offered), From, Data);
        none -> handshake_failed({handshake_failed, Error}, From, Data)
    end;
probe_failed(Error, modern, _, From, Data) ->
    handshake_failed({handshake_failed, Error}, From, Data).

handshake_settled({ok, {initialize_result, _Version, {some, {tools_capability, ListChanged}}, _Info,
                        _Instructions} = Initialized}, From, Data) ->
    case mcp_client_actor:notify(<<"notifications/initialized">>, none, Data#data{list_changed = ListChanged}) of
        {ok, Written} ->
            mcp_client_actor:reply(From, {ok, Initialized}),
            {connected, Written};
        {close, Reason, Failed} ->
            handshake_failed({handshake_failed, {unavailable, Reason}}, From, Failed)
    end;
handshake_settled({ok, {initialize_result, _, none, _, _}}, From, Data) ->
    handshake_failed(tools_not_declared, From, Data);
handshake_settled({error, {result_malformed, {unsupported_version, Requested, Offered}}}, From, Data) ->
    handshake_failed(version_unsupported(Requested, Offered), From, Data);
handshake_settled({error, Error}, From, Data) ->
    handshake_failed({handshake_failed, Error}, From, Data).

%% The versions a refusal names come from the server: each kept to
%% `?MAX_VERSIONS_BYTES' (a start error, latched as the death reason, must
%% not carry a server's bytes at any length).
version_unsupported(Requested, Offered) ->
    {version_unsupported, cut(Requested), cut(Offered)}.

%% A server's text kept to `?MAX_VERSIONS_BYTES', whole characters.
cut(Text) when is_binary(Text), byte_size(Text) > ?MAX_VERSIONS_BYTES ->
    case unicode:characters_to_binary(binary:part(Text, 0, ?MAX_VERSIONS_BYTES)) of
        Whole when is_binary(Whole) -> Whole;
        {incomplete, Whole, _} -> Whole;
        {error, Whole, _} -> Whole
    end;
cut(Other) ->
    Other.

%% The connect caller gets the start error; the client closes with it
%% latched (and, with a reconnect policy, tells it to its subscribers): a
%% server's error message in it is cut to `?MAX_VERSIONS_BYTES' too, and
%% its `data' is kept only while its external size is at most that.
handshake_failed(StartError, From, Data) ->
    Bounded = bounded(StartError),
    mcp_client_actor:reply(From, {error, Bounded}),
    {close, Bounded, Data}.

bounded({handshake_failed, {server_error, {rpc_error, Code, Message, Details}}}) ->
    Kept = case erlang:external_size(Details) =< ?MAX_VERSIONS_BYTES of
               true -> Details;
               false -> none
           end,
    {handshake_failed, {server_error, {rpc_error, Code, cut(Message), Kept}}};
bounded(StartError) ->
    StartError.

%% @doc The stateless protocol revision (2026-07-28) as the client speaks it
%% beside the handshake era: the `_meta' every request carries, the
%% `server/discover' probe that replaces `initialize', and the reading of
%% its answer.
%%
%% Invariants:
%% <ul>
%% <li>`_meta' names exactly the revision `version/0', the client's
%%     `clientInfo' and its `clientCapabilities' (the empty object, or
%%     `elicitation' when an input handler is given); it is the last member
%%     of the params, and params that had none get `{"_meta": ...}'.</li>
%% <li>A discover result is positive evidence of a modern server only when
%%     it is an object whose `supportedVersions' lists `version/0'; the
%%     decoder never raises on any `json()'.</li>
%% <li>A `-32022' error names a mutual version only when its
%%     `data.supported' lists `version/0' (the one modern revision the
%%     client speaks).</li>
%% </ul>
-module(mcp_modern).

-export([version/0, meta/2, with_meta/2, decode_discover/1, mutual_version/1, offered_versions/1]).

-define(VERSION, <<"2026-07-28">>).
-define(UNSUPPORTED_VERSION, -32022).

-type json() :: mcp_json:json().

%% @doc The stateless revision the client speaks.
-spec version() -> binary().
version() -> ?VERSION.

%% @doc The `_meta' member of every request: the revision, the client's
%% name and version, and its capabilities.
-spec meta({binary(), binary()}, json()) -> {binary(), json()}.
meta({Name, Version}, Capabilities) when is_binary(Name), is_binary(Version) ->
    {<<"_meta">>,
     {object, [{<<"io.modelcontextprotocol/protocolVersion">>, {string, ?VERSION}},
               {<<"io.modelcontextprotocol/clientInfo">>,
                {object, [{<<"name">>, {string, Name}}, {<<"version">>, {string, Version}}]}},
               {<<"io.modelcontextprotocol/clientCapabilities">>, Capabilities}]}}.

%% @doc Params with the `_meta' member last.
-spec with_meta(mcp_jsonrpc:params(), {binary(), json()}) -> mcp_jsonrpc:params().
with_meta(none, Meta) -> {some, {object, [Meta]}};
with_meta({some, {object, Members}}, Meta) -> {some, {object, Members ++ [Meta]}}.

%% @doc A `server/discover' result as the handshake's result reads: the
%% revision, the tools capability, the server's name and version (from
%% `serverInfo' or `_meta["io.modelcontextprotocol/serverInfo"]'; empty
%% when absent) and its instructions. `{error, {version_unsupported,
%% version(), Offered}}' when `supportedVersions' does not list
%% `version/0' (`Offered': the versions, comma-separated), `{error,
%% {protocol_fault, Path, Reason}}' when the result is not a discover
%% result.
-spec decode_discover(json()) ->
          {ok, mcp_protocol:initialize_result()}
          | {error, {version_unsupported, binary(), binary()} | mcp_protocol:protocol_fault()}.
decode_discover({object, Members}) ->
    case member(<<"supportedVersions">>, Members) of
        {array, Items} ->
            Versions = [V || {string, V} <- Items],
            case lists:member(?VERSION, Versions) of
                true ->
                    {ok, {initialize_result, ?VERSION, tools(Members), server_info(Members),
                          instructions(Members)}};
                false ->
                    {error, {version_unsupported, ?VERSION, iolist_to_binary(lists:join(<<",">>, Versions))}}
            end;
        none ->
            {error, {protocol_fault, <<"$.supportedVersions">>, <<"missing">>}};
        _ ->
            {error, {protocol_fault, <<"$.supportedVersions">>, <<"expected an array">>}}
    end;
decode_discover(_) ->
    {error, {protocol_fault, <<"$">>, <<"expected an object">>}}.

%% @doc Whether a `-32022' error names `version/0' among the versions the
%% server supports (then one re-probe is worth it).
-spec mutual_version(mcp_jsonrpc:rpc_error()) -> boolean().
mutual_version({rpc_error, ?UNSUPPORTED_VERSION, _Message, {some, {object, Data}}}) ->
    case member(<<"supported">>, Data) of
        {array, Items} -> lists:member({string, ?VERSION}, Items);
        _ -> false
    end;
mutual_version(_) ->
    false.

%% @doc The versions a `-32022' error offers (`data.supported',
%% comma-separated), or `none' for any other error.
-spec offered_versions(mcp_jsonrpc:rpc_error()) -> {ok, binary()} | none.
offered_versions({rpc_error, ?UNSUPPORTED_VERSION, _Message, Data}) ->
    Supported = case Data of
                    {some, {object, Members}} -> member(<<"supported">>, Members);
                    _ -> none
                end,
    Versions = case Supported of
                   {array, Items} -> [V || {string, V} <- Items];
                   _ -> []
               end,
    {ok, iolist_to_binary(lists:join(<<",">>, Versions))};
offered_versions(_) ->
    none.

tools(Members) ->
    case member(<<"capabilities">>, Members) of
        {object, Capabilities} ->
            case member(<<"tools">>, Capabilities) of
                {object, Tools} -> {some, {tools_capability, member(<<"listChanged">>, Tools) =:= {bool, true}}};
                _ -> none
            end;
        _ -> none
    end.

server_info(Members) ->
    Info = case member(<<"serverInfo">>, Members) of
               {object, _} = Given -> Given;
               _ ->
                   case member(<<"_meta">>, Members) of
                       {object, Meta} -> member(<<"io.modelcontextprotocol/serverInfo">>, Meta);
                       _ -> none
                   end
           end,
    case Info of
        {object, Fields} -> {server_info, text(member(<<"name">>, Fields)), text(member(<<"version">>, Fields))};
        _ -> {server_info, <<>>, <<>>}
    end.

instructions(Members) ->
    case member(<<"instructions">>, Members) of
        {string, Text} -> {some, Text};
        _ -> none
    end.

text({string, Text}) -> Text;
text(_) -> <<>>.

%% The first occurrence of a key, as the core's decoders read it.
member(Key, Members) ->
    case lists:keyfind(Key, 1, Members) of
        {_, Value} -> Value;
        false -> none
    end.

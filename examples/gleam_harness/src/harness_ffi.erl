%% The harness's server registry (one persistent map, server name -> client)
%% and the one fact Gleam cannot ask: where this build keeps `mcp'.
-module(harness_ffi).
-export([put_client/2, drop_client/1, find_client/1, lib_dir/0]).

-define(KEY, {?MODULE, clients}).

put_client(Server, Client) ->
    persistent_term:put(?KEY, maps:put(Server, Client, clients())),
    nil.

drop_client(Server) ->
    persistent_term:put(?KEY, maps:remove(Server, clients())),
    nil.

find_client(Server) ->
    case maps:find(Server, clients()) of
        {ok, Client} -> {ok, Client};
        error -> {error, nil}
    end.

clients() -> persistent_term:get(?KEY, #{}).

%% This build's compiled applications (an ERL_LIBS for the example server,
%% whose escript needs `mcp_json').
lib_dir() ->
    unicode:characters_to_binary(filename:dirname(filename:dirname(code:which(mcp_json)))).

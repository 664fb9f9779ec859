%% The server-name -> client registry behind `cap/internal/mcp' (test-only
%% counterpart of the harness's own): persistent terms keyed by name.
-module(cap_registry_ffi).
-export([register/2, unregister/1, lookup/1]).

register(Server, Client) ->
    persistent_term:put({?MODULE, Server}, Client),
    nil.

unregister(Server) ->
    _ = persistent_term:erase({?MODULE, Server}),
    nil.

lookup(Server) ->
    case persistent_term:get({?MODULE, Server}, undefined) of
        undefined -> {error, nil};
        Client -> {ok, Client}
    end.

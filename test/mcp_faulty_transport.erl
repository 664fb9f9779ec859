%% @doc A test transport that fails writes on purpose: a real `mcp_port'
%% connection whose `send/2' answers `{error, closed}' for the writes the
%% spec names, without writing them. Everything else (events, termination,
%% the exit status as proof) is the real port's.
%%
%% Spec: `{mcp_faulty_transport, #{spawn => Spawn, fail => N | every}}':
%% `N' fails the N-th write (1 = the `initialize' request) and every write
%% after it, `every' fails them all.
-module(mcp_faulty_transport).
-behaviour(mcp_transport).

-export([open/2, send/2, event/2, terminate/1, os_pid/1]).

-record(faulty, {port :: term(), fail :: pos_integer() | every, written = 0 :: non_neg_integer()}).

open(#{spawn := Spawn, fail := Fail}, Owner) ->
    case mcp_port:open(Spawn, Owner) of
        {ok, Port} -> {ok, #faulty{port = Port, fail = Fail}};
        {error, _} = Error -> Error
    end.

%% The state cannot change in `send/2' (the callback returns only the
%% outcome), so the count lives in the owner's process dictionary.
send(#faulty{port = Port, fail = Fail}, Messages) ->
    Count = case get({?MODULE, writes}) of undefined -> 1; N -> N + 1 end,
    put({?MODULE, writes}, Count),
    case Fail =:= every orelse Count >= Fail of
        true -> {error, closed};
        false -> mcp_port:send(Port, Messages)
    end.

event(#faulty{port = Port} = State, Info) ->
    case mcp_port:event(Port, Info) of
        {ok, Events, Next} -> {ok, Events, State#faulty{port = Next}};
        not_mine -> not_mine
    end.

terminate(#faulty{port = Port} = Faulty) ->
    case mcp_port:terminate(Port) of
        {ok, Next} -> {ok, Faulty#faulty{port = Next}};
        ok -> ok
    end.

os_pid(#faulty{port = Port}) -> mcp_port:os_pid(Port).

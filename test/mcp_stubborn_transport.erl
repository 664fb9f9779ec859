%% @doc A test transport whose peer ignores termination: it swallows writes,
%% answers nothing, and closes only when a test injects the evidence with
%% `close/2'. It stands for a child that outlives SIGKILL's delivery.
-module(mcp_stubborn_transport).
-behaviour(mcp_transport).

-export([open/2, send/2, event/2, terminate/1, os_pid/1]).
-export([close/2]).

open(_Arg, _Owner) -> {ok, stubborn}.
send(stubborn, _Bytes) -> ok.
event(stubborn, {stubborn_close, Evidence}) -> {ok, [{closed, Evidence}], stubborn};
event(stubborn, _) -> not_mine.
terminate(stubborn) -> ok.
os_pid(stubborn) -> none.

%% @doc The transport's proof (or non-proof) of the peer's end, delivered to
%% the actor `Actor'.
-spec close(pid(), mcp_transport:evidence()) -> ok.
close(Actor, Evidence) ->
    Actor ! {stubborn_close, Evidence},
    ok.

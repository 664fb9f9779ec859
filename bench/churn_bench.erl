%% @doc The churn soak: `mcp_churn_tests:churn/2' (test/mcp_churn_tests.erl,
%% compiled into bench/_build by `make bench') run for minutes instead of
%% rounds, over stdio and then over Streamable HTTP, against the SDK 2.x
%% churn server (`test/e2e/churn_server.py'): sixteen callers call `work'
%% throughout while the server's tools change, its sessions are forgotten
%% (HTTP) and it is killed and started again, one step every
%% `?PAUSE_MS'. Prints, per transport: calls, answers by kind, calls run
%% twice, successes the server never ran, how long the client took to
%% follow a tools change, and the recovery time after each disruption
%% (from the disruption to the end of the first successful call started
%% after it), p50/p99/max. Figures only; nothing here asserts.
%%
%% `CHURN_SECONDS' (default 240) is the whole soak, split evenly between
%% the transports.
-module(churn_bench).
-export([run/1]).

-define(DEFAULT_SECONDS, 240).
-define(PAUSE_MS, 2000).

%% run([Root]): Root is the repository root (the churn server's paths are
%% found from the working directory, which `make bench' sets to it).
run([_Root]) ->
    Seconds = seconds(),
    io:format("~n== Churn soak: 16 callers, tools changes, session evictions (HTTP) and restarts, "
              "one step every ~b ms, ~b s per transport ==~n", [?PAUSE_MS, Seconds div 2]),
    [report(Transport, soak(Transport, Seconds div 2)) || Transport <- [stdio, http]],
    ok.

seconds() ->
    case os:getenv("CHURN_SECONDS") of
        false -> ?DEFAULT_SECONDS;
        Text -> max(20, list_to_integer(Text))
    end.

soak(Transport, Seconds) ->
    Until = erlang:monotonic_time(millisecond) + Seconds * 1000,
    try mcp_churn_tests:churn(Transport, #{rounds => 1000000, pause_ms => ?PAUSE_MS, until => Until})
    catch Class:Reason:Stack -> {failed, Class, Reason, Stack}
    end.

report(Transport, {failed, Class, Reason, Stack}) ->
    io:format("~n-- ~s: the run failed: ~p:~p~n   ~p~n", [Transport, Class, Reason, Stack]);
report(Transport, #{duration_ms := Duration, events := Events, answers := Callers, executed := Executed} = Run) ->
    Kinds = mcp_churn_tests:kinds(Run),
    Calls = lists:sum(maps:values(Kinds)),
    io:format("~n-- ~s: ~.1f s, ~b calls (~b/s), ~b steps~n",
              [Transport, Duration / 1000, Calls, Calls * 1000 div max(1, Duration), length(Events)]),
    io:format("   answers by kind: ~s~n",
              [lists:join(", ", [io_lib:format("~s ~b", [Kind, N]) || {Kind, N} <- lists:sort(maps:to_list(Kinds))])]),
    io:format("   errors by reason: ~s~n", [reasons(Callers)]),
    Counts = counts(Executed),
    Oks = [Call || #{answers := Answers} <- Callers, {Call, _, _, ok, _} <- Answers],
    io:format("   executed twice: ~b; successes never executed: ~b; stray messages at callers: ~b~n",
              [length([C || {C, N} <- maps:to_list(Counts), N > 1]),
               length([C || C <- Oks, not maps:is_key(C, Counts)]),
               lists:sum([length(Stray) || #{stray := Stray} <- Callers])]),
    Failed = [E || #{outcome := Outcome} = E <- Events, Outcome =/= ok],
    Failed =:= [] orelse io:format("   steps that did not come back: ~0p~n", [Failed]),
    io:format("   ~-34s ~6s ~9s ~9s ~9s~n", ["ms", "count", "p50", "p99", "max"]),
    row("tools change followed", [F || #{step := tools, followed_ms := F} <- Events]),
    row("recovery after a session eviction", [R || {evict, R} <- mcp_churn_tests:recoveries(Run), is_integer(R)]),
    row("recovery after a restart", [R || {restart, R} <- mcp_churn_tests:recoveries(Run), is_integer(R)]),
    io:format("   shutdown: ~0p; server processes alive after: ~0p; left over: ~0p~n",
              [maps:get(shutdown, Run), maps:get(alive_os_pids, Run), maps:get(leftovers, Run)]).

%% Error answers by the first element of their reason.
reasons(Callers) ->
    Reasons = lists:foldl(fun(Reason, Map) -> maps:update_with(Reason, fun(N) -> N + 1 end, 1, Map) end, #{},
                          [reason(Answer) || #{answers := Answers} <- Callers,
                                             {_, _, _, Kind, Answer} <- Answers, Kind =/= ok]),
    case lists:reverse(lists:keysort(2, maps:to_list(Reasons))) of
        [] -> "none";
        Sorted -> lists:join(", ", [io_lib:format("~s ~b", [R, N]) || {R, N} <- Sorted])
    end.

reason({error, {unavailable, {reconnecting, Why}}}) -> "reconnecting/" ++ head(Why);
reason({error, {unavailable, Why}}) -> "unavailable/" ++ head(Why);
reason({error, Why}) -> head(Why);
reason(Other) -> head(Other).

head(Term) when is_tuple(Term), tuple_size(Term) > 0 -> head(element(1, Term));
head(Term) -> lists:flatten(io_lib:format("~0p", [Term])).

counts(Executed) ->
    lists:foldl(fun(Call, Map) -> maps:update_with(Call, fun(N) -> N + 1 end, 1, Map) end, #{}, Executed).

row(Name, []) ->
    io:format("   ~-34s ~6b ~9s ~9s ~9s~n", [Name, 0, "-", "-", "-"]);
row(Name, Values) ->
    Sorted = lists:sort(Values),
    io:format("   ~-34s ~6b ~9b ~9b ~9b~n",
              [Name, length(Sorted), percentile(Sorted, 50), percentile(Sorted, 99), lists:last(Sorted)]).

percentile(Sorted, P) ->
    lists:nth(max(1, min(length(Sorted), round(P / 100 * length(Sorted)))), Sorted).

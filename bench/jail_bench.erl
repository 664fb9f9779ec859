%% @doc The cost of the jail (`mcp_jail', docs/jail.md): server-everything
%% started jailed and unjailed, measured side by side in one run.
%% <ul>
%% <li>start: `mcp_client:start/2' (spawn + handshake) plus one
%%     `list_tools/1', median of ?STARTS runs per kind, the two kinds
%%     alternating so that drift hits both;</li>
%% <li>echo: p50 and p99 of ?CALLS sequential `tools/call echo' round trips
%%     on one started server per kind.</li>
%% </ul>
%% Ratios are jailed / unjailed.
-module(jail_bench).
-export([run/1]).

-define(STARTS, 21).
-define(CALLS, 2000).

%% run([Root]): Root is the repository root.
run([Root]) ->
    Spawn = #{executable => "node",
              args => [filename:join(Root, "test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
                       "stdio"]},
    Kinds = [{unjailed, Spawn}, {jailed, Spawn#{jail => true}}],
    Starts = lists:foldl(fun(_, Acc) ->
                                 [{Kind, start_ms(S)} || {Kind, S} <- Kinds] ++ Acc
                         end, [], lists:seq(1, ?STARTS)),
    Start = fun(Kind) -> median([Ms || {K, Ms} <- Starts, K =:= Kind]) end,
    Echo = [{Kind, echo_us(S)} || {Kind, S} <- Kinds],
    {P50u, P99u} = proplists:get_value(unjailed, Echo),
    {P50j, P99j} = proplists:get_value(jailed, Echo),
    io:format("~n== Jail cost: server-everything (~b starts, ~b echo calls each) ==~n", [?STARTS, ?CALLS]),
    io:format("~-10s ~22s ~14s ~14s~n", ["", "start+list median ms", "echo p50 us", "echo p99 us"]),
    io:format("~-10s ~22.1f ~14.1f ~14.1f~n", ["unjailed", Start(unjailed), P50u, P99u]),
    io:format("~-10s ~22.1f ~14.1f ~14.1f~n", ["jailed", Start(jailed), P50j, P99j]),
    io:format("~-10s ~22.2f ~14.2f ~14.2f~n",
              ["ratio", Start(jailed) / Start(unjailed), P50j / P50u, P99j / P99u]),
    ok.

start_ms(Spawn) ->
    T0 = erlang:monotonic_time(microsecond),
    {ok, Client, _} = mcp_client:start(Spawn, #{}),
    {ok, _Tools} = mcp_client:list_tools(Client),
    Ms = (erlang:monotonic_time(microsecond) - T0) / 1000,
    {ok, _} = mcp_client:shutdown(Client, 5000),
    Ms.

echo_us(Spawn) ->
    {ok, Client, _} = mcp_client:start(Spawn, #{}),
    Arguments = {object, [{<<"message">>, {string, <<"hello">>}}]},
    Times = [begin
                 T0 = erlang:monotonic_time(nanosecond),
                 {ok, _} = mcp_client:call_tool(Client, <<"echo">>, Arguments, 5000),
                 (erlang:monotonic_time(nanosecond) - T0) / 1000
             end || _ <- lists:seq(1, ?CALLS)],
    {ok, _} = mcp_client:shutdown(Client, 5000),
    Sorted = lists:sort(Times),
    {percentile(Sorted, 0.50), percentile(Sorted, 0.99)}.

median(Values) -> percentile(lists:sort(Values), 0.5).

percentile(Sorted, P) -> lists:nth(max(1, round(P * length(Sorted))), Sorted).

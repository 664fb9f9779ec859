%% @doc The cost of the jail (`mcp_jail', docs/jail.md): real servers
%% started jailed and unjailed, measured side by side in one run, on node
%% (server-everything) and on Python (the FastMCP fixture in the venv).
%% <ul>
%% <li>start: `mcp_client:start/2' (spawn + handshake) plus one
%%     `list_tools/1', median of ?STARTS runs per kind, the kinds
%%     alternating so that drift hits all;</li>
%% <li>echo: p50 and p99 of ?CALLS sequential `tools/call echo' round trips
%%     on one started server per kind;</li>
%% <li>a third kind, jailed with a `HOME' of ?HOME_ENTRIES entries: the
%%     home is a snapshot (one read-only bind per entry), so its size is
%%     the jail's one start cost that grows with the machine;</li>
%% <li>a fourth, jailed under the strict profile (reads allowed by list;
%%     the home an empty tmpfs).</li>
%% </ul>
%% Ratios are jailed / unjailed.
-module(jail_bench).
-export([run/1]).

-define(STARTS, 21).
-define(CALLS, 2000).
-define(HOME_ENTRIES, 60).

%% run([Root]): Root is the repository root.
run([Root]) ->
    Home = big_home(Root),
    Everything = #{executable => "node",
                   args => [filename:join(Root, "test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
                            "stdio"]},
    Python = #{executable => filename:join(Root, ".venv/bin/python"),
               args => [filename:join(Root, "test/e2e/fastmcp_fixture.py")]},
    compare("server-everything (node)", Everything, {<<"message">>, {string, <<"hello">>}}, Home),
    compare("FastMCP fixture (python)", Python, {<<"text">>, {string, <<"hello">>}}, Home),
    _ = os:cmd("rm -rf '" ++ Home ++ "'"),
    ok.

compare(Name, Spawn, Argument, Home) ->
    BigHome = Spawn#{jail => true, env => [{"HOME", Home}]},
    Kinds = [{unjailed, Spawn}, {jailed, Spawn#{jail => true}}, {big_home, BigHome},
             {strict, Spawn#{jail => #{profile => strict}}}],
    Starts = lists:foldl(fun(_, Acc) ->
                                 [{Kind, start_ms(S)} || {Kind, S} <- Kinds] ++ Acc
                         end, [], lists:seq(1, ?STARTS)),
    Start = fun(Kind) -> median([Ms || {K, Ms} <- Starts, K =:= Kind]) end,
    Echo = [{Kind, echo_us(S, Argument)} || {Kind, S} <- Kinds],
    io:format("~n== Jail cost: ~s (~b starts, ~b echo calls each) ==~n", [Name, ?STARTS, ?CALLS]),
    io:format("~-22s ~22s ~14s ~14s~n", ["", "start+list median ms", "echo p50 us", "echo p99 us"]),
    {P50u, P99u} = proplists:get_value(unjailed, Echo),
    [begin
         {P50, P99} = proplists:get_value(Kind, Echo),
         io:format("~-22s ~22.1f ~14.1f ~14.1f~n", [label(Kind), Start(Kind), P50, P99])
     end || {Kind, _} <- Kinds],
    [io:format("~-22s ~22.2f ~14.2f ~14.2f~n",
               ["ratio " ++ label(Kind), Start(Kind) / Start(unjailed),
                element(1, proplists:get_value(Kind, Echo)) / P50u,
                element(2, proplists:get_value(Kind, Echo)) / P99u])
     || Kind <- [jailed, big_home, strict]],
    ok.

label(unjailed) -> "unjailed";
label(jailed) -> "jailed";
label(big_home) -> lists:flatten(io_lib:format("jailed, ~b-entry home", [?HOME_ENTRIES]));
label(strict) -> "jailed, strict".

%% A home of ?HOME_ENTRIES entries (half directories, half files), outside
%% /tmp so the jail shows it.
big_home(Root) ->
    Home = filename:join([Root, "bench", "_build", "home-" ++ os:getpid()]),
    [begin
         Path = filename:join(Home, ".entry" ++ integer_to_list(N)),
         case N rem 2 of
             0 -> ok = filelib:ensure_dir(filename:join(Path, "x"));
             1 -> ok = filelib:ensure_dir(Path), ok = file:write_file(Path, <<"x">>)
         end
     end || N <- lists:seq(1, ?HOME_ENTRIES)],
    Home.

start_ms(Spawn) ->
    T0 = erlang:monotonic_time(microsecond),
    {ok, Client, _} = mcp_client:start(Spawn, #{}),
    {ok, _Tools} = mcp_client:list_tools(Client),
    Ms = (erlang:monotonic_time(microsecond) - T0) / 1000,
    {ok, _} = mcp_client:shutdown(Client, 5000),
    Ms.

echo_us(Spawn, Argument) ->
    {ok, Client, _} = mcp_client:start(Spawn, #{}),
    Arguments = {object, [Argument]},
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

%% @doc Client round trips: sequential `tools/call' calls per second with
%% p50/p99 latency, then the same number of calls from 16 concurrent
%% callers, for mcp_client and, in the same run against the same server
%% and the same calls, the official TypeScript SDK client and the
%% python-sdk client (each run alone, one after the other).
-module(client_bench).
-export([run/1]).

-define(CALLS, 2000).

%% run([Root]): Root is the repository root.
run([Root]) ->
    Node = os:find_executable("node"),
    Python = filename:join(Root, ".venv/bin/python"),
    Servers = [{"echo_server (ours)", Node, [filename:join(Root, "bench/echo_server.mjs")],
                <<"echo">>, {object, [{<<"message">>, {string, <<"hello">>}}]}},
               {"server-everything echo", Node,
                [filename:join(Root, "bench/node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
                <<"echo">>, {object, [{<<"message">>, {string, <<"hello">>}}]}}],
    io:format("~n== Client round trips (~b tools/call each; 16 concurrent callers for the last column) ==~n", [?CALLS]),
    io:format("~-24s ~-12s ~10s ~9s ~9s ~12s~n", ["server", "client", "seq/s", "p50 ms", "p99 ms", "16-conc/s"]),
    [server_rows(Root, Python, S) || S <- Servers],
    ok.

server_rows(Root, Python, {Label, Exe, Args, Tool, Arguments}) ->
    Ours = ours(Exe, Args, Tool, Arguments),
    ArgsJson = binary_to_list(mcp_json:encode(Arguments)),
    Command = [Exe | Args],
    Ts = external([os:find_executable("node"), filename:join(Root, "bench/clients/ts_client.mjs")], Tool, ArgsJson, Command),
    Py = external([Python, filename:join(Root, "bench/clients/py_client.py")], Tool, ArgsJson, Command),
    [print(Label, Name, R) || {Name, R} <- [{"mcp (ours)", Ours}, {"ts-sdk", Ts}, {"python-sdk", Py}]],
    ratio(Label, "ts-sdk", Ours, Ts),
    ratio(Label, "python-sdk", Ours, Py).

print(Label, Name, #{seq := Seq, p50 := P50, p99 := P99, conc := Conc}) ->
    io:format("~-24s ~-12s ~10.1f ~9.3f ~9.3f ~12.1f~n", [Label, Name, Seq, P50, P99, Conc]);
print(Label, Name, {error, Why}) ->
    io:format("~-24s ~-12s failed: ~p~n", [Label, Name, Why]).

ratio(Label, Peer, #{seq := S, conc := C}, #{seq := PS, conc := PC}) ->
    io:format("~-24s ours / ~-10s sequential ~.2fx, concurrent ~.2fx~n", [Label, Peer, S / PS, C / PC]);
ratio(_, _, _, _) -> ok.

ours(Exe, Args, Tool, Arguments) ->
    {ok, Client, _} = mcp_client:start(#{executable => Exe, args => Args}, #{}),
    Call = fun() -> {ok, _} = mcp_client:call_tool(Client, Tool, Arguments, 5000) end,
    [Call() || _ <- lists:seq(1, 50)],
    T0 = erlang:monotonic_time(microsecond),
    Latencies = [begin T = erlang:monotonic_time(microsecond), Call(),
                       erlang:monotonic_time(microsecond) - T end || _ <- lists:seq(1, ?CALLS)],
    Seq = ?CALLS / ((erlang:monotonic_time(microsecond) - T0) / 1.0e6),
    T1 = erlang:monotonic_time(microsecond),
    Parent = self(),
    Workers = [spawn_link(fun() -> [Call() || _ <- lists:seq(1, ?CALLS div 16)], Parent ! {done, self()} end)
               || _ <- lists:seq(1, 16)],
    [receive {done, W} -> ok end || W <- Workers],
    Conc = ?CALLS / ((erlang:monotonic_time(microsecond) - T1) / 1.0e6),
    {ok, _} = mcp_client:shutdown(Client, 5000),
    Sorted = lists:sort(Latencies),
    #{seq => Seq, conc => Conc, p50 => pct(Sorted, 0.5) / 1000, p99 => pct(Sorted, 0.99) / 1000}.

pct(Sorted, P) -> lists:nth(min(length(Sorted), 1 + trunc(length(Sorted) * P)), Sorted).

external(Runner, Tool, ArgsJson, Command) ->
    Port = open_port({spawn_executable, hd(Runner)},
                     [{args, tl(Runner) ++ [binary_to_list(Tool), ArgsJson, integer_to_list(?CALLS), "--" | Command]},
                      binary, exit_status, use_stdio, {line, 65536}]),
    collect(Port, []).

collect(Port, Lines) ->
    receive
        {Port, {data, {eol, Line}}} -> collect(Port, [Line | Lines]);
        {Port, {data, {noeol, _}}} -> collect(Port, Lines);
        {Port, {exit_status, 0}} -> parse(Lines);
        {Port, {exit_status, S}} -> {error, {exit_status, S}}
    after 300000 -> {error, timeout}
    end.

parse([Last | _]) ->
    {ok, {object, Members}} = mcp_json:decode(Last),
    Num = fun(K) -> case proplists:get_value(K, Members) of {float, F} -> F; {int, I} -> I end end,
    #{seq => Num(<<"sequential_per_s">>), p50 => Num(<<"p50_ms">>), p99 => Num(<<"p99_ms">>),
      conc => Num(<<"concurrent_per_s">>)};
parse([]) -> {error, no_output}.

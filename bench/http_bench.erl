%% @doc Remote round trips: sequential `tools/call' echo calls against
%% server-everything over Streamable HTTP (`streamableHttp', event-stream
%% answers, a session), p50/p99 latency and calls per second, for
%% `mcp_client' (a fresh VM per flag set: default, and busy-wait off), a raw
%% keep-alive client (`clients/http_raw_client.py': Python's http.client,
%% no validation) and the official TypeScript SDK client
%% (`clients/ts_http_client.mjs'), one after the other against the same
%% server, in one run. Prints each p50 as a ratio to the raw client's.
%%
%% Then the load table: one `mcp_client' shared by 1, 16 and 64 concurrent
%% callers (`?LOAD_CALLS' calls in all at each level), beside a raw
%% keep-alive client with as many callers and at most as many sockets
%% (`clients/http_raw_concurrent.mjs': Node's http module, no validation),
%% measured one after the other at each level against the same server:
%% calls per second and p50 latency, each as a ratio to the raw client's.
-module(http_bench).
-export([run/1, ours_main/1, ours_load_main/1]).

-define(CALLS, 1000).
-define(LOAD_CALLS, 2000).
-define(LEVELS, [1, 16, 64]).
-define(QUIET_VM, "+sbwt none +sbwtdcpu none +sbwtdio none").

run([Root]) ->
    Node = os:find_executable("node"),
    Server = filename:join(Root, "bench/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    Port = free_port(),
    Process = open_port({spawn_executable, Node}, [{args, [Server, "streamableHttp"]},
                                                   {env, [{"PORT", integer_to_list(Port)}]},
                                                   exit_status, use_stdio, stderr_to_stdout, hide]),
    {os_pid, OsPid} = erlang:port_info(Process, os_pid),
    try
        ok = await_listening(Port, 100),
        Url = "http://127.0.0.1:" ++ integer_to_list(Port) ++ "/mcp",
        Args = "{\"message\":\"hello\"}",
        Rows = [{"mcp (default flags)", ours(Root, "", Url)},
                {"mcp (busy-wait off)", ours(Root, ?QUIET_VM, Url)},
                {"raw keep-alive (py)", bench_peer:run([filename:join(Root, ".venv/bin/python"),
                                                  filename:join(Root, "bench/clients/http_raw_client.py"),
                                                  Url, "echo", Args, integer_to_list(?CALLS)])},
                {"ts-sdk", bench_peer:run([Node, filename:join(Root, "bench/clients/ts_http_client.mjs"),
                                     Url, "echo", Args, integer_to_list(?CALLS)])}],
        io:format("~n== Remote round trips: server-everything over Streamable HTTP (~b sequential echo calls) ==~n", [?CALLS]),
        io:format("~-22s ~10s ~9s ~9s ~14s~n", ["client", "seq/s", "p50 ms", "p99 ms", "p50 / raw"]),
        #{p50 := Raw} = proplists:get_value("raw keep-alive (py)", Rows),
        [print(Name, R, Raw) || {Name, R} <- Rows],
        load(Root, Node, Url, Args),
        ok
    after
        os:cmd("kill -9 " ++ integer_to_list(OsPid))
    end.

print(Name, #{seq := Seq, p50 := P50, p99 := P99}, Raw) ->
    io:format("~-22s ~10.1f ~9.2f ~9.2f ~14.2f~n", [Name, float(Seq), float(P50), float(P99), P50 / Raw]);
print(Name, Error, _Raw) ->
    io:format("~-22s ~p~n", [Name, Error]).

ours(Root, Flags, Url) ->
    child(Root, Flags, io_lib:format("http_bench:ours_main(~p), halt().", [[Url]])).

child(Root, Flags, Eval) ->
    Erl = os:find_executable("erl"),
    Paths = [filename:join(Root, "_build/default/lib/mcp/ebin"), filename:join(Root, "bench/_build")],
    bench_peer:run([Erl, "-noshell" | string:lexemes(Flags, " ")] ++ ["-pa" | Paths] ++ ["-eval", lists:flatten(Eval)]).

%% The load table: at each level, ours (default flags, then busy-wait
%% off) and the raw client, one after the other.
load(Root, Node, Url, Args) ->
    io:format("~n== Under load: one client, concurrent callers, ~b echo calls per level ==~n", [?LOAD_CALLS]),
    io:format("~-8s ~-22s ~10s ~9s ~9s ~12s ~12s~n",
              ["callers", "client", "calls/s", "p50 ms", "p99 ms", "calls / raw", "p50 / raw"]),
    lists:foreach(
      fun(Callers) ->
              Raw = bench_peer:run([Node, filename:join(Root, "bench/clients/http_raw_concurrent.mjs"),
                                    Url, "echo", Args, integer_to_list(?LOAD_CALLS), integer_to_list(Callers)]),
              Eval = io_lib:format("http_bench:ours_load_main(~p), halt().", [[Url, Callers]]),
              Rows = [{"mcp (default flags)", child(Root, "", Eval)},
                      {"mcp (busy-wait off)", child(Root, ?QUIET_VM, Eval)},
                      {"raw keep-alive (node)", Raw}],
              [print_load(Callers, Name, R, Raw) || {Name, R} <- Rows]
      end, ?LEVELS).

print_load(Callers, Name, #{conc := PerS, p50 := P50, p99 := P99}, #{conc := RawPerS, p50 := RawP50}) ->
    io:format("~-8b ~-22s ~10.1f ~9.2f ~9.2f ~12.2f ~12.2f~n",
              [Callers, Name, float(PerS), float(P50), float(P99), PerS / RawPerS, P50 / RawP50]);
print_load(Callers, Name, Other, _Raw) ->
    io:format("~-8b ~-22s ~p~n", [Callers, Name, Other]).

%% In the child VM: the round trips, printed as one JSON line.
ours_main([Url]) ->
    {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
    Arguments = {object, [{<<"message">>, {string, <<"hello">>}}]},
    Call = fun() -> {ok, _} = mcp_client:call_tool(Client, <<"echo">>, Arguments, 5000) end,
    [Call() || _ <- lists:seq(1, 50)],
    Started = erlang:monotonic_time(microsecond),
    Latencies = lists:sort([begin
                                T = erlang:monotonic_time(microsecond),
                                Call(),
                                (erlang:monotonic_time(microsecond) - T) / 1000
                            end || _ <- lists:seq(1, ?CALLS)]),
    Seconds = (erlang:monotonic_time(microsecond) - Started) / 1.0e6,
    Pct = fun(P) -> lists:nth(min(?CALLS, trunc(?CALLS * P) + 1), Latencies) end,
    {ok, _} = mcp_client:shutdown(Client, 5000),
    io:format("{\"sequential_per_s\":~f,\"p50_ms\":~f,\"p99_ms\":~f}~n", [?CALLS / Seconds, Pct(0.5), Pct(0.99)]).

%% In the child VM: `Callers' processes share one client, each making its
%% share of the calls; throughput and latency printed as one JSON line.
ours_load_main([Url, Callers]) ->
    {ok, Client, _} = mcp_client:start(#{url => Url}, #{}),
    Arguments = {object, [{<<"message">>, {string, <<"hello">>}}]},
    Call = fun() -> {ok, _} = mcp_client:call_tool(Client, <<"echo">>, Arguments, 30000) end,
    Run = fun(Calls) ->
                  Parent = self(),
                  Pids = [spawn_link(fun() ->
                                             Parent ! {self(), [begin
                                                                    T = erlang:monotonic_time(microsecond),
                                                                    Call(),
                                                                    (erlang:monotonic_time(microsecond) - T) / 1000
                                                                end || _ <- lists:seq(1, Calls)]}
                                     end) || _ <- lists:seq(1, Callers)],
                  lists:append([receive {Pid, L} -> L end || Pid <- Pids])
          end,
    _ = Run(max(1, 50 div Callers)),
    Started = erlang:monotonic_time(microsecond),
    Latencies = lists:sort(Run(?LOAD_CALLS div Callers)),
    Seconds = (erlang:monotonic_time(microsecond) - Started) / 1.0e6,
    N = length(Latencies),
    Pct = fun(P) -> lists:nth(min(N, trunc(N * P) + 1), Latencies) end,
    {ok, _} = mcp_client:shutdown(Client, 5000),
    io:format("{\"concurrent_per_s\":~f,\"p50_ms\":~f,\"p99_ms\":~f}~n", [N / Seconds, Pct(0.5), Pct(0.99)]).

free_port() ->
    {ok, Listen} = gen_tcp:listen(0, [{ip, {127, 0, 0, 1}}]),
    {ok, Port} = inet:port(Listen),
    ok = gen_tcp:close(Listen),
    Port.

await_listening(_Port, 0) -> error(server_not_listening);
await_listening(Port, Tries) ->
    case gen_tcp:connect({127, 0, 0, 1}, Port, [], 200) of
        {ok, Socket} -> gen_tcp:close(Socket), ok;
        {error, _} -> timer:sleep(100), await_listening(Port, Tries - 1)
    end.

%% @doc Client round trips: sequential `tools/call' calls per second with
%% p50/p99 latency, then the same number of calls from 16 concurrent
%% callers and from 64 (the python-sdk and the C client: 16 only), against
%% each server, for:
%% <ul>
%% <li>`mcp_client', in a fresh VM per flag set: the default flags, and
%%     `+sbwt none +sbwtdcpu none +sbwtdio none' (schedulers do not
%%     busy-wait). Each also reports the VM's CPU time per sequential call
%%     (utime + stime of the whole VM from `/proc'); only the figure taken
%%     with busy-waiting off is work rather than spinning;</li>
%% <li>the raw-pipe baseline (`clients/raw_client.c': write a line, read a
%%     line, no JSON parsing, no validation), the ceiling;</li>
%% <li>the BEAM's port floor (`port_floor_main/1'): the same raw loop as the C
%%     client, but written in Erlang over an `open_port' with `mcp_port''s
%%     options, in a fresh VM per flag set. It is what any client pays for
%%     stdio through a port before doing any work, so `mcp / port floor'
%%     is the cost of `mcp_client' itself;</li>
%% <li>the official TypeScript SDK client and the python-sdk client.</li>
%% </ul>
%% Each client runs alone, one after the other, with the same server and
%% calls. For `mcp_client' and the port floor the VM's CPU time per call
%% is also taken under 16 concurrent callers (`cpu16'), where it is work,
%% not waiting: what holds `mcp / port floor' under concurrency is the
%% difference between the two. Then the inbound path of one 1.1 MB `tools/call' response
%% (`mcp_protocol:read/2') against one `mcp_json:decode/1' of the same line.
-module(client_bench).
-export([run/1, ours_main/1, port_floor_main/1, inbound_path/0]).

%% Calls per column: at 16 concurrent callers a column of 2,000 calls
%% lasted 10-30 ms, mostly the ramp-up, and the port floor's figure swung
%% 2x from run to run; 20,000 measure the steady state.
-define(CALLS, 20000).
-define(QUIET_VM, "+sbwt none +sbwtdcpu none +sbwtdio none").

%% run([Root]): Root is the repository root.
run([Root]) ->
    Node = os:find_executable("node"),
    Python = filename:join(Root, ".venv/bin/python"),
    Raw = raw_client(Root),
    Servers = [{"echo_server (ours)", Node, [filename:join(Root, "bench/echo_server.mjs")],
                <<"echo">>, {object, [{<<"message">>, {string, <<"hello">>}}]}},
               {"server-everything echo", Node,
                [filename:join(Root, "bench/node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
                <<"echo">>, {object, [{<<"message">>, {string, <<"hello">>}}]}}],
    io:format("~n== Client round trips (~b tools/call each; 16 and 64 concurrent callers for the last columns) ==~n", [?CALLS]),
    io:format("~-24s ~-22s ~10s ~9s ~9s ~12s ~12s ~12s~n",
              ["server", "client", "seq/s", "p50 ms", "p99 ms", "16-conc/s", "64-conc/s", "VM cpu us"]),
    [server_rows(Root, Python, Raw, S) || S <- Servers],
    inbound_path(),
    ok.

server_rows(Root, Python, Raw, {Label, Exe, Args, Tool, Arguments}) ->
    ArgsJson = binary_to_list(mcp_json:encode(Arguments)),
    Command = [Exe | Args],
    External = fun(Runner) -> external(Runner, Tool, ArgsJson, Command) end,
    Rows = [{"mcp (default flags)", ours(Root, "", ours_main, Exe, Args, Tool, ArgsJson)},
            {"mcp (busy-wait off)", ours(Root, ?QUIET_VM, ours_main, Exe, Args, Tool, ArgsJson)},
            {"port floor (default)", ours(Root, "", port_floor_main, Exe, Args, Tool, ArgsJson)},
            {"port floor (bw off)", ours(Root, ?QUIET_VM, port_floor_main, Exe, Args, Tool, ArgsJson)},
            {"raw pipe (C)", External([Raw])},
            {"ts-sdk", External([os:find_executable("node"), filename:join(Root, "bench/clients/ts_client.mjs")])},
            {"python-sdk", External([Python, filename:join(Root, "bench/clients/py_client.py")])}],
    [print(Label, Name, R) || {Name, R} <- Rows],
    [targets(Label, Flags, proplists:get_value(Ours, Rows), proplists:get_value("raw pipe (C)", Rows),
             proplists:get_value(Floor, Rows), proplists:get_value("ts-sdk", Rows))
     || {Flags, Ours, Floor} <- [{"default", "mcp (default flags)", "port floor (default)"},
                                 {"busy-wait off", "mcp (busy-wait off)", "port floor (bw off)"}]].

print(Label, Name, #{seq := Seq, p50 := P50, p99 := P99, conc := Conc} = R) ->
    Column = fun(Key) -> case R of #{Key := V} -> io_lib:format("~12.1f", [V]); _ -> io_lib:format("~12s", ["-"]) end end,
    io:format("~-24s ~-22s ~10.1f ~9.3f ~9.3f ~12.1f ~s ~s~n", [Label, Name, Seq, P50, P99, Conc, Column(conc64), Column(cpu)]);
print(Label, Name, {error, Why}) ->
    io:format("~-24s ~-22s failed: ~p~n", [Label, Name, Why]).

%% The client's targets, each printed met or missed, and (no target) the
%% p50 against the port floor under the same flags.
targets(Label, Flags, #{p50 := P50, seq := Seq, conc := Conc, conc64 := Conc64, cpu16 := Cpu16}, #{p50 := RawP50},
        #{p50 := FloorP50, conc := FloorConc, cpu16 := FloorCpu16}, #{seq := TsSeq, conc := TsConc}) ->
    Verdict = fun(true) -> "met"; (false) -> "MISSED" end,
    io:format("~-24s ~-14s p50 / raw p50 ~.2fx (<= 1.15: ~s); seq / ts ~.2fx (>= 1.3: ~s); "
              "16-conc / ts ~.2fx (>= 1.0: ~s); p50 / port floor p50 ~.2fx~n",
              [Label, Flags, P50 / RawP50, Verdict(P50 / RawP50 =< 1.15), Seq / TsSeq, Verdict(Seq / TsSeq >= 1.3),
               Conc / TsConc, Verdict(Conc / TsConc >= 1.0), P50 / FloorP50]),
    %% Under concurrency: against the port floor with as many in flight
    %% (aim 0.8x on our echo server), against the TypeScript SDK (aim 1.5x
    %% on server-everything), and 64 callers against 16 (no worse per call).
    %% The port floor against the TypeScript SDK is the most any client of
    %% the BEAM can reach against this server: the ceiling of the second aim.
    %% What holds the first is the VM's CPU per call under 16 callers, ours
    %% against the floor's (the server shares the machine's two cores).
    io:format("~-24s ~-14s 16-conc / port floor 16-conc ~.2fx (>= 0.8 on echo_server; holder: VM CPU per call "
              "at 16, mcp ~.1f us, port floor ~.1f us); "
              "16-conc / ts ~.2fx (>= 1.5 on server-everything; ceiling: port floor / ts ~.2fx); "
              "64-conc / 16-conc ~.2fx (>= 1.0: ~s)~n",
              [Label, Flags, Conc / FloorConc, Cpu16, FloorCpu16, Conc / TsConc, FloorConc / TsConc, Conc64 / Conc,
               Verdict(Conc64 / Conc >= 1.0)]);
targets(Label, Flags, _, _, _, _) ->
    io:format("~-24s ~-14s targets not computed (a client failed)~n", [Label, Flags]).

%% `Main' (`ours_main' or `port_floor_main') in a fresh VM started with `Flags'.
ours(Root, Flags, Main, Exe, Args, Tool, ArgsJson) ->
    Erl = os:find_executable("erl"),
    Paths = [filename:join(Root, "_build/default/lib/mcp/ebin"), filename:join(Root, "bench/_build")],
    Eval = lists:flatten(io_lib:format("client_bench:~s(~p), halt().",
                                       [Main, [Exe, Args, binary_to_list(Tool), ArgsJson]])),
    bench_peer:run([Erl, "-noshell" | string:lexemes(Flags, " ")] ++ ["-pa" | Paths] ++ ["-eval", Eval]).

%% In the child VM: the round trips, printed as one JSON line.
ours_main([Exe, Args, Tool, ArgsJson]) ->
    {ok, Arguments} = mcp_json:decode(list_to_binary(ArgsJson)),
    {ok, Client, _} = mcp_client:start(#{executable => Exe, args => Args}, #{}),
    Name = list_to_binary(Tool),
    Call = fun() -> {ok, _} = mcp_client:call_tool(Client, Name, Arguments, 5000) end,
    Concurrent = fun(Callers) ->
                         Parent = self(),
                         Workers = [spawn_link(fun() -> [Call() || _ <- lists:seq(1, ?CALLS div Callers)],
                                                        Parent ! {done, self()} end)
                                    || _ <- lists:seq(1, Callers)],
                         [receive {done, W} -> ok end || W <- Workers],
                         Callers * (?CALLS div Callers)
                 end,
    Figures = measure(Call, Concurrent),
    {ok, _} = mcp_client:shutdown(Client, 5000),
    Figures.

%% In the child VM: the C client's loop over a bare port (`mcp_port''s
%% options), no decoding: a line that holds "result" ends a round trip,
%% other lines (notifications) are skipped, as the C client does.
port_floor_main([Exe, Args, Tool, ArgsJson]) ->
    Port = open_port({spawn_executable, Exe}, [binary, stream, exit_status, use_stdio, hide, {args, Args}]),
    port_command(Port, <<"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                         "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                         "\"clientInfo\":{\"name\":\"floor\",\"version\":\"0\"}}}\n"
                         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n">>),
    floor_response(Port, <<>>),
    Request = iolist_to_binary(["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"",
                                Tool, "\",\"arguments\":", ArgsJson, "}}\n"]),
    Call = fun() -> port_command(Port, Request), floor_response(Port, <<>>) end,
    Concurrent = fun(InFlight) ->
                         [port_command(Port, Request) || _ <- lists:seq(1, InFlight)],
                         floor_pipelined(Port, Request, ?CALLS - InFlight, ?CALLS, <<>>),
                         ?CALLS
                 end,
    Figures = measure(Call, Concurrent),
    port_close(Port),
    Figures.

%% Reads until one response line arrived (one request is in flight, so
%% nothing follows it); lines without "result" (notifications) are skipped.
floor_response(Port, Held) ->
    case floor_chunk(Port, Held) of
        {0, Rest} -> floor_response(Port, Rest);
        {_Answered, _} -> ok
    end.

%% N in flight: each answer that arrives sends the next request, until
%% `Waiting' answers arrived, of which `Unsent' still need their request.
floor_pipelined(_Port, _Request, _Unsent, Waiting, _Held) when Waiting =< 0 -> ok;
floor_pipelined(Port, Request, Unsent, Waiting, Held) ->
    {Answers, Rest} = floor_chunk(Port, Held),
    Send = min(Answers, Unsent),
    [port_command(Port, Request) || _ <- lists:seq(1, Send)],
    floor_pipelined(Port, Request, Unsent - Send, Waiting - Answers, Rest).

%% The next chunk: how many complete response lines it finished, and the
%% incomplete tail.
floor_chunk(Port, Held) ->
    receive
        {Port, {data, Chunk}} ->
            {Lines, Rest} = split_lines(<<Held/binary, Chunk/binary>>),
            {length([L || L <- Lines, binary:match(L, <<"\"result\"">>) =/= nomatch]), Rest}
    after 5000 -> exit(port_floor_timeout)
    end.

split_lines(Bytes) ->
    Parts = binary:split(Bytes, <<"\n">>, [global]),
    {Lines, [Rest]} = lists:split(length(Parts) - 1, Parts),
    {Lines, Rest}.

%% Warm-up, `?CALLS' timed sequential calls, then `Concurrent(16)' and
%% `Concurrent(64)' (each answers the calls it made); prints the figures as
%% one JSON line.
measure(Call, Concurrent) ->
    [Call() || _ <- lists:seq(1, 50)],
    Cpu0 = vm_cpu_us(),
    T0 = erlang:monotonic_time(microsecond),
    Latencies = [begin T = erlang:monotonic_time(microsecond), Call(),
                       erlang:monotonic_time(microsecond) - T end || _ <- lists:seq(1, ?CALLS)],
    Seq = ?CALLS / ((erlang:monotonic_time(microsecond) - T0) / 1.0e6),
    Cpu = (vm_cpu_us() - Cpu0) / ?CALLS,
    Rate = fun(Callers) ->
                   T1 = erlang:monotonic_time(microsecond),
                   Made = Concurrent(Callers),
                   Made / ((erlang:monotonic_time(microsecond) - T1) / 1.0e6)
           end,
    Cpu16At = vm_cpu_us(),
    Conc = Rate(16),
    Cpu16 = (vm_cpu_us() - Cpu16At) / ?CALLS,
    Conc64 = Rate(64),
    Sorted = lists:sort(Latencies),
    io:format("~s~n", [mcp_json:encode({object, [{<<"sequential_per_s">>, {float, Seq}},
                                                  {<<"p50_ms">>, {float, pct(Sorted, 0.5) / 1000}},
                                                  {<<"p99_ms">>, {float, pct(Sorted, 0.99) / 1000}},
                                                  {<<"concurrent_per_s">>, {float, Conc}},
                                                  {<<"concurrent64_per_s">>, {float, Conc64}},
                                                  {<<"cpu_us_per_call">>, {float, Cpu}},
                                                  {<<"cpu16_us_per_call">>, {float, Cpu16}}]})]).

%% utime + stime of the whole VM (every thread), in microseconds.
vm_cpu_us() ->
    {ok, Stat} = file:read_file("/proc/self/stat"),
    [_, AfterName] = binary:split(Stat, <<") ">>),
    Fields = binary:split(AfterName, <<" ">>, [global]),
    Ticks = binary_to_integer(lists:nth(12, Fields)) + binary_to_integer(lists:nth(13, Fields)),
    Ticks * 1000000 div clock_ticks().

clock_ticks() ->
    list_to_integer(string:trim(os:cmd("getconf CLK_TCK"))).

pct(Sorted, P) -> lists:nth(min(length(Sorted), 1 + trunc(length(Sorted) * P)), Sorted).

%% The raw-pipe client, compiled into bench/_build.
raw_client(Root) ->
    Binary = filename:join(Root, "bench/_build/raw_client"),
    Source = filename:join(Root, "bench/clients/raw_client.c"),
    "" = os:cmd("cc -O2 -o " ++ Binary ++ " " ++ Source),
    Binary.

external([Exe | Args], Tool, ArgsJson, Command) ->
    bench_peer:run([Exe | Args ++ [binary_to_list(Tool), ArgsJson, integer_to_list(?CALLS), "--" | Command]]).

%% One 1.1 MB tools/call response: the actor's whole inbound path for it
%% (`mcp_protocol:read/2', which decodes the result as the pending id
%% expects) against one `mcp_json:decode/1' of the same line. Medians of 30.
inbound_path() ->
    Words = <<"the quick brown fox jumps over the lazy dog, \"über\" — 30 °C\n"/utf8>>,
    Text = binary:copy(Words, 1100 * 1024 div byte_size(Words)),
    Result = {object, [{<<"content">>, {array, [{object, [{<<"type">>, {string, <<"text">>}},
                                                           {<<"text">>, {string, Text}}]}]}},
                       {<<"isError">>, {bool, false}}]},
    Line = mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 7}},
                                     {<<"result">>, Result}]}),
    Expected = #{7 => call_tool},
    {answer, 7, {ok, _}} = mcp_protocol:read(Line, Expected),
    %% Interleaved round by round, so that both see the same machine load.
    {routed, 7} = mcp_protocol:read(Line, #{7 => routed_call_tool}),
    Rounds = [{element(1, timer:tc(fun() -> mcp_protocol:read(Line, Expected) end)),
               element(1, timer:tc(fun() -> mcp_json:decode(Line) end)),
               element(1, timer:tc(fun() -> mcp_protocol:read(Line, #{7 => routed_call_tool}) end))}
              || _ <- lists:seq(1, 31)],
    Read = median([R || {R, _, _} <- Rounds]),
    Decode = median([D || {_, D, _} <- Rounds]),
    Scan = median([S || {_, _, S} <- Rounds]),
    io:format("~n== Inbound path, one ~.2f MB tools/call response (interleaved, median of 31) ==~n",
              [byte_size(Line) / 1.0e6]),
    io:format("mcp_protocol:read/2 ~.2f ms, mcp_json:decode/1 ~.2f ms: ~.2fx (<= 1.3: ~s)~n",
              [Read / 1000, Decode / 1000, Read / Decode,
               case Read / Decode =< 1.3 of true -> "met"; false -> "MISSED" end]),
    %% Routed (the client's path for a tool result): the actor's validating
    %% scan, then the caller's read above in the caller's process.
    io:format("routed: the actor's scan ~.2f ms (~.2fx one decode), then the caller's read~n",
              [Scan / 1000, Scan / Decode]).

median(Times) -> lists:nth(length(Times) div 2 + 1, lists:sort(Times)).

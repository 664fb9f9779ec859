%% @doc Scheduler hold: with `erlang:system_monitor(self(), [{long_schedule, 1}])'
%% armed, runs each public function on inputs from 1 KiB to 16 MiB in
%% processes on normal schedulers and reports the longest uninterrupted run
%% the VM saw per function and size (0 means no event of 1 ms or more).
%% This is what justifies each dirty-scheduling threshold.
-module(sched_bench).
-export([run/0]).

-define(SIZES, [1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216]).

run() ->
    io:format("~n== Scheduler hold: longest long_schedule event (ms) per call, 0 = none >= 1 ms ==~n", []),
    Cases = [Case || Case <- cases(), exported(element(1, Case))],
    io:format("~-28s", ["function \\ input bytes"]),
    [io:format(" ~9b", [S]) || S <- ?SIZES],
    io:format("~n", []),
    [row(Name, Fun) || {Name, Fun} <- Cases],
    ok.

exported({M, F, A}) -> code:ensure_loaded(M) =:= {module, M} andalso erlang:function_exported(M, F, A).

cases() ->
    [{{mcp_json, decode, 1}, fun(S) -> Line = line(S), fun() -> mcp_json:decode(Line) end end},
     {{mcp_json, encode, 1}, fun(S) -> {ok, T} = mcp_json:decode(line(S)), fun() -> mcp_json:encode(T) end end},
     {{mcp_stdio, frame, 1}, fun(S) -> {ok, T} = mcp_json:decode(line(S)), fun() -> mcp_stdio:frame(T) end end},
     {{mcp_stdio, push, 2}, fun(S) -> Chunk = <<(line(S))/binary, "\n">>,
                                       fun() -> mcp_stdio:push(mcp_stdio:new(), Chunk) end end},
     {{mcp_jsonrpc, decode, 1}, fun(S) -> Line = rpc_line(S), fun() -> mcp_jsonrpc:decode(Line) end end},
     {{mcp_interchange, json_to_msgpack_bytes, 1},
      fun(S) -> Line = line(S), fun() -> mcp_interchange:json_to_msgpack_bytes(Line) end end},
     {{mcp_codegen, generate, 2},
      fun(S) -> Tools = tools(max(1, min(256, S div 1024))), fun() -> mcp_codegen:generate(<<"bench">>, Tools) end end}].

row({M, F, _}, Make) ->
    io:format("~-28s", [atom_to_list(M) ++ ":" ++ atom_to_list(F)]),
    [io:format(" ~9b", [longest_hold(Make, S)]) || S <- ?SIZES],
    io:format("~n", []).

%% A fresh process builds its input and collects its garbage first (so
%% neither copying the input nor a big GC is charged to the function), then
%% runs the call three times with the monitor armed, yielding between calls
%% so each event measures one call. Returns the longest event for that
%% process (ms).
longest_hold(Make, Size) ->
    flush(),
    Parent = self(),
    {Pid, Ref} = spawn_monitor(fun() ->
        Fun = Make(Size),
        erlang:garbage_collect(),
        Parent ! {ready, self()},
        receive go -> [begin Fun(), erlang:yield() end || _ <- [1, 2, 3]] end
    end),
    receive {ready, Pid} -> ok end,
    erlang:system_monitor(self(), [{long_schedule, 1}]),
    Pid ! go,
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    erlang:system_monitor(undefined),
    collect(Pid, 0).

collect(Pid, Longest) ->
    receive
        {monitor, Pid, long_schedule, Info} ->
            collect(Pid, max(Longest, proplists:get_value(timeout, Info, 0)))
    after 100 -> Longest
    end.

flush() -> receive {monitor, _, _, _} -> flush() after 0 -> ok end.

%% A JSON array of mixed values of about Size bytes.
line(Size) ->
    Item = <<"{\"id\":12345,\"name\":\"caf\\u00e9 ",
             "\xe2\x9c\x93\",\"score\":0.125,\"tags\":[\"a\",\"bb\",null,true]},">>,
    N = max(1, Size div byte_size(Item)),
    Body = binary:copy(Item, N),
    <<"[", (binary:part(Body, 0, byte_size(Body) - 1))/binary, "]">>.

rpc_line(Size) ->
    <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":", (line(Size))/binary, "}}">>.

tools(N) ->
    [{tool_descriptor, <<"tool_", (integer_to_binary(I))/binary>>, none, {some, <<"Does thing ", (integer_to_binary(I))/binary>>},
      {object, [{<<"type">>, {string, <<"object">>}},
                {<<"properties">>, {object, [{<<"q">>, {object, [{<<"type">>, {string, <<"string">>}}]}},
                                             {<<"n">>, {object, [{<<"type">>, {string, <<"integer">>}}]}}]}},
                {<<"required">>, {array, [{string, <<"q">>}]}}]}, none, none}
     || I <- lists:seq(1, N)].

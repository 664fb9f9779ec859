%% @doc Scheduler hold: with `erlang:system_monitor(self(), [{long_schedule, 1}])'
%% armed, runs each public function on inputs from 1 KiB to 16 MiB in
%% processes on normal schedulers and reports the longest uninterrupted run
%% the VM saw per function and size (0 means no event of 1 ms or more).
%% This is what justifies each dirty-scheduling threshold.
%%
%% A second table runs the hostile inputs (giant integers, keys
%% and strings, ten-million-element lists, long colliding tool names), one
%% row each; test/mcp_sched_tests.erl asserts the same inputs.
-module(sched_bench).
-export([run/0]).

%% 1 KiB to 16 MiB, by factors of four.
-define(SIZES, [1 bsl Power || Power <- lists:seq(10, 24, 2)]).

run() ->
    io:format("~n== Scheduler hold: longest long_schedule event (ms) per call, 0 = none >= 1 ms ==~n", []),
    Cases = [Case || Case <- cases(), exported(element(1, Case))],
    io:format("~-28s", ["function \\ input bytes"]),
    [io:format(" ~9b", [S]) || S <- ?SIZES],
    io:format("~n", []),
    [row(Name, Fun) || {Name, Fun} <- Cases],
    io:format("~n== Scheduler hold on hostile inputs: longest long_schedule event (ms), 0 = none >= 1 ms ==~n", []),
    [io:format("~-60s ~9b~n", [Label, longest_hold(fun(_) -> Make() end, 0)]) || {Label, Make} <- hostile()],
    ok.

exported({M, F, A}) -> code:ensure_loaded(M) =:= {module, M} andalso erlang:function_exported(M, F, A).

cases() ->
    [{{mcp_json, decode, 1}, fun(S) -> Line = line(S), fun() -> mcp_json:decode(Line) end end},
     {{mcp_json, encode, 1}, fun(S) -> {ok, T} = mcp_json:decode(line(S)), fun() -> mcp_json:encode(T) end end},
     {{mcp_json, encode_line, 1}, fun(S) -> {ok, T} = mcp_json:decode(line(S)), fun() -> mcp_json:encode_line(T) end end},
     {{mcp_stdio, push, 2}, fun(S) -> Chunk = <<(line(S))/binary, "\n">>,
                                       fun() -> mcp_stdio:push(mcp_stdio:new(), Chunk) end end},
     {{mcp_jsonrpc, decode, 1}, fun(S) -> Line = rpc_line(S), fun() -> mcp_jsonrpc:decode(Line) end end},
     {{mcp_interchange, json_to_msgpack_bytes, 1},
      fun(S) -> Line = line(S), fun() -> mcp_interchange:json_to_msgpack_bytes(Line) end end},
     {{mcp_codegen, generate, 2},
      fun(S) -> Tools = tools(max(1, min(256, S div 1024))), fun() -> mcp_codegen:generate(<<"bench">>, Tools) end end}].

%% {Label, fun() -> Call} with the input built outside the call.
hostile() ->
    Cjk = fun(Bytes) -> binary:copy(<<"字"/utf8>>, Bytes div 3) end,
    Mib = 1048576,
    [{"mcp_json:encode {int, 1 bsl 1000000} (refused)", fun() -> I = 1 bsl 1000000, fun() -> catch mcp_json:encode({int, I}) end end},
     {"mcp_json:encode {int, 1 bsl 16000000} (refused)", fun() -> I = 1 bsl 16000000, fun() -> catch mcp_json:encode({int, I}) end end},
     {"mcp_json:encode 16 MiB ASCII key", fun() -> K = binary:copy(<<"k">>, 16 * Mib), fun() -> mcp_json:encode({object, [{K, null}]}) end end},
     {"mcp_json:encode 100 MB ASCII key", fun() -> K = binary:copy(<<"k">>, 100000000), fun() -> mcp_json:encode({object, [{K, null}]}) end end},
     {"mcp_json:encode 100 MB CJK string", fun() -> T = Cjk(100000000), fun() -> mcp_json:encode({string, T}) end end},
     {"mcp_json:encode_line 16 MiB CJK key", fun() -> K = Cjk(16 * Mib), fun() -> mcp_json:encode_line({object, [{K, null}]}) end end},
     {"tools/call request frame, 16 MiB key in arguments",
      fun() -> P = mcp_protocol:tools_call_params(<<"t">>, {object, [{Cjk(16 * Mib), null}]}),
               fun() -> mcp_json:encode_line(mcp_jsonrpc:request({id_int, 1}, <<"tools/call">>, {some, P})) end end},
     {"mcp_json:decode 1 MiB [0,0,...]", fun() -> L = repeated(<<"0">>, Mib), fun() -> mcp_json:decode(L) end end},
     {"mcp_json:decode 1 MiB [{},{},...]", fun() -> L = repeated(<<"{}">>, Mib), fun() -> mcp_json:decode(L) end end},
     {"mcp_json:decode 1 MiB of 127-deep [[...[0]...]]",
      fun() -> D = <<(binary:copy(<<"[">>, 127))/binary, "0", (binary:copy(<<"]">>, 127))/binary>>,
               L = repeated(D, Mib), fun() -> mcp_json:decode(L) end end},
     {"mcp_json:decode 64 MiB string", fun() -> L = <<"\"", (binary:copy(<<"k">>, 64 * Mib))/binary, "\"">>, fun() -> mcp_json:decode(L) end end},
     {"mcp_json:decode 16 MiB whitespace run", fun() -> L = <<"[", (binary:copy(<<" ">>, 16 * Mib))/binary, "0]">>, fun() -> mcp_json:decode(L) end end},
     {"mcp_json:decode 1 MiB of 4,300-digit integers", fun() -> L = repeated(binary:copy(<<"7">>, 4300), Mib), fun() -> mcp_json:decode(L) end end},
     {"mcp_json:encode 2 M element list", fun() -> V = {array, lists:duplicate(2000000, null)}, fun() -> mcp_json:encode(V) end end},
     {"mcp_interchange:to_msgpack 10 M element list", fun() -> V = {array, lists:duplicate(10000000, null)}, fun() -> mcp_interchange:to_msgpack(V) end end},
     {"mcp_interchange:to_msgpack 100 MB CJK string", fun() -> T = Cjk(100000000), fun() -> mcp_interchange:to_msgpack({string, T}) end end},
     {"mcp_interchange:to_msgpack 100 MB CJK key", fun() -> T = Cjk(100000000), fun() -> mcp_interchange:to_msgpack({object, [{T, null}]}) end end},
     {"mcp_interchange:to_msgpack {int, 1 bsl 16000000}", fun() -> I = 1 bsl 16000000, fun() -> mcp_interchange:to_msgpack({int, I}) end end},
     {"mcp_interchange:to_json 10 M element list", fun() -> V = {array_value, lists:duplicate(10000000, nil_value)}, fun() -> mcp_interchange:to_json(V) end end},
     {"mcp_interchange:msgpack_encode 10 M element list", fun() -> V = {array_value, lists:duplicate(10000000, nil_value)}, fun() -> mcp_interchange:msgpack_encode(V) end end},
     {"mcp_codegen:describe collision of two 8 MiB CJK names", fun() -> N = Cjk(8 * Mib), fun() -> mcp_codegen:describe({tool_name_collision, N, N}) end end}].

%% `[Item,Item,...]' of about `Bytes' bytes.
repeated(Item, Bytes) ->
    N = Bytes div (byte_size(Item) + 1),
    <<"[", (binary:copy(<<Item/binary, ",">>, N - 1))/binary, Item/binary, "]">>.

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
                {<<"required">>, {array, [{string, <<"q">>}]}}]}, none, none, none}
     || I <- lists:seq(1, N)].

%% @doc Memory while decoding one 16 MiB line, per value shape: the growth of
%% the VM's peak resident set (native + BEAM, /proc/self/status VmHWM), the
%% BEAM's allocation while the result is held (erlang:memory(total)) and the
%% size of the `json()' term itself (erts_debug:flat_size), each as a
%% multiple of the line. Every shape runs in a fresh VM (the peak is per
%% OS process, and a VM that already grew reuses its freed memory).
%%
%% `run/0' prints the table; `one/1' is what each child VM runs.
-module(memory_bench).
-export([run/0, one/1, shapes/0, line/2]).

-define(LINE_BYTES, 16 * 1024 * 1024).

%% Shapes, worst first by expectation: each is the smallest encoding of one
%% kind of element, repeated to fill the line.
shapes() ->
    [zeros, empty_strings, nulls, empty_objects, empty_arrays, falses, floats,
     small_objects, deep, long_string, sample].

run() ->
    io:format("~n== Memory decoding one ~b MiB line, per value shape (fresh VM each) ==~n",
              [?LINE_BYTES div 1048576]),
    io:format("~-14s ~12s ~12s ~12s ~12s~n", ["shape", "elements", "peak RSS x", "BEAM held x", "term x"]),
    Paths = lists:usort([filename:dirname(code:which(M)) || M <- [?MODULE, mcp_json, mcp_nif]]),
    Erl = filename:join([code:root_dir(), "bin", "erl"]),
    [begin
         Cmd = lists:flatten([Erl, " -noshell", [[" -pa ", P] || P <- Paths],
                              " -eval 'memory_bench:one(", atom_to_list(Shape), "), halt().'"]),
         io:format("~s", [os:cmd(Cmd)])
     end || Shape <- shapes()],
    ok.

%% Decodes the shape's line in this VM and prints one table row.
one(Shape) ->
    Line = line(Shape, ?LINE_BYTES),
    Size = byte_size(Line),
    erlang:garbage_collect(),
    RssBefore = proc_status("VmRSS"),
    reset_peak(),
    BeamBefore = erlang:memory(total),
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun() ->
        {ok, Term} = mcp_json:decode(Line),
        Self ! {held, erlang:memory(total), erts_debug:flat_size(Term) * erlang:system_info(wordsize), elements(Term)}
    end),
    receive {held, BeamAfter, TermBytes, Elements} -> ok end,
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    Peak = proc_status("VmHWM"),
    io:format("~-14s ~12b ~12.1f ~12.1f ~12.1f~n",
              [Shape, Elements, (Peak - RssBefore) / Size, (BeamAfter - BeamBefore) / Size, TermBytes / Size]).

elements({array, Items}) -> length(Items);
elements(_) -> 1.

%% Resets VmHWM to the current RSS (Linux >= 4.0), so the peak measured is
%% this decode's.
reset_peak() -> ok = file:write_file("/proc/self/clear_refs", <<"5">>).

%% A JSON line of about Bytes bytes (never more) made of one kind of value.
line(long_string, Bytes) -> <<"\"", (binary:copy(<<"x">>, Bytes - 2))/binary, "\"">>;
line(deep, Bytes) ->
    %% arrays nested max_depth() deep (the decoder's limit), repeated
    Depth = mcp_json:max_depth() - 1,
    repeat(<<(binary:copy(<<"[">>, Depth))/binary, "0", (binary:copy(<<"]">>, Depth))/binary>>, Bytes);
line(sample, Bytes) ->
    %% the mixed sample the README's first figures were taken with
    repeat(<<"{\"id\":12345,\"name\":\"caf\\u00e9\",\"score\":0.125,\"text\":\"",
             (binary:copy(<<"x">>, 200))/binary, "\"}">>, Bytes);
line(Shape, Bytes) -> repeat(element(Shape), Bytes).

element(zeros) -> <<"0">>;
element(empty_strings) -> <<"\"\"">>;
element(nulls) -> <<"null">>;
element(empty_objects) -> <<"{}">>;
element(empty_arrays) -> <<"[]">>;
element(falses) -> <<"false">>;
element(floats) -> <<"0.5">>;
element(small_objects) -> <<"{\"a\":0}">>.

%% `[Item,Item,...]' of at most Bytes bytes.
repeat(Item, Bytes) ->
    N = (Bytes - 1) div (byte_size(Item) + 1),
    Body = binary:copy(<<Item/binary, ",">>, N),
    <<"[", (binary:part(Body, 0, byte_size(Body) - 1))/binary, "]">>.

%% Bytes for a "Key:   N kB" line of /proc/self/status.
proc_status(Key) ->
    {ok, Text} = file:read_file("/proc/self/status"),
    [Line] = [L || L <- binary:split(Text, <<"\n">>, [global]), binary:match(L, list_to_binary(Key ++ ":")) =:= {0, length(Key) + 1}],
    [_, Value | _] = binary:split(Line, [<<" ">>, <<"\t">>], [global, trim_all]),
    binary_to_integer(Value) * 1024.

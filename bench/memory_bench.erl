%% @doc Memory while decoding a 16 MiB line: the growth of the VM's peak
%% resident set (native + BEAM, from /proc/self/status VmHWM) and of the
%% BEAM's own allocation (erlang:memory(total)), as multiples of the line.
-module(memory_bench).
-export([run/0]).

run() ->
    Line = sched_line(16 * 1024 * 1024),
    Size = byte_size(Line),
    erlang:garbage_collect(),
    RssBefore = proc_status("VmRSS"),
    HwmBefore = proc_status("VmHWM"),
    BeamBefore = erlang:memory(total),
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun() ->
        {ok, Term} = mcp_json:decode(Line),
        Self ! {beam_after, erlang:memory(total), erts_debug:flat_size(Term) * erlang:system_info(wordsize)}
    end),
    receive {beam_after, BeamAfter, TermBytes} -> ok end,
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    HwmAfter = proc_status("VmHWM"),
    io:format("~n== Memory decoding a ~.1f MiB line ==~n", [Size / 1048576]),
    io:format("peak RSS growth (native + BEAM): ~.2fx the line (baseline RSS ~b MiB, peak before ~b MiB)~n",
              [(HwmAfter - max(RssBefore, HwmBefore) + max(0, HwmBefore - RssBefore)) / Size,
               RssBefore div 1048576, HwmBefore div 1048576]),
    io:format("BEAM memory growth holding the result: ~.2fx the line; the json() term itself: ~.2fx~n",
              [(BeamAfter - BeamBefore) / Size, TermBytes / Size]),
    ok.

sched_line(Size) ->
    Item = <<"{\"id\":12345,\"name\":\"caf\\u00e9\",\"score\":0.125,\"text\":\"",
             (binary:copy(<<"x">>, 200))/binary, "\"},">>,
    Body = binary:copy(Item, Size div byte_size(Item)),
    <<"[", (binary:part(Body, 0, byte_size(Body) - 1))/binary, "]">>.

%% Bytes for a "Key:   N kB" line of /proc/self/status.
proc_status(Key) ->
    {ok, Text} = file:read_file("/proc/self/status"),
    [Line] = [L || L <- binary:split(Text, <<"\n">>, [global]), binary:match(L, list_to_binary(Key ++ ":")) =:= {0, length(Key) + 1}],
    [_, Value | _] = binary:split(Line, [<<" ">>, <<"\t">>], [global, trim_all]),
    binary_to_integer(Value) * 1024.

%% @doc Memory of clients on the in-process transport (`mcp_channel'): N
%% clients connected (handshake done) and idle, then one `tools/call' in
%% flight on each (the peer holds the requests until released). Figures per
%% client and per call: the growth of `erlang:memory(total)' and of the VM's
%% resident set (/proc/self/status VmRSS), and the process memory of the
%% client's actor and of a waiting caller (`process_info(_, memory)'). The
%% peer (the "server", one process per client, a minimal responder in this
%% module) is counted in the totals and shown apart.
%%
%% `run/0' runs 1,000 clients in a fresh VM; `run/1' takes the count.
-module(client_memory_bench).
-export([run/0, run/1, one/1]).

run() -> run(1000).

run(Count) ->
    Paths = lists:usort([filename:dirname(code:which(M)) || M <- [?MODULE, mcp_client, mcp_nif]]),
    Erl = filename:join([code:root_dir(), "bin", "erl"]),
    Cmd = lists:flatten([Erl, " -noshell", [[" -pa ", P] || P <- Paths],
                         " -eval 'client_memory_bench:one(", integer_to_list(Count), "), halt().'"]),
    io:format("~s", [os:cmd(Cmd)]).

%% In this VM: the table for `Count' clients.
one(Count) ->
    settle(),
    {Beam0, Rss0} = sample(),
    Clients = [start_client() || _ <- lists:seq(1, Count)],
    settle(),
    {Beam1, Rss1} = sample(),
    Actors = [actor(Client) || {Client, _Peer} <- Clients],
    Peers = [Peer || {_Client, Peer} <- Clients],
    Self = self(),
    Callers = [spawn(fun() -> Self ! {answered, self(), mcp_client:call_tool(Client, <<"echo">>, {object, []}, 60000)} end)
               || {Client, _} <- Clients],
    wait_held(Peers),
    settle(),
    {Beam2, Rss2} = sample(),
    ActorsBusy = [process_memory(A) || A <- Actors],
    CallerBytes = [process_memory(C) || C <- Callers],
    [Peer ! release || Peer <- Peers],
    Answered = [receive {answered, C, Reply} -> Reply end || C <- Callers],
    true = lists:all(fun({ok, _}) -> true; (_) -> false end, Answered),
    io:format("~n== ~b clients on mcp_channel, ~s, load average ~s ==~n", [Count, erlang:system_info(otp_release), load()]),
    io:format("| state | BEAM total growth per client | RSS growth per client | actor process (median) | waiting caller (median) | peer process (median) |~n|---|---|---|---|---|---|~n"),
    io:format("| connected, idle | ~s | ~s | ~s | | ~s |~n",
              [kib((Beam1 - Beam0) / Count), kib((Rss1 - Rss0) / Count),
               kib(median([process_memory(A) || A <- Actors])), kib(median([process_memory(P) || P <- Peers]))]),
    io:format("| one call in flight (growth per call) | ~s | ~s | ~s | ~s | |~n",
              [kib((Beam2 - Beam1) / Count), kib((Rss2 - Rss1) / Count), kib(median(ActorsBusy)), kib(median(CallerBytes))]),
    io:format("(RSS figures include the peer; the idle BEAM total of ~b clients: ~.1f MiB, their RSS growth ~.1f MiB)~n",
              [Count, (Beam1 - Beam0) / 1048576, (Rss1 - Rss0) / 1048576]),
    [mcp_client:shutdown(Client, 5000) || {Client, _} <- Clients],
    ok.

start_client() ->
    Self = self(),
    Spec = {mcp_channel, fun(Channel) ->
                                 Peer = spawn(fun() -> peer_init(Channel) end),
                                 Self ! {peer, Peer},
                                 {ok, Peer}
                         end},
    {ok, Client, _} = mcp_client:start(Spec, #{}),
    Peer = receive {peer, P} -> P end,
    {Client, Peer}.

%% The client's actor (the handle is opaque to callers; a benchmark looks in).
actor(Client) -> element(2, Client).

process_memory(Pid) ->
    {memory, Bytes} = erlang:process_info(Pid, memory),
    Bytes.

%% Every peer holds its client's call.
wait_held(Peers) ->
    [begin Peer ! {held, self()}, receive {held, Peer, true} -> ok end end || Peer <- Peers],
    ok.

%% ---- the peer: answers the handshake, holds tools/call until released

peer_init(Channel) ->
    erlang:monitor(process, mcp_channel:client(Channel)),
    peer(Channel, <<>>, [], none).

peer(Channel, Pending, Held, Asker) ->
    receive
        {mcp_channel, _, {bytes, Bytes}} ->
            [Rest | Lines] = lists:reverse(binary:split(<<Pending/binary, Bytes/binary>>, <<"\n">>, [global])),
            NewHeld = lists:foldl(fun(Line, Acc) -> answer(Channel, Line, Acc) end, Held, lists:reverse(Lines)),
            tell(Asker, NewHeld),
            peer(Channel, Rest, NewHeld, case NewHeld of [] -> Asker; _ -> none end);
        {held, From} when Held =/= [] ->
            From ! {held, self(), true},
            peer(Channel, Pending, Held, none);
        {held, From} ->
            peer(Channel, Pending, Held, From);
        release ->
            [mcp_channel:write(Channel, line(Id, text_result())) || Id <- Held],
            peer(Channel, Pending, [], Asker);
        {'DOWN', _, process, _, _} ->
            ok
    end.

tell(none, _) -> ok;
tell(_, []) -> ok;
tell(Asker, _) -> Asker ! {held, self(), true}.

answer(Channel, Line, Held) ->
    {ok, {object, Members}} = mcp_json:decode(Line),
    case {lists:keyfind(<<"id">>, 1, Members), lists:keyfind(<<"method">>, 1, Members)} of
        {{_, Id}, {_, {string, <<"initialize">>}}} ->
            mcp_channel:write(Channel, line(Id, initialize_result())),
            Held;
        {{_, Id}, {_, {string, <<"tools/call">>}}} ->
            [Id | Held];
        {{_, Id}, {_, {string, _}}} ->
            mcp_channel:write(Channel, line(Id, {object, []})),
            Held;
        _ ->
            Held
    end.

line(Id, Result) ->
    [mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id}, {<<"result">>, Result}]}), $\n].

initialize_result() ->
    {object, [{<<"protocolVersion">>, {string, <<"2025-06-18">>}},
              {<<"capabilities">>, {object, [{<<"tools">>, {object, []}}]}},
              {<<"serverInfo">>, {object, [{<<"name">>, {string, <<"bench">>}}, {<<"version">>, {string, <<"1">>}}]}}]}.

text_result() ->
    {object, [{<<"content">>, {array, [{object, [{<<"type">>, {string, <<"text">>}}, {<<"text">>, {string, <<"ok">>}}]}]}}]}.

%% ---- measurement

settle() ->
    [erlang:garbage_collect(P) || P <- erlang:processes()],
    timer:sleep(200).

sample() -> {erlang:memory(total), rss()}.

rss() ->
    {ok, Text} = file:read_file("/proc/self/status"),
    [Line] = [L || L <- binary:split(Text, <<"\n">>, [global]), binary:match(L, <<"VmRSS:">>) =/= nomatch],
    [_, Kb | _] = binary:split(Line, [<<" ">>, <<"\t">>], [global, trim_all]),
    binary_to_integer(Kb) * 1024.

load() ->
    {ok, Text} = file:read_file("/proc/loadavg"),
    lists:join(" ", lists:sublist(binary:split(Text, <<" ">>, [global]), 3)).

median(Values) ->
    Sorted = lists:sort(Values),
    lists:nth((length(Sorted) + 1) div 2, Sorted).

kib(Bytes) -> io_lib:format("~.1f KiB", [Bytes / 1024]).

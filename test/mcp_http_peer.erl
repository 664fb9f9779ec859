%% @doc Test helper: a real MCP server listening on a free loopback port,
%% started as an OS process behind a port (so its exit is seen), and killed
%% with its process group at the end (`stop/1' fails when it cannot
%% prove the server gone). Either the test picks the port (`start/2') or
%% the server binds one and announces its URL (`start_announced/2').
-module(mcp_http_peer).

-export([start/2, start_announced/2, start_announced/3, url/1, os_pid/1, stop/1, free_port/0]).

-define(READY_MS, 30000).

%% @doc Starts `Executable Args' with `PORT' (and `{port}' in `Args')
%% set to a free port; returns once the port accepts connections.
start(Executable, Args) ->
    Port = free_port(),
    PortText = integer_to_list(Port),
    Expanded = [case Arg of port -> PortText; _ -> Arg end || Arg <- Args],
    Peer = (spawn_peer(Executable, Expanded, [{"PORT", PortText}]))#{port => Port},
    case await_listening(Port, ready_deadline()) of
        ok -> Peer;
        timeout -> stop(Peer), error({peer_not_listening, Executable, Args})
    end.

%% @doc Starts `Executable Args', a server that binds a port of its own
%% choice and then prints a line `listening URL' (other output may come
%% before it); returns once that line is read.
start_announced(Executable, Args) ->
    start_announced(Executable, Args, []).

%% @doc `start_announced/2' with `Env' added to the server's environment
%% (where a test puts what must not be on an argv: a secret).
start_announced(Executable, Args, Env) ->
    Peer = spawn_peer(Executable, Args, Env),
    case await_announcement(Peer, <<>>, ready_deadline()) of
        {ok, Url} -> Peer#{url => Url};
        {exited, Status, Output} -> error({peer_exited, Status, Executable, Args, Output});
        {timeout, Output} -> stop(Peer), error({peer_not_announced, Executable, Args, Output})
    end.

url(#{url := Url}) -> Url;
url(#{port := Port}) -> "http://127.0.0.1:" ++ integer_to_list(Port) ++ "/mcp".

os_pid(#{os_pid := OsPid}) -> OsPid.

spawn_peer(Executable, Args, Env) ->
    Process = open_port({spawn_executable, Executable},
                        [{args, Args}, {env, Env}, exit_status, use_stdio,
                         stderr_to_stdout, binary, hide]),
    {os_pid, OsPid} = erlang:port_info(Process, os_pid),
    #{process => Process, os_pid => OsPid}.

ready_deadline() -> erlang:monotonic_time(millisecond) + ?READY_MS.

stop(#{process := Process, os_pid := OsPid}) ->
    _ = os:cmd("kill -s KILL -- -" ++ integer_to_list(OsPid) ++ " " ++ integer_to_list(OsPid) ++ " 2>/dev/null"),
    %% The exit status is the proof the server is gone; without it the
    %% server would outlive the suite, so its absence fails the test.
    receive {Process, {exit_status, _}} -> ok
    after 5000 -> catch port_close(Process), error({peer_outlived_kill, OsPid})
    end,
    flush(Process).

%% The server's output, collected by the port's owner, must not outlive
%% the peer in that process's mailbox (eunit reuses it for later tests).
flush(Process) ->
    receive {Process, _} -> flush(Process) after 0 -> ok end.

free_port() ->
    {ok, Listen} = gen_tcp:listen(0, [{ip, {127, 0, 0, 1}}]),
    {ok, Port} = inet:port(Listen),
    ok = gen_tcp:close(Listen),
    Port.

%% The output so far is kept whole until the announcement's line is
%% complete (a test server says little before it).
await_announcement(#{process := Process} = Peer, Output, Deadline) ->
    case re:run(Output, "^listening (http://\\S+)\r?\n", [multiline, {capture, all_but_first, list}]) of
        {match, [Url]} -> {ok, Url};
        nomatch ->
            receive
                {Process, {data, Bytes}} -> await_announcement(Peer, <<Output/binary, Bytes/binary>>, Deadline);
                {Process, {exit_status, Status}} -> flush(Process), {exited, Status, Output}
            after max(0, Deadline - erlang:monotonic_time(millisecond)) -> {timeout, Output}
            end
    end.

await_listening(Port, Deadline) ->
    case gen_tcp:connect({127, 0, 0, 1}, Port, [], 200) of
        {ok, Socket} ->
            gen_tcp:close(Socket),
            ok;
        {error, _} ->
            case erlang:monotonic_time(millisecond) > Deadline of
                true -> timeout;
                false -> timer:sleep(50), await_listening(Port, Deadline)
            end
    end.

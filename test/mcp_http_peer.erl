%% @doc Test helper: a real MCP server listening on a free loopback port,
%% started as an OS process behind a port (so its exit is seen), and killed
%% with its process group at the end (`stop/1' fails when it cannot
%% prove the server gone).
-module(mcp_http_peer).

-export([start/2, url/1, stop/1, free_port/0]).

-define(READY_MS, 30000).

%% @doc Starts `Executable Args' with `PORT' (and `{port}' in `Args')
%% set to a free port; returns once the port accepts connections.
start(Executable, Args) ->
    Port = free_port(),
    PortText = integer_to_list(Port),
    Expanded = [case Arg of port -> PortText; _ -> Arg end || Arg <- Args],
    Process = open_port({spawn_executable, Executable},
                        [{args, Expanded}, {env, [{"PORT", PortText}]}, exit_status, use_stdio,
                         stderr_to_stdout, binary, hide]),
    {os_pid, OsPid} = erlang:port_info(Process, os_pid),
    Peer = #{port => Port, process => Process, os_pid => OsPid},
    case await_listening(Port, erlang:monotonic_time(millisecond) + ?READY_MS) of
        ok -> Peer;
        timeout -> stop(Peer), error({peer_not_listening, Executable, Args})
    end.

url(#{port := Port}) -> "http://127.0.0.1:" ++ integer_to_list(Port) ++ "/mcp".

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

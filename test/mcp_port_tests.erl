%% `mcp_port': spawning (argv, env, cd, PATH lookup), the byte stream, and
%% termination that keeps the port's exit status as its only proof. Every
%% test checks by OS pid that no child is left behind.
-module(mcp_port_tests).

-include_lib("eunit/include/eunit.hrl").

-define(TIMEOUT, 5000).

open(Spawn) ->
    {ok, Conn} = mcp_transport:open(Spawn, self()),
    {ok, OsPid} = mcp_transport:os_pid(Conn),
    {Conn, OsPid}.

%% Every event of the connection until it closes: {Output, Evidence}, the
%% output being the lines received, each with its newline.
drain(Conn) -> drain(Conn, <<>>).

drain(Conn, Output) ->
    receive
        Message ->
            case mcp_transport:event(Conn, Message) of
                {ok, Events, Next} ->
                    Lines = << <<Line/binary, "\n">> || {message, _, Line} <- Events >>,
                    case [Evidence || {closed, Evidence} <- Events] of
                        [Evidence] -> {<<Output/binary, Lines/binary>>, Evidence};
                        [] -> drain(Next, <<Output/binary, Lines/binary>>)
                    end;
                not_mine -> drain(Conn, Output)
            end
    after ?TIMEOUT ->
            error({no_exit_status, Output})
    end.

%% `kill -0' on the pid: is the OS process still there?
os_alive(OsPid) ->
    os:cmd("kill -0 " ++ integer_to_list(OsPid) ++ " 2>/dev/null && echo alive") =:= "alive\n".

%% The test process owns the port, so it is linked to it: trap its exit
%% while `Fun' runs, then drop the port's exit messages and restore the flag.
trapping_port_exits(Fun) ->
    Old = process_flag(trap_exit, true),
    try Fun()
    after
        flush_port_exits(),
        process_flag(trap_exit, Old)
    end.

flush_port_exits() ->
    receive {'EXIT', Port, _} when is_port(Port) -> flush_port_exits() after 0 -> ok end.

echo_until_killed_test() ->
    trapping_port_exits(fun echo_until_killed/0).

echo_until_killed() ->
    {Conn, OsPid} = open(#{executable => "cat"}),
    ?assert(os_alive(OsPid)),
    ok = mcp_transport:send(Conn, [<<"ping">>]),
    {[{message, 0, <<"ping">>}], _} = receive_event(Conn),
    ok = mcp_transport:terminate(Conn),
    ?assertEqual({<<>>, {exit_status, 128 + 9}}, drain(Conn)),
    ?assertNot(os_alive(OsPid)),
    %% The port is gone with the child: a write now fails, it does not raise.
    receive {'EXIT', Port, normal} when is_port(Port) -> ok end,
    ?assertEqual({error, closed}, mcp_transport:send(Conn, [<<"late">>])).

receive_event(Conn) ->
    receive
        Message ->
            case mcp_transport:event(Conn, Message) of
                {ok, Events, Next} -> {Events, Next};
                not_mine -> receive_event(Conn)
            end
    after ?TIMEOUT -> error(no_event)
    end.

args_are_argv_not_a_shell_string_test() ->
    {Conn, OsPid} = open(#{executable => "printf", args => [<<"%s|%s\n">>, "a b", <<"$HOME;">>]}),
    ?assertEqual({<<"a b|$HOME;\n">>, {exit_status, 0}}, drain(Conn)),
    ?assertNot(os_alive(OsPid)).

env_without_inheritance_is_exactly_the_given_pairs_test() ->
    {Conn, _} = open(#{executable => "/usr/bin/env", inherit_env => false,
                       env => [{<<"MCP_ONE">>, <<"1">>}, {"MCP_TWO", "2"}]}),
    {Output, {exit_status, 0}} = drain(Conn),
    ?assertEqual([<<"MCP_ONE=1">>, <<"MCP_TWO=2">>],
                 lists:sort(binary:split(Output, <<"\n">>, [global, trim_all]))).

env_false_unsets_an_inherited_variable_test() ->
    os:putenv("MCP_PORT_TEST_VAR", "inherited"),
    {Conn, _} = open(#{executable => "/usr/bin/env", env => [{"MCP_PORT_TEST_VAR", false}]}),
    {Output, {exit_status, 0}} = drain(Conn),
    os:unsetenv("MCP_PORT_TEST_VAR"),
    ?assertEqual(nomatch, binary:match(Output, <<"MCP_PORT_TEST_VAR">>)),
    ?assertNotEqual(nomatch, binary:match(Output, <<"PATH=">>)).

cd_sets_the_working_directory_test() ->
    {Conn, _} = open(#{executable => "pwd", cd => <<"/">>}),
    ?assertEqual({<<"/\n">>, {exit_status, 0}}, drain(Conn)).

stderr_is_not_merged_into_stdout_test() ->
    {Conn, _} = open(#{executable => "/bin/sh",
                       args => ["-c", "echo out; echo 'mcp_port_tests: expected stderr line' >&2"]}),
    ?assertEqual({<<"out\n">>, {exit_status, 0}}, drain(Conn)).

missing_executables_test() ->
    ?assertEqual({error, {executable_not_found, "no-such-executable-here"}},
                 mcp_transport:open(#{executable => "no-such-executable-here"}, self())),
    ?assertEqual({error, {executable_not_found, <<"/no/such/path">>}},
                 mcp_transport:open(#{executable => <<"/no/such/path">>}, self())),
    ?assertEqual({error, {executable_not_found, ""}},
                 mcp_transport:open(#{executable => ""}, self())).

path_lookup_matches_os_find_executable_test() ->
    ?assertEqual({ok, os:find_executable("sh")}, mcp_port:resolve_executable(<<"sh">>)),
    ?assertEqual({ok, "/bin/sh"}, mcp_port:resolve_executable("/bin/sh")).

a_child_that_never_reads_makes_writes_fail_not_block_test_() ->
    {timeout, 60, fun() -> trapping_port_exits(fun() ->
        {Conn, OsPid} = open(#{executable => "sleep", args => ["30"]}),
        Chunk = binary:copy(<<"x">>, 1048576),
        Limit = mcp_port:max_queue_bytes() div byte_size(Chunk) + 2,
        Results = write_until_refused(Conn, Chunk, Limit),
        ?assertEqual({error, busy}, lists:last(Results)),
        ?assert(length(Results) =< Limit),
        ok = mcp_transport:terminate(Conn),
        %% Usually the queued bytes meet the closed pipe first: the port dies
        %% of `epipe' before it can report the exit status, so there is no
        %% proof. Under load the exit status can win that race instead; then
        %% it is the proof. Never anything else, and never success without it.
        {<<>>, Evidence} = drain(Conn),
        ?assert(lists:member(Evidence, [{unconfirmed, {port_exited, epipe}}, {exit_status, 137}])),
        ?assertNot(os_alive(OsPid))
    end) end}.

write_until_refused(_Conn, _Chunk, 0) -> [];
write_until_refused(Conn, Chunk, Left) ->
    case mcp_transport:send(Conn, [Chunk]) of
        ok -> [ok | write_until_refused(Conn, Chunk, Left - 1)];
        Refused -> [Refused]
    end.

%% The whole client over a real port: the child is `cat', which echoes the
%% client's own `initialize' back as a server request; the client refuses it
%% with -32601, `cat' echoes that back as the response to id 1, and the
%% handshake fails with that server error. The child is killed and witnessed.
client_handshake_against_cat_test() ->
    {ok, Client} = mcp_client:prepare(#{executable => "cat"}, #{}),
    ?assertMatch({error, {handshake_failed, {server_error, {rpc_error, -32601, _, none}}}},
                 mcp_client:connect(Client)),
    ?assertEqual({ok, {exited, 137}}, mcp_client:shutdown(Client, ?TIMEOUT)).

%% A child that never answers: retiring the client mid-handshake answers the
%% connecting caller, kills the child and reports its witnessed exit.
client_kills_and_witnesses_its_child_test() ->
    {ok, Client} = mcp_client:prepare(#{executable => "sleep", args => ["30"]}, #{}),
    ?assertEqual(none, mcp_client:os_pid(Client)),
    Self = self(),
    spawn(fun() -> Self ! {connected, mcp_client:connect(Client)} end),
    OsPid = wait_for_os_pid(Client, 500),
    ?assert(os_alive(OsPid)),
    ?assertEqual({ok, {exited, 137}}, mcp_client:shutdown(Client, ?TIMEOUT)),
    receive {connected, Result} ->
            ?assertEqual({error, {handshake_failed, {unavailable, retired}}}, Result)
    end,
    ?assertNot(os_alive(OsPid)).

wait_for_os_pid(_Client, 0) -> error(no_os_pid);
wait_for_os_pid(Client, Tries) ->
    case mcp_client:os_pid(Client) of
        {ok, OsPid} -> OsPid;
        none -> receive after 10 -> wait_for_os_pid(Client, Tries - 1) end
    end.

client_sees_a_child_exit_on_its_own_test() ->
    Spawn = #{executable => "/bin/sh", args => ["-c", "read line; exit 7"]},
    {ok, Client} = mcp_client:prepare(Spawn, #{}),
    ?assertEqual({error, {handshake_failed, {unavailable, {transport_ended, {exit_status, 7}}}}},
                 mcp_client:connect(Client)),
    ?assertEqual({ok, {exited, 7}}, mcp_client:shutdown(Client, ?TIMEOUT)).

%% The custodian dies while the client is connecting to a child that never
%% answers: the actor kills the child and stops only once its exit is proven.
custodian_death_kills_the_child_before_the_actor_stops_test() ->
    Custodian = spawn(fun() -> receive go -> ok end end),
    {ok, Client} = mcp_client:prepare_owned(#{executable => "sleep", args => ["30"]}, #{}, Custodian),
    Self = self(),
    spawn(fun() -> Self ! {connected, mcp_client:connect(Client)} end),
    OsPid = wait_for_os_pid(Client, 500),
    ActorMonitor = erlang:monitor(process, element(2, Client)),
    Custodian ! go,
    receive {'DOWN', ActorMonitor, process, _, Reason} -> ?assertEqual(normal, Reason) end,
    ?assertNot(os_alive(OsPid)),
    receive {connected, Result} ->
            ?assertEqual({error, {handshake_failed, {unavailable, custodian_down}}}, Result)
    end.

malformed_spawn_specs_fail_the_connect_not_the_actor_test() ->
    [begin
         {ok, Client} = mcp_client:prepare(Spec, #{}),
         ?assertMatch({error, {transport_failed, _}}, mcp_client:connect(Client)),
         ?assertEqual({ok, no_resource}, mcp_client:shutdown(Client, ?TIMEOUT))
     end || Spec <- [#{executable => 42}, #{executable => "sh", args => [not_a_string]},
                     #{executable => "sh", env => [{"A"}]}, {no_such_module, x}]].

%% Whether `Fun' runs `kill' (through `os:cmd'), seen by call tracing.
runs_kill(Fun) ->
    Self = self(),
    Collector = spawn(fun() -> collect_traces(Self, []) end),
    erlang:trace_pattern({os, cmd, '_'}, true, [global]),
    erlang:trace(self(), true, [call, {tracer, Collector}]),
    try Fun()
    after
        erlang:trace(self(), false, [call]),
        erlang:trace_pattern({os, cmd, '_'}, false, [global])
    end,
    Delivered = erlang:trace_delivered(self()),
    receive {trace_delivered, _, Delivered} -> ok end,
    Collector ! {done, self()},
    Commands = receive {traced, Traced} -> Traced end,
    lists:any(fun(Command) -> lists:prefix("kill -KILL ", Command) end, Commands).

collect_traces(Owner, Commands) ->
    receive
        {trace, Owner, call, {os, cmd, [Command | _]}} -> collect_traces(Owner, [Command | Commands]);
        {done, Owner} -> Owner ! {traced, Commands}
    end.

signal_only_while_no_exit_status_has_arrived_test() ->
    trapping_port_exits(fun() ->
        %% A live child: SIGKILL is sent.
        {Live, LivePid} = open(#{executable => "sleep", args => ["30"]}),
        ?assert(runs_kill(fun() -> mcp_transport:terminate(Live) end)),
        ?assertEqual({<<>>, {exit_status, 137}}, drain(Live)),
        ?assertNot(os_alive(LivePid)),
        %% An exited child whose exit status waits unread in the mailbox:
        %% no signal, whether or not the port has closed yet.
        {Exited, _} = open(#{executable => "true"}),
        wait_for_message(fun({_, {exit_status, 0}}) -> true; (_) -> false end),
        ?assertNot(runs_kill(fun() -> mcp_transport:terminate(Exited) end)),
        ?assertEqual({<<>>, {exit_status, 0}}, drain(Exited))
    end).

wait_for_message(Pred) ->
    {messages, Messages} = process_info(self(), messages),
    case lists:any(Pred, Messages) of
        true -> ok;
        false -> receive after 5 -> wait_for_message(Pred) end
    end.

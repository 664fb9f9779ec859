%% `mcp_port': spawning (argv, env and its allow-list, cd, PATH lookup), the
%% byte stream, exit statuses read as `{status, N}' / `{signal, N}', and
%% termination of the child's process group that keeps the port's exit
%% status as its only proof. Every test checks by OS pid that no child is
%% left behind; `mcp_launcher_tests' checks whole process trees.
-module(mcp_port_tests).

-include_lib("eunit/include/eunit.hrl").

-export([open/1, drain/1, trapping_port_exits/1]).

-define(TIMEOUT, 5000).

open(Spawn) ->
    {ok, Conn} = mcp_transport:open(Spawn, self()),
    {ok, OsPid} = mcp_transport:os_pid(Conn),
    {Conn, OsPid}.

%% Every event of the connection until it closes: {Output, Evidence}, the
%% output being the lines received, each with its newline.
drain(Conn) ->
    Events = events(Conn),
    [Evidence] = [Evidence || {closed, Evidence} <- Events],
    {<< <<Line/binary, "\n">> || {message, _, Line} <- Events >>, Evidence}.

%% Every event until the connection closes, in order.
events(Conn) -> events(Conn, []).

events(Conn, Seen) ->
    receive
        Message ->
            case mcp_transport:event(Conn, Message) of
                {ok, Events, Next} ->
                    case [closed || {closed, _} <- Events] of
                        [] -> events(Next, Seen ++ Events);
                        _ -> Seen ++ Events
                    end;
                not_mine -> events(Conn, Seen)
            end
    after ?TIMEOUT ->
            error({no_exit_status, Seen})
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
    ?assertEqual({<<>>, {exited, {signal, 9}}}, drain(Conn)),
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
    ?assertEqual({<<"a b|$HOME;\n">>, {exited, {status, 0}}}, drain(Conn)),
    ?assertNot(os_alive(OsPid)).

%% The names and values a child sees in its environment (`env' prints it).
child_env(Spawn) ->
    {Conn, _} = open(Spawn#{executable => "/usr/bin/env"}),
    {Output, {exited, {status, 0}}} = drain(Conn),
    [list_to_tuple(string:split(Line, "=")) || Line <- string:lexemes(binary_to_list(Output), "\n")].

%% Runs `Fun' with the VM's variables `Vars' set, restoring them after.
with_vm_env(Vars, Fun) ->
    Old = [{Name, os:getenv(Name)} || {Name, _} <- Vars],
    [os:putenv(Name, Value) || {Name, Value} <- Vars],
    try Fun()
    after
        [case Value of false -> os:unsetenv(Name); _ -> os:putenv(Name, Value) end
         || {Name, Value} <- Old]
    end.

%% A variable of the VM (a harness's secret) is not handed to a default
%% child; an allow-listed one is; the runtime's own (`BINDIR', `ROOTDIR')
%% are not; the child sees nothing outside the allow-list but what the spec
%% gives.
default_env_is_the_allow_list_plus_the_given_pairs_test() ->
    with_vm_env([{"MCP_SECRET_PROBE", "vm-secret"}, {"LC_IDENTIFICATION", "C"}], fun() ->
        Env = child_env(#{env => [{<<"MCP_GIVEN">>, <<"1">>}]}),
        Names = [Name || {Name, _} <- Env],
        ?assertNot(lists:member("MCP_SECRET_PROBE", Names)),
        ?assertNot(lists:member("BINDIR", Names)),
        ?assertEqual([], Names -- ["MCP_GIVEN" | mcp_port:inherited_env_names()]),
        ?assertEqual({"PATH", os:getenv("PATH")}, lists:keyfind("PATH", 1, Env)),
        ?assertEqual({"LC_IDENTIFICATION", "C"}, lists:keyfind("LC_IDENTIFICATION", 1, Env)),
        ?assertEqual({"MCP_GIVEN", "1"}, lists:keyfind("MCP_GIVEN", 1, Env)),
        ?assertEqual(Env, child_env(#{inherit_env => false, env => [{<<"MCP_GIVEN">>, <<"1">>}]}))
    end).

vm_variable_reaches_the_child_only_when_opted_in_test() ->
    with_vm_env([{"MCP_SECRET_PROBE", "vm-secret"}], fun() ->
        ?assertEqual(false, lists:keyfind("MCP_SECRET_PROBE", 1, child_env(#{}))),
        ?assertEqual({"MCP_SECRET_PROBE", "vm-secret"},
                     lists:keyfind("MCP_SECRET_PROBE", 1, child_env(#{inherit_env => true}))),
        ?assertEqual({"MCP_SECRET_PROBE", "given"},
                     lists:keyfind("MCP_SECRET_PROBE", 1,
                                   child_env(#{env => [{"MCP_SECRET_PROBE", "given"}]})))
    end).

env_false_unsets_an_inherited_variable_test() ->
    with_vm_env([{"MCP_PORT_TEST_VAR", "inherited"}], fun() ->
        Env = child_env(#{inherit_env => true, env => [{"MCP_PORT_TEST_VAR", false}]}),
        ?assertEqual(false, lists:keyfind("MCP_PORT_TEST_VAR", 1, Env)),
        ?assertMatch({"PATH", _}, lists:keyfind("PATH", 1, Env)),
        %% An allow-listed variable is unset the same way.
        ?assertEqual(false, lists:keyfind("PATH", 1, child_env(#{env => [{"PATH", false}]})))
    end).

cd_sets_the_working_directory_test() ->
    {Conn, _} = open(#{executable => "pwd", cd => <<"/">>}),
    ?assertEqual({<<"/\n">>, {exited, {status, 0}}}, drain(Conn)).

stderr_is_not_merged_into_stdout_test() ->
    {Conn, _} = open(#{executable => "/bin/sh",
                       args => ["-c", "echo out; echo 'mcp_port_tests: expected stderr line' >&2"]}),
    ?assertEqual({<<"out\n">>, {exited, {status, 0}}}, drain(Conn)).

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
        %% of `epipe' before it can report the exit status, and the child's
        %% watch witnesses the exit instead (the status is lost with the
        %% port). Under load the exit status can win that race; then it is
        %% the proof. Proof either way, never uncertainty.
        {<<>>, Evidence} = drain(Conn),
        ?assert(lists:member(Evidence, [{exited, unknown}, {exited, {signal, 9}}])),
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
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?TIMEOUT)).

%% A child that never answers: retiring the client mid-handshake answers the
%% connecting caller, kills the child and reports its witnessed exit.
client_kills_and_witnesses_its_child_test() ->
    {ok, Client} = mcp_client:prepare(#{executable => "sleep", args => ["30"]}, #{}),
    ?assertEqual(none, mcp_client:os_pid(Client)),
    Self = self(),
    spawn(fun() -> Self ! {connected, mcp_client:connect(Client)} end),
    OsPid = wait_for_os_pid(Client, 500),
    ?assert(os_alive(OsPid)),
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
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
    ?assertEqual({error, {handshake_failed, {unavailable, {transport_ended, {exited, {status, 7}}}}}},
                 mcp_client:connect(Client)),
    ?assertEqual({ok, {exited, {status, 7}}}, mcp_client:shutdown(Client, ?TIMEOUT)).

%% The custodian dies while the client is connecting to a child that never
%% answers: the actor kills the child and stops only once its exit is proven.
custodian_death_kills_the_child_before_the_actor_stops_test() ->
    Custodian = spawn(fun() -> receive go -> ok end end),
    {ok, Client} = mcp_client:prepare_owned(#{executable => "sleep", args => ["30"]}, #{}, Custodian),
    Self = self(),
    spawn(fun() -> Self ! {connected, mcp_client:connect(Client)} end),
    OsPid = wait_for_os_pid(Client, 500),
    ActorMonitor = erlang:monitor(process, mcp_client:pid(Client)),
    Custodian ! go,
    receive {'DOWN', ActorMonitor, process, _, Reason} -> ?assertEqual(normal, Reason) end,
    ?assertNot(os_alive(OsPid)),
    receive {connected, Result} ->
            ?assertEqual({error, {handshake_failed, {unavailable, custodian_down}}}, Result)
    end.

%% Spawn specs outside mcp_transport:spec(), on purpose.
-dialyzer({no_return, malformed_spawn_specs_fail_the_connect_not_the_actor_test/0}).
malformed_spawn_specs_fail_the_connect_not_the_actor_test() ->
    [begin
         {ok, Client} = mcp_client:prepare(Spec, #{}),
         ?assertMatch({error, {transport_failed, _}}, mcp_client:connect(Client)),
         ?assertEqual({ok, no_resource}, mcp_client:shutdown(Client, ?TIMEOUT))
     end || Spec <- [#{executable => 42}, #{executable => "sh", args => [not_a_string]},
                     #{executable => "sh", env => [{"A"}]}, #{executable => "sh", inherit_env => yes},
                     {no_such_module, x}]].

%% The command mcp_port runs to send `Signal' to a child's group and to it.
kill(Signal, OsPid) ->
    Pid = integer_to_list(OsPid),
    "kill -s " ++ Signal ++ " -- -" ++ Pid ++ " " ++ Pid ++ " 2>/dev/null".

%% The `kill' commands `Fun' runs (through `os:cmd'), in order, seen by
%% call tracing.
kill_commands(Fun) ->
    {Commands, _} = kill_commands_and_result(Fun),
    Commands.

kill_commands_and_result(Fun) ->
    Self = self(),
    Collector = spawn(fun() -> collect_traces(Self, []) end),
    erlang:trace_pattern({os, cmd, '_'}, true, [global]),
    erlang:trace(self(), true, [call, {tracer, Collector}]),
    Result = try Fun()
    after
        erlang:trace(self(), false, [call]),
        erlang:trace_pattern({os, cmd, '_'}, false, [global])
    end,
    Delivered = erlang:trace_delivered(self()),
    receive {trace_delivered, _, Delivered} -> ok end,
    Collector ! {done, self()},
    Commands = receive {traced, Traced} -> Traced end,
    {[Command || Command <- lists:reverse(Commands), lists:prefix("kill ", Command)], Result}.

collect_traces(Owner, Commands) ->
    receive
        {trace, Owner, call, {os, cmd, [Command | _]}} -> collect_traces(Owner, [Command | Commands]);
        {done, Owner} -> Owner ! {traced, Commands}
    end.

signal_only_while_no_exit_status_has_arrived_test() ->
    trapping_port_exits(fun() ->
        %% A live child: SIGKILL is sent to its group and to it.
        {Live, LivePid} = open(#{executable => "sleep", args => ["30"]}),
        ?assertEqual([kill("KILL", LivePid)],
                     kill_commands(fun() -> mcp_transport:terminate(Live) end)),
        ?assertEqual({<<>>, {exited, {signal, 9}}}, drain(Live)),
        ?assertNot(os_alive(LivePid)),
        %% An exited child whose exit status waits unread in the mailbox:
        %% no signal, whether or not the port has closed yet.
        {Exited, _} = open(#{executable => "true"}),
        wait_for_message(fun({_, {exit_status, 0}}) -> true; (_) -> false end),
        ?assertEqual([], kill_commands(fun() -> mcp_transport:terminate(Exited) end)),
        ?assertEqual({<<>>, {exited, {status, 0}}}, drain(Exited))
    end).

%% The child exits on its own and leaves a member of its group running (its
%% stdout redirected, so the port sees EOF and the exit status): after that
%% status neither the group nor the pid is signalled, and the member lives
%% on (the operator's concern, see docs/server-processes.md); the test
%% kills it itself.
no_group_signal_after_the_exit_status_test() ->
    trapping_port_exits(fun() ->
        {Conn, _} = open(#{executable => "/bin/sh",
                           args => ["-c", "sleep 30 </dev/null >/dev/null 2>&1 & echo $!"]}),
        {Output, Evidence} = drain(Conn),
        ?assertEqual({exited, {status, 0}}, Evidence),
        Member = list_to_integer(string:trim(binary_to_list(Output))),
        ?assertEqual([], kill_commands(fun() -> mcp_transport:terminate(Conn) end)),
        ?assert(os_alive(Member)),
        _ = os:cmd("kill -s KILL " ++ integer_to_list(Member)),
        wait_until_gone(Member, 500)
    end).

wait_until_gone(OsPid, 0) -> error({still_alive, OsPid});
wait_until_gone(OsPid, Tries) ->
    case os_alive(OsPid) of
        true -> receive after 10 -> wait_until_gone(OsPid, Tries - 1) end;
        false -> ok
    end.

%% The port reports an exit code as is and a death by signal N as 128 + N;
%% 129..192 read as signals, both sides of both edges pinned with real
%% children (a child that exits with 130 on its own reads as SIGINT: the
%% documented ambiguity).
exit_status_reads_as_status_or_signal_test() ->
    Cases = [{"exit 7", {status, 7}}, {"exit 128", {status, 128}},
             {"exit 129", {signal, 1}}, {"exit 130", {signal, 2}},
             {"kill -s TERM $$", {signal, 15}}, {"kill -s KILL $$", {signal, 9}},
             {"exit 192", {signal, 64}}, {"exit 193", {status, 193}}, {"exit 255", {status, 255}}],
    [begin
         {Conn, _} = open(#{executable => "/bin/sh", args => ["-c", Script]}),
         ?assertEqual({Script, {<<>>, {exited, Cause}}}, {Script, drain(Conn)})
     end || {Script, Cause} <- Cases].

wait_for_message(Pred) ->
    {messages, Messages} = process_info(self(), messages),
    case lists:any(Pred, Messages) of
        true -> ok;
        false -> receive after 5 -> wait_for_message(Pred) end
    end.

%% `max_line_bytes' in the spec lowers the line cap: a line of exactly the
%% cap is delivered; a line a byte longer is the framing fault, nothing
%% after it is delivered (a chunk holding it delivers nothing: the stream is
%% broken), and the exit status still arrives.
max_line_bytes_caps_the_lines_test() ->
    trapping_port_exits(
      fun() ->
              Capped = fun(Script) ->
                               {Conn, _} = open(#{executable => "/bin/sh", args => ["-c", Script],
                                                  max_line_bytes => 10}),
                               events(Conn)
                       end,
              ?assertEqual([{message, 0, <<"0123456789">>}, {closed, {exited, {status, 0}}}],
                           Capped("printf '0123456789\\n'")),
              ?assertEqual([{fault, {line_too_long, 11}}, {closed, {exited, {status, 0}}}],
                           Capped("printf '01234567890\\nok\\n'"))
      end).

%% A cap outside 1..mcp_stdio:max_line_bytes(), or a grace outside
%% 0..max_shutdown_grace_ms(), fails the open before any process is spawned.
bad_spawn_limits_spawn_nothing_test() ->
    Before = erlang:ports(),
    [?assertMatch({error, {bad_transport_spec, {mcp_port, badarg}}},
                  mcp_transport:open(maps:merge(#{executable => "cat"}, Bad), self()))
     || Bad <- [#{max_line_bytes => 0}, #{max_line_bytes => mcp_stdio:max_line_bytes() + 1},
                #{max_line_bytes => "10"}, #{shutdown_grace_ms => -1},
                #{shutdown_grace_ms => mcp_port:max_shutdown_grace_ms() + 1}, #{shutdown_grace_ms => 1.0}]],
    ?assertEqual(Before, erlang:ports()).

%% ---- shutdown grace ----

%% A shell child with a grace, that answers SIGTERM with `Trap' once it
%% printed "ready"; terminated once it is ready, then drained.
graced_shell(Trap, Grace) ->
    open(#{executable => "/bin/sh", shutdown_grace_ms => Grace,
           args => ["-c", "exec 2>/dev/null; trap " ++ Trap ++ " TERM; echo ready; while :; do sleep 0.05; done"]}).

terminated_when_ready(Conn) ->
    receive
        Message ->
            {ok, [{message, _, <<"ready">>}], _} = mcp_transport:event(Conn, Message)
    after ?TIMEOUT -> error(not_ready)
    end,
    {ok, Graced} = mcp_transport:terminate(Conn),
    drain(Graced).

%% With a grace, termination is SIGTERM to the group and the child; a
%% server that exits on it is proven gone by its own exit status, and no
%% SIGKILL follows when the grace is over (the exit status arrived first).
grace_lets_a_server_exit_on_sigterm_test() ->
    trapping_port_exits(fun() ->
        {Conn, OsPid} = graced_shell("'exit 3'", 300),
        {Commands, Drained} = kill_commands_and_result(fun() ->
                                                               Drained = terminated_when_ready(Conn),
                                                               receive
                                                                   {mcp_port_grace_over, _} = Over ->
                                                                       {ok, [], _} = mcp_transport:event(Conn, Over)
                                                               after ?TIMEOUT -> error(grace_never_ended)
                                                               end,
                                                               Drained
                                                       end),
        ?assertEqual({<<>>, {exited, {status, 3}}}, Drained),
        ?assertEqual([kill("TERM", OsPid)], Commands),
        ?assertNot(os_alive(OsPid))
    end).

%% A server that ignores SIGTERM is sent SIGKILL when the grace is over.
grace_escalates_to_sigkill_test() ->
    trapping_port_exits(fun() ->
        {Conn, OsPid} = graced_shell("''", 200),
        {Commands, Drained} = kill_commands_and_result(fun() -> terminated_when_ready(Conn) end),
        ?assertEqual({<<>>, {exited, {signal, 9}}}, Drained),
        ?assertEqual([kill("TERM", OsPid), kill("KILL", OsPid)], Commands),
        ?assertNot(os_alive(OsPid))
    end).

%% A grace whose timer's message waits behind the child's output (the
%% owner reads that output first, as a flooded owner does): the first
%% chunk read after the grace ended sends SIGKILL, once (a chunk read after
%% it, if the killed child's pipe still held one, sends nothing more);
%% before the grace ended, a chunk sends nothing.
grace_ends_at_the_first_output_read_after_it_test_() ->
    {timeout, 30, fun grace_ends_at_the_first_output_read_after_it/0}.

grace_ends_at_the_first_output_read_after_it() ->
    trapping_port_exits(fun() ->
        {Conn, OsPid} = open(#{executable => "/bin/sh", shutdown_grace_ms => 200,
                               args => ["-c", "exec 2>/dev/null; trap '' TERM; while :; do echo x; sleep 0.01; done"]}),
        Chunk = fun(C) -> receive {_, {data, _}} = Data -> {ok, _, Next} = mcp_transport:event(C, Data), Next
                          after ?TIMEOUT -> error(no_output) end end,
        %% After the kill: a chunk still in the pipe, or the exit (put back
        %% for `drain/1').
        Last = fun(C) -> receive {_, {data, _}} = Data -> {ok, _, Next} = mcp_transport:event(C, Data), Next;
                                 {_, {exit_status, _}} = Exit -> self() ! Exit, C
                         after ?TIMEOUT -> error(no_output) end end,
        %% Its first line comes after its trap: SIGTERM is ignored from then on.
        Trapping = Chunk(Conn),
        {Commands, _} =
            kill_commands_and_result(fun() ->
                                             {ok, Graced} = mcp_transport:terminate(Trapping),
                                             Before = Chunk(Graced),
                                             timer:sleep(300),
                                             After = Chunk(Before),
                                             Last(After)
                                     end),
        ?assertEqual([kill("TERM", OsPid), kill("KILL", OsPid)], Commands),
        ?assertMatch({_, {exited, {signal, 9}}}, drain(Conn)),
        ?assertNot(os_alive(OsPid))
    end).

%% Through the client: the example server (an escript: its VM shuts down on
%% SIGTERM, and escript then exits with status 1) retires with an exit
%% status of its own given a grace, and by our SIGKILL without one.
client_shutdown_with_and_without_grace_test_() ->
    {timeout, 60, fun() ->
        Spawn = #{executable => "escript", args => ["examples/example_server.escript"],
                  env => [{"ERL_LIBS", filename:dirname(code:lib_dir(mcp))}]},
        Retired = fun(Extra) ->
                          {ok, Client, _} = mcp_client:start(maps:merge(Spawn, Extra), #{}),
                          {ok, OsPid} = mcp_client:os_pid(Client),
                          Evidence = mcp_client:shutdown(Client, 20000),
                          ?assertNot(os_alive(OsPid)),
                          Evidence
                  end,
        ?assertMatch({ok, {exited, {status, _}}}, Retired(#{shutdown_grace_ms => 10000})),
        ?assertEqual({ok, {exited, {signal, 9}}}, Retired(#{}))
    end}.

%% The client's lifecycle promises against servers that fail at the wrong
%% moment (`test/e2e/faulty_server.sh', real OS processes) and against a
%% transport whose writes fail (`mcp_faulty_transport'): `start' returns
%% `{ok, ...}' only for a handshake that completed and otherwise a typed
%% cause, never crashes the actor, and every server it started is retired
%% with proof, including one whose port died of EPIPE.
-module(mcp_lifecycle_tests).

-include_lib("eunit/include/eunit.hrl").

-export([server/1, server/2, proven/1, tree_gone/1, tag_env/1, processes_tagged/1, parented/2]).
%% The test supervisor's callback (`supervisor:start_link(?MODULE, Children)').
-export([init/1]).

%% How many concurrent `start' calls the stress test makes, and how many in all.
-define(CONCURRENT_STARTS, 8).
-define(STARTS, 1000).

%% A spawn spec for the faulty server in `Mode', tagged so every process it
%% starts can be found in `/proc' (see `processes_tagged/1').
server(Mode) -> server(Mode, []).

server(Mode, Extra) ->
    #{executable => mcp_e2e_tests:installed("test/e2e/faulty_server.sh"),
      args => [Mode | Extra], env => [tag_env(Mode)]}.

%% One environment variable that marks this test run's servers.
tag_env(Mode) -> {"MCP_LIFECYCLE_TAG", Mode ++ "-" ++ os:getpid()}.

%% Retirement evidence that proves the child is gone.
proven(no_resource) -> true;
proven({exited, {status, N}}) -> is_integer(N);
proven({exited, {signal, N}}) -> is_integer(N);
proven({exited, unknown}) -> true;
proven(_) -> false.

%% OS pids whose environment carries `Tag' (a `{Name, Value}' pair).
processes_tagged({Name, Value}) ->
    Needle = list_to_binary(Name ++ "=" ++ Value),
    [list_to_integer(Pid) || Pid <- filelib:wildcard("[0-9]*", "/proc"),
                             tagged(Pid, Needle)].

tagged(Pid, Needle) ->
    case file:read_file("/proc/" ++ Pid ++ "/environ") of
        {ok, Environ} -> lists:member(Needle, binary:split(Environ, <<0>>, [global]));
        {error, _} -> false
    end.

%% True once no process carries the tag (bounded wait: a killed process
%% leaves `/proc' when its parent reaps it, which takes a moment).
tree_gone(Tag) -> tree_gone(Tag, 200).

tree_gone(Tag, 0) -> processes_tagged(Tag) =:= [];
tree_gone(Tag, Tries) ->
    case processes_tagged(Tag) of
        [] -> true;
        _ -> timer:sleep(10), tree_gone(Tag, Tries - 1)
    end.

%% ---- one server mode at a time ----

exits_before_reading_test_() -> {timeout, 60, fun exits_before_reading/0}.

exits_before_reading() ->
    {error, Cause} = mcp_client:start(server("exit-before-read"), #{}),
    ?assertMatch({handshake_failed, {unavailable, _}}, Cause),
    ?assert(tree_gone(tag_env("exit-before-read"))).

exits_mid_line_test_() -> {timeout, 60, fun exits_mid_line/0}.

exits_mid_line() ->
    {error, Cause} = mcp_client:start(server("exit-mid-line"), #{}),
    %% The half line never completes: the transport's end is the cause.
    ?assertMatch({handshake_failed, {unavailable, {transport_ended, {exited, {status, 0}}}}}, Cause).

exits_after_initialize_is_ok_or_a_typed_failure_test_() -> {timeout, 60, fun exits_after_initialize_is_ok_or_a_typed_failure/0}.

exits_after_initialize_is_ok_or_a_typed_failure() ->
    case mcp_client:start(server("exit-after-initialize"), #{}) of
        {ok, Client, _} ->
            {ok, Evidence} = mcp_client:shutdown(Client, 5000),
            ?assert(proven(Evidence));
        {error, Cause} ->
            ?assertMatch({handshake_failed, {unavailable, {write_failed, _}}}, Cause)
    end.

%% A server that closes its stdin and keeps running: the next write meets
%% EPIPE, the runtime closes the port (its exit status lost), and the watch
%% still kills the server and witnesses its exit.
closed_stdin_still_yields_proof_test_() -> {timeout, 60, fun closed_stdin_still_yields_proof/0}.

closed_stdin_still_yields_proof() ->
    Tag = tag_env("close-stdin"),
    {ok, Client, _} = mcp_client:start(server("close-stdin"), #{}),
    [OsPid] = processes_tagged(Tag),
    ok = wait_until(fun() -> not filelib:is_file("/proc/" ++ integer_to_list(OsPid) ++ "/fd/0") end),
    %% The runtime reports the broken pipe on the write that meets it or on
    %% the next one (docs/server-processes.md): the first ping may time out,
    %% and its cancel is that next write; the second ping then meets either
    %% the port's end or its already closed port.
    case mcp_client:ping(Client, 1000) of
        {error, call_timed_out} ->
            ?assertMatch({error, {unavailable, Reason}}
                           when Reason =:= {transport_ended, {exited, unknown}};
                                Reason =:= {write_failed, closed},
                         mcp_client:ping(Client, 5000));
        First ->
            ?assertEqual({error, {unavailable, {transport_ended, {exited, unknown}}}}, First)
    end,
    ?assertEqual({ok, {exited, unknown}}, mcp_client:shutdown(Client, 5000)),
    %% Exited is not yet reaped: the zombie leaves `/proc' a moment later.
    ?assert(tree_gone(Tag)).

wait_until(Condition) -> wait_until(Condition, 500).

wait_until(_Condition, 0) -> timeout;
wait_until(Condition, Tries) ->
    case Condition() of
        true -> ok;
        false -> timer:sleep(10), wait_until(Condition, Tries - 1)
    end.

%% A server that closes its stdout but keeps running gives no more answers;
%% the call times out and the shutdown still proves the exit.
closed_stdout_times_out_then_retires_test_() -> {timeout, 60, fun closed_stdout_times_out_then_retires/0}.

closed_stdout_times_out_then_retires() ->
    {ok, Client, _} = mcp_client:start(server("close-stdout"), #{}),
    ?assertEqual({error, call_timed_out}, mcp_client:ping(Client, 100)),
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, 5000)).

%% An answer after the caller's deadline: the caller has its timeout, the
%% late response is dropped, the client serves the next call.
answer_after_the_deadline_is_dropped_test_() -> {timeout, 60, fun answer_after_the_deadline_is_dropped/0}.

answer_after_the_deadline_is_dropped() ->
    {ok, Client, _} = mcp_client:start(server("answer-late", ["200"]), #{}),
    ?assertEqual({error, call_timed_out}, mcp_client:ping(Client, 20)),
    ?assertEqual(ok, mcp_client:ping(Client, 2000)),
    ?assertEqual({ok, []}, mcp_client:list_tools(Client, 2000)),
    {ok, Evidence} = mcp_client:shutdown(Client, 5000),
    ?assert(proven(Evidence)).

%% ---- failed writes (every write goes through one path) ----

faulty(Fail) ->
    {mcp_faulty_transport, #{spawn => server("serve"), fail => Fail}}.

failed_initialize_write_closes_with_a_typed_reason_test_() -> {timeout, 60, fun failed_initialize_write_closes_with_a_typed_reason/0}.

failed_initialize_write_closes_with_a_typed_reason() ->
    ?assertEqual({error, {handshake_failed, {unavailable, {write_failed, closed}}}},
                 mcp_client:start(faulty(1), #{})).

failed_initialized_notification_closes_with_a_typed_reason_test_() -> {timeout, 60, fun failed_initialized_notification_closes_with_a_typed_reason/0}.

failed_initialized_notification_closes_with_a_typed_reason() ->
    %% The second write is `notifications/initialized', after the server's
    %% answer: the handshake fails, the actor does not crash, and the
    %% retirement inside `start' is proven.
    ?assertEqual({error, {handshake_failed, {unavailable, {write_failed, closed}}}},
                 mcp_client:start(faulty(2), #{})).

every_write_failing_closes_with_a_typed_reason_test_() -> {timeout, 60, fun every_write_failing_closes_with_a_typed_reason/0}.

every_write_failing_closes_with_a_typed_reason() ->
    ?assertEqual({error, {handshake_failed, {unavailable, {write_failed, closed}}}},
                 mcp_client:start(faulty(every), #{})).

failed_request_write_answers_the_caller_test_() -> {timeout, 60, fun failed_request_write_answers_the_caller/0}.

failed_request_write_answers_the_caller() ->
    {ok, Client, _} = mcp_client:start(faulty(3), #{}),
    ?assertEqual({error, {unavailable, {write_failed, closed}}}, mcp_client:ping(Client, 2000)),
    ?assertEqual({error, {unavailable, {write_failed, closed}}}, mcp_client:list_tools(Client, 2000)),
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, 5000)).

%% ---- ownership ----

%% The custodian dies while the client is parked; the builder then connects:
%% no transport is opened (no server process), the answer names the cause,
%% and once the builder is gone too the actor is gone.
custodian_gone_before_connect_opens_nothing_test_() -> {timeout, 60, fun custodian_gone_before_connect_opens_nothing/0}.

custodian_gone_before_connect_opens_nothing() ->
    Test = self(),
    Custodian = spawn(fun() -> receive stop -> ok end end),
    Builder = spawn(fun() ->
        {ok, Client} = mcp_client:prepare_owned(server("serve"), #{}, Custodian),
        Test ! {prepared, Client},
        receive connect -> Test ! {connected, mcp_client:connect(Client)} end,
        receive stop -> ok end
    end),
    Client = receive {prepared, C} -> C end,
    ActorMonitor = erlang:monitor(process, mcp_client:pid(Client)),
    CustodianMonitor = erlang:monitor(process, Custodian),
    exit(Custodian, kill),
    receive {'DOWN', CustodianMonitor, process, _, _} -> ok end,
    timer:sleep(20),
    Builder ! connect,
    ?assertEqual({error, {transport_failed, {not_parked, custodian_down}}},
                 receive {connected, R} -> R end),
    ?assertEqual([], processes_tagged(tag_env("serve"))),
    Builder ! stop,
    stopped_normally(ActorMonitor).

%% The builder connects, then both owners die: the actor retires the
%% server and stops.
both_owners_gone_after_connect_leaves_nothing_test_() -> {timeout, 60, fun both_owners_gone_after_connect_leaves_nothing/0}.

both_owners_gone_after_connect_leaves_nothing() ->
    Test = self(),
    Custodian = spawn(fun() -> receive stop -> ok end end),
    Builder = spawn(fun() ->
        {ok, Client} = mcp_client:prepare_owned(server("serve"), #{}, Custodian),
        Test ! {connected, Client, mcp_client:connect(Client)},
        receive stop -> ok end
    end),
    {Client, Connected} = receive {connected, C, R} -> {C, R} end,
    ?assertMatch({ok, _}, Connected),
    ActorMonitor = erlang:monitor(process, mcp_client:pid(Client)),
    exit(Builder, kill),
    exit(Custodian, kill),
    stopped_normally(ActorMonitor),
    ?assert(tree_gone(tag_env("serve"))).

%% The monitored actor stops, normally, once both its owners are gone.
stopped_normally(ActorMonitor) ->
    receive {'DOWN', ActorMonitor, process, _, Why} -> ?assertEqual(normal, Why)
    after 5000 -> error(actor_outlived_both_owners)
    end.

%% ---- supervision ----

init(Children) ->
    {ok, {#{strategy => one_for_one, intensity => 0, period => 1}, Children}}.

%% Stopping the supervisor retires every client with proof before the stop
%% returns: each server's process is gone by then.
supervisor_stop_retires_every_client_test_() -> {timeout, 60, fun supervisor_stop_retires_every_client/0}.

supervisor_stop_retires_every_client() ->
    Modes = ["serve", "close-stdout", "answer-late"],
    Children = [mcp_client:child_spec(Mode, server(Mode, ["10"]), #{}) || Mode <- Modes],
    {ok, Supervisor} = supervisor:start_link(?MODULE, Children),
    unlink(Supervisor),
    OsPids = [begin
                  {ok, Client} = mcp_client:handle(Pid),
                  %% The server that closed its stdout answers nothing more.
                  Mode =:= "close-stdout" orelse ?assertEqual(ok, mcp_client:ping(Client, 5000)),
                  {ok, OsPid} = mcp_client:os_pid(Client),
                  OsPid
              end || {Mode, Pid, worker, _} <- supervisor:which_children(Supervisor)],
    ?assertEqual(length(Modes), length(OsPids)),
    ok = gen_server:stop(Supervisor, shutdown, 30000),
    ?assertEqual([], [OsPid || OsPid <- OsPids, filelib:is_dir("/proc/" ++ integer_to_list(OsPid))]),
    ?assert(lists:all(fun(Mode) -> tree_gone(tag_env(Mode)) end, Modes)).

%% A supervised client whose SIGTERM grace is longer than its shutdown
%% timeout, shut down by its parent while its server ignores SIGTERM and
%% outlives its stdin: at the shutdown timeout the actor cuts the grace
%% short with SIGKILL and ends once the exit is proven; no process of the
%% server is left.
a_grace_longer_than_the_shutdown_timeout_is_cut_short_test_() ->
    {timeout, 60, fun a_grace_longer_than_the_shutdown_timeout_is_cut_short/0}.

a_grace_longer_than_the_shutdown_timeout_is_cut_short() ->
    {Actor, ShutDown} = parented((server("deaf"))#{shutdown_grace_ms => 5000}, #{shutdown_timeout_ms => 300}),
    Monitor = erlang:monitor(process, Actor),
    ShutDown(),
    receive {'DOWN', Monitor, process, Actor, shutdown} -> ok after 10000 -> error(actor_not_down) end,
    ?assert(tree_gone(tag_env("deaf"))).

%% A client started linked to a parent process of its own, as a supervisor
%% starts one (`mcp_client:start_link/2'): its actor, and a fun that makes
%% the parent shut it down (an `EXIT' with `shutdown'); the parent ends
%% once the actor has.
parented(Spec, Options) ->
    Test = self(),
    Parent = spawn(fun() ->
                           {ok, Pid} = mcp_client:start_link(Spec, Options),
                           Test ! {started, self(), Pid},
                           receive
                               shut_down ->
                                   Monitor = erlang:monitor(process, Pid),
                                   exit(Pid, shutdown),
                                   receive {'DOWN', Monitor, process, Pid, _} -> ok end
                           end
                   end),
    Actor = receive {started, Parent, Pid} -> Pid after 10000 -> error(not_started) end,
    {Actor, fun() -> Parent ! shut_down, ok end}.

%% A server that ignores SIGTERM and floods its output faster than the
%% actor reads it (the actor suspended here while a thousand chunks queue):
%% the flood ends the connection, and the grace the server would get is cut
%% short by the flood during it (SIGKILL once more than the backlog's bound
%% of messages wait), so its retirement is proven long before the grace
%% would end, and the server is gone.
a_flood_during_the_grace_ends_the_server_at_once_test_() ->
    {timeout, 60, fun a_flood_during_the_grace_ends_the_server_at_once/0}.

a_flood_during_the_grace_ends_the_server_at_once() ->
    Spec = (server("deaf-flooding"))#{shutdown_grace_ms => 60000},
    {ok, Client, _} = mcp_client:start(Spec, #{}),
    Actor = mcp_client:pid(Client),
    ok = sys:suspend(Actor),
    queued_past(Actor, 1000),
    ok = sys:resume(Actor),
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, 10000)),
    ?assert(tree_gone(tag_env("deaf-flooding"))).

queued_past(Pid, Count) ->
    case process_info(Pid, message_queue_len) of
        {message_queue_len, Queued} when Queued > Count -> ok;
        _ -> timer:sleep(5), queued_past(Pid, Count)
    end.

%% A child that cannot connect fails the supervisor's start with its typed
%% cause, and leaves no process behind.
supervised_start_failure_is_typed_and_leaves_nothing_test_() -> {timeout, 60, fun supervised_start_failure_is_typed_and_leaves_nothing/0}.

supervised_start_failure_is_typed_and_leaves_nothing() ->
    Child = mcp_client:child_spec(failing, server("exit-before-read"), #{}),
    Test = self(),
    %% In a process of its own: the failed supervisor's `EXIT' must not
    %% reach the test process (the next tests share its mailbox).
    spawn(fun() ->
                  process_flag(trap_exit, true),
                  Test ! {started, supervisor:start_link(?MODULE, [Child])}
          end),
    ?assertMatch({error, {shutdown, {failed_to_start_child, failing,
                                     {handshake_failed, {unavailable, _}}}}},
                 receive {started, Result} -> Result after 30000 -> timeout end),
    ?assert(tree_gone(tag_env("exit-before-read"))).

%% ---- many starts against a server that dies right after initialize ----

%% Every start gives `{ok, ...}' (then a shutdown with proof) or a typed
%% handshake failure; none crashes, none is `cleanup_unconfirmed'.
concurrent_starts_against_a_dying_server_test_() ->
    {timeout, 300, fun() ->
        Outcomes = concurrent_starts(?STARTS, ?CONCURRENT_STARTS),
        Bad = [Outcome || Outcome <- Outcomes, not acceptable(Outcome)],
        ?debugFmt("~b starts, ~b at a time: ~p", [?STARTS, ?CONCURRENT_STARTS, tally(Outcomes)]),
        ?assertEqual([], lists:sublist(Bad, 5)),
        ?assert(tree_gone(tag_env("exit-after-initialize")))
    end}.

concurrent_starts(Total, Width) when Total =< 0; Width =< 0 -> [];
concurrent_starts(Total, Width) ->
    Batch = min(Total, Width),
    Test = self(),
    Refs = [begin
                Ref = make_ref(),
                spawn(fun() -> Test ! {Ref, start_and_retire()} end),
                Ref
            end || _ <- lists:seq(1, Batch)],
    [receive {Ref, Outcome} -> Outcome after 60000 -> {hung, Ref} end || Ref <- Refs]
        ++ concurrent_starts(Total - Batch, Width).

start_and_retire() ->
    try mcp_client:start(server("exit-after-initialize"), #{}) of
        {ok, Client, _} -> {started, mcp_client:shutdown(Client, 5000)};
        {error, Cause} -> {failed, Cause}
    catch
        Class:Reason -> {crashed, Class, Reason}
    end.

acceptable({started, {ok, Evidence}}) -> proven(Evidence);
acceptable({failed, {handshake_failed, {unavailable, {write_failed, _}}}}) -> true;
acceptable({failed, {handshake_failed, {unavailable, {transport_ended, Evidence}}}}) ->
    proven(Evidence);
acceptable(_) -> false.

tally(Outcomes) ->
    lists:foldl(fun(Outcome, Counts) -> maps:update_with(kind(Outcome), fun(N) -> N + 1 end, 1, Counts) end,
                #{}, Outcomes).

kind({started, {ok, Evidence}}) -> {started, Evidence};
kind({failed, Cause}) -> {failed, Cause};
kind(Other) -> Other.

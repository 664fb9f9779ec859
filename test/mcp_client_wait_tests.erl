%% How long a caller waits for its client's actor (`mcp_client:request/3'):
%% the caller of a spawned server's client arms no timer and waits for the
%% actor's answer or its end; a channel's (any transport but a port) gives
%% up `?REPLY_GRACE_MS' (5 s) past the deadline; an actor that ends before
%% its server's exit is proven answers its callers at once, not when the
%% wait for the exit is over.
-module(mcp_client_wait_tests).

-include_lib("eunit/include/eunit.hrl").

%% Past a 100 ms call's deadline and the 5 s grace a caller keeps for the
%% other transports.
-define(PAST_GRACE_MS, 5600).

faulty(Mode) ->
    #{executable => mcp_e2e_tests:installed("test/e2e/faulty_server.sh"), args => [Mode]}.

spawn_caller(Fun) ->
    Self = self(),
    spawn(fun() -> Self ! {self(), Fun()} end).

%% The caller's answer, or `none' when it has none within `Ms'.
answer_within(Caller, Ms) ->
    receive {Caller, Answer} -> Answer after Ms -> none end.

%% The caller waits in its receive.
wait_until_waiting(Pid) ->
    case process_info(Pid, status) of
        {status, waiting} -> ok;
        _ -> timer:sleep(5), wait_until_waiting(Pid)
    end.

%% A suspended actor (a stand-in for one that takes a long time over
%% another message) keeps a spawned server's caller waiting past its
%% deadline and the grace; resumed, it answers the call.
a_spawned_servers_caller_waits_for_the_actor_test_() ->
    {timeout, 60, fun() ->
        {ok, Client, _} = mcp_client:start(faulty("serve"), #{}),
        Actor = mcp_client:pid(Client),
        ok = sys:suspend(Actor),
        Caller = spawn_caller(fun() -> mcp_client:ping(Client, 100) end),
        ?assertEqual(none, answer_within(Caller, ?PAST_GRACE_MS)),
        ok = sys:resume(Actor),
        ?assertEqual(ok, answer_within(Caller, 5000)),
        ?assertMatch({ok, {exited, _}}, mcp_client:shutdown(Client, 5000))
    end}.

%% The same over a channel: the caller gives up 5 s past its deadline,
%% `call_timed_out', and nothing reaches its mailbox afterwards.
a_channels_caller_gives_up_past_the_grace_test_() ->
    {timeout, 60, fun() ->
        {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(fun(_) -> default end, self()), #{}),
        Actor = mcp_client:pid(Client),
        ok = sys:suspend(Actor),
        Test = self(),
        Caller = spawn(fun() ->
                               Answer = mcp_client:ping(Client, 100),
                               Test ! {self(), Answer},
                               receive Late -> Test ! {self(), {late, Late}} after 1000 -> ok end
                       end),
        ?assertEqual({error, call_timed_out}, answer_within(Caller, ?PAST_GRACE_MS)),
        ok = sys:resume(Actor),
        ?assertEqual(none, answer_within(Caller, 1500)),
        {ok, _} = mcp_client:shutdown(Client, 5000),
        flush_fake_server()
    end}.

flush_fake_server() ->
    receive {fake_server, _, _} -> flush_fake_server() after 0 -> ok end.

%% An actor shut down by its parent while its server ignores SIGTERM waits
%% for the server's exit (the grace, then SIGKILL); its caller waiting for
%% an answer the server never gives, and a caller that calls meanwhile,
%% are answered at once, while the actor still waits.
a_terminating_actor_answers_its_callers_at_once_test_() ->
    {timeout, 60, fun() ->
        {Actor, ShutDown} = mcp_lifecycle_tests:parented((faulty("deaf"))#{shutdown_grace_ms => 3000},
                                                         #{shutdown_timeout_ms => 10000}),
        {ok, Client} = mcp_client:handle(Actor),
        {ok, OsPid} = mcp_client:os_pid(Client),
        Pending = spawn_caller(fun() -> mcp_client:call_tool(Client, <<"x">>, {object, []}, 30000) end),
        wait_until_waiting(Pending),
        _ = sys:get_state(Actor),                   % the call is in the table
        Monitor = erlang:monitor(process, Actor),
        ShutDown(),
        Down = {error, {unavailable, {client_down, shutdown}}},
        ?assertEqual(Down, answer_within(Pending, 1000)),
        ?assertEqual(Down, mcp_client:ping(Client, 30000)),
        ?assert(is_process_alive(Actor)),
        receive {'DOWN', Monitor, process, Actor, shutdown} -> ok after 10000 -> error(actor_not_down) end,
        ?assertNot(filelib:is_dir("/proc/" ++ integer_to_list(OsPid)))
    end}.

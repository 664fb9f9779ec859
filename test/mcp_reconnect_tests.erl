%% Servers that come back (the `reconnect' option, `mcp_reconnect'): the
%% policy's arithmetic on both sides of each limit, and the client against
%% real OS processes (`test/e2e/faulty_server.sh'): a server killed is
%% started again only after its end is proven, calls in flight at its death
%% answer `unavailable' (that they are not run twice is
%% `mcp_churn_tests''s, by a server's own log), calls while waiting answer
%% `{reconnecting, Reason}', a server that dies at every start is given up
%% after its attempts, subscribers hear each step, and a client retired while
%% waiting starts nothing more.
-module(mcp_reconnect_tests).

-include_lib("eunit/include/eunit.hrl").

-define(WAIT, 10000).

policy(Extra) -> mcp_reconnect:with_defaults(maps:merge(#{attempts => 3}, Extra)).

%%% ------------------------------------------------------------ the policy

policy_validity_on_both_sides_of_each_limit_test() ->
    ?assert(mcp_reconnect:valid(#{attempts => 1})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 0})),
    ?assert(mcp_reconnect:valid(#{attempts => 1000})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1001})),
    ?assert(mcp_reconnect:valid(#{attempts => 1, backoff_ms => 0, max_backoff_ms => 86400000})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1, backoff_ms => -1})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1, max_backoff_ms => 86400001})),
    %% At least a second before the count starts again.
    ?assert(mcp_reconnect:valid(#{attempts => 1, reset_after_ms => 1000})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1, reset_after_ms => 999})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1, reset_after_ms => 0})),
    %% A server is given at least 100 ms to say something.
    ?assert(mcp_reconnect:valid(#{attempts => 1, unresponsive_ms => 100})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1, unresponsive_ms => 99})),
    ?assert(mcp_reconnect:valid(#{attempts => 1, unresponsive_ms => 86400000})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1, unresponsive_ms => 86400001})),
    ?assertNot(mcp_reconnect:valid(#{attempts => 1, backoff => 10})),
    ?assertNot(mcp_reconnect:valid(#{backoff_ms => 10})),
    ?assertNot(mcp_reconnect:valid(3)).

%% Policies outside the options() type, on purpose.
-dialyzer({[no_fail_call, no_return], an_invalid_policy_is_refused_by_prepare_test/0}).
an_invalid_policy_is_refused_by_prepare_test() ->
    Spec = #{executable => "/bin/true"},
    ?assertError(badarg, mcp_client:prepare(Spec, #{reconnect => #{attempts => 0}})),
    ?assertError(badarg, mcp_client:prepare(Spec, #{reconnect => #{attempts => 1, backoff_ms => 86400001}})),
    {ok, Client} = mcp_client:prepare(Spec, #{reconnect => #{attempts => 1000, backoff_ms => 86400000}}),
    ?assertEqual({ok, no_resource}, mcp_client:shutdown(Client, 1000)).

attempts_are_counted_in_a_row_test() ->
    Death = {{transport_ended, {exited, {status, 1}}}, {exited, {status, 1}}},
    Policy = policy(#{backoff_ms => 100}),
    ?assertEqual({retry, 1, 100}, mcp_reconnect:next(Policy, Death, 0, 0)),
    ?assertEqual({retry, 3, 400}, mcp_reconnect:next(Policy, Death, 2, 0)),
    ?assertEqual(give_up, mcp_reconnect:next(Policy, Death, 3, 0)).

the_count_starts_again_after_a_connection_stayed_up_test() ->
    Death = {{transport_ended, {exited, {status, 1}}}, {exited, {status, 1}}},
    Policy = policy(#{reset_after_ms => 1000}),
    ?assertEqual(give_up, mcp_reconnect:next(Policy, Death, 3, 999)),
    ?assertMatch({retry, 1, _}, mcp_reconnect:next(Policy, Death, 3, 1000)).

the_wait_doubles_up_to_its_ceiling_test() ->
    Death = {{transport_ended, {exited, {status, 1}}}, {exited, {status, 1}}},
    Policy = mcp_reconnect:with_defaults(#{attempts => 1000, backoff_ms => 500, max_backoff_ms => 30000}),
    Waits = [element(3, mcp_reconnect:next(Policy, Death, Made, 0)) || Made <- lists:seq(0, 7)],
    ?assertEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000], Waits),
    ?assertEqual({retry, 1000, 30000}, mcp_reconnect:next(Policy, Death, 999, 0)),
    ?assertEqual({retry, 2, 0}, mcp_reconnect:next(policy(#{backoff_ms => 0}), Death, 1, 0)).

the_owners_end_and_an_unproven_exit_are_never_followed_test() ->
    Policy = policy(#{}),
    [?assertEqual(give_up, mcp_reconnect:next(Policy, {Reason, {exited, {status, 0}}}, 0, 0))
     || Reason <- [retired, stopped, custodian_down]],
    ?assertEqual(give_up, mcp_reconnect:next(Policy, {{transport_ended, x}, {unconfirmed, timeout}}, 0, 0)).

%%% ------------------------------------------------- against real processes

%% The faulty server in `serve' mode, or, once `Flag' exists, in `Mode';
%% every start appends a line to `Log'.
switching_server(Flag, Mode, Log) ->
    Faulty = mcp_e2e_tests:installed("test/e2e/faulty_server.sh"),
    Script = "echo start >> \"$3\"; if [ -e \"$2\" ]; then exec \"$1\" " ++ Mode ++ "; else exec \"$1\" serve; fi",
    #{executable => "/bin/sh", args => ["-c", Script, "sh", Faulty, Flag, Log]}.

%% A client of `Spec' started and subscribed to by the test process.
subscribed(Spec, Options) ->
    {ok, Client, _} = mcp_client:start(Spec, Options),
    ok = mcp_client:subscribe(Client),
    Client.

scratch() ->
    Dir = string:trim(os:cmd("mktemp -d")),
    {filename:join(Dir, "flag"), filename:join(Dir, "log"), Dir}.

starts(Log) ->
    case file:read_file(Log) of
        {ok, Bytes} -> length(binary:matches(Bytes, <<"start">>));
        {error, enoent} -> 0
    end.

kill(Client) ->
    {ok, OsPid} = mcp_client:os_pid(Client),
    [] = os:cmd("kill -9 " ++ integer_to_list(OsPid)),
    OsPid.

receive_event() ->
    receive_event(any).

%% The next event of the client whose actor is `Pid' (another test's
%% client, left behind by its failure, cannot answer for this one's), or of
%% `any'.
receive_event(Pid) ->
    receive
        {mcp_reconnecting, From, _, _} = Event when Pid =:= any; From =:= Pid -> Event;
        {mcp_reconnected, From, _} = Event when Pid =:= any; From =:= Pid -> Event;
        {mcp_gave_up, From, _} = Event when Pid =:= any; From =:= Pid -> Event
    after ?WAIT -> error(no_event)
    end.

a_killed_server_is_started_again_after_its_end_is_proven_test_() ->
    {timeout, 60, fun a_killed_server_is_started_again_after_its_end_is_proven/0}.

a_killed_server_is_started_again_after_its_end_is_proven() ->
    {Flag, Log, _} = scratch(),
    Client = subscribed(switching_server(Flag, "serve", Log), #{reconnect => #{attempts => 2, backoff_ms => 0}}),
    Pid = mcp_client:pid(Client),
    Old = kill(Client),
    ?assertMatch({mcp_reconnecting, Pid, 1, {transport_ended, {exited, {signal, 9}}}}, receive_event()),
    %% Heard only once the old process's exit status was read.
    ?assertNot(mcp_e2e_tests:os_alive(Old)),
    ?assertEqual({mcp_reconnected, Pid, 1}, receive_event()),
    {ok, New} = mcp_client:os_pid(Client),
    ?assertNotEqual(Old, New),
    ?assertEqual(2, starts(Log)),
    ?assertEqual(ok, mcp_client:ping(Client, 5000)),
    ?assertMatch({ok, {exited, _}}, mcp_client:shutdown(Client, 5000)),
    ?assertNot(mcp_e2e_tests:os_alive(New)),
    flush_events().

without_a_policy_subscribers_hear_the_end_test_() ->
    {timeout, 60, fun without_a_policy_subscribers_hear_the_end/0}.

without_a_policy_subscribers_hear_the_end() ->
    {Flag, Log, _} = scratch(),
    Client = subscribed(switching_server(Flag, "serve", Log), #{}),
    Pid = mcp_client:pid(Client),
    _ = kill(Client),
    ?assertMatch({mcp_gave_up, Pid, {transport_ended, {exited, {signal, 9}}}}, receive_event()),
    ?assertMatch({error, {unavailable, {transport_ended, _}}}, mcp_client:ping(Client, 1000)),
    ?assertEqual(1, starts(Log)),
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, 5000)),
    flush_events().

a_server_dying_at_every_start_is_given_up_after_its_attempts_test_() ->
    {timeout, 60, fun a_server_dying_at_every_start_is_given_up_after_its_attempts/0}.

a_server_dying_at_every_start_is_given_up_after_its_attempts() ->
    {Flag, Log, _} = scratch(),
    Client = subscribed(switching_server(Flag, "exit-before-read", Log), #{reconnect => #{attempts => 2, backoff_ms => 0}}),
    Pid = mcp_client:pid(Client),
    ok = file:write_file(Flag, <<>>),
    _ = kill(Client),
    ?assertMatch({mcp_reconnecting, Pid, 1, {transport_ended, _}}, receive_event()),
    %% The first attempt's server exits before the handshake: a death too.
    ?assertMatch({mcp_reconnecting, Pid, 2, {transport_ended, {exited, {status, 3}}}}, receive_event()),
    ?assertMatch({mcp_gave_up, Pid, {transport_ended, {exited, {status, 3}}}}, receive_event()),
    %% The first server and one per attempt, no more.
    ?assertEqual(3, starts(Log)),
    ?assertMatch({error, {unavailable, {transport_ended, _}}}, mcp_client:ping(Client, 1000)),
    ?assertMatch({ok, {exited, {status, 3}}}, mcp_client:shutdown(Client, 5000)),
    ?assertEqual(3, starts(Log)),
    flush_events().

the_count_starts_again_after_a_stable_connection_test_() ->
    {timeout, 60, fun the_count_starts_again_after_a_stable_connection/0}.

the_count_starts_again_after_a_stable_connection() ->
    %% One attempt: a second death is given up unless the connection
    %% between stayed up `reset_after_ms'.
    {Flag, Log, _} = scratch(),
    Twice = fun(ResetAfter) ->
                    Client = subscribed(switching_server(Flag, "serve", Log),
                                        #{reconnect => #{attempts => 1, backoff_ms => 0, reset_after_ms => ResetAfter}}),
                    _ = kill(Client),
                    {mcp_reconnecting, _, 1, _} = receive_event(),
                    {mcp_reconnected, _, 1} = receive_event(),
                    timer:sleep(1100),
                    _ = kill(Client),
                    Second = receive_event(),
                    _ = mcp_client:shutdown(Client, 5000),
                    flush_events(),
                    Second
            end,
    ?assertMatch({mcp_reconnecting, _, 1, _}, Twice(1000)),
    ?assertMatch({mcp_gave_up, _, _}, Twice(60000)).

%% What a subscription left in the test process's mailbox (which the next
%% test module's mailbox checks would see).
flush_events() ->
    receive
        {mcp_reconnected, _, _} -> flush_events();
        {mcp_reconnecting, _, _, _} -> flush_events();
        {mcp_gave_up, _, _} -> flush_events();
        {mcp_tools_changed, _, _} -> flush_events()
    after 100 -> ok
    end.

calls_at_the_death_answer_unavailable_test_() ->
    {timeout, 60, fun calls_at_the_death_answer_unavailable/0}.

calls_at_the_death_answer_unavailable() ->
    %% Every answer 3 s late; the wait before the next server 1.5 s.
    Faulty = mcp_e2e_tests:installed("test/e2e/faulty_server.sh"),
    {_, Log, _} = scratch(),
    Spec = #{executable => "/bin/sh",
             args => ["-c", "echo start >> \"$2\"; exec \"$1\" answer-late 3000", "sh", Faulty, Log]},
    {ok, Client, _} = mcp_client:start(Spec, #{reconnect => #{attempts => 1, backoff_ms => 1500},
                                               handshake_timeout_ms => 10000}),
    ok = mcp_client:subscribe(Client),
    Self = self(),
    Caller = spawn_link(fun() -> Self ! {answered, mcp_client:call_tool(Client, <<"t">>, {object, []}, 20000)} end),
    timer:sleep(300),
    _ = kill(Client),
    ?assertMatch({answered, {error, {unavailable, {transport_ended, {exited, {signal, 9}}}}}},
                 receive {answered, _} = A -> A after ?WAIT -> error(no_answer) end),
    ?assertMatch({mcp_reconnecting, _, 1, _}, receive_event()),
    ?assertMatch({error, {unavailable, {reconnecting, {transport_ended, _}}}}, mcp_client:ping(Client, 1000)),
    ?assertMatch({mcp_reconnected, _, 1}, receive_event()),
    ?assertEqual({ok, []}, mcp_client:list_tools(Client, 10000)),
    unlink(Caller),
    ?assertMatch({ok, {exited, _}}, mcp_client:shutdown(Client, 5000)),
    flush_events().

retired_while_waiting_starts_nothing_more_test_() ->
    {timeout, 60, fun retired_while_waiting_starts_nothing_more/0}.

retired_while_waiting_starts_nothing_more() ->
    {Flag, Log, _} = scratch(),
    Client = subscribed(switching_server(Flag, "serve", Log), #{reconnect => #{attempts => 5, backoff_ms => 500}}),
    _ = kill(Client),
    {mcp_reconnecting, _, 1, _} = receive_event(),
    %% The evidence is the last server's.
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, 5000)),
    ?assertNot(is_process_alive(mcp_client:pid(Client))),
    timer:sleep(1000),
    ?assertEqual(1, starts(Log)),
    flush_events().

a_death_with_writes_queued_leaves_nothing_for_the_next_connection_test_() ->
    {timeout, 60, fun a_death_with_writes_queued_leaves_nothing_for_the_next_connection/0}.

a_death_with_writes_queued_leaves_nothing_for_the_next_connection() ->
    %% The first server answers `initialize', then asks `ping' between large
    %% notifications and exits: the answers to its pings wait in the
    %% outbox behind the backlog when its exit is read. The next connection
    %% must not start behind them (its `initialize' would never be written).
    {Flag, Log, _} = scratch(),
    Faulty = mcp_e2e_tests:installed("test/e2e/faulty_server.sh"),
    Init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\","
           "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"b\",\"version\":\"0\"}}}",
    Script = "echo start >> \"$3\"; if [ -e \"$2\" ]; then exec \"$1\" serve; fi; touch \"$2\"; read -r _l; "
             "big=$(head -c 60000 /dev/zero | tr '\\0' a); printf '%s\\n' '" ++ Init ++ "'; i=0; "
             "while [ $i -lt 60 ]; do "
             "printf '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"%s\"}}\\n' \"$big\"; "
             "printf '{\"jsonrpc\":\"2.0\",\"id\":\"p%s\",\"method\":\"ping\"}\\n' $i; i=$((i+1)); done; exit 0",
    Spec = #{executable => "/bin/sh", args => ["-c", Script, "sh", Faulty, Flag, Log]},
    {ok, Client} = mcp_client:prepare(Spec, #{reconnect => #{attempts => 1, backoff_ms => 0},
                                              handshake_timeout_ms => 5000}),
    ok = mcp_client:subscribe(Client),
    {ok, _} = mcp_client:connect(Client),
    Pid = mcp_client:pid(Client),
    %% The exit is proven by its status, or, when an answer to a ping was
    %% written after the server ended (the write met the closed pipe and the
    %% runtime dropped the status), by the watch: `unknown'; or the write
    %% to the closed pipe is read first, and the death is that write's (seen
    %% on a loaded machine).
    ?assertMatch({mcp_reconnecting, Pid, 1, Reason} when Reason =:= {transport_ended, {exited, {status, 0}}};
                                                         Reason =:= {transport_ended, {exited, unknown}};
                                                         Reason =:= {write_failed, closed},
                 receive_event(Pid)),
    ?assertMatch({mcp_reconnected, Pid, 1}, receive_event(Pid)),
    ?assertEqual({ok, []}, mcp_client:list_tools(Client, 5000)),
    ?assertEqual(2, starts(Log)),
    ?assertMatch({ok, {exited, _}}, mcp_client:shutdown(Client, 5000)),
    flush_events().

%%% ------------------------------------------------ servers that stop answering

%% A server that hangs (reads, never answers): a call's deadline passes
%% after `unresponsive_ms' of silence, the ping sent then goes unanswered
%% as long again, and the connection ends `{unresponsive, SilentMs}', the
%% hung process is killed, and the policy starts another, which serves.
%% Without this, the hung server kept the connection for good (each call
%% only timing out).
a_server_that_stops_answering_is_started_again_test_() ->
    {timeout, 60, fun a_server_that_stops_answering_is_started_again/0}.

a_server_that_stops_answering_is_started_again() ->
    {Flag, Log, _} = scratch(),
    ok = file:write_file(Flag, <<>>),
    Client = subscribed(switching_server(Flag, "silent", Log),
                        #{reconnect => #{attempts => 2, backoff_ms => 300, unresponsive_ms => 300}}),
    Pid = mcp_client:pid(Client),
    {ok, Hung} = mcp_client:os_pid(Client),
    timer:sleep(400),
    ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 100)),
    {mcp_reconnecting, Pid, 1, {unresponsive, SilentMs}} = receive_event(Pid),
    %% Silent for the ping's wait at least, after the silence that sent it.
    ?assert(SilentMs >= 600),
    ?assertNot(mcp_e2e_tests:os_alive(Hung)),
    ok = file:delete(Flag),
    ?assertEqual({mcp_reconnected, Pid, 1}, receive_event(Pid)),
    ?assertEqual(ok, mcp_client:ping(Client, 5000)),
    ?assertEqual(2, starts(Log)),
    ?assertMatch({ok, {exited, _}}, mcp_client:shutdown(Client, 5000)),
    flush_events().

%% A slow server is not a silent one: a call whose deadline passes is
%% answered late, and the ping after it too, within `unresponsive_ms': the
%% connection stays.
a_slow_server_is_not_taken_for_a_silent_one_test_() ->
    {timeout, 60, fun a_slow_server_is_not_taken_for_a_silent_one/0}.

a_slow_server_is_not_taken_for_a_silent_one() ->
    Faulty = mcp_e2e_tests:installed("test/e2e/faulty_server.sh"),
    Spec = #{executable => Faulty, args => ["answer-late", "200"]},
    Client = subscribed(Spec, #{reconnect => #{attempts => 2, backoff_ms => 0, unresponsive_ms => 1000}}),
    {ok, Server} = mcp_client:os_pid(Client),
    timer:sleep(1100),
    ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 100)),
    %% The late answer (200 ms), then the ping's (200 ms more), well within
    %% the ping's second.
    timer:sleep(1500),
    ?assertEqual({ok, Server}, mcp_client:os_pid(Client)),
    ?assertEqual(ok, mcp_client:ping(Client, 5000)),
    Pid = mcp_client:pid(Client),
    receive {mcp_reconnecting, Pid, _, _} = Event -> error({unexpected, Event}) after 0 -> ok end,
    ?assertMatch({ok, {exited, _}}, mcp_client:shutdown(Client, 5000)),
    flush_events().

%% A server writing a long answer slowly is heard while it writes: with
%% `unresponsive_ms' 500, a 2 MB answer written in 64 KiB pieces every
%% 40 ms (about 1.2 s) after the ping was sent keeps the connection,
%% although no whole message arrives before the ping's deadline.
a_server_writing_a_long_answer_is_heard_test_() ->
    {timeout, 60, fun a_server_writing_a_long_answer_is_heard/0}.

a_server_writing_a_long_answer_is_heard() ->
    Result = mcp_fake_server:text_result(binary:copy(<<"x">>, 2000000)),
    Handler = fun({request, Id, <<"tools/call">>, _}) ->
                      Line = iolist_to_binary(mcp_fake_server:response_line(Id, Result)),
                      [erlang:send_after(1 + N * 40, self(),
                                         {perform, [{raw, binary:part(Line, N * 65536,
                                                                      min(65536, byte_size(Line) - N * 65536))}]})
                       || N <- lists:seq(0, (byte_size(Line) - 1) div 65536)],
                      [];
                 ({request, _, <<"ping">>, _}) ->
                      [];
                 (_) ->
                      default
              end,
    Client = subscribed(mcp_fake_server:spec(Handler),
                        #{reconnect => #{attempts => 1, backoff_ms => 0, unresponsive_ms => 500}}),
    timer:sleep(600),
    ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 100)),
    %% Past the ping's deadline and the last piece: no death was heard.
    Pid = mcp_client:pid(Client),
    ?assertEqual(none, receive {mcp_reconnecting, Pid, _, _} = E -> E; {mcp_gave_up, Pid, _} = E -> E
                       after 2000 -> none end),
    ?assertEqual({ok, [tool]}, case mcp_client:list_tools(Client, 5000) of
                                   {ok, Tools} -> {ok, [tool || _ <- Tools]};
                                   Other -> Other
                               end),
    ?assertMatch({ok, _}, mcp_client:shutdown(Client, 5000)),
    flush_fake_server(),
    flush_events().

flush_fake_server() ->
    receive {fake_server, _, _} -> flush_fake_server() after 100 -> ok end.

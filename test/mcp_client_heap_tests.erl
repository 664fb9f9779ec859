%% The client actor's heap under load (`mcp_client_heap'): raised once
%% `busy_pending/0' requests are in flight, not one fewer; given back (and
%% the actor hibernated) once a check period passed with no request made
%% and none in flight; a stray check message changes nothing.
-module(mcp_client_heap_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("mcp/erlang_src/mcp_client_actor.hrl").

-define(TIMEOUT, 5000).

default_min_heap() ->
    {min_heap_size, Words} = erlang:system_info(min_heap_size),
    Words.

%% (the VM rounds a minimum up to the next size of its heap series)
min_heap(Pid) ->
    {garbage_collection, Info} = process_info(Pid, garbage_collection),
    proplists:get_value(min_heap_size, Info).

%%% ------------------------------------------------------------- the module

%% On the calling process: one request fewer than the bound leaves the heap
%% alone, the bound raises it and arms one check.
raised_at_the_bound_not_before_test() ->
    Default = default_min_heap(),
    Busy = mcp_client_heap:busy_pending(),
    try
        ?assertEqual(lowered, mcp_client_heap:pending(Busy - 1, Busy, lowered)),
        ?assertEqual(Default, min_heap(self())),
        {raised, Timer, 9} = Raised = mcp_client_heap:pending(Busy, 9, lowered),
        ?assert(min_heap(self()) >= mcp_client_heap:busy_heap_words()),
        %% Raised already: nothing more, no second timer.
        ?assertEqual(Raised, mcp_client_heap:pending(Busy + 5, 20, Raised)),
        erlang:cancel_timer(Timer)
    after
        process_flag(min_heap_size, Default)
    end.

%% A check with requests made since, or one in flight, keeps the heap and
%% arms the next check; a quiet period gives it back; another timer's
%% message is a stray.
checked_gives_the_heap_back_only_when_quiet_test() ->
    Default = default_min_heap(),
    try
        {raised, Timer, 9} = Raised = mcp_client_heap:pending(mcp_client_heap:busy_pending(), 9, lowered),
        {{raised, Second, 12}, keep} = mcp_client_heap:checked(Timer, 0, 12, Raised),
        ?assertNotEqual(Timer, Second),
        {{raised, Third, 12}, keep} = mcp_client_heap:checked(Second, 1, 12, {raised, Second, 12}),
        ?assertEqual({{raised, Third, 12}, stray}, mcp_client_heap:checked(Timer, 0, 12, {raised, Third, 12})),
        ?assertEqual({lowered, stray}, mcp_client_heap:checked(Third, 0, 12, lowered)),
        ?assert(min_heap(self()) >= mcp_client_heap:busy_heap_words()),
        ?assertEqual({lowered, hibernate}, mcp_client_heap:checked(Third, 0, 12, {raised, Third, 12})),
        ?assertEqual(Default, min_heap(self())),
        _ = [erlang:cancel_timer(T) || T <- [Timer, Second, Third]],
        ok
    after
        process_flag(min_heap_size, Default),
        flush_checks()
    end.

%% A replaced table counts as requests made: a check that finds the new
%% table's next id equal to the one seen before keeps the heap.
renewed_counts_as_requests_made_test() ->
    Default = default_min_heap(),
    try
        {raised, Timer, 9} = Raised = mcp_client_heap:pending(mcp_client_heap:busy_pending(), 9, lowered),
        {raised, Timer, renewed} = Renewed = mcp_client_heap:renewed(Raised),
        {{raised, Next, 9}, keep} = mcp_client_heap:checked(Timer, 0, 9, Renewed),
        ?assertEqual(lowered, mcp_client_heap:renewed(lowered)),
        ?assert(min_heap(self()) >= mcp_client_heap:busy_heap_words()),
        _ = [erlang:cancel_timer(T) || T <- [Timer, Next]],
        ok
    after
        process_flag(min_heap_size, Default),
        flush_checks()
    end.

flush_checks() ->
    receive {timeout, _, heap_check} -> flush_checks() after 0 -> ok end.

%%% --------------------------------------------------------------- the actor

%% A fake server that holds every tool call; the test answers them.
holding_client() ->
    Spec = mcp_fake_server:spec(fun({request, _, <<"tools/call">>, _}) -> []; (_) -> default end),
    {ok, Client, _} = mcp_client:start(Spec, #{}),
    Client.

%% `N' calls in flight, each from its own process; the ids the server got.
calls_in_flight(Client, N) ->
    Self = self(),
    _ = [spawn_link(fun() -> Self ! {answered, mcp_client:call_tool(Client, <<"echo">>, {object, []}, ?TIMEOUT)} end)
     || _ <- lists:seq(1, N)],
    [receive {fake_server, Peer, {request, Id, <<"tools/call">>, _}} -> {Peer, Id} after ?TIMEOUT -> error(no_call) end
     || _ <- lists:seq(1, N)].

answer_all(Held) ->
    _ = [Peer ! {perform, [{reply, Id, mcp_fake_server:text_result(<<"ok">>)}]} || {Peer, Id} <- Held],
    _ = [receive {answered, Answer} -> ?assertMatch({ok, _}, Answer) after ?TIMEOUT -> error(no_answer) end
         || _ <- Held],
    ok.

actor(Client) ->
    mcp_client:pid(Client).

flush_fake_server() ->
    receive {fake_server, _, _} -> flush_fake_server() after 0 -> ok end.

%% Polls `Check' every 50 ms until it holds, for at most `Ms'.
eventually(Check, Ms) when Ms =< 0 -> Check();
eventually(Check, Ms) ->
    case Check() of
        true -> true;
        false -> timer:sleep(50), eventually(Check, Ms - 50)
    end.

the_actor_raises_its_heap_with_many_calls_in_flight_test_() ->
    {timeout, 30,
     fun() ->
             Client = holding_client(),
             Actor = actor(Client),
             Default = default_min_heap(),
             Busy = mcp_client_heap:busy_pending(),
             One = calls_in_flight(Client, Busy - 1),
             ?assertEqual(Default, min_heap(Actor)),
             Two = calls_in_flight(Client, 1),
             ?assert(min_heap(Actor) >= mcp_client_heap:busy_heap_words()),
             answer_all(One ++ Two),
             %% Quiet now: given back at a check (two periods at most; the bound
             %% here is a hang guard).
             ?assert(eventually(fun() -> min_heap(Actor) =:= Default end, 10 * mcp_client_heap:idle_ms())),
             ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
             {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
             flush_fake_server()
     end}.

%% The server dies with the heap raised and the client reconnects; the new
%% connection's requests reach the id the check saw before. Its next check
%% (sent here with the armed timer's reference, as the timer would) keeps
%% the heap: requests were made.
a_reconnection_is_not_taken_for_quiet_test_() ->
    {timeout, 30,
     fun() ->
             Spec = mcp_fake_server:spec(fun({request, _, <<"tools/call">>, _}) -> []; (_) -> default end),
             {ok, Client, _} = mcp_client:start(Spec, #{reconnect => #{attempts => 3, backoff_ms => 0}}),
             ok = mcp_client:subscribe(Client),
             Actor = actor(Client),
             Held = calls_in_flight(Client, mcp_client_heap:busy_pending()),
             {raised, _, Seen} = heap_of(Actor),
             [{Peer, _} | _] = Held,
             Peer ! {perform, [{exit, normal}]},
             _ = [receive {answered, _} -> ok after ?TIMEOUT -> error(no_answer) end || _ <- Held],
             receive {mcp_reconnected, Actor, _} -> ok after ?TIMEOUT -> error(not_reconnected) end,
             ping_until_next_id(Client, Actor, Seen),
             {raised, Timer, _} = heap_of(Actor),
             Actor ! {timeout, Timer, heap_check},
             ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
             ?assert(min_heap(Actor) >= mcp_client_heap:busy_heap_words()),
             {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
             flush_fake_server(),
             flush_events(Actor)
     end}.

heap_of(Actor) ->
    {_State, #data{heap = Heap}} = sys:get_state(Actor),
    Heap.

%% Pings until the actor's next request would take `Id'.
ping_until_next_id(Client, Actor, Id) ->
    {_State, #data{requests = Requests}} = sys:get_state(Actor),
    case mcp_request_table:next_id(Requests) < Id of
        true -> ok = mcp_client:ping(Client, ?TIMEOUT), ping_until_next_id(Client, Actor, Id);
        false -> ?assertEqual(Id, mcp_request_table:next_id(Requests))
    end.

%% What the subscription brought (the actor is gone: all of it is here).
flush_events(Actor) ->
    receive
        {mcp_reconnecting, Actor, _, _} -> flush_events(Actor);
        {mcp_reconnected, Actor, _} -> flush_events(Actor);
        {mcp_tools_changed, Actor, _} -> flush_events(Actor)
    after 0 -> ok
    end.

a_stray_check_changes_nothing_test() ->
    Client = holding_client(),
    Actor = actor(Client),
    Actor ! {timeout, make_ref(), heap_check},
    ?assertEqual(default_min_heap(), min_heap(Actor)),
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = mcp_client:shutdown(Client, ?TIMEOUT),
    flush_fake_server().

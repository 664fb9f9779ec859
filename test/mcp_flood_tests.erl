%% A server that floods the client with notifications as fast as a pipe
%% carries them (`yes' after a real handshake, over `mcp_port'): the actor
%% stays bounded and punctual. While the flood runs, a sampler watches the
%% actor's mailbox and the VM's memory.
-module(mcp_flood_tests).

-include_lib("eunit/include/eunit.hrl").

%% Peak VM memory growth allowed during a flood (docs/client.md).
-define(MEMORY_BOUND, 256 * 1024 * 1024).

initialize_result() ->
    <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\","
      "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"flood\",\"version\":\"1\"}}}">>.

%% Answers `initialize', reads `notifications/initialized', then writes
%% `Line' forever.
flooding(Line) ->
    Script = "IFS= read -r l; printf '%s\\n' \"$1\"; IFS= read -r l; exec yes \"$2\"",
    #{executable => "/bin/sh", args => ["-c", Script, "flood", initialize_result(), Line]}.

note(Params) ->
    mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}},
                              {<<"method">>, {string, <<"notifications/message">>}},
                              {<<"params">>, Params}]}).

small_notification() ->
    note({object, [{<<"level">>, {string, <<"info">>}}, {<<"data">>, {string, <<"flood">>}}]}).

array_notification() ->
    note({object, [{<<"data">>, {array, lists:duplicate(30000, {int, 0})}}]}).

small_notifications_test_() ->
    {timeout, 60, fun() -> flood_stays_bounded_and_punctual(small_notification()) end}.

large_notifications_test_() ->
    {timeout, 60, fun() -> flood_stays_bounded_and_punctual(array_notification()) end}.

flood_stays_bounded_and_punctual(Line) ->
    Baseline = erlang:memory(total),
    {ok, Client, _} = mcp_client:start(flooding(Line), #{}),
    {ok, OsPid} = mcp_client:os_pid(Client),
    Sampler = sampler(mcp_client:pid(Client)),
    %% A deadline of 500 ms is kept: the answer is the timeout, or the
    %% flood's death reason if the budget was passed first. (Before the
    %% budget, the backlog kept the actor deaf and only the caller's own
    %% 5 s grace answered; the bound leaves room for a loaded machine.)
    {Elapsed, Pinged} = timer:tc(fun() -> mcp_client:ping(Client, 500) end),
    ?assert(Elapsed < 2500000),
    case Pinged of
        {error, call_timed_out} -> ok;
        {error, {unavailable, {flooded, Bytes}}} -> ?assert(is_integer(Bytes) andalso Bytes > 0)
    end,
    %% Retirement proves the exit within its timeout.
    {Retiring, Retired} = timer:tc(fun() -> mcp_client:shutdown(Client, 2000) end),
    ?assertEqual({ok, {exited, {signal, 9}}}, Retired),
    ?assert(Retiring < 2000000),
    ?assertNot(os_alive(OsPid)),
    {MaxQueue, PeakMemory} = stop_sampler(Sampler),
    ?assert(MaxQueue =< 4 * mcp_client_actor:max_backlog()),
    ?assert(PeakMemory - Baseline < ?MEMORY_BOUND).

os_alive(OsPid) ->
    os:cmd("kill -0 " ++ integer_to_list(OsPid) ++ " 2>/dev/null && echo alive") =:= "alive\n".

sampler(Actor) ->
    Self = self(),
    spawn_link(fun() -> sample(Actor, Self, 0, erlang:memory(total)) end).

sample(Actor, Owner, MaxQueue, Peak) ->
    Queue = case erlang:process_info(Actor, message_queue_len) of
                {message_queue_len, N} -> N;
                undefined -> 0
            end,
    Memory = erlang:memory(total),
    receive
        {stop, Owner} -> Owner ! {sampled, self(), max(MaxQueue, Queue), max(Peak, Memory)}
    after 5 ->
            sample(Actor, Owner, max(MaxQueue, Queue), max(Peak, Memory))
    end.

stop_sampler(Sampler) ->
    Sampler ! {stop, self()},
    receive {sampled, Sampler, MaxQueue, Peak} -> {MaxQueue, Peak} end.

%% `mcp_port:terminate/1' looks for a waiting exit status with a selective
%% receive, never by copying the mailbox (`process_info(_, messages)'), and
%% the status it saw is still delivered, as the connection's proof.
exit_status_lookup_copies_no_mailbox_test() ->
    Old = process_flag(trap_exit, true),
    {ok, Conn} = mcp_transport:open(#{executable => "true"}, self()),
    receive {_, {exit_status, 0}} = Status -> self() ! Status end,
    _ = [self() ! {junk, N} || N <- lists:seq(1, 10000)],
    Calls = mcp_traced:calls(self(), {erlang, process_info, 2}, fun() -> ok = mcp_transport:terminate(Conn) end),
    ?assertEqual([], [Args || [_, messages] = Args <- Calls]),
    ?assertEqual({closed, {exited, {status, 0}}}, next_closed(Conn)),
    receive {'EXIT', Port, _} when is_port(Port) -> ok after 1000 -> ok end,
    [receive {junk, N} -> ok end || N <- lists:seq(1, 10000)],
    process_flag(trap_exit, Old).

next_closed(Conn) ->
    receive
        Message ->
            case mcp_transport:event(Conn, Message) of
                {ok, [{closed, _} = Closed], _} -> Closed;
                _ -> next_closed(Conn)
            end
    after 5000 -> error(no_exit_status)
    end.

%% Many callers at once are not a flood: 2,000 processes calling at the
%% same moment put 2,000 requests in the actor's mailbox, past the budget
%% of 512 queued messages; only what the transport delivers is counted,
%% so every call is answered and the connection stays.
many_callers_at_once_are_not_a_flood_test_() ->
    {timeout, 60, fun many_callers_at_once_are_not_a_flood/0}.

many_callers_at_once_are_not_a_flood() ->
    {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(fun(_) -> default end, spawn(fun sink/0)), #{}),
    Self = self(),
    Go = make_ref(),
    Callers = [spawn(fun() ->
                             receive Go -> ok end,
                             Self ! {self(), mcp_client:call_tool(Client, <<"echo">>, {object, []}, 30000)}
                     end) || _ <- lists:seq(1, 2000)],
    [Caller ! Go || Caller <- Callers],
    Answers = [receive {Caller, Answer} -> Answer after 30000 -> no_answer end || Caller <- Callers],
    ?assertEqual([], [A || A <- Answers, element(1, A) =/= ok]),
    ?assertEqual(ok, mcp_client:ping(Client, 5000)),
    ?assertMatch({ok, _}, mcp_client:shutdown(Client, 5000)).

%% Takes the fake server's reports and drops them.
sink() ->
    receive _ -> sink() end.

%% The budget weighs what the server sent, on both sides of each bound:
%% while the actor is suspended the server writes Count messages of Size
%% bytes; once it runs again its next transport event weighs the backlog.
%% 600 messages of 64 KiB (37.5 MiB) are a flood, 600 of 48 KiB (28 MiB)
%% are not; of tiny messages, 65,536 waiting are not, 65,537 are (the one
%% the event is about is not waiting: one more is written).
the_flood_budget_weighs_the_servers_backlog_test_() ->
    {timeout, 120,
     [?_assertEqual(flooded, backlog(600, 64 * 1024)),
      ?_assertEqual(kept, backlog(600, 48 * 1024)),
      ?_assertEqual(kept, backlog(65536 + 1, 1)),
      ?_assertEqual(flooded, backlog(65537 + 1, 1))]}.

%% Count notification lines of about Size bytes each, written while the
%% actor is suspended: `flooded' or `kept' when it reads them.
backlog(Count, Size) ->
    {Client, Peer, Actor, Observer} = fake_server_client(),
    Line = case Size of
               1 -> <<"\n">>;
               _ -> [note({object, [{<<"data">>, {string, binary:copy(<<"x">>, Size - 80)}}]}), $\n]
           end,
    ok = sys:suspend(Actor),
    Peer ! {perform, [{chunks, lists:duplicate(Count, Line)}]},
    queued(Actor, Count),
    ok = sys:resume(Actor),
    Outcome = case mcp_client:ping(Client, 30000) of
                  {error, {unavailable, {flooded, Bytes}}} when is_integer(Bytes) -> flooded;
                  ok -> kept;
                  Other -> Other
              end,
    _ = mcp_client:shutdown(Client, 5000),
    exit(Observer, kill),
    Outcome.

%% A client of a well-behaved fake server: the client, the server's
%% process (to make it write), the actor, and the observer that takes the
%% server's reports (to kill at the end).
fake_server_client() ->
    Self = self(),
    Observer = spawn(fun() -> receive {fake_server, Peer, _} -> Self ! {peer, Peer}, sink() end end),
    {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(fun(_) -> default end, Observer), #{}),
    Peer = receive {peer, P} -> P end,
    {Client, Peer, mcp_client:pid(Client), Observer}.

%% Returns once at least `Count' messages wait for `Pid'.
queued(Pid, Count) ->
    case erlang:process_info(Pid, message_queue_len) of
        {message_queue_len, N} when N >= Count -> ok;
        _ -> timer:sleep(10), queued(Pid, Count)
    end.

%% The budget cannot be walked past: a backlog of 64,000 one-byte messages
%% (within the budget) is weighed; while the actor drains it, the server
%% writes 4,000 lines of 64 KiB (250 MiB). The backlog is weighed again
%% after 512 events, so the connection ends `flooded', or the actor kept
%% up: what waited never grew past the budget and what may arrive between
%% two weighings (64 MiB).
the_flood_budget_cannot_be_walked_past_test_() ->
    {timeout, 120, fun() ->
        {Outcome, Growth} = walk(64000, 4000),
        ?assert(Outcome =:= flooded orelse Growth =< 64 * 1024 * 1024)
    end}.

walk(Tiny, Big) ->
    Self = self(),
    {Client, Peer, Actor, Observer} = fake_server_client(),
    BigLine = [note({object, [{<<"data">>, {string, binary:copy(<<"x">>, 65000)}}]}), $\n],
    ok = sys:suspend(Actor),
    Peer ! {perform, [{chunks, lists:duplicate(Tiny, <<"\n">>)}]},
    queued(Actor, Tiny),
    garbage_collect(),
    Baseline = erlang:memory(binary),
    Sampler = spawn_link(fun() -> peak(Self, Baseline, 0) end),
    ok = sys:resume(Actor),
    drained_below(Actor, Tiny - 1000),
    Peer ! {perform, [{chunks, lists:duplicate(Big, BigLine)}]},
    Outcome = case mcp_client:ping(Client, 60000) of
                  {error, {unavailable, {flooded, Bytes}}} when is_integer(Bytes) -> flooded;
                  ok -> kept;
                  Other -> Other
              end,
    Sampler ! {stop, Self},
    Growth = receive {peak, Sampler, G} -> G end,
    _ = mcp_client:shutdown(Client, 5000),
    exit(Observer, kill),
    {Outcome, Growth}.

%% The peak growth of the VM's binary memory over `Baseline'.
peak(Owner, Baseline, Peak) ->
    Now = erlang:memory(binary) - Baseline,
    receive {stop, Owner} -> Owner ! {peak, self(), max(Peak, Now)}
    after 1 -> peak(Owner, Baseline, max(Peak, Now))
    end.

drained_below(Pid, Count) ->
    case erlang:process_info(Pid, message_queue_len) of
        {message_queue_len, N} when N < Count -> ok;
        _ -> erlang:yield(), drained_below(Pid, Count)
    end.

%% A burst of server requests, each owed a reply, read while more of the
%% burst waits in the mailbox (so every reply joins the outbox, whose
%% `flush_outbox' waits behind the burst): the replies are written at
%% most `max_outbox()' at a time, into the transport's bounded write
%% queue, never held in the actor until the burst is read. Two chunks of
%% 1,000 `ping' requests each are queued behind the suspended actor.
replies_to_a_burst_of_requests_are_written_as_they_accrue_test_() ->
    {timeout, 30, fun replies_to_a_burst_of_requests_are_written_as_they_accrue/0}.

replies_to_a_burst_of_requests_are_written_as_they_accrue() ->
    Test = self(),
    Start = fun(Channel) ->
                    {ok, spawn(fun() ->
                                       erlang:monitor(process, mcp_channel:client(Channel)),
                                       burst_peer(Channel, Test, <<>>, [])
                               end)}
            end,
    {ok, Client, _} = mcp_client:start({mcp_channel, Start}, #{}),
    Actor = mcp_client:pid(Client),
    Peer = receive {burst_peer, P, initialized} -> P end,
    Burst = iolist_to_binary([[<<"{\"jsonrpc\":\"2.0\",\"id\":">>, integer_to_binary(N), <<",\"method\":\"ping\"}\n">>]
                              || N <- lists:seq(1, 1000)]),
    ok = sys:suspend(Actor),
    Peer ! {write, [Burst, Burst]},
    receive {burst_peer, Peer, written} -> ok end,
    ok = sys:resume(Actor),
    ok = mcp_client:ping(Client, 5000),
    Peer ! {report, self()},
    Writes = receive {burst_peer, Peer, Lines} -> Lines end,
    _ = mcp_client:shutdown(Client, 2000),
    Replies = [Count || {replies, Count} <- Writes],
    ?assertEqual(2000, lists:sum(Replies)),
    ?assert(lists:max(Replies) =< mcp_client_actor:max_outbox()),
    %% Written as the outbox filled, not in one go at the end.
    ?assert(length(Replies) >= 2000 div mcp_client_actor:max_outbox()).

%% Answers `initialize' and the client's `ping'; counts the client's
%% replies to its own requests per write (`{replies, N}' per write, in
%% order).
burst_peer(Channel, Test, Pending, Writes) ->
    receive
        {mcp_channel, Channel, {bytes, Bytes}} ->
            Parts = binary:split(<<Pending/binary, Bytes/binary>>, <<"\n">>, [global]),
            {Lines, [Rest]} = lists:split(length(Parts) - 1, Parts),
            Messages = [burst_message(Line) || Line <- Lines],
            lists:foreach(fun({request, Id, <<"initialize">>}) ->
                                  mcp_channel:write(Channel, [mcp_fake_server:response_line(Id, mcp_fake_server:initialize_result())]);
                             ({request, Id, <<"ping">>}) ->
                                  mcp_channel:write(Channel, [mcp_fake_server:response_line(Id, {object, []})]);
                             ({notification, <<"notifications/initialized">>}) ->
                                  Test ! {burst_peer, self(), initialized};
                             (_) ->
                                  ok
                          end, Messages),
            Replies = length([reply || reply <- Messages]),
            Next = case Replies of
                       0 -> Writes;
                       _ -> [{replies, Replies} | Writes]
                   end,
            burst_peer(Channel, Test, Rest, Next);
        {write, Chunks} ->
            [mcp_channel:write(Channel, Chunk) || Chunk <- Chunks],
            Test ! {burst_peer, self(), written},
            burst_peer(Channel, Test, Pending, Writes);
        {report, From} ->
            From ! {burst_peer, self(), lists:reverse(Writes)},
            burst_peer(Channel, Test, Pending, Writes);
        {'DOWN', _, process, _, _} ->
            exit(normal)
    end.

burst_message(Line) ->
    {ok, Json} = mcp_json:decode(Line),
    case {mcp_fake_server:field(<<"id">>, Json), mcp_fake_server:field(<<"method">>, Json)} of
        {none, {string, Method}} -> {notification, Method};
        {Id, {string, Method}} -> {request, Id, Method};
        {_, none} -> reply
    end.

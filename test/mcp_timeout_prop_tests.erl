%% PropEr: timeouts drawn around every boundary (0, a day, a day + 1, the
%% runtime's 2^32 - 1 and 2^32 ms, 2^60, negatives, non-integers), as an
%% option of `start/2' or an argument of each call. A timeout outside
%% 0..86,400,000 raises in the caller before anything is sent; no timeout
%% crashes the actor, leaves a stale message, or orphans a server.
-module(mcp_timeout_prop_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-define(DAY, 86400000).

timeout_value() ->
    oneof([0, 1, ?DAY - 1, ?DAY, ?DAY + 1, (1 bsl 32) - 2, (1 bsl 32) - 1, 1 bsl 32,
           1 bsl 60, -1, integer(), 1.5, infinity]).

operation() ->
    oneof([ping, call_tool, list_tools, shutdown,
           {option, handshake_timeout_ms}, {option, list_timeout_ms}, {option, shutdown_timeout_ms}]).

valid(T) -> is_integer(T) andalso T >= 0 andalso T =< ?DAY.

%% A well-behaved fake server that reports every request to `Observer'.
spec(Observer) ->
    mcp_fake_server:spec(fun(_) -> default end, Observer).

requests(Observer) ->
    Observer ! {count, self()},
    receive {counted, Observer, N} -> N end.

observer(Count) ->
    receive
        {fake_server, _, {request, _, _, _}} -> observer(Count + 1);
        {fake_server, _, _} -> observer(Count);
        {count, From} -> From ! {counted, self(), Count}, observer(Count)
    end.

prop_timeouts_raise_or_work() ->
    ?FORALL({Operation, Timeout}, {operation(), timeout_value()},
            begin
                Observer = spawn(fun() -> observer(0) end),
                Outcome = try run(Operation, Timeout, Observer)
                          catch Class:Reason:Stack -> {crashed, Class, Reason, Stack}
                          end,
                {messages, Left} = process_info(self(), messages),
                exit(Observer, kill),
                ?WHENFAIL(io:format(user, "~p ~p: ~p, mailbox ~p~n", [Operation, Timeout, Outcome, Left]),
                          Outcome =:= expected(Operation, Timeout) andalso Left =:= [])
            end).

expected({option, _}, Timeout) ->
    case valid(Timeout) of true -> started_and_retired; false -> {raised, badarg, no_server} end;
expected(_Call, Timeout) ->
    case valid(Timeout) of true -> answered; false -> {raised, function_clause, nothing_sent} end.

run({option, Option}, Timeout, Observer) ->
    Before = requests(Observer),
    try mcp_client:start(spec(Observer), #{Option => Timeout}) of
        {ok, Client, _} ->
            {ok, {exited, {peer_down, killed}}} = mcp_client:shutdown(Client, 5000),
            started_and_retired;
        {error, {handshake_failed, call_timed_out}} when Timeout < 5 ->
            %% start/2 retired it itself.
            started_and_retired
    catch
        error:badarg ->
            %% The spec's start fun never ran: no server exists.
            {raised, badarg, case requests(Observer) - Before of 0 -> no_server; _ -> server_started end}
    end;
run(Call, Timeout, Observer) ->
    {ok, Client, _} = mcp_client:start(spec(Observer), #{}),
    Before = requests(Observer),
    Outcome = try call(Call, Client, Timeout) of
                  _ -> answered
              catch
                  error:function_clause ->
                      Sent = requests(Observer) - Before,
                      {raised, function_clause, case Sent of 0 -> nothing_sent; _ -> {sent, Sent} end}
              end,
    Pid = mcp_client:pid(Client),
    Alive = Call =:= shutdown orelse is_process_alive(Pid),
    case Call =:= shutdown andalso Outcome =:= answered of
        true -> ok;
        false -> {ok, _} = mcp_client:shutdown(Client, 5000), ok
    end,
    flush_fake_server(),
    case Alive of true -> Outcome; false -> {actor_crashed, Outcome} end.

%% Any answer will do (a timeout of 0 or 1 ms may well expire first).
call(ping, Client, Timeout) -> mcp_client:ping(Client, Timeout);
call(call_tool, Client, Timeout) -> mcp_client:call_tool(Client, <<"echo">>, {object, []}, Timeout);
call(list_tools, Client, Timeout) -> mcp_client:list_tools(Client, Timeout);
call(shutdown, Client, Timeout) -> mcp_client:shutdown(Client, Timeout).

%% A shutdown answered at a deadline of 0 ms may leave the actor to finish
%% alone; nothing of it may reach the caller, but the fake server's
%% observer messages are not the client's.
flush_fake_server() ->
    receive {fake_server, _, _} -> flush_fake_server() after 0 -> ok end.

timeouts_property_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_timeouts_raise_or_work(), [{numtests, 300}, {to_file, user}]))}.

%% The boundary itself, both sides, for each option (not left to chance).
a_day_is_accepted_and_a_day_and_a_millisecond_refused_test() ->
    Observer = spawn(fun() -> observer(0) end),
    [begin
         ?assertEqual(started_and_retired, run({option, Option}, ?DAY, Observer)),
         ?assertEqual({raised, badarg, no_server}, run({option, Option}, ?DAY + 1, Observer))
     end || Option <- [handshake_timeout_ms, list_timeout_ms, shutdown_timeout_ms]],
    [begin
         ?assertEqual(answered, run(Call, ?DAY, Observer)),
         ?assertEqual({raised, function_clause, nothing_sent}, run(Call, ?DAY + 1, Observer))
     end || Call <- [ping, call_tool, list_tools, shutdown]],
    exit(Observer, kill).

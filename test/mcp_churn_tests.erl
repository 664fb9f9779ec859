%% A long-lived client under churn, end to end against the official Python
%% SDK 2.x (`test/e2e/churn_server.py'), over stdio and over Streamable
%% HTTP. Sixteen callers call the server's `work(caller, seq)' for the
%% whole run while the test, in turns, changes the server's tools, makes
%% the server forget every session (HTTP) and kills the server and starts
%% it again. The client must follow each change (`tools/1' equals the
%% server's list, and a subscriber hears of that generation), replay a
%% request its forgotten session refused, reconnect after a restart
%% (`reconnect' option), answer every call exactly once, never run a
%% call twice (the server's execution log is the witness), and leave
%% nothing behind after `shutdown/2': no server process, no Erlang
%% process, no port.
%%
%% `churn/2' is the run itself, returning what was seen;
%% `bench/churn_bench.erl' runs it for minutes and prints the figures.
%% The bounds below are hang guards, stated as such: recovery and
%% following are asserted to happen, not to be fast.
-module(mcp_churn_tests).

-include_lib("eunit/include/eunit.hrl").

-export([churn/2, kinds/1, recoveries/1]).

-define(CALLERS, 16).
%% A call's deadline: longer than any recovery bound, so a call never
%% times out while the client recovers.
-define(CALL_MS, 20000).
%% Hang guards: how long the run waits for calls to succeed again after a
%% disruption, and for the client's listing to equal the server's.
-define(RECOVERY_BOUND_MS, 15000).
-define(FOLLOW_BOUND_MS, 10000).
%% A caller whose call failed waits this long before its next call, so
%% sixteen callers do not spin while the client reconnects.
-define(ERROR_PAUSE_MS, 10).
-define(FIXED_TOOLS, [<<"evict_sessions">>, <<"refusals">>, <<"set_tools">>, <<"work">>]).
%% Each restart's outage counts its attempts from 1: a connection up for
%% a second (every step is a pause of at least that) starts the count again.
-define(RECONNECT, #{attempts => 100, backoff_ms => 100, max_backoff_ms => 1000, reset_after_ms => 1000}).

%%% ------------------------------------------------------------ the run

-type transport() :: stdio | http.
-type step() :: tools | evict | restart.
-type options() :: #{rounds := pos_integer(), pause_ms := non_neg_integer(),
                     until => integer()}.

%% The steps of one round, in order.
-spec steps(transport()) -> [step()].
steps(stdio) -> [tools, restart];
steps(http) -> [tools, evict, restart].

%% @doc One churn run: `rounds' rounds of `steps/1' (or as many as fit
%% before the monotonic time `until', in milliseconds), `pause_ms' of
%% steady calling between steps. Returns what was seen; asserts nothing.
-spec churn(transport(), options()) -> map().
churn(Transport, Options) ->
    Log = log_path(),
    Server = start_server(Transport, Log),
    warm_up(Server),
    ProcessesBefore = erlang:processes(),
    PortsBefore = erlang:ports(),
    {ok, Client, _Init} = mcp_client:start(spec(Server), #{reconnect => ?RECONNECT}),
    ok = mcp_client:subscribe(Client),
    FirstOsPid = os_pid(Client, Server),
    Progress = ets:new(mcp_churn_progress, [public, set]),
    Started = now_ms(),
    Callers = [start_caller(Client, Id, Progress) || Id <- lists:seq(1, ?CALLERS)],
    {Server1, Events} = rounds(Transport, Options, Client, Server, Progress, 1, []),
    Answers = stop_callers(Callers),
    Finished = now_ms(),
    OsPids = os_pids(Transport, FirstOsPid, Server1, Events),
    Shutdown = mcp_client:shutdown(Client, 10000),
    stop_server(Server1),
    ets:delete(Progress),
    Leftovers = leftovers(ProcessesBefore, PortsBefore),
    {ok, Executed} = file:read_file(Log),
    ok = file:delete(Log),
    #{transport => Transport, duration_ms => Finished - Started, events => lists:reverse(Events),
      answers => Answers, executed => executed(Executed), os_pids => OsPids,
      alive_os_pids => [OsPid || OsPid <- OsPids, mcp_e2e_tests:os_alive(OsPid)],
      shutdown => Shutdown, leftovers => Leftovers, client_pid => mcp_client:pid(Client)}.

rounds(Transport, #{rounds := Rounds} = Options, Client, Server, Progress, Round, Events)
  when Round =< Rounds ->
    case more_time(Options) of
        true ->
            case steps(Transport, steps(Transport), Options, Client, Server, Progress, Round, Events) of
                {continue, Server1, Events1} ->
                    rounds(Transport, Options, Client, Server1, Progress, Round + 1, Events1);
                {stopped, Server1, Events1} -> {Server1, Events1}
            end;
        false ->
            {Server, Events}
    end;
rounds(_Transport, _Options, _Client, Server, _Progress, _Round, Events) ->
    {Server, Events}.

more_time(#{until := Until}) -> now_ms() < Until;
more_time(_) -> true.

%% A step whose client did not come back (or did not follow) ends the run:
%% what follows would only repeat the failure.
steps(_Transport, [], _Options, _Client, Server, _Progress, _Round, Events) ->
    {continue, Server, Events};
steps(Transport, [Step | Rest], #{pause_ms := Pause} = Options, Client, Server, Progress, Round, Events) ->
    timer:sleep(Pause),
    {Server1, Event} = step(Step, Client, Server, Progress, Round),
    case maps:get(outcome, Event) of
        ok -> steps(Transport, Rest, Options, Client, Server1, Progress, Round, [Event | Events]);
        _ -> {stopped, Server1, [Event | Events]}
    end.

%% The tools change: the server's changing tools become two new names;
%% the client must list exactly the server's answer, and the subscriber
%% must hear of that generation.
step(tools, Client, Server, _Progress, Round) ->
    Names = [iolist_to_binary(io_lib:format("tool_~b_~b", [Round, K])) || K <- [1, 2]],
    At = now_ms(),
    Event = #{step => tools, at => At},
    case control(Client, <<"set_tools">>, [{<<"names">>, {array, [{string, N} || N <- Names]}}]) of
        {ok, Listed} ->
            Expected = binary:split(Listed, <<" ">>, [global]),
            {Server, followed(Client, Expected, Event#{expected => Expected})};
        Failed ->
            {Server, Event#{outcome => {control_failed, Failed}}}
    end;
%% Every session is forgotten; calls made afterwards must succeed (their
%% first request is refused with 404 and sent again in a new session).
%% The server's count of refused requests before and after shows the
%% refusal happened.
step(evict, Client, Server, Progress, _Round) ->
    case {control(Client, <<"refusals">>, []), control(Client, <<"evict_sessions">>, [])} of
        {{ok, Before}, {ok, Evicted}} ->
            At = now_ms(),
            Event = recovered(Progress, #{step => evict, at => At, evicted => binary_to_integer(Evicted)}),
            case control(Client, <<"refusals">>, []) of
                {ok, After} -> {Server, Event#{refused => binary_to_integer(After) - binary_to_integer(Before)}};
                Failed -> {Server, Event#{outcome => {control_failed, Failed}}}
            end;
        Failed ->
            {Server, #{step => evict, at => now_ms(), outcome => {control_failed, Failed}}}
    end;
%% The server is killed and started again; calls must succeed again, the
%% subscriber must hear `mcp_reconnecting' then `mcp_reconnected', and the
%% client's listing must follow the restarted server's (its changing
%% tools are gone).
%% `from' is taken before the kill (calls may fail from then on), `at'
%% once it is done (calls that start later cannot reach the old server).
step(restart, Client, Server, Progress, _Round) ->
    Killed = os_pid(Client, Server),
    From = now_ms(),
    ok = kill_server(Killed, Server),
    At = now_ms(),
    Server1 = started_again(Server),
    Event = recovered(Progress, #{step => restart, from => From, at => At, killed => Killed}),
    Notices = reconnect_notices(mcp_client:pid(Client)),
    Event1 = Event#{notices => Notices, os_pid => os_pid(Client, Server1)},
    case Event1 of
        #{outcome := ok} -> {Server1, followed(Client, ?FIXED_TOOLS, Event1#{expected => ?FIXED_TOOLS})};
        _ -> {Server1, Event1}
    end.

%% A control call by the test itself, made while the client is up.
control(Client, Tool, Arguments) ->
    case mcp_client:call_tool(Client, Tool, {object, Arguments}, ?CALL_MS) of
        {ok, {call_tool_result, [{text, Text}], false, none}} -> {ok, Text};
        Other -> Other
    end.

%% Waits (bounded) for the client's listing to name exactly `Expected',
%% then for the subscriber's notice of that generation. The time to
%% follow counts from the step's `at'.
followed(Client, Expected, #{at := At} = Event) ->
    Deadline = now_ms() + ?FOLLOW_BOUND_MS,
    case listing(Client, lists:sort(Expected), Deadline) of
        {ok, Generation} ->
            Pid = mcp_client:pid(Client),
            receive
                {mcp_tools_changed, Pid, Generation} ->
                    Event#{outcome => ok, generation => Generation, followed_ms => now_ms() - At}
            after max(0, Deadline - now_ms()) ->
                    Event#{outcome => {no_notice, Generation}}
            end;
        {timeout, Last} ->
            Event#{outcome => {not_followed, Last}}
    end.

listing(Client, Expected, Deadline) ->
    Seen = case mcp_client:tools(Client) of
               {ok, {Generation, Tools}} -> {Generation, lists:sort([element(2, T) || T <- Tools])};
               Error -> Error
           end,
    case Seen of
        {G, Expected} -> {ok, G};
        _ ->
            case now_ms() > Deadline of
                true -> {timeout, Seen};
                false -> timer:sleep(20), listing(Client, Expected, Deadline)
            end
    end.

%% Waits (bounded) until some caller's call that started after the
%% disruption succeeded.
recovered(Progress, #{at := At} = Event) ->
    recovered(Progress, Event, At + ?RECOVERY_BOUND_MS).

recovered(Progress, #{at := At} = Event, Deadline) ->
    case [Start || {_, Start} <- ets:tab2list(Progress), Start >= At] of
        [_ | _] -> Event#{outcome => ok};
        [] ->
            case now_ms() > Deadline of
                true -> Event#{outcome => not_recovered};
                false -> timer:sleep(10), recovered(Progress, Event, Deadline)
            end
    end.

reconnect_notices(Pid) ->
    receive
        {mcp_reconnecting, Pid, Attempt, Reason} -> [{reconnecting, Attempt, Reason} | reconnect_notices(Pid)];
        {mcp_reconnected, Pid, Attempt} -> [{reconnected, Attempt} | reconnect_notices(Pid)];
        {mcp_gave_up, Pid, Reason} -> [{gave_up, Reason} | reconnect_notices(Pid)]
    after 0 -> []
    end.

%%% ------------------------------------------------------------ callers

%% A caller calls `work(Id, Seq)' with a new `Seq' each time until told
%% to stop, and records each answer: `{Seq, Start, End, Kind, Answer}'
%% (`Answer' kept only when it is not the expected success). The start of
%% its last successful call goes to `Progress'.
start_caller(Client, Id, Progress) ->
    Owner = self(),
    spawn_link(fun() -> caller(Owner, Client, Id, Progress, 1, []) end).

caller(Owner, Client, Id, Progress, Seq, Answers) ->
    receive
        stop ->
            {messages, Stray} = process_info(self(), messages),
            Owner ! {answers, self(), lists:reverse(Answers), Stray}
    after 0 ->
            Start = now_ms(),
            Answer = mcp_client:call_tool(Client, <<"work">>,
                                          {object, [{<<"caller">>, {int, Id}}, {<<"seq">>, {int, Seq}}]}, ?CALL_MS),
            End = now_ms(),
            Kind = kind(Answer, iolist_to_binary([integer_to_list(Id), " ", integer_to_list(Seq)])),
            Kept = case Kind of
                       ok -> true = ets:insert(Progress, {Id, Start}), none;
                       _ -> timer:sleep(?ERROR_PAUSE_MS), Answer
                   end,
            caller(Owner, Client, Id, Progress, Seq + 1, [{{Id, Seq}, Start, End, Kind, Kept} | Answers])
    end.

kind({ok, {call_tool_result, [{text, Text}], false, none}}, Text) -> ok;
kind({ok, _}, _Text) -> wrong_result;
kind({error, {unavailable, {reconnecting, _}}}, _Text) -> reconnecting;
kind({error, {unavailable, _}}, _Text) -> unavailable;
kind({error, call_timed_out}, _Text) -> call_timed_out;
kind({error, _}, _Text) -> other_error.

%% Every caller's answers, and the messages left in its mailbox beside
%% `stop' (a second answer to a call would be one).
stop_callers(Callers) ->
    [Caller ! stop || Caller <- Callers],
    [receive
         {answers, Caller, Answers, Stray} -> #{answers => Answers, stray => Stray}
     after ?CALL_MS + 10000 -> error({caller_did_not_stop, Caller})
     end || Caller <- Callers].

%%% ------------------------------------------------------------ servers

python() -> mcp_e2e_tests:installed(".venv-sdk2/bin/python").

script() -> mcp_e2e_tests:installed("test/e2e/churn_server.py").

log_path() ->
    filename:join("/tmp", "mcp_churn." ++ os:getpid() ++ "."
                  ++ integer_to_list(erlang:unique_integer([positive])) ++ ".log").

start_server(stdio, Log) ->
    #{transport => stdio, spawn => #{executable => python(), args => [script(), "stdio", Log]}};
start_server(http, Log) ->
    Port = integer_to_list(mcp_http_peer:free_port()),
    Args = [script(), "http", Port, Log],
    #{transport => http, args => Args, peer => mcp_http_peer:start_announced(python(), Args), peers => []}.

spec(#{transport := stdio, spawn := Spawn}) -> Spawn;
spec(#{transport := http, peer := Peer}) -> #{url => mcp_http_peer:url(Peer)}.

%% The server's process: the port's child over stdio (killed by the
%% test; the client's reconnect policy spawns the next), the peer over
%% HTTP (killed, its exit status seen, and started again on the same port
%% by the test).
kill_server(OsPid, #{transport := stdio}) ->
    _ = os:cmd("kill -s KILL " ++ integer_to_list(OsPid)),
    ok;
kill_server(_OsPid, #{transport := http, peer := Peer}) ->
    mcp_http_peer:stop(Peer).

started_again(#{transport := stdio} = Server) ->
    Server;
started_again(#{transport := http, args := Args, peer := Peer, peers := Peers} = Server) ->
    Server#{peer := mcp_http_peer:start_announced(python(), Args),
            peers := [mcp_http_peer:os_pid(Peer) | Peers]}.

os_pid(Client, #{transport := stdio}) ->
    case mcp_client:os_pid(Client) of
        {ok, OsPid} -> OsPid;
        none -> none
    end;
os_pid(_Client, #{transport := http, peer := Peer}) ->
    mcp_http_peer:os_pid(Peer).

stop_server(#{transport := stdio}) -> ok;
stop_server(#{transport := http, peer := Peer}) -> mcp_http_peer:stop(Peer).

%% Every server process the run saw.
os_pids(stdio, First, _Server, Events) ->
    lists:usort([OsPid || #{step := restart} = E <- Events, Key <- [killed, os_pid],
                          OsPid <- [maps:get(Key, E, none)], is_integer(OsPid)] ++ [First]);
os_pids(http, _First, #{peer := Peer, peers := Peers}, _Events) ->
    [mcp_http_peer:os_pid(Peer) | Peers].

%% What the first client of a VM starts once for all clients (over HTTP:
%% the `ssl' application, the native resolver and its port) is started
%% by a client that lists and retires before the run counts processes
%% and ports; whatever the run's own client leaves is then a leak.
warm_up(Server) ->
    {ok, Client, _Init} = mcp_client:start(spec(Server), #{}),
    {ok, _} = mcp_client:tools(Client),
    {ok, _} = mcp_client:shutdown(Client, 10000),
    ok.

%% What the run left: processes and ports that were not there before it.
%% Processes end asynchronously after `shutdown/2' answers (the `httpc'
%% manager's handlers, the callers), so this waits for them, at most
%% 5 s; what is left then is a leak.
leftovers(ProcessesBefore, PortsBefore) ->
    leftovers(ProcessesBefore, PortsBefore, now_ms() + 5000).

leftovers(ProcessesBefore, PortsBefore, Deadline) ->
    Processes = [{P, erlang:process_info(P, [registered_name, initial_call, current_function])}
                 || P <- erlang:processes() -- ProcessesBefore],
    Ports = [{P, erlang:port_info(P, name)} || P <- erlang:ports() -- PortsBefore],
    case {[P || {P, Info} <- Processes, Info =/= undefined], Ports} of
        {[], []} -> #{processes => [], ports => []};
        _ ->
            case now_ms() > Deadline of
                true -> #{processes => Processes, ports => Ports};
                false -> timer:sleep(50), leftovers(ProcessesBefore, PortsBefore, Deadline)
            end
    end.

%% The execution log's lines as `{Caller, Seq}'.
executed(Bytes) ->
    [begin [C, S] = binary:split(Line, <<" ">>), {binary_to_integer(C), binary_to_integer(S)} end
     || Line <- binary:split(Bytes, <<"\n">>, [global, trim_all])].

now_ms() -> erlang:monotonic_time(millisecond).

%%% ------------------------------------------------------------ figures

%% @doc Every call's answer counted by kind.
-spec kinds(map()) -> #{atom() => non_neg_integer()}.
kinds(#{answers := Callers}) ->
    lists:foldl(fun({_, _, _, Kind, _}, Counts) -> maps:update_with(Kind, fun(N) -> N + 1 end, 1, Counts) end,
                #{}, all_answers(Callers)).

%% @doc For each disruption (eviction, restart), the time from it (the
%% eviction's answer, the kill done) to the end of the first successful
%% call that started after it, in ms (`none' when no such call succeeded).
-spec recoveries(map()) -> [{evict | restart, non_neg_integer() | none}].
recoveries(#{answers := Callers, events := Events}) ->
    Oks = lists:sort([{Start, End} || {_, Start, End, ok, _} <- all_answers(Callers)]),
    [{Step, first_ok_after(At, Oks)} || #{step := Step, at := At} <- Events, Step =/= tools].

first_ok_after(At, Oks) ->
    case [End || {Start, End} <- Oks, Start >= At] of
        [] -> none;
        Ends -> lists:min(Ends) - At
    end.

all_answers(Callers) -> lists:append([Answers || #{answers := Answers} <- Callers]).

%%% ------------------------------------------------------------ the tests

stdio_churn_test_() -> churn_tests(stdio, 4).
http_churn_test_() -> churn_tests(http, 4).

churn_tests(Transport, Rounds) ->
    Label = atom_to_list(Transport) ++ ": ",
    {timeout, 180,
     {setup, fun() -> churn(Transport, #{rounds => Rounds, pause_ms => 1000}) end,
      fun(Run) ->
              [{Label ++ "every disruption is followed by calls that succeed", ?_test(recovers(Run, Rounds))},
               {Label ++ "the client's listing follows each change and the subscriber hears it", ?_test(follows(Run))},
               {Label ++ "a restart is announced: reconnecting, then reconnected", ?_test(announces_restarts(Run))}]
              ++ [{Label ++ "an eviction forgets the session and refuses its next request", ?_test(evicts(Run))}
                  || Transport =:= http]
              ++ [{Label ++ "every call answered exactly once, each answer of a known kind", ?_test(answers_once(Run))},
                  {Label ++ "calls fail only around a restart (a forgotten session is replayed)",
                   ?_test(fails_only_around_restarts(Run))},
                  {Label ++ "no call executed twice; every success executed", ?_test(executes_once(Run))},
                  {Label ++ "nothing left after shutdown", ?_test(leaves_nothing(Run))}]
      end}}.

recovers(#{transport := Transport, events := Events} = Run, Rounds) ->
    ?assertEqual([{Step, ok} || _ <- lists:seq(1, Rounds), Step <- steps(Transport)],
                 [{Step, Outcome} || #{step := Step, outcome := Outcome} <- Events]),
    ?assertEqual([], [R || {_, none} = R <- recoveries(Run)]).

%% Each eviction forgot the client's session, and its next request was
%% refused (then sent again: `recovers').
evicts(#{events := Events}) ->
    Evictions = [E || #{step := evict} = E <- Events],
    ?assertNotEqual([], Evictions),
    [begin ?assert(Evicted >= 1), ?assert(Refused >= 1) end
     || #{evicted := Evicted, refused := Refused} <- Evictions].

%% The changes the client was to follow: each tools step, and each
%% restart the client came back from (`recovers' covers the others).
follows(#{events := Events}) ->
    Changes = [E || #{expected := _} = E <- Events],
    ?assertNotEqual([], [E || #{step := tools} = E <- Changes]),
    ?assertEqual([], [E || #{outcome := Outcome} = E <- Changes, Outcome =/= ok]),
    %% Each followed listing is a new generation.
    Generations = [G || #{generation := G} <- Changes],
    ?assertEqual(lists:usort(Generations), Generations).

%% Each restart is heard as attempts 1..N to reconnect (over HTTP the
%% first ones may meet the server not yet listening), then the
%% reconnection of attempt N; a killed local server is named as such.
announces_restarts(#{transport := Transport, events := Events}) ->
    Restarts = [E || #{step := restart} = E <- Events],
    ?assertNotEqual([], Restarts),
    [begin
         Attempts = [A || {reconnecting, A, _} <- Notices],
         ?assertNotEqual([], Attempts),
         ?assertEqual(lists:seq(1, length(Attempts)), Attempts),
         ?assertEqual(Notices, [N || {reconnecting, _, _} = N <- Notices] ++ [{reconnected, length(Attempts)}]),
         case Transport of
             stdio -> ?assertMatch([{reconnecting, 1, {transport_ended, {exited, {signal, 9}}}} | _], Notices);
             http -> ok
         end
     end || #{notices := Notices} <- Restarts].

answers_once(#{answers := Callers} = Run) ->
    ?assertEqual(?CALLERS, length(Callers)),
    [begin
         %% Seqs 1..N, one answer each, and no message left behind.
         ?assertEqual(lists:seq(1, length(Answers)), [Seq || {{_, Seq}, _, _, _, _} <- Answers]),
         ?assertEqual([], Stray)
     end || #{answers := Answers, stray := Stray} <- Callers],
    Kinds = kinds(Run),
    ?debugFmt("~p answers by kind: ~p", [maps:get(transport, Run), Kinds]),
    ?assertEqual([], maps:keys(Kinds) -- [ok, unavailable, reconnecting]),
    ?assert(maps:get(ok, Kinds, 0) > 0).

%% An error answer is a call that was in flight when the server died or
%% was made while the client reconnected: its time overlaps a restart,
%% from the kill to the first success after it. A call answered
%% `{reconnecting, _}' was made within such a window, since the client
%% cannot be reconnecting before a kill.
fails_only_around_restarts(#{answers := Callers, events := Events}) ->
    Windows = restart_windows(Callers, Events),
    Outside = [A || {_, Start, End, Kind, _} = A <- all_answers(Callers), Kind =/= ok,
                    not lists:any(fun({From, To}) -> End >= From andalso Start =< To end, Windows)],
    ?assertEqual([], Outside),
    Early = [A || {_, Start, _, reconnecting, _} = A <- all_answers(Callers),
                  not lists:any(fun({From, To}) -> Start >= From andalso Start =< To end, Windows)],
    ?assertEqual([], Early).

%% From each kill to the end of the first success after it.
restart_windows(Callers, Events) ->
    Oks = lists:sort([{Start, End} || {_, Start, End, ok, _} <- all_answers(Callers)]),
    [{From, case first_ok_after(At, Oks) of none -> infinity; R -> At + R end}
     || #{step := restart, from := From, at := At} <- Events].

executes_once(#{answers := Callers, executed := Executed}) ->
    ?assertNotEqual([], Executed),
    Counts = lists:foldl(fun(Call, Map) -> maps:update_with(Call, fun(N) -> N + 1 end, 1, Map) end, #{}, Executed),
    ?assertEqual([], [Call || {Call, N} <- maps:to_list(Counts), N > 1]),
    ?assertEqual([], [Call || {Call, _, _, ok, _} <- all_answers(Callers), not maps:is_key(Call, Counts)]).

leaves_nothing(#{transport := Transport, shutdown := Shutdown, alive_os_pids := Alive,
                 os_pids := OsPids, leftovers := Leftovers, client_pid := Pid}) ->
    case Transport of
        stdio -> ?assertEqual({ok, {exited, {signal, 9}}}, Shutdown);
        http -> ?assertEqual({ok, {exited, {peer_down, {http_session, deleted}}}}, Shutdown)
    end,
    ?assertNotEqual([], OsPids),
    ?assertEqual([], Alive),
    ?assertNot(is_process_alive(Pid)),
    ?assertEqual(#{processes => [], ports => []}, Leftovers).

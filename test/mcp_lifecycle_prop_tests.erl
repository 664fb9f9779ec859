%% A PropEr state machine over the client's lifecycle with real OS
%% processes (`test/e2e/faulty_server.sh' in every mode): it interleaves
%% `prepare'/`prepare_owned', `connect', `start', calls, `stop' and
%% `shutdown' with kills of the builder, the custodian, a caller and the
%% server, at any point (also in the middle of a connect or a call), and
%% after every step asserts:
%% <ul>
%% <li>every caller is answered, within its deadline plus the client's
%%     reply grace, with a value of the typed vocabulary (no crash, no hang,
%%     and no stray message left in the caller's mailbox afterwards);</li>
%% <li>no actor stays alive once both its builder and its custodian are
%%     gone, nor once `stop' was called;</li>
%% <li>no OS process of the server's tree is alive once its actor stopped;</li>
%% <li>`start'/`connect' answer `{ok, ...}' only for a server that answered
%%     `initialize', and every error carries its cause (never
%%     `cleanup_unconfirmed' and never unproven retirement with these
%%     servers, which all die on SIGKILL).</li>
%% </ul>
%% The model tracks only what the test controls (who is alive, which mode the
%% server runs); what the client answers is checked against the vocabulary
%% and the invariants, since real timing decides between the allowed
%% outcomes.
-module(mcp_lifecycle_prop_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-export([initial_state/0, command/1, precondition/2, postcondition/3, next_state/3]).
-export([prepare/2, start/1, connect/0, connect_then_kill/2, ping/0, list_tools/0,
         call_then_kill_caller/1, stop/0, shutdown/0, kill/1]).

-define(CASES, 150).
-define(HANDSHAKE_MS, 2000).
-define(CALL_MS, 500).
-define(SHUTDOWN_MS, 3000).
%% The client's own grace past a deadline (`mcp_client', REPLY_GRACE_MS)
%% plus a margin: past it an answer counts as a hang.
-define(ANSWER_GRACE_MS, 6000).
%% How long an invariant may take to hold (a retirement kills and awaits
%% the exit; a killed process leaves `/proc' once reaped).
-define(SETTLE_MS, 5000).

-record(model, {world = none :: none | prepared,
                mode :: string() | undefined,
                separate = false :: boolean(),
                builder = alive :: alive | dead,
                custodian = alive :: alive | dead}).

lifecycle_model_test_() ->
    {timeout, 600, fun() ->
        ?assert(proper:quickcheck(prop_lifecycle(), [{numtests, ?CASES}, {to_file, user},
                                                     {max_size, 20}]))
    end}.

prop_lifecycle() ->
    ?FORALL(Commands, proper_statem:commands(?MODULE),
            begin
                {History, State, Result} = proper_statem:run_commands(?MODULE, Commands),
                Leftovers = clean_world(),
                ?WHENFAIL(io:format(user, "history: ~p~nstate: ~p~nresult: ~p~nleftovers: ~p~n",
                                    [History, State, Result, Leftovers]),
                          Result =:= ok andalso Leftovers =:= [])
            end).

%%% ------------------------------------------------------------ the model

modes() ->
    ["serve", "exit-after-initialize", "exit-before-read", "exit-mid-line",
     "close-stdin", "close-stdout", "answer-late"].

%% The modes whose server answers `initialize'.
answers_initialize(Mode) -> not lists:member(Mode, ["exit-before-read", "exit-mid-line"]).

initial_state() -> #model{}.

command(#model{world = none}) ->
    oneof([{call, ?MODULE, prepare, [oneof(modes()), boolean()]},
           {call, ?MODULE, start, [oneof(modes())]}]);
command(#model{builder = Builder, custodian = Custodian, separate = Separate}) ->
    Owners = [{call, ?MODULE, kill, [builder]} || Builder =:= alive]
        ++ [{call, ?MODULE, kill, [custodian]} || Custodian =:= alive, Separate],
    Connects = [{call, ?MODULE, connect, []} || Builder =:= alive]
        ++ [{call, ?MODULE, connect_then_kill, [oneof([builder, custodian, server]), range(0, 30)]}
            || Builder =:= alive, Custodian =:= alive, Separate],
    oneof(Owners ++ Connects
          ++ [{call, ?MODULE, ping, []},
              {call, ?MODULE, list_tools, []},
              {call, ?MODULE, call_then_kill_caller, [range(0, 20)]},
              {call, ?MODULE, kill, [server]},
              {call, ?MODULE, stop, []},
              {call, ?MODULE, shutdown, []}]).

precondition(#model{world = none}, {call, _, Name, _}) ->
    lists:member(Name, [prepare, start]);
precondition(#model{world = prepared}, {call, _, Name, _}) when Name =:= prepare; Name =:= start ->
    false;
precondition(#model{builder = dead}, {call, _, Name, _}) when Name =:= connect; Name =:= connect_then_kill ->
    false;
precondition(#model{builder = dead}, {call, _, kill, [builder]}) -> false;
precondition(#model{custodian = dead}, {call, _, kill, [custodian]}) -> false;
precondition(#model{separate = false}, {call, _, kill, [custodian]}) -> false;
precondition(#model{separate = Separate, custodian = Custodian}, {call, _, connect_then_kill, _}) ->
    Separate andalso Custodian =:= alive;
precondition(_Model, _Call) ->
    true.

next_state(Model, _Result, {call, _, prepare, [Mode, Separate]}) ->
    Model#model{world = prepared, mode = Mode, separate = Separate, builder = alive, custodian = alive};
next_state(Model, _Result, {call, _, start, [Mode]}) ->
    Model#model{world = prepared, mode = Mode, separate = false, builder = alive, custodian = alive};
next_state(Model, _Result, {call, _, kill, [builder]}) ->
    owners_dead(Model#model{builder = dead});
next_state(Model, _Result, {call, _, kill, [custodian]}) ->
    Model#model{custodian = dead};
next_state(Model, _Result, {call, _, connect_then_kill, [builder, _]}) ->
    owners_dead(Model#model{builder = dead});
next_state(Model, _Result, {call, _, connect_then_kill, [custodian, _]}) ->
    Model#model{custodian = dead};
next_state(_Model, _Result, {call, _, shutdown, []}) ->
    %% The world is cleared after a shutdown: the next step starts anew.
    #model{};
next_state(Model, _Result, _Call) ->
    Model.

%% Without a separate custodian the builder is the custodian.
owners_dead(#model{separate = false} = Model) -> Model#model{custodian = dead};
owners_dead(Model) -> Model.

%% Every command answers the list of broken promises it saw.
postcondition(_Model, _Call, Violations) ->
    Violations =:= [].

%%% ------------------------------------------------------------ the world
%%
%% The real processes live in the process dictionary under `world':
%% #{client, actor, builder, custodian, mode, tag, stopped}.

world() -> get(world).

set_world(World) -> put(world, World).

update_world(Changes) -> set_world(maps:merge(world(), Changes)).

options() ->
    #{handshake_timeout_ms => ?HANDSHAKE_MS, shutdown_timeout_ms => ?SHUTDOWN_MS}.

spec(Mode, Tag) ->
    Args = case Mode of
               "answer-late" -> [Mode, "50"];
               _ -> [Mode]
           end,
    #{executable => mcp_e2e_tests:installed("test/e2e/faulty_server.sh"), args => Args, env => [Tag]}.

new_world(Mode, Separate) ->
    Tag = {"MCP_LIFECYCLE_TAG", "model-" ++ integer_to_list(erlang:unique_integer([positive]))
                                ++ "-" ++ os:getpid()},
    Builder = spawn(fun owner/0),
    Custodian = case Separate of
                    true -> spawn(fun owner/0);
                    false -> Builder
                end,
    set_world(#{client => none, actor => none, builder => Builder, custodian => Custodian,
                mode => Mode, tag => Tag, stopped => false}).

%% A builder or custodian: runs what it is asked and answers; otherwise it
%% just lives until killed.
owner() ->
    receive
        {run, Fun, From, Ref} ->
            From ! {Ref, try Fun() catch Class:Reason -> {crashed, Class, Reason} end},
            owner()
    end.

%% Runs Fun in the builder and awaits its answer within Timeout.
in_builder(Fun, Timeout) ->
    Ref = make_ref(),
    maps:get(builder, world()) ! {run, Fun, self(), Ref},
    receive {Ref, Answer} -> Answer
    after Timeout -> hung
    end.

%%% --------------------------------------------------------- the commands

prepare(Mode, Separate) ->
    new_world(Mode, Separate),
    #{tag := Tag, custodian := Custodian} = world(),
    case in_builder(fun() -> mcp_client:prepare_owned(spec(Mode, Tag), options(), Custodian) end, 5000) of
        {ok, Client} ->
            update_world(#{client => Client, actor => mcp_client:pid(Client)}),
            check_world();
        Other ->
            [{prepare, Other}]
    end.

start(Mode) ->
    new_world(Mode, false),
    #{tag := Tag} = world(),
    Answer = in_builder(fun() -> mcp_client:start(spec(Mode, Tag), options()) end,
                        ?HANDSHAKE_MS + ?SHUTDOWN_MS + 2 * ?ANSWER_GRACE_MS),
    Violations = case Answer of
                     {ok, Client, _Initialized} ->
                         update_world(#{client => Client, actor => mcp_client:pid(Client)}),
                         [{start_ok_without_initialize, Mode} || not answers_initialize(Mode)];
                     {error, Cause} ->
                         %% A failed start retired what it started, with proof.
                         [{start, Cause} || not start_error(Cause)]
                             ++ [{start_left_processes, Cause} || not tree_gone()];
                     Other ->
                         [{start, Other}]
                 end,
    Violations ++ check_world().

%% After a failed `start' there is no client: the commands that need one
%% only check the invariants.
with_client(Command) ->
    case world() of
        #{client := none} -> check_world();
        #{client := Client} -> Command(Client)
    end.

connect() ->
    with_client(fun connect/1).

connect(Client) ->
    #{mode := Mode} = world(),
    connected(Mode, in_builder(fun() -> mcp_client:connect(Client) end,
                               ?HANDSHAKE_MS + ?ANSWER_GRACE_MS)) ++ check_world().

%% A connect in the builder, and a kill `Delay' ms into it; the builder's
%% answer is checked when it comes (unless the builder was the one killed).
connect_then_kill(Who, Delay) ->
    with_client(fun(Client) -> connect_then_kill(Client, Who, Delay) end).

connect_then_kill(Client, Who, Delay) ->
    #{mode := Mode, builder := Builder} = world(),
    Ref = make_ref(),
    Builder ! {run, fun() -> mcp_client:connect(Client) end, self(), Ref},
    timer:sleep(Delay),
    _ = kill(Who),
    Answer = case Who of
                 builder -> receive {Ref, A} -> A after 0 -> killed end;
                 _ -> receive {Ref, A} -> A after ?HANDSHAKE_MS + ?ANSWER_GRACE_MS -> hung end
             end,
    case Answer of
        killed -> [];
        _ -> connected(Mode, Answer)
    end ++ check_world().

connected(Mode, {ok, _Initialized}) ->
    [{connect_ok_without_initialize, Mode} || not answers_initialize(Mode)];
connected(_Mode, {error, Cause}) ->
    [{connect, Cause} || not start_error(Cause)];
connected(_Mode, Other) ->
    [{connect, Other}].

ping() ->
    call(fun(Client) -> mcp_client:ping(Client, ?CALL_MS) end, ok).

list_tools() ->
    call(fun(Client) -> mcp_client:list_tools(Client, ?CALL_MS) end, {ok, []}).

%% A call from a fresh caller process, answered within its deadline plus
%% the grace, with nothing left over in the caller's mailbox.
call(Request, Success) ->
    with_client(fun(Client) -> call(Client, Request, Success) end).

call(Client, Request, Success) ->
    Test = self(),
    Ref = make_ref(),
    spawn(fun() ->
                  Answer = try Request(Client) catch Class:Reason -> {crashed, Class, Reason} end,
                  timer:sleep(20),
                  {messages, Stray} = process_info(self(), messages),
                  Test ! {Ref, Answer, Stray}
          end),
    receive
        {Ref, Answer, Stray} ->
            [{call, Answer} || Answer =/= Success, not client_error_reply(Answer)]
                ++ [{stray_messages, Stray} || Stray =/= []]
    after ?CALL_MS + ?ANSWER_GRACE_MS ->
            [{call, hung}]
    end ++ check_world().

%% A call whose caller dies `Delay' ms into it: the client must carry on
%% (the next ping is answered or says why not).
call_then_kill_caller(Delay) ->
    with_client(fun(Client) -> call_then_kill_caller(Client, Delay) end).

call_then_kill_caller(Client, Delay) ->
    Caller = spawn(fun() -> mcp_client:list_tools(Client, ?CALL_MS) end),
    timer:sleep(Delay),
    exit(Caller, kill),
    ping().

stop() ->
    with_client(fun(Client) ->
                        ok = mcp_client:stop(Client),
                        update_world(#{stopped => true}),
                        check_world()
                end).

shutdown() ->
    with_client(fun shutdown/1) ++ clean_world().

shutdown(Client) ->
    Actor = mcp_client:pid(Client),
    WasAlive = is_process_alive(Actor),
    Answer = mcp_client:shutdown(Client, ?SHUTDOWN_MS),
    Violations = case Answer of
                     {ok, Evidence} ->
                         [{unproven, Evidence} || not mcp_lifecycle_tests:proven(Evidence)];
                     {error, {retirement_unconfirmed, {actor_down, _}}} when not WasAlive ->
                         [];
                     Other ->
                         [{shutdown, Other}]
                 end,
    Violations ++ check_world().

kill(builder) ->
    kill_owner(builder);
kill(custodian) ->
    kill_owner(custodian);
kill(server) ->
    #{tag := Tag} = world(),
    _ = [os:cmd("kill -KILL " ++ integer_to_list(Pid)) || Pid <- mcp_lifecycle_tests:processes_tagged(Tag)],
    check_world().

kill_owner(Role) ->
    Pid = maps:get(Role, world()),
    Monitor = erlang:monitor(process, Pid),
    exit(Pid, kill),
    receive {'DOWN', Monitor, process, Pid, _} -> ok end,
    check_world().

%%% ---------------------------------------------------------- invariants

check_world() ->
    #{actor := Actor, builder := Builder, custodian := Custodian, stopped := Stopped} = world(),
    OwnersGone = not is_process_alive(Builder) andalso not is_process_alive(Custodian),
    ActorMustStop = Actor =/= none andalso (OwnersGone orelse Stopped),
    [{actor_outlives_owners, Actor} || ActorMustStop, not stopped(Actor)]
        ++ [{processes_outlive_actor, Actor} || Actor =/= none, not is_process_alive(Actor),
                                                not tree_gone()].

stopped(Actor) ->
    Monitor = erlang:monitor(process, Actor),
    receive {'DOWN', Monitor, process, Actor, _} -> true
    after ?SETTLE_MS -> erlang:demonitor(Monitor, [flush]), false
    end.

tree_gone() -> mcp_lifecycle_tests:tree_gone(maps:get(tag, world())).

%% Ends the world: owners killed, the client shut down, and any process of
%% the server's tree that is still there killed and reported.
clean_world() ->
    case world() of
        undefined ->
            [];
        #{client := Client, actor := Actor, builder := Builder, custodian := Custodian, tag := Tag} ->
            _ = [exit(Pid, kill) || Pid <- [Builder, Custodian]],
            _ = [mcp_client:shutdown(Client, ?SHUTDOWN_MS) || Actor =/= none, is_process_alive(Actor)],
            Left = case mcp_lifecycle_tests:tree_gone(Tag) of
                       true -> [];
                       false -> mcp_lifecycle_tests:processes_tagged(Tag)
                   end,
            _ = [os:cmd("kill -KILL " ++ integer_to_list(Pid)) || Pid <- Left],
            erase(world),
            [{left_behind, Left} || Left =/= []]
    end.

%%% ------------------------------------------- the typed vocabulary

start_error({transport_failed, _}) -> true;
start_error({handshake_failed, Error}) -> client_error(Error);
start_error({version_unsupported, Requested, Offered}) -> is_binary(Requested) andalso is_binary(Offered);
start_error(tools_not_declared) -> true;
%% With servers that die on SIGKILL, retirement is always proven.
start_error({cleanup_unconfirmed, _, _, _}) -> false;
start_error(_) -> false.

client_error_reply({error, Error}) -> client_error(Error);
client_error_reply(_) -> false.

client_error({unavailable, Death}) -> death(Death);
client_error(call_timed_out) -> true;
client_error({server_error, {rpc_error, Code, _, _}}) -> is_integer(Code);
client_error({result_malformed, _}) -> true;
client_error(too_many_pages) -> true;
client_error({listing_too_large, MaxBytes}) -> is_integer(MaxBytes);
client_error(_) -> false.

death({transport_ended, Evidence}) -> mcp_lifecycle_tests:proven(Evidence);
death({invalid_utf8, At}) -> is_integer(At);
death({line_too_long, Bytes}) -> is_integer(Bytes);
death({malformed_message, _}) -> true;
death({bad_message, _}) -> true;
death({flooded, Bytes}) -> is_integer(Bytes);
death({write_failed, Why}) -> lists:member(Why, [busy, closed]);
death({transport_failed, _}) -> true;
death({handshake_failed, _} = Error) -> start_error(Error);
death({version_unsupported, _, _} = Error) -> start_error(Error);
%% The actor is gone (after `stop', or once both owners died).
death({client_down, _}) -> true;
death(Reason) -> lists:member(Reason, [stopped, retired, custodian_down, not_connected, tools_not_declared]).

%% `mcp_request_table' on its own: random sequences of add (with a caller
%% or none) / settle / expire (what is due, each settled) / caller-gone /
%% drain, run against the
%% table and against a plain model, with the table's invariants asserted
%% after every step; then named cases on both sides of each bound.
-module(mcp_request_table_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-define(CASES, 500).

table_matches_its_model_test() ->
    ?assert(proper:quickcheck(prop_table_matches_model(), [{numtests, ?CASES}, {to_file, user}])).

%% One operation: `{add, Kind, Caller, Deadline}', `{settle, Pick}',
%% `{expire, Now}', `{caller_gone, Caller}', `drain', where Pick selects
%% among the ids minted so far (some already gone) and Caller is `none' or
%% one of a few caller processes.
operation() ->
    Caller = oneof([none, range(1, 4)]),
    frequency([{5, {add, oneof([handshake, call, call_msgpack, ping, {list, mcp_client_listing:started()},
                                {tool_call, call, {<<"t">>, {object, []}}, 0},
                                {tool_call, call_msgpack, {<<"t">>, {object, []}}, 1}]),
                    Caller, range(0, 20)}},
               {3, {settle, nat()}},
               {2, {expire, range(0, 20)}},
               {2, {caller_gone, range(1, 4)}},
               {1, drain}]).

prop_table_matches_model() ->
    ?FORALL(Operations, list(operation()),
            begin
                {_, _, Violations} = lists:foldl(fun step/2, {mcp_request_table:new(), model(), []}, Operations),
                ?WHENFAIL(io:format(user, "violations: ~p~n", [Violations]), Violations =:= [])
            end).

%% The model: the entries the table should hold, oldest first, each as
%% `add/2' got it plus its id; the monitored callers (`Pid => {Monitor,
%% Pending}'); and every monitor handed in and not yet handed back.
model() -> #{entries => [], callers => #{}, held => []}.

caller_pid(N) -> list_to_pid("<0." ++ integer_to_list(N) ++ ".99>").

step(Operation, {Table, Model, Violations}) ->
    {Next, NextModel, Seen} = apply_operation(Operation, Table, Model),
    {Next, NextModel, Violations ++ Seen ++ invariants(Next, NextModel)}.

apply_operation({add, Kind, CallerN, Deadline}, Table, #{entries := Entries, callers := Callers, held := Held} = Model) ->
    Id = mcp_request_table:next_id(Table),
    Caller = case {Kind, CallerN} of
                 {handshake, _} -> none;
                 {_, none} -> none;
                 {_, N} -> caller_pid(N)
             end,
    Request = #{from => {self(), make_ref()}, kind => Kind, deadline => Deadline, caller => Caller},
    Ids = [maps:get(id, E) || E <- Entries],
    Fresh = [{id_reused, Id} || lists:member(Id, Ids) orelse lists:any(fun(I) -> I >= Id end, Ids)],
    Agrees = [{monitored, Caller} || Caller =/= none,
                                      mcp_request_table:monitored(Table, Caller) =/= is_map_key(Caller, Callers)],
    case Caller =/= none andalso not is_map_key(Caller, Callers) of
        true ->
            Monitor = make_ref(),
            {mcp_request_table:add(Table, Request#{monitor => Monitor}),
             Model#{entries := Entries ++ [Request#{id => Id}], callers := Callers#{Caller => {Monitor, 1}},
                    held := [Monitor | Held]},
             Fresh ++ Agrees};
        false ->
            Counted = case Callers of
                          #{Caller := {Monitor, Pending}} -> Callers#{Caller := {Monitor, Pending + 1}};
                          _ -> Callers
                      end,
            {mcp_request_table:add(Table, Request), Model#{entries := Entries ++ [Request#{id => Id}], callers := Counted},
             Fresh ++ Agrees}
    end;
apply_operation({settle, Pick}, Table, Model) ->
    Id = pick(Pick, Table),
    taken(mcp_request_table:settle(Table, Id), Id, Table, Model);
apply_operation({expire, Now}, Table, #{entries := Entries} = Model) ->
    Due = [I || {_, I} <- lists:sort([{D, I} || #{deadline := D, id := I} <- Entries, D =< Now])],
    case mcp_request_table:due(Table, Now) of
        Due ->
            lists:foldl(fun(Id, {T, M, Seen}) ->
                                {T1, M1, Seen1} = taken(mcp_request_table:settle(T, Id), Id, T, M),
                                {T1, M1, Seen ++ Seen1}
                        end, {Table, Model, []}, Due);
        Other ->
            {Table, Model, [{due, Now, Other, Due}]}
    end;
apply_operation({caller_gone, N}, Table, #{entries := Entries, callers := Callers, held := Held} = Model) ->
    Caller = caller_pid(N),
    case Callers of
        #{Caller := {Monitor, _}} ->
            {Theirs, Others} = lists:partition(fun(#{caller := C}) -> C =:= Caller end, Entries),
            Expected = [E#{release => none} || E <- Theirs],
            case mcp_request_table:caller_gone(Table, Monitor) of
                {Expected, Next} ->
                    {Next, Model#{entries := Others, callers := maps:remove(Caller, Callers),
                                  held := lists:delete(Monitor, Held)}, []};
                Other ->
                    {Table, Model, [{caller_gone, Caller, Other, Expected}]}
            end;
        _ ->
            unchanged(mcp_request_table:caller_gone(Table, make_ref()), Table, Model)
    end;
apply_operation(drain, Table, #{entries := Entries, held := Held}) ->
    {Drained, Monitors, Next} = mcp_request_table:drain(Table),
    Expected = [E#{release => none} || E <- Entries],
    {Next, model(), [{drained, Drained, Expected} || Drained =/= Expected]
                    ++ [{drained_monitors, Monitors, Held} || lists:sort(Monitors) =/= lists:sort(Held)]}.

%% An id among those minted so far (0 when none: never minted).
pick(Pick, Table) ->
    case mcp_request_table:next_id(Table) of
        1 -> 0;
        Next -> 1 + Pick rem (Next - 1)
    end.

%% The entry with Id must come out iff the model holds it, releasing its
%% caller's monitor only when that caller has nothing else pending and the
%% idle callers are at their bound.
taken(Result, Id, Table, #{entries := Entries, callers := Callers, held := Held} = Model) ->
    case lists:partition(fun(E) -> maps:get(id, E) =:= Id end, Entries) of
        {[], _} ->
            unchanged(Result, Table, Model);
        {[#{caller := Caller} = Entry], Rest} ->
            Idle = length([C || {C, {_, 0}} <- maps:to_list(Callers)]),
            {Release, NextCallers, NextHeld} =
                case Callers of
                    #{Caller := {Monitor, 1}} when Idle >= 64 ->
                        {Monitor, maps:remove(Caller, Callers), lists:delete(Monitor, Held)};
                    #{Caller := {Monitor, Pending}} -> {none, Callers#{Caller := {Monitor, Pending - 1}}, Held};
                    _ -> {none, Callers, Held}
                end,
            Expected = Entry#{release => Release},
            case Result of
                {Expected, Next} -> {Next, Model#{entries := Rest, callers := NextCallers, held := NextHeld}, []};
                Other -> {Table, Model, [{taken, Id, Other, Expected}]}
            end
    end.

unchanged(none, Table, Model) -> {Table, Model, []};
unchanged(Other, Table, Model) -> {Table, Model, [{should_find_nothing, Other}]}.

invariants(Table, #{entries := Model, callers := Callers, held := Held}) ->
    Ids = [maps:get(id, E) || E <- Model],
    Expected = mcp_request_table:expected(Table),
    Earliest = case Model of
                   [] -> none;
                   _ -> lists:min([D || #{deadline := D} <- Model])
               end,
    [{expected_keys, maps:keys(Expected), Ids} || lists:sort(maps:keys(Expected)) =/= lists:sort(Ids)]
        ++ [{size, mcp_request_table:size(Table), length(Model)}
            || mcp_request_table:size(Table) =/= length(Model)]
        ++ [{next_id, mcp_request_table:next_id(Table)}
            || lists:any(fun(Id) -> Id >= mcp_request_table:next_id(Table) end, Ids)]
        ++ [{expectation, E} || E <- Model,
                                maps:get(maps:get(id, E), Expected) =/= expectation(maps:get(kind, E))]
        ++ [{earliest, mcp_request_table:earliest(Table), Earliest} || mcp_request_table:earliest(Table) =/= Earliest]
        ++ [{caller_unmonitored, E} || #{caller := C} = E <- Model, C =/= none,
                                        not mcp_request_table:monitored(Table, C)]
        ++ [{monitors, mcp_request_table:monitors(Table), Held}
            || lists:sort(mcp_request_table:monitors(Table)) =/= lists:sort(Held)]
        ++ [{one_monitor_per_caller, Callers} || length(Held) =/= map_size(Callers)].

expectation(handshake) -> initialize;
%% A page goes back to the actor to be read within its listing's budget.
expectation({list, _}) -> routed_result;
expectation(call) -> call_tool;
expectation(call_msgpack) -> call_tool_msgpack;
expectation(ping) -> ping;
%% A tool call's complete result goes to its caller (a long line) or is
%% read by the actor (a short one), as the call's kind says.
expectation({tool_call, call, _, _}) -> routed_call_tool;
expectation({tool_call, call_msgpack, _, _}) -> routed_call_tool_msgpack.

%% ---- named cases ----

request(Caller, Deadline) ->
    #{from => {self(), make_ref()}, kind => call, deadline => Deadline, caller => Caller}.

a_routed_tool_call_is_read_by_its_caller_as_its_kind_says_test() ->
    ?assertEqual(call_tool, mcp_request_table:routed_as({tool_call, call, {<<"t">>, null}, 0})),
    ?assertEqual(call_tool_msgpack, mcp_request_table:routed_as({tool_call, call_msgpack, {<<"t">>, null}, 2})).

a_settled_id_is_gone_for_every_other_way_out_test() ->
    Monitor = make_ref(),
    T0 = mcp_request_table:add(mcp_request_table:new(), (request(self(), 0))#{monitor => Monitor}),
    {#{id := 1, release := none}, T1} = mcp_request_table:settle(T0, 1),
    ?assertEqual(none, mcp_request_table:settle(T1, 1)),
    ?assertEqual([], mcp_request_table:due(T1, 100)),
    %% Its caller stays monitored, idle: its death takes nothing out.
    ?assertMatch({[], _}, mcp_request_table:caller_gone(T1, Monitor)),
    ?assertMatch({[], [Monitor], _}, mcp_request_table:drain(T1)),
    ?assertEqual(2, mcp_request_table:next_id(T1)).

%% A caller calling again is monitored once: its second request (while the
%% first is pending, and after it settled) takes no new monitor.
a_caller_is_monitored_once_across_its_requests_test() ->
    Monitor = make_ref(),
    T0 = mcp_request_table:new(),
    ?assertNot(mcp_request_table:monitored(T0, self())),
    T1 = mcp_request_table:add(T0, (request(self(), 5))#{monitor => Monitor}),
    ?assert(mcp_request_table:monitored(T1, self())),
    T2 = mcp_request_table:add(T1, request(self(), 6)),
    {#{release := none}, T3} = mcp_request_table:settle(T2, 1),
    {#{release := none}, T4} = mcp_request_table:settle(T3, 2),
    ?assert(mcp_request_table:monitored(T4, self())),
    T5 = mcp_request_table:add(T4, request(self(), 7)),
    ?assertEqual([Monitor], mcp_request_table:monitors(T5)),
    %% A monitor is needed for a caller not monitored yet.
    ?assertError(_, mcp_request_table:add(T5, request(caller_pid(1), 8))).

%% 64 callers with nothing pending keep their monitors; the 65th's is
%% handed back as its last request leaves; a caller's death is then not
%% the table's.
idle_callers_are_bounded_test() ->
    Max = mcp_request_table:max_idle_callers(),
    ?assertEqual(64, Max),
    Callers = [caller_pid(N) || N <- lists:seq(1, Max + 1)],
    Added = lists:foldl(fun(C, T) -> mcp_request_table:add(T, (request(C, 0))#{monitor => make_ref()}) end,
                        mcp_request_table:new(), Callers),
    {Kept, T1} = lists:foldl(fun(Id, {Acc, T}) ->
                                     {#{release := R}, Next} = mcp_request_table:settle(T, Id),
                                     {[R | Acc], Next}
                             end, {[], Added}, lists:seq(1, Max)),
    ?assertEqual(lists:duplicate(Max, none), Kept),
    {#{release := Released}, T2} = mcp_request_table:settle(T1, Max + 1),
    ?assert(is_reference(Released)),
    ?assertEqual(Max, length(mcp_request_table:monitors(T2))),
    ?assertNot(mcp_request_table:monitored(T2, lists:last(Callers))),
    ?assertEqual(none, mcp_request_table:caller_gone(T2, Released)).

%% A caller's death takes out every request it has pending, and only its.
a_callers_death_takes_all_its_requests_test() ->
    Mine = make_ref(),
    T0 = mcp_request_table:add(mcp_request_table:new(), (request(self(), 3))#{monitor => Mine}),
    T1 = mcp_request_table:add(T0, (request(caller_pid(1), 1))#{monitor => make_ref()}),
    T2 = mcp_request_table:add(T1, request(self(), 2)),
    {[#{id := 1}, #{id := 3}], T3} = mcp_request_table:caller_gone(T2, Mine),
    ?assertEqual(1, mcp_request_table:size(T3)),
    ?assertNot(mcp_request_table:monitored(T3, self())),
    ?assertEqual(1, mcp_request_table:earliest(T3)).

%% A deadline is due at its moment and not one millisecond before; the
%% least comes first.
deadlines_are_due_least_first_test() ->
    T0 = mcp_request_table:add(mcp_request_table:new(), request(none, 20)),
    T1 = mcp_request_table:add(T0, request(none, 10)),
    ?assertEqual(10, mcp_request_table:earliest(T1)),
    ?assertEqual([], mcp_request_table:due(T1, 9)),
    ?assertEqual([2], mcp_request_table:due(T1, 10)),
    ?assertEqual([2], mcp_request_table:due(T1, 19)),
    ?assertEqual([2, 1], mcp_request_table:due(T1, 20)),
    {_, T2} = mcp_request_table:settle(T1, 2),
    ?assertEqual(20, mcp_request_table:earliest(T2)),
    {_, T3} = mcp_request_table:settle(T2, 1),
    ?assertEqual(none, mcp_request_table:earliest(T3)).

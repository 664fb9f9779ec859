%% `mcp_request_table' on its own: random sequences of add / settle /
%% expire (with the right and a stale timer) / caller-gone / drain, run
%% against the table and against a plain list model, with the table's
%% invariants asserted after every step.
-module(mcp_request_table_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-define(CASES, 500).

table_matches_its_model_test() ->
    ?assert(proper:quickcheck(prop_table_matches_model(), [{numtests, ?CASES}, {to_file, user}])).

%% One operation: `{add, Kind, Monitored}', `{settle, Pick}',
%% `{expire, Pick, StaleTimer}', `{caller_gone, Pick}', `drain', where Pick
%% selects among the ids minted so far (some already gone).
operation() ->
    frequency([{5, {add, oneof([handshake, call, call_msgpack, ping, {list, 0, [], []},
                                {tool_call, call, {<<"t">>, {object, []}}, 0},
                                {tool_call, call_msgpack, {<<"t">>, {object, []}}, 1}]), boolean()}},
               {3, {settle, nat()}},
               {2, {expire, nat(), boolean()}},
               {2, {caller_gone, nat()}},
               {1, drain}]).

prop_table_matches_model() ->
    ?FORALL(Operations, list(operation()),
            begin
                {_, _, Violations} = lists:foldl(fun step/2, {mcp_request_table:new(), [], []}, Operations),
                ?WHENFAIL(io:format(user, "violations: ~p~n", [Violations]), Violations =:= [])
            end).

%% The model: the entries the table should hold, oldest first, each
%% `#{id, timer, monitor, kind}' plus every id ever minted (`minted').
step(Operation, {Table, Model, Violations}) ->
    {Next, NextModel, Seen} = apply_operation(Operation, Table, Model),
    {Next, NextModel, Violations ++ Seen ++ invariants(Next, NextModel)}.

apply_operation({add, Kind, Monitored}, Table, Model) ->
    Id = mcp_request_table:next_id(Table),
    Monitor = case Monitored of true -> make_ref(); false -> none end,
    Entry = #{from => {self(), make_ref()}, kind => Kind, deadline => Id, timer => make_ref(),
              monitor => Monitor},
    Ids = [maps:get(id, E) || E <- Model],
    Fresh = [{id_reused, Id} || lists:member(Id, Ids) orelse lists:any(fun(I) -> I >= Id end, Ids)],
    {mcp_request_table:add(Table, Entry), Model ++ [Entry#{id => Id}], Fresh};
apply_operation({settle, Pick}, Table, Model) ->
    Id = pick(Pick, Table),
    taken(mcp_request_table:settle(Table, Id), Id, Table, Model);
apply_operation({expire, Pick, Stale}, Table, Model) ->
    Id = pick(Pick, Table),
    Timer = case [maps:get(timer, E) || E <- Model, maps:get(id, E) =:= Id] of
                [T] when not Stale -> T;
                _ -> make_ref()
            end,
    case Stale of
        true -> unchanged(mcp_request_table:expire(Table, Id, Timer), Table, Model);
        false -> taken(mcp_request_table:expire(Table, Id, Timer), Id, Table, Model)
    end;
apply_operation({caller_gone, Pick}, Table, Model) ->
    Id = pick(Pick, Table),
    case [maps:get(monitor, E) || E <- Model, maps:get(id, E) =:= Id] of
        [Monitor] when Monitor =/= none -> taken(mcp_request_table:caller_gone(Table, Monitor), Id, Table, Model);
        _ -> unchanged(mcp_request_table:caller_gone(Table, make_ref()), Table, Model)
    end;
apply_operation(drain, Table, Model) ->
    {Drained, Next} = mcp_request_table:drain(Table),
    {Next, [], [{drained, Drained, Model} || Drained =/= Model]}.

%% An id among those minted so far (0 when none: never minted).
pick(Pick, Table) ->
    case mcp_request_table:next_id(Table) of
        1 -> 0;
        Next -> 1 + Pick rem (Next - 1)
    end.

%% The entry with Id must come out iff the model holds it.
taken(Result, Id, Table, Model) ->
    case {lists:partition(fun(E) -> maps:get(id, E) =:= Id end, Model), Result} of
        {{[Expected], Rest}, {Expected, Next}} -> {Next, Rest, []};
        {{[], _}, none} -> {Table, Model, []};
        {_, Other} -> {Table, Model, [{taken, Id, Other}]}
    end.

unchanged(none, Table, Model) -> {Table, Model, []};
unchanged(Other, Table, Model) -> {Table, Model, [{should_find_nothing, Other}]}.

invariants(Table, Model) ->
    Ids = [maps:get(id, E) || E <- Model],
    Expected = mcp_request_table:expected(Table),
    Monitored = [E || E <- Model, maps:get(monitor, E) =/= none],
    [{expected_keys, maps:keys(Expected), Ids} || lists:sort(maps:keys(Expected)) =/= lists:sort(Ids)]
        ++ [{size, mcp_request_table:size(Table), length(Model)}
            || mcp_request_table:size(Table) =/= length(Model)]
        ++ [{next_id, mcp_request_table:next_id(Table)}
            || lists:any(fun(Id) -> Id >= mcp_request_table:next_id(Table) end, Ids)]
        ++ [{expectation, E} || E <- Model,
                                maps:get(maps:get(id, E), Expected) =/= expectation(maps:get(kind, E))]
        ++ [{monitor_lost, E} || E <- Monitored,
                                 not found_by_monitor(Table, E)]
        ++ [{monitors, mcp_request_table:monitors(Table), Monitored}
            || lists:sort(mcp_request_table:monitors(Table))
                   =/= lists:sort([maps:get(monitor, E) || E <- Monitored])].

%% Looking the entry up by its monitor finds it (checked on a copy: the
%% table is a value).
found_by_monitor(Table, #{monitor := Monitor} = Entry) ->
    case mcp_request_table:caller_gone(Table, Monitor) of
        {Entry, _} -> true;
        _ -> false
    end.

expectation(handshake) -> initialize;
expectation({list, _, _, _}) -> tools_page;
expectation(call) -> call_tool;
expectation(call_msgpack) -> call_tool_msgpack;
expectation(ping) -> ping;
%% A tool call's complete result goes to its caller, who reads it as its
%% kind says.
expectation({tool_call, _, _, _}) -> routed_call_tool.

%% ---- named cases ----

a_routed_tool_call_is_read_by_its_caller_as_its_kind_says_test() ->
    ?assertEqual(call_tool, mcp_request_table:routed_as({tool_call, call, {<<"t">>, null}, 0})),
    ?assertEqual(call_tool_msgpack, mcp_request_table:routed_as({tool_call, call_msgpack, {<<"t">>, null}, 2})).

a_settled_id_is_gone_for_every_other_way_out_test() ->
    Timer = make_ref(),
    Monitor = make_ref(),
    T0 = mcp_request_table:add(mcp_request_table:new(),
                               #{from => {self(), make_ref()}, kind => call, deadline => 0,
                                 timer => Timer, monitor => Monitor}),
    {#{id := 1}, T1} = mcp_request_table:settle(T0, 1),
    ?assertEqual(none, mcp_request_table:settle(T1, 1)),
    ?assertEqual(none, mcp_request_table:expire(T1, 1, Timer)),
    ?assertEqual(none, mcp_request_table:caller_gone(T1, Monitor)),
    ?assertEqual({[], T1}, mcp_request_table:drain(T1)),
    ?assertEqual(2, mcp_request_table:next_id(T1)).

a_stale_timer_expires_nothing_test() ->
    T0 = mcp_request_table:add(mcp_request_table:new(),
                               #{from => {self(), make_ref()}, kind => ping, deadline => 0,
                                 timer => make_ref(), monitor => none}),
    ?assertEqual(none, mcp_request_table:expire(T0, 1, make_ref())),
    ?assertEqual(1, mcp_request_table:size(T0)).

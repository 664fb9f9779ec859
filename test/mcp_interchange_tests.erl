%% EUnit and PropEr tests of mcp_interchange: every rule and fault path,
%% both integer bounds and one past each, the byte codec's faults, the
%% dirty paths, and properties (round trips, fast path = term path).
-module(mcp_interchange_tests).

%% proper first: eunit.hrl then leaves proper's ?LET alone.
-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

%% The range's one definition (the Rust core's, read through the NIF).
-define(MAX, (mcp_interchange:max_msgpack_int())).
-define(MIN, (mcp_interchange:min_msgpack_int())).

s(Text) -> {string_value, Text}.
fault(Path, Reason) -> {error, {interchange_fault, Path, Reason}}.

%% ---- constants ----

%% MessagePack's own range: uint 64 and int 64.
bounds_are_msgpacks_test() ->
    ?assertEqual(1 bsl 64 - 1, mcp_interchange:max_msgpack_int()),
    ?assertEqual(-(1 bsl 63), mcp_interchange:min_msgpack_int()).

%% ---- to_json ----

nil_value_is_null_test() ->
    ?assertEqual({ok, null}, mcp_interchange:to_json(nil_value)).

null_is_nil_value_test() ->
    ?assertEqual({ok, nil_value}, mcp_interchange:to_msgpack(null)).

scalars_to_json_test() ->
    ?assertEqual({ok, {bool, true}}, mcp_interchange:to_json({bool_value, true})),
    ?assertEqual({ok, {int, ?MAX}}, mcp_interchange:to_json({int_value, ?MAX})),
    ?assertEqual({ok, {int, ?MIN}}, mcp_interchange:to_json({int_value, ?MIN})),
    ?assertEqual({ok, {float, 1.5}}, mcp_interchange:to_json({float_value, 1.5})),
    ?assertEqual({ok, {string, <<"héllo"/utf8>>}}, mcp_interchange:to_json(s(<<"héllo"/utf8>>))).

containers_to_json_keep_order_and_duplicates_test() ->
    Value = {map_value, [{s(<<"b">>), nil_value}, {s(<<"a">>), {array_value, [{int_value, 1}]}},
                         {s(<<"b">>), {int_value, 2}}]},
    ?assertEqual({ok, {object, [{<<"b">>, null}, {<<"a">>, {array, [{int, 1}]}}, {<<"b">>, {int, 2}}]}},
                 mcp_interchange:to_json(Value)).

args(Bad) ->
    {map_value, [{s(<<"args">>), {array_value, [nil_value, nil_value,
                                                {map_value, [{s(<<"id">>), {int_value, 1}},
                                                             {s(<<"name">>), Bad}]}]}}]}.

refusals_name_their_path_test_() ->
    [?_assertEqual(fault(<<"$.args[2].name">>, Reason), mcp_interchange:to_json(args(Bad)))
     || {Bad, Reason} <- [{{binary_value, <<1>>}, <<"binary has no json form">>},
                          {{ext_value, 1, <<1>>}, <<"ext has no json form">>},
                          {{string_value, <<16#c3, 16#28>>}, <<"string is not valid utf-8">>}]].

map_keys_must_be_utf8_strings_test_() ->
    WithKey = fun(Key) -> {map_value, [{s(<<"args">>), {map_value, [{s(<<"ok">>), nil_value},
                                                                   {Key, nil_value}]}}]} end,
    [?_assertEqual(fault(<<"$.args">>, <<"map key is not a string">>), mcp_interchange:to_json(WithKey(K)))
     || K <- [{int_value, 1}, nil_value, {binary_value, <<"k">>}, {array_value, []}, {map_value, []}]]
    ++ [?_assertEqual(fault(<<"$.args">>, <<"map key is not valid utf-8">>),
                      mcp_interchange:to_json(WithKey({string_value, <<255>>})))].

first_fault_in_document_order_test() ->
    Value = {array_value, [{array_value, [{ext_value, 0, <<>>}]}, {binary_value, <<>>}]},
    ?assertEqual(fault(<<"$[0][0]">>, <<"ext has no json form">>), mcp_interchange:to_json(Value)).

odd_keys_are_quoted_in_paths_test() ->
    Value = {map_value, [{s(<<"two words">>), {map_value, [{s(<<"x_1">>), {binary_value, <<>>}}]}}]},
    ?assertEqual(fault(<<"$[\"two words\"].x_1">>, <<"binary has no json form">>),
                 mcp_interchange:to_json(Value)).

%% Improper lists among the refused terms, on purpose.
-dialyzer({no_improper_lists, to_json_refuses_terms_outside_msgpack_test_/0}).
to_json_refuses_terms_outside_msgpack_test_() ->
    [?_assertError(badarg, mcp_interchange:to_json(T))
     || T <- [foo, {int_value, 1.0}, {float_value, 1}, {string_value, "list"}, {array_value, [foo]},
              {map_value, [nil_value | nil_value]}, {bool_value, 1, 2},
              {map_value, [{nil_value}]}, {ext_value, 128, <<>>}, {array_value, [nil_value | nil_value]}]].

deeper_than_max_depth_is_a_fault_test() ->
    Max = mcp_json:max_depth(),
    Deep = fun(N) -> lists:foldl(fun(_, Acc) -> {array_value, [Acc]} end, nil_value, lists:seq(1, N)) end,
    ?assertMatch({ok, _}, mcp_interchange:to_json(Deep(Max))),
    {error, {interchange_fault, Path, <<"nesting too deep">>}} = mcp_interchange:to_json(Deep(Max + 1)),
    ?assertEqual(iolist_to_binary(["$" | lists:duplicate(Max, "[0]")]), Path).

%% ---- to_msgpack ----

integer_bounds_to_msgpack_test() ->
    ?assertEqual({ok, {int_value, ?MAX}}, mcp_interchange:to_msgpack({int, ?MAX})),
    ?assertEqual(fault(<<"$">>, <<"integer outside msgpack range">>), mcp_interchange:to_msgpack({int, ?MAX + 1})),
    ?assertEqual({ok, {int_value, ?MIN}}, mcp_interchange:to_msgpack({int, ?MIN})),
    ?assertEqual(fault(<<"$">>, <<"integer outside msgpack range">>), mcp_interchange:to_msgpack({int, ?MIN - 1})),
    ?assertEqual(fault(<<"$">>, <<"integer outside msgpack range">>), mcp_interchange:to_msgpack({int, 1 bsl 200})).

%% Integers beyond i128 are placed by comparison, never copied or converted:
%% the same answers whatever their size.
huge_integers_are_faults_not_work_test_() ->
    Fault = fault(<<"$">>, <<"integer outside msgpack range">>),
    %% Made at run time: as a literal, dialyzer spends over a minute on it.
    Huge = 1 bsl list_to_integer("4000000"),
    [[?_assertEqual(Fault, mcp_interchange:to_msgpack({int, I})),
      ?_assertEqual(Fault, mcp_interchange:to_json({int_value, I})),
      ?_assertError(badarg, mcp_interchange:msgpack_encode({int_value, I}))]
     || I <- [1 bsl 127, (1 bsl 127) - 1, -(1 bsl 127), -(1 bsl 127) - 1, Huge, -Huge]].

one_bad_integer_fails_the_whole_result_test() ->
    Result = {object, [{<<"ok">>, {int, 1}}, {<<"rows">>, {array, [{int, 1}, {object, [{<<"n">>, {int, ?MAX + 1}}]}]}}]},
    ?assertEqual(fault(<<"$.rows[1].n">>, <<"integer outside msgpack range">>), mcp_interchange:to_msgpack(Result)).

to_msgpack_scalars_and_containers_test() ->
    ?assertEqual({ok, {map_value, [{s(<<"a">>), {array_value, [{bool_value, false}, {float_value, -0.5},
                                                                s(<<"x">>)]}}]}},
                 mcp_interchange:to_msgpack({object, [{<<"a">>, {array, [{bool, false}, {float, -0.5},
                                                                          {string, <<"x">>}]}}]})).

to_msgpack_refuses_terms_outside_json_test_() ->
    [?_assertError(badarg, mcp_interchange:to_msgpack(T))
     || T <- [nil_value, {string, <<255>>}, {object, [{<<"k">>}]}, {array, [foo]}]].

describe_test() ->
    ?assertEqual(<<"binary has no json form at $.args[2].name">>,
                 mcp_interchange:describe({interchange_fault, <<"$.args[2].name">>, <<"binary has no json form">>})),
    ?assertEqual(<<"oops at $">>, mcp_interchange:describe({interchange_fault, <<"$">>, oops})).

%% ---- byte codec ----

smallest_encoding_examples_test_() ->
    [?_assertEqual(Bytes, mcp_interchange:msgpack_encode(V)) || {V, Bytes} <- [
        {nil_value, <<16#c0>>},
        {{int_value, 127}, <<16#7f>>}, {{int_value, 128}, <<16#cc, 128>>},
        {{int_value, -32}, <<16#e0>>}, {{int_value, -33}, <<16#d0, 16#df>>},
        {{int_value, ?MAX}, <<16#cf, -1:64>>}, {{int_value, ?MIN}, <<16#d3, ?MIN:64>>},
        {{float_value, 1.5}, <<16#ca, 1.5:32/float>>}, {{float_value, 0.1}, <<16#cb, 0.1:64/float>>},
        {s(<<"hi">>), <<16#a2, "hi">>}, {{binary_value, <<1>>}, <<16#c4, 1, 1>>},
        {{ext_value, -1, <<7>>}, <<16#d4, 255, 7>>},
        {{array_value, [nil_value]}, <<16#91, 16#c0>>},
        {{map_value, [{s(<<"k">>), {bool_value, true}}]}, <<16#81, 16#a1, "k", 16#c3>>}]].

encode_refuses_terms_outside_msgpack_test_() ->
    Deep = lists:foldl(fun(_, Acc) -> {array_value, [Acc]} end, nil_value, lists:seq(1, mcp_json:max_depth() + 1)),
    [?_assertError(badarg, mcp_interchange:msgpack_encode(T))
     || T <- [{int_value, ?MAX + 1}, {int_value, ?MIN - 1}, {ext_value, -129, <<>>}, {ext_value, 128, <<>>}, foo, Deep]].

decode_examples_test() ->
    ?assertEqual({ok, {array_value, [nil_value, {string_value, <<255>>}]}},
                 mcp_interchange:msgpack_decode(<<16#92, 16#c0, 16#a1, 255>>)),
    ?assertEqual({ok, {ext_value, -2, <<1, 2>>}}, mcp_interchange:msgpack_decode(<<16#d5, 254, 1, 2>>)).

decode_faults_test_() ->
    Max = mcp_json:max_depth(),
    [?_assertEqual({error, {corruption_report, Offset, Reason}}, mcp_interchange:msgpack_decode(Bytes))
     || {Bytes, Offset, Reason} <- [
        {<<>>, 0, <<"unexpected end of input">>},
        {<<16#cd, 1>>, 2, <<"unexpected end of input">>},
        {<<16#c0, 16#c0>>, 1, <<"trailing bytes">>},
        {<<16#db, 255, 255, 255, 255, "a">>, 0, <<"length exceeds input">>},
        {<<16#dd, 255, 255, 255, 255, 16#c0>>, 0, <<"length exceeds input">>},
        {<<16#a3, "hi">>, 0, <<"length exceeds input">>},
        {<<16#c1>>, 0, <<"reserved marker">>},
        {<<16#cb, 16#7f, 16#f8, 0:48>>, 0, <<"non-finite float">>},
        {binary:copy(<<16#91>>, Max), Max - 1, <<"length exceeds input">>},
        {<<(binary:copy(<<16#91>>, Max))/binary, 16#90>>, Max, <<"nesting too deep">>},
        {binary:copy(<<16#91>>, 100000), Max, <<"nesting too deep">>}]].

decode_depth_limit_test() ->
    Max = mcp_json:max_depth(),
    ?assertMatch({ok, {array_value, _}},
                 mcp_interchange:msgpack_decode(<<(binary:copy(<<16#91>>, Max - 1))/binary, 16#90>>)).

%% ---- fast paths ----

msgpack_to_json_line_test() ->
    Bytes = mcp_interchange:msgpack_encode({map_value, [{s(<<"a">>), {array_value, [{int_value, ?MAX}, s(<<"x\ny">>)]}}]}),
    ?assertEqual({ok, <<"{\"a\":[18446744073709551615,\"x\\ny\"]}">>}, mcp_interchange:msgpack_to_json_line(Bytes)),
    ?assertEqual({ok, <<"null">>}, mcp_interchange:msgpack_to_json_line(<<16#c0>>)),
    ?assertEqual(fault(<<"$.k">>, <<"binary has no json form">>),
                 mcp_interchange:msgpack_to_json_line(<<16#81, 16#a1, "k", 16#c4, 0>>)),
    ?assertEqual({error, {corruption_report, 3, <<"unexpected end of input">>}},
                 mcp_interchange:msgpack_to_json_line(<<16#92, 16#c4, 0>>)).

json_to_msgpack_bytes_test() ->
    ?assertEqual({ok, <<16#c0>>}, mcp_interchange:json_to_msgpack_bytes(<<"null">>)),
    ?assertEqual({ok, <<16#cf, -1:64>>}, mcp_interchange:json_to_msgpack_bytes(<<"18446744073709551615">>)),
    ?assertEqual(fault(<<"$.n[0]">>, <<"integer outside msgpack range">>),
                 mcp_interchange:json_to_msgpack_bytes(<<"{\"n\":[18446744073709551616]}">>)),
    ?assertEqual(fault(<<"$">>, <<"integer outside msgpack range">>),
                 mcp_interchange:json_to_msgpack_bytes(<<"-9223372036854775809">>)),
    ?assertEqual({ok, <<16#d3, ?MIN:64>>}, mcp_interchange:json_to_msgpack_bytes(<<"-9223372036854775808">>)),
    ?assertMatch({error, {corruption_report, _, _}}, mcp_interchange:json_to_msgpack_bytes(<<"[1,">>)).

%% ---- both schedulers ----

big_inputs_take_the_dirty_path_and_agree_test() ->
    Threshold = max(mcp_interchange:dirty_threshold(), mcp_interchange:work_budget()),
    Items = [{string_value, binary:copy(<<"x">>, 100)} || _ <- lists:seq(1, Threshold div 50)],
    Value = {array_value, Items},
    Bytes = mcp_interchange:msgpack_encode(Value),
    ?assert(byte_size(Bytes) > Threshold),
    ?assertEqual({ok, Value}, mcp_interchange:msgpack_decode(Bytes)),
    {ok, Json} = mcp_interchange:to_json(Value),
    ?assertEqual({ok, Value}, mcp_interchange:to_msgpack(Json)),
    Line = mcp_json:encode(Json),
    ?assertEqual({ok, Line}, mcp_interchange:msgpack_to_json_line(Bytes)),
    ?assertEqual({ok, Bytes}, mcp_interchange:json_to_msgpack_bytes(Line)),
    %% Below the threshold the budgeted NIF finishes itself; above it says dirty.
    ?assertEqual(dirty, mcp_nif:msgpack_encode(Value, Threshold)),
    ?assertEqual(dirty, mcp_nif:interchange_to_json(Value, Threshold)),
    ?assertEqual(dirty, mcp_nif:interchange_to_msgpack(Json, Threshold)),
    ?assertEqual(<<16#c0>>, mcp_nif:msgpack_encode(nil_value, 1)).

%% A term walk pays one unit per value, one per list cell as it counts a
%% container (before reading any item) and one per payload byte (before a
%% UTF-8 check): both sides of the budget for each.
%% Improper lists among the inputs, on purpose.
-dialyzer({no_improper_lists, work_budget_counts_before_reading_test_/0}).
work_budget_counts_before_reading_test_() ->
    N = 100,
    Nils = {array_value, lists:duplicate(N, nil_value)},
    Nulls = {array, lists:duplicate(N, null)},
    Units = 1 + 2 * N,
    Text = binary:copy(<<"é"/utf8>>, 50),
    [?_assertMatch({ok, _}, mcp_nif:interchange_to_json(Nils, Units)),
     ?_assertEqual(dirty, mcp_nif:interchange_to_json(Nils, Units - 1)),
     ?_assertMatch(<<_/binary>>, mcp_nif:msgpack_encode(Nils, Units)),
     ?_assertEqual(dirty, mcp_nif:msgpack_encode(Nils, Units - 1)),
     ?_assertMatch({ok, _}, mcp_nif:interchange_to_msgpack(Nulls, Units)),
     ?_assertEqual(dirty, mcp_nif:interchange_to_msgpack(Nulls, Units - 1)),
     ?_assertEqual(dirty, mcp_nif:interchange_to_msgpack({array, [null | null]}, 1)),
     ?_assertError(badarg, mcp_nif:interchange_to_msgpack({array, [null | null]}, 3)),
     ?_assertMatch({ok, _}, mcp_nif:interchange_to_msgpack({string, Text}, 1 + byte_size(Text))),
     ?_assertEqual(dirty, mcp_nif:interchange_to_msgpack({string, Text}, byte_size(Text))),
     ?_assertEqual(dirty, mcp_nif:interchange_to_msgpack({string, <<Text/binary, 255>>}, byte_size(Text))),
     ?_assertMatch({ok, _}, mcp_nif:interchange_to_msgpack({object, [{Text, null}]}, 3 + byte_size(Text))),
     ?_assertEqual(dirty, mcp_nif:interchange_to_msgpack({object, [{Text, null}]}, 2 + byte_size(Text)))].

%% A code-mode call's arguments are converted once. The budgeted NIF
%% measures the value before it builds anything: past its budget it answers
%% `dirty' with no JSON made (a value whose first member has no JSON form
%% included: converting as it walked, it met that fault on the normal
%% scheduler, and the dirty call converted the value again), and the dirty
%% call is the one conversion.
arguments_past_the_budget_are_converted_once_test() ->
    Budget = mcp_interchange:work_budget(),
    Content = binary:copy(<<"x">>, Budget),
    Arguments = {map_value, [{s(<<"mode">>), {binary_value, <<>>}}, {s(<<"content">>), s(Content)}]},
    ?assert(work_units(Arguments) > Budget),
    ?assertEqual(dirty, mcp_nif:interchange_to_json(Arguments, Budget)),
    ?assertEqual(fault(<<"$.mode">>, <<"binary has no json form">>), mcp_interchange:to_json(Arguments)),
    Fits = {map_value, [{s(<<"mode">>), {binary_value, <<>>}}]},
    ?assertEqual(fault(<<"$.mode">>, <<"binary has no json form">>), mcp_nif:interchange_to_json(Fits, Budget)).

%% Work units of a `msgpack()' term as the NIF's walk counts them: one per
%% value, one per list cell, one per payload byte.
work_units({string_value, B}) -> 1 + byte_size(B);
work_units({binary_value, B}) -> 1 + byte_size(B);
work_units({ext_value, _, B}) -> 1 + byte_size(B);
work_units({array_value, Items}) -> 1 + length(Items) + lists:sum([work_units(I) || I <- Items]);
work_units({map_value, Pairs}) -> 1 + length(Pairs) + lists:sum([work_units(K) + work_units(V) || {K, V} <- Pairs]);
work_units(_) -> 1.

%% ---- properties ----

msgpack_int() -> oneof([integer(), integer(?MIN, ?MAX), ?MAX, ?MIN, range(-40, 300)]).
text() -> ?LET(Chars, list(oneof([range($a, $z), range(0, 31), range(16#e9, 16#ff), 16#1F600])),
               unicode:characters_to_binary(Chars)).

leaf() ->
    oneof([nil_value, {bool_value, boolean()}, {int_value, msgpack_int()}, {float_value, float()},
           {string_value, text()}]).

%% Containers of at most 5 items, nesting shrinking with the size.
short_list(Gen) -> ?LET(N, range(0, 5), vector(N, Gen)).

representable() -> ?SIZED(Size, representable(min(Size, 64))).
representable(Size) when Size < 4 -> leaf();
representable(Size) ->
    frequency([{3, leaf()},
               {1, ?LAZY({array_value, short_list(representable(Size div 4))})},
               {1, ?LAZY({map_value, short_list({{string_value, text()}, representable(Size div 4)})})}]).

any_leaf() ->
    oneof([leaf(), {string_value, binary()}, {binary_value, binary()}, {ext_value, range(-128, 127), binary()}]).

any_msgpack() -> ?SIZED(Size, any_msgpack(min(Size, 64))).
any_msgpack(Size) when Size < 4 -> any_leaf();
any_msgpack(Size) ->
    frequency([{3, any_leaf()},
               {1, ?LAZY({array_value, short_list(any_msgpack(Size div 4))})},
               {1, ?LAZY({map_value, short_list({any_msgpack(Size div 8), any_msgpack(Size div 4)})})}]).

prop_representable_round_trips_through_json() ->
    ?FORALL(V, representable(),
            begin {ok, J} = mcp_interchange:to_json(V), mcp_interchange:to_msgpack(J) =:= {ok, V} end).

prop_byte_codec_round_trips() ->
    ?FORALL(V, any_msgpack(), mcp_interchange:msgpack_decode(mcp_interchange:msgpack_encode(V)) =:= {ok, V}).

slow_msgpack_to_json(Bytes) ->
    case mcp_interchange:msgpack_decode(Bytes) of
        {ok, V} ->
            case mcp_interchange:to_json(V) of
                {ok, J} -> {ok, mcp_json:encode(J)};
                Fault -> Fault
            end;
        Corrupt -> Corrupt
    end.

slow_json_to_msgpack(Line) ->
    case mcp_json:decode(Line) of
        {ok, J} ->
            case mcp_interchange:to_msgpack(J) of
                {ok, V} -> {ok, mcp_interchange:msgpack_encode(V)};
                Fault -> Fault
            end;
        Corrupt -> Corrupt
    end.

prop_msgpack_fast_path_agrees_with_terms() ->
    ?FORALL(V, any_msgpack(),
            begin B = mcp_interchange:msgpack_encode(V),
                  mcp_interchange:msgpack_to_json_line(B) =:= slow_msgpack_to_json(B) end).

prop_msgpack_fast_path_agrees_on_random_bytes() ->
    ?FORALL(B, binary(), mcp_interchange:msgpack_to_json_line(B) =:= slow_msgpack_to_json(B)).

prop_json_fast_path_agrees_with_terms() ->
    ?FORALL(V, representable(),
            begin {ok, J} = mcp_interchange:to_json(V),
                  %% widen integers past msgpack's range sometimes
                  Line = mcp_json:encode(J),
                  Wide = <<"[", Line/binary, ",", (integer_to_binary(?MAX + 1))/binary, "]">>,
                  mcp_interchange:json_to_msgpack_bytes(Line) =:= slow_json_to_msgpack(Line)
                  andalso mcp_interchange:json_to_msgpack_bytes(Wide) =:= slow_json_to_msgpack(Wide) end).

%% The budgeted conversion either finds the whole value within its budget
%% and answers what the one unbudgeted conversion answers, or answers
%% `dirty' having converted nothing: never a partial conversion to redo.
prop_budgeted_to_json_is_the_single_conversion_or_dirty() ->
    ?FORALL({V, Budget}, {any_msgpack(), range(1, 120)},
            case mcp_nif:interchange_to_json(V, Budget) of
                dirty -> work_units(V) > Budget;
                Answer -> work_units(V) =< Budget andalso Answer =:= mcp_nif:interchange_to_json_dirty(V)
            end).

properties_test_() ->
    {timeout, 60,
     [?_assert(proper:quickcheck(P, [{numtests, 300}, {to_file, user}, noshrink]))
      || P <- [prop_representable_round_trips_through_json(), prop_byte_codec_round_trips(),
               prop_msgpack_fast_path_agrees_with_terms(), prop_msgpack_fast_path_agrees_on_random_bytes(),
               prop_json_fast_path_agrees_with_terms(), prop_budgeted_to_json_is_the_single_conversion_or_dirty()]]}.

%% @doc mcp_json through the NIF: the JSONTestSuite corpus, the term
%% contract, limits on both sides, encode refusals, atom safety, and a
%% PropEr round trip.
-module(mcp_json_tests).

%% proper.hrl first: eunit.hrl then skips its own ?LET.
-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

%% The generator of json() values, shared with mcp_structured_content_tests.
-export([json_value/0]).

corpus_dir() ->
    filename:join([filename:dirname(?FILE), "fixtures", "JSONTestSuite", "test_parsing"]).

corpus(Prefix) ->
    Files = filelib:wildcard(Prefix ++ "*.json", corpus_dir()),
    [{F, element(2, {ok, _} = file:read_file(filename:join(corpus_dir(), F)))} || F <- Files].

corpus_is_vendored_test() ->
    ?assertEqual({95, 188, 35}, {length(corpus("y_")), length(corpus("n_")), length(corpus("i_"))}).

every_y_file_decodes_test_() ->
    [{F, ?_assertMatch({ok, _}, mcp_json:decode(B))} || {F, B} <- corpus("y_")].

every_n_file_is_a_corruption_report_test_() ->
    [{F, ?_assertMatch({error, {corruption_report, _, _}}, mcp_json:decode(B))} || {F, B} <- corpus("n_")].

every_i_file_settles_test_() ->
    [{F, ?_test(settles(mcp_json:decode(B)))} || {F, B} <- corpus("i_")].

%% Any other result fails the test with a function_clause naming it.
settles({ok, _}) -> ok;
settles({error, {corruption_report, Offset, Reason}}) when is_integer(Offset), is_binary(Reason) -> ok.

term_contract_test() ->
    ?assertEqual({ok, {object, [{<<"a">>, {array, [null, {bool, true}, {bool, false}, {int, 1},
                                                   {float, 2.5}, {string, <<"é"/utf8>>}]}},
                                {<<"a">>, {object, []}}]}},
                 mcp_json:decode(<<"{\"a\":[null,true,false,1,2.5,\"\\u00e9\"],\"a\":{}}">>)).

bignum_test() ->
    ?assertEqual({ok, {int, 123456789012345678901234567890}},
                 mcp_json:decode(<<"123456789012345678901234567890">>)),
    ?assertEqual({ok, {int, -123456789012345678901234567890}},
                 mcp_json:decode(<<"-123456789012345678901234567890">>)),
    ?assertEqual(<<"-123456789012345678901234567890">>,
                 mcp_json:encode({int, -123456789012345678901234567890})).

minus_zero_is_int_zero_test() ->
    ?assertEqual({ok, {int, 0}}, mcp_json:decode(<<"-0">>)).

double_overflow_is_a_fault_test() ->
    ?assertEqual({error, {corruption_report, 0, <<"number out of range">>}}, mcp_json:decode(<<"1e400">>)).

lone_surrogate_is_a_fault_test() ->
    ?assertMatch({error, {corruption_report, 1, <<"lone surrogate escape">>}},
                 mcp_json:decode(<<"\"\\ud800\"">>)).

nested(N) -> <<(binary:copy(<<"[">>, N))/binary, (binary:copy(<<"]">>, N))/binary>>.

%% max_depth() is read from the Rust core (one definition); docs/design.md's value
%% is pinned once here, and every limit test below is written against the
%% exported function, so a change on either side shows up as a failure.
depth_limit_both_sides_test() ->
    Max = mcp_json:max_depth(),
    ?assertEqual(128, Max),
    ?assertMatch({ok, {array, [_]}}, mcp_json:decode(nested(Max))),
    ?assertEqual({error, {corruption_report, Max, <<"nesting too deep">>}}, mcp_json:decode(nested(Max + 1))).

%% In one step, and in steps of a byte and a value (suspended and resumed
%% at every bracket).
hundred_thousand_brackets_in_any_step_size_test() ->
    Open = binary:copy(<<"[">>, 100000),
    Max = mcp_json:max_depth(),
    ?assertMatch({error, {corruption_report, Max, _}}, mcp_nif:json_decode(Open, 1 bsl 40, 1 bsl 40, true)),
    ?assertMatch({error, {corruption_report, Max, _}}, mcp_nif:json_decode(Open, 1, 1, false)),
    ?assertMatch({error, {corruption_report, Max, _}}, mcp_json:decode(Open)).

wrap(V, 0) -> V;
wrap(V, N) -> wrap({array, [V]}, N - 1).

encode_depth_limit_both_sides_test() ->
    Max = mcp_json:max_depth(),
    ?assertEqual(nested(Max), mcp_json:encode(wrap({array, []}, Max - 1))),
    ?assertError(badarg, mcp_json:encode(wrap({array, []}, Max))).

%% The encoder takes exactly the integers the decoder reads: at most
%% max_integer_digits() digits, sign excluded, either way round.
integer_digit_limit_both_sides_test_() ->
    Digits = mcp_json:max_integer_digits(),
    Longest = binary:copy(<<"9">>, Digits),
    Int = binary_to_integer(Longest),
    [?_assertEqual(4300, Digits),
     ?_assertEqual({ok, {int, Int}}, mcp_json:decode(Longest)),
     ?_assertEqual({ok, {int, -Int}}, mcp_json:decode(<<"-", Longest/binary>>)),
     ?_assertMatch({error, {corruption_report, _, <<"integer too long">>}}, mcp_json:decode(<<"1", Longest/binary>>)),
     ?_assertEqual(Longest, mcp_json:encode({int, Int})),
     ?_assertEqual(<<"-", Longest/binary>>, mcp_json:encode({int, -Int})),
     %% (a step smaller than the integer's charge: written on a dirty scheduler)
     ?_assertEqual(Longest, mcp_nif:json_encode({int, Int}, false, 1, 1)),
     ?_assertError(badarg, mcp_json:encode({int, Int + 1})),
     ?_assertError(badarg, mcp_json:encode({int, -Int - 1})),
     ?_assertError(badarg, mcp_nif:json_encode({array, [{int, Int + 1}]}, false, 1, 1)),
     %% the term codecs that read json() follow the same rule
     ?_assertMatch({whole_value, _}, mcp_schema:plan({object, [{<<"default">>, {int, Int}}]})),
     ?_assertError(badarg, mcp_schema:plan({object, [{<<"default">>, {int, Int + 1}}]}))].

%% Integers between i64 and i128, and beyond, on both schedulers.
wide_integers_test_() ->
    [?_assertEqual(integer_to_binary(I), mcp_json:encode({int, I}))
     || I <- [1 bsl 63, -(1 bsl 63) - 1, (1 bsl 127) - 1, -(1 bsl 127), 1 bsl 127, -(1 bsl 127) - 1, 1 bsl 1000]].

%% Step sizes change where a call yields, never its answer: the same bytes
%% or the same badarg, for values whose strings, keys and integers are
%% larger than a step (then written dirty), at the step's edge, or refused
%% after some output was written.
-dialyzer({no_improper_lists, encode_answers_do_not_depend_on_the_step_size_test_/0}).
encode_answers_do_not_depend_on_the_step_size_test_() ->
    Key = binary:copy(<<"k">>, 99),
    Big = binary_to_integer(binary:copy(<<"9">>, 4300)),
    Values = [{object, [{Key, null}]}, {string, Key}, {object, [{<<Key/binary, 255>>, null}]},
              {string, <<Key/binary, "k", 255>>}, {int, Big}, {array, [{int, Big}, {int, -Big}]},
              {int, 1 bsl 1000000}, {array, [null, {string, <<"a\n">>}, {array, [null | null]}]},
              {array, [{object, [{<<"a">>, {array, [null, {bool, true}]}}]} || _ <- lists:seq(1, 50)]}],
    Steps = [{1, 1}, {2, 1}, {8, 2}, {100, 3}, {101, 1000}, {4301, 1024}, {1 bsl 40, 1 bsl 40}],
    [?_assertEqual(encoded(fun() -> mcp_json:encode(V) end),
                   encoded(fun() -> mcp_nif:json_encode(V, false, Bytes, Count) end))
     || V <- Values, {Bytes, Count} <- Steps].

encoded(Encode) ->
    try Encode() catch error:badarg -> badarg end.

%% An improper list among the refused terms, on purpose.
-dialyzer({no_improper_lists, encode_refuses_terms_outside_json_test_/0}).
encode_refuses_terms_outside_json_test_() ->
    [?_assertError(badarg, mcp_json:encode(T)) ||
        T <- [undefined, {string, <<255>>}, {string, "list"}, {object, [{<<255>>, null}]},
              {object, [{key, null}]}, {array, [null | null]}, {int, 1.0}, {float, 1},
              {bool, maybe}, {array, [null], extra}, 42]].

encode_is_compact_and_escapes_controls_test() ->
    ?assertEqual(<<"{\"s\":\"a\\nb\\u0000\\\"\\\\é\",\"f\":[0.1,1e300,-0.0]}"/utf8>>,
                 mcp_json:encode({object, [{<<"s">>, {string, <<"a\nb", 0, "\"\\é"/utf8>>}},
                                           {<<"f">>, {array, [{float, 0.1}, {float, 1.0e300},
                                                              {float, -0.0}]}}]})).

%% A value of several steps (200 KB: three 64 KiB steps) reads back whole,
%% framed or not.
large_values_are_written_in_steps_and_agree_test() ->
    Big = {array, [{string, binary:copy(<<"x">>, 1000)} || _ <- lists:seq(1, 200)]},
    Encoded = mcp_json:encode(Big),
    ?assertEqual(Encoded, mcp_nif:json_encode(Big, false, 1 bsl 40, 1 bsl 40)),
    ?assertEqual(<<Encoded/binary, "\n">>, mcp_json:encode_line(Big)),
    ?assertEqual({ok, Big}, mcp_json:decode(Encoded)),
    ?assertEqual({ok, Big}, mcp_nif:json_decode(Encoded, 1 bsl 40, 1 bsl 40, false)).

%% The json() term of a long line is at most 20 times the line (8 bytes a
%% word): `[0,0,...]' and maximal nesting reach it (5 words per 2 bytes),
%% nothing else passes it. docs/json.md derives the memory bound from this.
term_size_bound_per_shape_test_() ->
    Bytes = 1048576,
    Repeat = fun(Item) ->
                 N = (Bytes - 1) div (byte_size(Item) + 1),
                 Body = binary:copy(<<Item/binary, ",">>, N),
                 <<"[", (binary:part(Body, 0, byte_size(Body) - 1))/binary, "]">>
             end,
    Depth = mcp_json:max_depth() - 1,
    Deep = <<(binary:copy(<<"[">>, Depth))/binary, "0", (binary:copy(<<"]">>, Depth))/binary>>,
    Shapes = [{zeros, Repeat(<<"0">>), 20.0}, {deep, Repeat(Deep), 20.0},
              {empty_strings, Repeat(<<"\"\"">>), 18.7}, {members, <<"{", (binary:part(Repeat(<<"\"\":0">>), 1, Bytes - 2))/binary, "}">>, 16.0},
              {small_objects, Repeat(<<"{\"a\":0}">>), 16.0}, {floats, Repeat(<<"0.5">>), 14.0},
              {empty_objects, Repeat(<<"{}">>), 13.4}, {empty_arrays, Repeat(<<"[]">>), 13.4},
              {falses, Repeat(<<"false">>), 6.7}, {nulls, Repeat(<<"null">>), 3.2}],
    [{atom_to_list(Shape),
      fun() ->
          {ok, Term} = mcp_json:decode(Line),
          TermBytes = erts_debug:flat_size(Term) * erlang:system_info(wordsize),
          %% (a few words of the outermost value on top of the per-byte rate)
          ?assert(TermBytes =< Expected * byte_size(Line) + 64, {Shape, TermBytes / byte_size(Line)}),
          ?assert(TermBytes >= (Expected - 0.1) * byte_size(Line), {Shape, TermBytes / byte_size(Line)})
      end} || {Shape, Line, Expected} <- Shapes].

decoding_never_creates_atoms_test() ->
    Keys = [<<"k", (integer_to_binary(erlang:unique_integer([positive])))/binary,
              (integer_to_binary(N))/binary>> || N <- lists:seq(1, 10000)],
    Doc = mcp_json:encode({object, [{K, {string, K}} || K <- Keys]}),
    Before = erlang:system_info(atom_count),
    {ok, {object, Members}} = mcp_json:decode(Doc),
    ?assertEqual(10000, length(Members)),
    ?assertEqual(Before, erlang:system_info(atom_count)).

%% PropEr: decode(encode(V)) =:= {ok, V} for generated json() values.

json_value() -> ?SIZED(Size, json_value(Size)).

json_value(0) -> json_leaf();
json_value(Size) ->
    frequency([{3, json_leaf()},
               {1, ?LAZY({array, list(json_value(Size div 4))})},
               {1, ?LAZY({object, list({utf8(), json_value(Size div 4)})})}]).

json_leaf() ->
    oneof([null, {bool, boolean()}, {int, integer()},
           {int, ?LET(I, integer(), I * (1 bsl 80))}, {float, float()}, {string, utf8()}]).

prop_round_trip() ->
    ?FORALL(V, json_value(), mcp_json:decode(mcp_json:encode(V)) =:= {ok, V}).

round_trip_property_test_() ->
    {timeout, 120,
     ?_assert(proper:quickcheck(prop_round_trip(), [{numtests, 500}, {to_file, user}]))}.

%% PropEr: an integer of any magnitude (powers of two up to 2^15000, and
%% the neighbours of 10^4300) encodes to its decimal text exactly when it has
%% at most max_integer_digits() digits, and is refused otherwise.
prop_integers_encode_up_to_the_digit_limit() ->
    Pow10 = binary_to_integer(<<"1", (binary:copy(<<"0">>, mcp_json:max_integer_digits()))/binary>>),
    ?FORALL({Base, Sign, Delta}, {oneof([?LET(E, range(0, 15000), 1 bsl E), Pow10]), oneof([1, -1]), range(-3, 3)},
        begin
            I = Sign * (Base + Delta),
            Text = integer_to_binary(I),
            Digits = byte_size(Text) - case I < 0 of true -> 1; false -> 0 end,
            Encoded = try mcp_json:encode({int, I}) catch error:badarg -> refused end,
            case Digits =< mcp_json:max_integer_digits() of
                true -> Encoded =:= Text andalso mcp_json:decode(Text) =:= {ok, {int, I}};
                false -> Encoded =:= refused
            end
        end).

integer_digit_limit_property_test_() ->
    {timeout, 120,
     ?_assert(proper:quickcheck(prop_integers_encode_up_to_the_digit_limit(), [{numtests, 300}, {to_file, user}]))}.

%% PropEr: the step size changes where a call yields, never its answer, and
%% neither does sharing repeated keys and strings. Decoding a generated
%% document, or one with a byte replaced or its end cut off, in steps of a
%% few bytes and values, with and without shared repeats, gives the default
%% call's exact answer (terms, or the corruption report with its offset);
%% encoding in small steps gives the same bytes.
prop_steps_give_the_same_answers() ->
    ?FORALL({V, StepBytes, StepValues, Repeats, Mutation},
            {json_value(), range(1, 64), range(1, 16), boolean(),
             oneof([none, {replace, range(0, 1000), range(0, 255)}, {cut, range(0, 1000)}])},
        begin
            Encoded = mcp_json:encode(V),
            Line = mutate(Encoded, Mutation),
            mcp_nif:json_encode(V, false, StepBytes, StepValues) =:= Encoded
                andalso mcp_nif:json_decode(Line, StepBytes, StepValues, Repeats) =:= mcp_json:decode(Line)
        end).

%% PropEr: sharing repeats gives the answer of making every term afresh, on
%% documents built from few distinct short keys and strings (so most are
%% repeats, and slots are shared by different texts), whole or mutated.
prop_shared_repeats_give_the_same_answers() ->
    Text = oneof([<<>>, <<"id">>, <<"type">>, <<"é"/utf8>>, <<"a\"b">>, <<"text">>,
                  binary:copy(<<"k">>, 24), binary:copy(<<"k">>, 25), utf8(3)]),
    Leaf = oneof([null, {int, integer()}, {string, Text}]),
    Doc = ?LET(Items, list({object, list({Text, oneof([Leaf, {object, list({Text, Leaf})}])})}), {array, Items}),
    ?FORALL({V, Mutation}, {Doc, oneof([none, {replace, range(0, 1000), range(0, 255)}, {cut, range(0, 1000)}])},
        begin
            Line = mutate(mcp_json:encode(V), Mutation),
            Fresh = mcp_nif:json_decode(Line, 1 bsl 40, 1 bsl 40, false),
            Fresh =:= mcp_nif:json_decode(Line, 1 bsl 40, 1 bsl 40, true)
                andalso Fresh =:= mcp_nif:json_decode(Line, 7, 5, true)
                andalso (Mutation =/= none orelse Fresh =:= {ok, V})
        end).

shared_repeats_property_test_() ->
    {timeout, 120,
     ?_assert(proper:quickcheck(prop_shared_repeats_give_the_same_answers(), [{numtests, 500}, {to_file, user}]))}.

%% Shared repeats are what they claim: a document of 1,000 objects with the
%% same two keys and one short string takes less heap than its flat size
%% (`erts_debug:size/1' counts a shared subterm once), and the same without
%% them (each key its own binary).
repeated_keys_are_shared_test() ->
    Line = mcp_json:encode({array, [{object, [{<<"type">>, {string, <<"text">>}}, {<<"n">>, {int, N}}]}
                                    || N <- lists:seq(1, 1000)]}),
    {ok, Shared} = mcp_nif:json_decode(Line, 1 bsl 40, 1 bsl 40, true),
    {ok, Fresh} = mcp_nif:json_decode(Line, 1 bsl 40, 1 bsl 40, false),
    ?assertEqual(Fresh, Shared),
    ?assertEqual(erts_debug:flat_size(Fresh), erts_debug:size(Fresh)),
    ?assert(erts_debug:size(Shared) < erts_debug:flat_size(Shared) * 3 div 4, {erts_debug:size(Shared), erts_debug:flat_size(Shared)}),
    ?assertMatch({ok, _}, mcp_json:decode(Line)),
    {ok, Default} = mcp_json:decode(Line),
    ?assert(erts_debug:size(Default) < erts_debug:flat_size(Default)).

mutate(Line, none) -> Line;
mutate(Line, {replace, At, Byte}) when At < byte_size(Line) ->
    <<Before:At/binary, _, After/binary>> = Line,
    <<Before/binary, Byte, After/binary>>;
mutate(Line, {cut, At}) when At < byte_size(Line) -> binary:part(Line, 0, At);
mutate(Line, _) -> Line.

steps_property_test_() ->
    {timeout, 120,
     ?_assert(proper:quickcheck(prop_steps_give_the_same_answers(), [{numtests, 500}, {to_file, user}]))}.

%% @doc mcp_schema through the NIF: each planner rule as a term, the
%% label-collision degradation, totality on arbitrary json(), and badarg
%% outside json(). (The full rule table is pinned by the Rust unit tests and
%% the planner_rules golden.)
-module(mcp_schema_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

obj(Members) -> {object, Members}.
type(T) -> obj([{<<"type">>, {string, T}}]).
schema(Properties, Required) ->
    obj([{<<"type">>, {string, <<"object">>}}, {<<"properties">>, obj(Properties)},
         {<<"required">>, {array, [{string, R} || R <- Required]}}]).

typed_params_test() ->
    Schema = schema([{<<"name">>, type(<<"string">>)},
                     {<<"count">>, type(<<"integer">>)},
                     {<<"ratio">>, type(<<"number">>)},
                     {<<"on">>, type(<<"boolean">>)},
                     {<<"tags">>, obj([{<<"type">>, {string, <<"array">>}}, {<<"items">>, type(<<"string">>)}])},
                     {<<"opts">>, type(<<"object">>)}],
                    [<<"name">>, <<"tags">>]),
    ?assertEqual({typed, [{param, <<"name">>, <<"name">>, {simple, string}, false},
                          {param, <<"count">>, <<"count">>, {simple, int}, true},
                          {param, <<"ratio">>, <<"ratio">>, {simple, float}, true},
                          {param, <<"on">>, <<"on">>, {simple, bool}, true},
                          {param, <<"tags">>, <<"tags">>, {list_of, string}, false},
                          {param, <<"opts">>, <<"opts">>, {structured, <<"object">>}, true}]},
                 mcp_schema:plan(Schema)).

nullable_forms_test() ->
    Pydantic = obj([{<<"anyOf">>, {array, [type(<<"integer">>), type(<<"null">>)]}}, {<<"default">>, null}]),
    TypeList = obj([{<<"type">>, {array, [{string, <<"string">>}, {string, <<"null">>}]}}]),
    ?assertEqual({typed, [{param, <<"a">>, <<"a">>, {simple, int}, true},
                          {param, <<"b">>, <<"b">>, {simple, string}, true}]},
                 mcp_schema:plan(schema([{<<"a">>, Pydantic}, {<<"b">>, TypeList}], []))).

labels_are_mangled_wire_names_kept_test() ->
    {typed, [{param, <<"repoOwner">>, Label, {simple, string}, true}]} =
        mcp_schema:plan(schema([{<<"repoOwner">>, type(<<"string">>)}], [])),
    ?assertEqual(mcp_name:mangle_label(<<"repoOwner">>), Label),
    ?assertEqual(<<"repo_owner">>, Label).

whole_value_test() ->
    ?assertEqual({whole_value, <<"schema is not an object">>}, mcp_schema:plan({string, <<"x">>})),
    ?assertEqual({whole_value, <<"no type and no properties">>}, mcp_schema:plan(obj([]))),
    ?assertEqual({whole_value, <<"top-level anyOf">>}, mcp_schema:plan(obj([{<<"anyOf">>, {array, []}}]))),
    ?assertEqual({whole_value, <<"required names an undeclared property: b">>},
                 mcp_schema:plan(schema([{<<"a">>, type(<<"string">>)}], [<<"b">>]))),
    ?assertEqual({whole_value, <<"label collision: a, a">>},
                 mcp_schema:plan(schema([{<<"a">>, type(<<"string">>)}, {<<"a">>, type(<<"integer">>)}], []))),
    ?assertEqual({whole_value, <<"label collision: dryRun, dry_run">>},
                 mcp_schema:plan(schema([{<<"dryRun">>, type(<<"boolean">>)}, {<<"dry_run">>, type(<<"boolean">>)}], []))).

no_properties_means_no_params_test() ->
    ?assertEqual({typed, []}, mcp_schema:plan(type(<<"object">>))).

%% An argument outside the contract, on purpose.
-dialyzer({no_fail_call, not_json_raises_badarg_test/0}).
not_json_raises_badarg_test() ->
    ?assertError(badarg, mcp_schema:plan(undefined)),
    ?assertError(badarg, mcp_schema:plan(obj([{<<255>>, null}]))).

json() ->
    ?SIZED(Size, json(min(Size, 16))).
json(0) ->
    oneof([null, {bool, bool()}, {int, integer()}, {string, elements([<<"object">>, <<"string">>, <<"array">>, <<"null">>, <<"x">>])}]);
json(Size) ->
    Key = elements([<<"type">>, <<"properties">>, <<"required">>, <<"items">>, <<"anyOf">>, <<"a">>, <<"b">>]),
    frequency([{1, json(0)},
               {2, ?LAZY({array, resize(4, list(json(Size div 2)))})},
               {4, ?LAZY({object, resize(5, list({Key, json(Size div 2)}))})}]).

prop_plan_is_total_and_keeps_every_property() ->
    ?FORALL(Schema, json(),
            case mcp_schema:plan(Schema) of
                {typed, Params} ->
                    {some, {object, Props}} = case Schema of
                                                  {object, M} -> {some, proplists:get_value(<<"properties">>, M, {object, []})};
                                                  _ -> none
                                              end,
                    length(Params) =:= length(Props);
                {whole_value, Reason} -> is_binary(Reason)
            end).

plan_property_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_plan_is_total_and_keeps_every_property(),
                                              [{numtests, 500}, {to_file, user}]))}.

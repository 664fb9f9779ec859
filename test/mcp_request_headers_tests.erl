%% The stateless revision's HTTP request headers: the value encoding the
%% conformance suite checks, and the x-mcp-header validity rules.
-module(mcp_request_headers_tests).
-include_lib("eunit/include/eunit.hrl").

enc(Value) -> mcp_request_headers:encode_value(Value).
b64(Text) -> {ok, "=?base64?" ++ base64:encode_to_string(Text) ++ "?="}.

plain_ascii_is_sent_as_is_test() ->
    ?assertEqual({ok, "us-west1"}, enc({string, <<"us-west1">>})),
    ?assertEqual({ok, "us west 1"}, enc({string, <<"us west 1">>})),
    ?assertEqual({ok, ""}, enc({string, <<>>})).

unsafe_strings_are_base64_test() ->
    [?assertEqual(b64(T), enc({string, T}))
     || T <- [<<" padded ">>, <<" lead">>, <<"trail ">>, <<"line1\nline2">>, <<"a\r\nb">>,
              <<"\tindented">>, <<"Hello, ", 228, 184, 150, 231, 149, 140>>, <<"=?base64?eA==?=">>]].

numbers_booleans_and_null_test() ->
    ?assertEqual({ok, "42"}, enc({int, 42})),
    ?assertEqual({ok, "-7"}, enc({int, -7})),
    ?assertEqual({ok, "true"}, enc({bool, true})),
    ?assertEqual({ok, "false"}, enc({bool, false})),
    ?assertEqual(none, enc(null)),
    ?assertEqual(none, enc({object, []})).

standard_headers_test() ->
    Params = {some, {object, [{<<"name">>, {string, <<"my-hyphenated-tool">>}}, {<<"arguments">>, {object, []}}]}},
    ?assertEqual([{"mcp-method", "tools/call"}, {"mcp-name", "my-hyphenated-tool"}],
                 mcp_request_headers:standard(<<"tools/call">>, Params)),
    ?assertEqual([{"mcp-method", "tools/list"}], mcp_request_headers:standard(<<"tools/list">>, none)).

prop(Name, Type, Header) ->
    {Name, {object, [{<<"type">>, {string, Type}}, {<<"x-mcp-header">>, Header}]}}.
schema(Props) -> {object, [{<<"type">>, {string, <<"object">>}}, {<<"properties">>, {object, Props}}]}.

valid_annotations_map_properties_to_headers_test() ->
    S = schema([prop(<<"region">>, <<"string">>, {string, <<"Region">>}),
                prop(<<"n">>, <<"integer">>, {string, <<"N">>}),
                {<<"query">>, {object, [{<<"type">>, {string, <<"string">>}}]}}]),
    {ok, Map} = mcp_request_headers:tool_headers(S),
    ?assertEqual([{<<"region">>, <<"Region">>}, {<<"n">>, <<"N">>}], Map),
    ?assertEqual([{"mcp-param-Region", "=?base64?" ++ base64:encode_to_string(<<" x">>) ++ "?="}],
                 mcp_request_headers:param_headers(Map, {object, [{<<"region">>, {string, <<" x">>}},
                                                                  {<<"n">>, null}, {<<"query">>, {string, <<"q">>}}]})).

invalid_annotations_test() ->
    Invalid = [[prop(<<"v">>, <<"string">>, {string, <<>>})],
               [prop(<<"v">>, <<"object">>, {string, <<"Data">>})],
               [prop(<<"v">>, <<"array">>, {string, <<"Items">>})],
               [prop(<<"v">>, <<"null">>, {string, <<"Nil">>})],
               [prop(<<"v">>, <<"number">>, {string, <<"Score">>})],
               [prop(<<"a">>, <<"string">>, {string, <<"Region">>}), prop(<<"b">>, <<"string">>, {string, <<"Region">>})],
               [prop(<<"a">>, <<"string">>, {string, <<"MyField">>}), prop(<<"b">>, <<"string">>, {string, <<"myfield">>})],
               [prop(<<"v">>, <<"string">>, {string, <<"My Region">>})],
               [prop(<<"v">>, <<"string">>, {string, <<"Region:Primary">>})],
               [prop(<<"v">>, <<"string">>, {string, <<"R", 195, 169, "gion">>})],
               [prop(<<"v">>, <<"string">>, {string, <<"Region\t1">>})],
               [prop(<<"v">>, <<"string">>, {int, 1})]],
    [?assertMatch({error, _}, mcp_request_headers:tool_headers(schema(P))) || P <- Invalid],
    %% One valid annotation passes the same checks.
    ?assertMatch({ok, [_]}, mcp_request_headers:tool_headers(schema([prop(<<"v">>, <<"boolean">>, {string, <<"Verbose">>})]))).

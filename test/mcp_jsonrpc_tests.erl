-module(mcp_jsonrpc_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-export([json/0, utf8_text/0, chunks/2]).

bad(Line) ->
    {error, {bad_message, Reason}} = mcp_jsonrpc:decode(Line),
    Reason.

%% ---- JSON-RPC 2.0 specification examples (section 7) ----

spec_request_with_named_params_test() ->
    ?assertEqual({ok, {server_request, {id_int, 3}, <<"subtract">>,
                       {some, {object, [{<<"subtrahend">>, {int, 23}}, {<<"minuend">>, {int, 42}}]}}}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\": \"2.0\", \"method\": \"subtract\", "
                                      "\"params\": {\"subtrahend\": 23, \"minuend\": 42}, \"id\": 3}">>)).

spec_notification_test() ->
    ?assertEqual({ok, {notification, <<"update">>, {some, {array, [{int, I} || I <- [1, 2, 3, 4, 5]]}}}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\": \"2.0\", \"method\": \"update\", \"params\": [1,2,3,4,5]}">>)).

spec_result_response_test() ->
    ?assertEqual({ok, {response, {id_int, 1}, {ok, {int, 19}}}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\": \"2.0\", \"result\": 19, \"id\": 1}">>)).

spec_error_response_test() ->
    ?assertEqual({ok, {response, {id_string, <<"1">>},
                       {error, {rpc_error, -32601, <<"Method not found">>, none}}}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\": \"2.0\", \"error\": {\"code\": -32601, "
                                      "\"message\": \"Method not found\"}, \"id\": \"1\"}">>)).

spec_invalid_json_is_malformed_test() ->
    Line = <<"{\"jsonrpc\": \"2.0\", \"method\": \"foobar, \"params\": \"bar\", \"baz]">>,
    {error, {corruption_report, _, _} = Report} = mcp_json:decode(Line),
    ?assertEqual({error, {malformed_message, Report}}, mcp_jsonrpc:decode(Line)).

spec_batch_is_refused_test() ->
    ?assertEqual(<<"batch not supported">>, bad(<<"[]">>)),
    ?assertEqual(<<"batch not supported">>,
                 bad(<<"[{\"jsonrpc\": \"2.0\", \"method\": \"notify_sum\", \"params\": [1,2,4]}]">>)).

%% ---- MCP schema examples ----

mcp_ping_and_list_changed_test() ->
    ?assertEqual({ok, {server_request, {id_string, <<"srv-1">>}, <<"ping">>, none}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}">>)),
    ?assertEqual({ok, {notification, <<"notifications/tools/list_changed">>, none}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}">>)).

error_data_crosses_raw_test() ->
    ?assertEqual({ok, {response, {id_int, 7},
                       {error, {rpc_error, -32602, <<"Unknown tool">>,
                                {some, {object, [{<<"tool">>, {array, [{string, <<"x">>}, null]}}]}}}}}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,"
                                      "\"message\":\"Unknown tool\",\"data\":{\"tool\":[\"x\",null]}}}">>)).

unknown_members_are_ignored_test() ->
    ?assertEqual({ok, {response, {id_int, 2}, {ok, {object, []}}}},
                 mcp_jsonrpc:decode(<<"{\"x\":1,\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{},\"_meta\":{},\"x\":2}">>)).

bignum_id_test() ->
    ?assertEqual({ok, {response, {id_int, 123456789012345678901234567890}, {ok, null}}},
                 mcp_jsonrpc:decode(<<"{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,\"result\":null}">>)).

%% ---- every fault ----

bad_ids_test_() ->
    [?_assertEqual(Reason, bad(<<"{\"jsonrpc\":\"2.0\",\"id\":", Id/binary, ",\"result\":1}">>))
     || {Id, Reason} <- [{<<"1.0">>, <<"id is not an integer or a string">>},
                         {<<"true">>, <<"id is not an integer or a string">>},
                         {<<"{}">>, <<"id is not an integer or a string">>},
                         {<<"[]">>, <<"id is not an integer or a string">>},
                         {<<"null">>, <<"id is null">>}]].

jsonrpc_version_test_() ->
    [?_assertEqual(<<"missing jsonrpc">>, bad(<<"{\"id\":1,\"result\":1}">>)),
     ?_assertEqual(<<"jsonrpc is not \"2.0\"">>, bad(<<"{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":1}">>)),
     ?_assertEqual(<<"jsonrpc is not \"2.0\"">>, bad(<<"{\"jsonrpc\":2.0,\"id\":1,\"result\":1}">>))].

result_and_error_test_() ->
    [?_assertEqual(<<"response has both result and error">>,
                   bad(<<"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{\"code\":1,\"message\":\"m\"}}">>)),
     ?_assertEqual(<<"response has neither result nor error">>, bad(<<"{\"jsonrpc\":\"2.0\",\"id\":1}">>)),
     ?_assertEqual(<<"response without id">>, bad(<<"{\"jsonrpc\":\"2.0\",\"result\":1}">>))].

duplicated_envelope_keys_test_() ->
    [?_assertEqual(<<"duplicate key ", Key/binary>>, bad(Line))
     || {Key, Line} <- [{<<"jsonrpc">>, <<"{\"jsonrpc\":\"2.0\",\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}">>},
                        {<<"id">>, <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":1,\"result\":1}">>},
                        {<<"method">>, <<"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"method\":\"a\"}">>},
                        {<<"result">>, <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"result\":1}">>},
                        {<<"error">>, <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"m\"},"
                                        "\"error\":{\"code\":1,\"message\":\"m\"}}">>},
                        {<<"params">>, <<"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{},\"params\":{}}">>}]].

params_must_be_structured_test_() ->
    [?_assertEqual(<<"params is not an object or an array">>,
                   bad(<<"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":", P/binary, "}">>))
     || P <- [<<"\"bar\"">>, <<"1">>, <<"null">>, <<"true">>]].

method_and_top_level_test_() ->
    [?_assertEqual(<<"method is not a string">>, bad(<<"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":1}">>)),
     ?_assertEqual(<<"message is not an object">>, bad(<<"\"hello\"">>)),
     ?_assertEqual(<<"message is not an object">>, bad(<<"null">>))].

error_object_faults_test_() ->
    Line = fun(E) -> <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":", E/binary, "}">> end,
    [?_assertEqual(Reason, bad(Line(Error)))
     || {Error, Reason} <- [{<<"\"boom\"">>, <<"error is not an object">>},
                            {<<"{\"message\":\"m\"}">>, <<"error without code">>},
                            {<<"{\"code\":1.5,\"message\":\"m\"}">>, <<"error code is not an integer">>},
                            {<<"{\"code\":1}">>, <<"error without message">>},
                            {<<"{\"code\":1,\"message\":null}">>, <<"error message is not a string">>},
                            {<<"{\"code\":1,\"message\":\"m\",\"message\":\"n\"}">>,
                             <<"duplicate key error.message">>}]].

malformed_line_test() ->
    ?assertEqual({error, {malformed_message, {corruption_report, 0, <<"unexpected end of input">>}}},
                 mcp_jsonrpc:decode(<<>>)),
    ?assertMatch({error, {malformed_message, {corruption_report, 1, <<"invalid utf-8">>}}},
                 mcp_jsonrpc:decode(<<"\"", 255, "\"">>)).

large_line_takes_the_dirty_path_test() ->
    Text = binary:copy(<<"a">>, mcp_json:dirty_threshold()),
    Line = <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"", Text/binary, "\"}">>,
    ?assertEqual({ok, {response, {id_int, 1}, {ok, {string, Text}}}}, mcp_jsonrpc:decode(Line)).

%% ---- encoders ----

encoders_test_() ->
    Encoded = fun(Value) -> mcp_json:encode(Value) end,
    [?_assertEqual(<<"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}">>,
                   Encoded(mcp_jsonrpc:request({id_int, 1}, <<"tools/list">>, {some, {object, []}}))),
     ?_assertEqual({object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {string, <<"a">>}},
                             {<<"method">>, {string, <<"ping">>}}]},
                   mcp_jsonrpc:request({id_string, <<"a">>}, <<"ping">>, none)),
     ?_assertEqual(<<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}">>,
                   Encoded(mcp_jsonrpc:notification(<<"notifications/initialized">>, none))),
     ?_assertEqual(<<"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}">>,
                   Encoded(mcp_jsonrpc:result_response({id_int, 4}, {object, []}))),
     ?_assertEqual(<<"{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}">>,
                   Encoded(mcp_jsonrpc:error_response({id_string, <<"s">>}, mcp_jsonrpc:method_not_found(),
                                                      <<"Method not found">>)))].

%% The codes the JSON-RPC 2.0 specification assigns.
codes_are_the_specifications_test() ->
    ?assertEqual([-32700, -32600, -32601, -32602, -32603],
                 [mcp_jsonrpc:parse_error(), mcp_jsonrpc:invalid_request(), mcp_jsonrpc:method_not_found(),
                  mcp_jsonrpc:invalid_params(), mcp_jsonrpc:internal_error()]).

%% ---- property: encode -> frame -> push -> decode ----

%% Generous timeout: eunit's 5 s default trips when the machine is loaded.
round_trip_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_round_trip(), [{numtests, 300}, {to_file, user}]))}.

prop_round_trip() ->
    ?FORALL({Messages, Cuts}, {?LET(Length, range(1, 5), vector(Length, message())), list(non_neg_integer())},
            begin
                Stream = iolist_to_binary([mcp_json:encode_line(Encoded) || {Encoded, _} <- Messages]),
                Lines = push_chunks(chunks(Stream, Cuts)),
                [mcp_jsonrpc:decode(Line) || Line <- Lines] =:= [{ok, Expected} || {_, Expected} <- Messages]
            end).

push_chunks(Chunks) ->
    {Lines, _} = lists:foldl(fun(Chunk, {Acc, Buffer}) ->
                                     {ok, New, Next} = mcp_stdio:push(Buffer, Chunk),
                                     {Acc ++ New, Next}
                             end, {[], mcp_stdio:new()}, Chunks),
    Lines.

%% The stream cut at the given offsets (taken modulo its length).
chunks(Stream, Cuts) ->
    Offsets = lists:usort([0, byte_size(Stream) | [Cut rem (byte_size(Stream) + 1) || Cut <- Cuts]]),
    [binary:part(Stream, From, To - From) || {From, To} <- lists:zip(lists:droplast(Offsets), tl(Offsets))].

%% {Encoded message, the inbound() it decodes to}.
message() ->
    oneof([?LET({Id, Method, Params}, {id(), utf8_text(), params()},
                {mcp_jsonrpc:request(Id, Method, Params), {server_request, Id, Method, Params}}),
           ?LET({Method, Params}, {utf8_text(), params()},
                {mcp_jsonrpc:notification(Method, Params), {notification, Method, Params}}),
           ?LET({Id, Result}, {id(), json()},
                {mcp_jsonrpc:result_response(Id, Result), {response, Id, {ok, Result}}}),
           ?LET({Id, Code, Message}, {id(), integer(), utf8_text()},
                {mcp_jsonrpc:error_response(Id, Code, Message),
                 {response, Id, {error, {rpc_error, Code, Message, none}}}})]).

id() ->
    oneof([{id_int, integer()}, {id_int, ?LET(N, integer(), N * (1 bsl 80))}, {id_string, utf8_text()}]).

params() ->
    oneof([none, {some, ?LET(Items, short_list(json()), {array, Items})},
           {some, ?LET(Members, short_list({utf8_text(), json()}), {object, Members})}]).

utf8_text() -> utf8().

%% Random json() values: at most three levels deep, at most four items per
%% container, so generation stays fast.
json() -> json(3).

json(0) -> scalar();
json(Depth) ->
    frequency([{3, scalar()},
               {1, ?LAZY(?LET(Items, short_list(json(Depth - 1)), {array, Items}))},
               {1, ?LAZY(?LET(Members, short_list({utf8_text(), json(Depth - 1)}), {object, Members}))}]).

short_list(Type) -> ?LET(Length, range(0, 4), vector(Length, Type)).

scalar() ->
    oneof([null, {bool, boolean()}, {int, integer()}, {int, ?LET(N, integer(), N * (1 bsl 70))},
           {float, float()}, {string, utf8_text()}]).

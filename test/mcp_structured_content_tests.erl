%% A `tools/call' result's `structuredContent' built once, straight from the
%% server's line, as the term the caller wants: `mcp_protocol:read/2' with
%% `call_tool_msgpack' answers exactly what `call_tool' and then
%% `mcp_interchange:to_msgpack/1' answer (faults and paths included), on
%% both schedulers; `mcp_client:call_tool_msgpack/4' end to end.
-module(mcp_structured_content_tests).

%% proper first: eunit.hrl then leaves proper's ?LET alone.
-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-define(TIMEOUT, 5000).

%% The line a server writes answering request 7 with `Result' (JSON text).
line(Result) ->
    iolist_to_binary([<<"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":">>, Result, <<"}">>]).

read(Line, Expectation) -> mcp_protocol:read(Line, #{7 => Expectation}).

%% What reading as `call_tool' and then translating gives.
translated({answer, 7, {ok, {call_tool_result, Content, IsError, Structured}}}) ->
    {answer, 7, {ok, {msgpack_call_tool_result, Content, IsError,
                      case Structured of
                          {some, Json} -> {some, mcp_interchange:to_msgpack(Json)};
                          none -> none
                      end}}};
translated(Other) ->
    Other.

agrees(Result) ->
    Line = line(Result),
    ?assertEqual(translated(read(Line, call_tool)), read(Line, call_tool_msgpack)).

%% ---- named cases ----

structured_content_arrives_as_a_msgpack_value_test() ->
    Line = line(<<"{\"content\":[{\"type\":\"text\",\"text\":\"5\"}],\"structuredContent\":{\"sum\":5,\"at\":[1.5,null,true,\"x\"]}}">>),
    ?assertEqual({answer, 7, {ok, {msgpack_call_tool_result, [{text, <<"5">>}], false,
                                   {some, {ok, {map_value, [{{string_value, <<"sum">>}, {int_value, 5}},
                                                            {{string_value, <<"at">>},
                                                             {array_value, [{float_value, 1.5}, nil_value,
                                                                            {bool_value, true},
                                                                            {string_value, <<"x">>}]}}]}}}}}},
                 read(Line, call_tool_msgpack)).

a_value_with_no_msgpack_form_is_its_fault_test() ->
    Line = line(<<"{\"structuredContent\":{\"a\":[1,{\"two words\":18446744073709551616}],\"b\":-9223372036854775809}}">>),
    ?assertEqual({answer, 7, {ok, {msgpack_call_tool_result, [], false,
                                   {some, {error, {interchange_fault, <<"$.a[1][\"two words\"]">>,
                                                   <<"integer outside msgpack range">>}}}}}},
                 read(Line, call_tool_msgpack)).

every_shape_agrees_with_json_then_to_msgpack_test_() ->
    [?_test(agrees(Result))
     || Result <- [<<"{\"content\":[]}">>,
                   <<"{\"content\":[],\"structuredContent\":null}">>,
                   <<"{\"structuredContent\":[]}">>,
                   <<"{\"structuredContent\":\"text with \\\"escapes\\\" and \\u00e9\"}">>,
                   <<"{\"structuredContent\":{\"n\":18446744073709551615,\"m\":-9223372036854775808}}">>,
                   <<"{\"structuredContent\":[18446744073709551616]}">>,
                   <<"{\"isError\":true,\"content\":[{\"type\":\"image\"}],\"structuredContent\":{\"k\":{}}}">>,
                   <<"{\"structuredContent\":{\"a\":1},\"structuredContent\":{\"a\":2}}">>,
                   <<"{\"content\":3,\"structuredContent\":{}}">>,
                   <<"{\"content\":[],\"structuredContent\":[1,}">>,
                   <<"[]">>]].

a_large_line_is_read_on_the_dirty_scheduler_alike_test() ->
    Rows = lists:join(<<",">>, [<<"{\"id\":", (integer_to_binary(I))/binary, ",\"name\":\"row\"}">>
                                || I <- lists:seq(1, 2000)]),
    Result = iolist_to_binary([<<"{\"content\":[],\"structuredContent\":{\"rows\":[">>, Rows, <<"]}}">>]),
    ?assert(byte_size(line(Result)) >= mcp_json:dirty_threshold()),
    agrees(Result).

%% ---- property ----

%% Any json() value beside an integer at or just past a msgpack bound.
structured_value() ->
    ?LET({Value, Edge}, {mcp_json_tests:json_value(),
                         oneof([1 bsl 64 - 1, 1 bsl 64, -(1 bsl 63), -(1 bsl 63) - 1])},
         {object, [{<<"value">>, Value}, {<<"edge">>, {int, Edge}}]}).

prop_msgpack_reading_agrees_with_json_then_to_msgpack() ->
    ?FORALL(Value, structured_value(),
            begin
                Line = line([<<"{\"content\":[],\"structuredContent\":">>, mcp_json:encode(Value), <<"}">>]),
                translated(read(Line, call_tool)) =:= read(Line, call_tool_msgpack)
            end).

property_test_() ->
    {timeout, 120,
     ?_assert(proper:quickcheck(prop_msgpack_reading_agrees_with_json_then_to_msgpack(),
                                [{numtests, 300}, {to_file, user}]))}.

%% ---- the client ----

call_tool_msgpack_end_to_end_test() ->
    Handler = fun({request, Id, <<"tools/call">>, _}) ->
                      [{reply, Id, {object, [{<<"content">>, {array, []}},
                                             {<<"structuredContent">>, {object, [{<<"sum">>, {int, 5}}]}}]}}];
                 (_) -> default
              end,
    %% The fake server reports what it receives to a process of its own, so
    %% nothing is left in this one's mailbox.
    Observer = spawn(fun Drop() -> receive _ -> Drop() end end),
    {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(Handler, Observer), #{}),
    ?assertEqual({ok, {msgpack_call_tool_result, [], false,
                       {some, {ok, {map_value, [{{string_value, <<"sum">>}, {int_value, 5}}]}}}}},
                 mcp_client:call_tool_msgpack(Client, <<"add">>, {object, []}, ?TIMEOUT)),
    ?assertEqual({ok, {call_tool_result, [], false, {some, {object, [{<<"sum">>, {int, 5}}]}}}},
                 mcp_client:call_tool(Client, <<"add">>, {object, []}, ?TIMEOUT)),
    ?assertError(badarg, mcp_client:call_tool_msgpack(Client, <<"add">>, {object, [{<<"k">>, not_json}]}, ?TIMEOUT)),
    ?assertMatch({ok, _}, mcp_client:shutdown(Client, ?TIMEOUT)),
    exit(Observer, kill).

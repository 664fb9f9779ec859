-module(mcp_protocol_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

json(Text) ->
    {ok, Value} = mcp_json:decode(Text),
    Value.

fault(Path, Reason) -> {error, {protocol_fault, Path, Reason}}.

%% ---- versions and params ----

versions_test() ->
    ?assertEqual(<<"2025-11-25">>, mcp_protocol:requested_version()),
    ?assertEqual([<<"2025-11-25">>, <<"2025-06-18">>, <<"2025-03-26">>, <<"2024-11-05">>], mcp_protocol:supported_versions()).

%% The exported versions are the ones the decoder acts on: each is accepted,
%% a neighbour is refused naming the exported requested version, and the
%% handshake asks for it.
exported_versions_are_the_decoders_test() ->
    Result = fun(Version) ->
                     json(<<"{\"protocolVersion\":\"", Version/binary, "\",\"capabilities\":{},"
                            "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}">>)
             end,
    [?assertMatch({ok, {initialize_result, V, _, _, _}}, mcp_protocol:decode_initialize_result(Result(V)))
     || V <- mcp_protocol:supported_versions()],
    Requested = mcp_protocol:requested_version(),
    ?assertEqual({error, {unsupported_version, Requested, <<"2025-06-19">>}},
                 mcp_protocol:decode_initialize_result(Result(<<"2025-06-19">>))),
    ?assertEqual({string, Requested},
                 mcp_fake_server:field(<<"protocolVersion">>, mcp_protocol:initialize_params(<<"a">>, <<"b">>))).

%% The declared client capabilities are empty: no sampling, roots or
%% elicitation. Widening them must break this test.
capabilities_are_exactly_the_empty_object_test() ->
    {object, Members} = mcp_protocol:initialize_params(<<"loom">>, <<"0.1.0">>),
    ?assertEqual({<<"capabilities">>, {object, []}}, lists:keyfind(<<"capabilities">>, 1, Members)),
    ?assertEqual(<<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                   "\"clientInfo\":{\"name\":\"loom\",\"version\":\"0.1.0\"}}">>,
                 mcp_json:encode(mcp_protocol:initialize_params(<<"loom">>, <<"0.1.0">>))).

tools_list_params_test() ->
    ?assertEqual({object, []}, mcp_protocol:tools_list_params(none)),
    ?assertEqual({object, [{<<"cursor">>, {string, <<"c2">>}}]}, mcp_protocol:tools_list_params({some, <<"c2">>})).

tools_call_params_test() ->
    Arguments = json(<<"{\"location\":\"New York\"}">>),
    ?assertEqual({object, [{<<"name">>, {string, <<"get_weather">>}}, {<<"arguments">>, Arguments}]},
                 mcp_protocol:tools_call_params(<<"get_weather">>, Arguments)).

%% ---- initialize ----

%% The InitializeResult example of the MCP lifecycle specification.
spec_initialize_result_test() ->
    Result = json(<<"{\"protocolVersion\": \"2025-06-18\", \"capabilities\": {\"logging\": {},"
                    " \"prompts\": {\"listChanged\": true}, \"resources\": {\"subscribe\": true, \"listChanged\": true},"
                    " \"tools\": {\"listChanged\": true}}, \"serverInfo\": {\"name\": \"ExampleServer\","
                    " \"title\": \"Example Server Display Name\", \"version\": \"1.0.0\"},"
                    " \"instructions\": \"Optional instructions for the client\"}">>),
    ?assertEqual({ok, {initialize_result, <<"2025-06-18">>, {some, {tools_capability, true}},
                       {server_info, <<"ExampleServer">>, <<"1.0.0">>},
                       {some, <<"Optional instructions for the client">>}}},
                 mcp_protocol:decode_initialize_result(Result)).

absent_tools_capability_is_none_test() ->
    Result = json(<<"{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},"
                    "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}">>),
    ?assertEqual({ok, {initialize_result, <<"2024-11-05">>, none, {server_info, <<"s">>, <<"1">>}, none}},
                 mcp_protocol:decode_initialize_result(Result)).

unsupported_version_test() ->
    Result = json(<<"{\"protocolVersion\":\"2026-07-28\",\"capabilities\":{\"tools\":{}},"
                    "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}">>),
    ?assertEqual({error, {unsupported_version, <<"2025-11-25">>, <<"2026-07-28">>}},
                 mcp_protocol:decode_initialize_result(Result)).

initialize_faults_test_() ->
    Info = <<"\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}">>,
    [?_assertEqual(Expected, mcp_protocol:decode_initialize_result(json(Text)))
     || {Text, Expected} <-
            [{<<"[]">>, fault(<<"$">>, <<"expected an object">>)},
             {<<"{\"capabilities\":{},", Info/binary, "}">>, fault(<<"$.protocolVersion">>, <<"missing">>)},
             {<<"{\"protocolVersion\":\"2025-06-18\",", Info/binary, "}">>, fault(<<"$.capabilities">>, <<"missing">>)},
             {<<"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{\"listChanged\":1}},", Info/binary, "}">>,
              fault(<<"$.capabilities.tools.listChanged">>, <<"expected a boolean">>)},
             {<<"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}">>, fault(<<"$.serverInfo">>, <<"missing">>)},
             {<<"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\"}}">>,
              fault(<<"$.serverInfo.version">>, <<"missing">>)}]].

%% ---- tools/list ----

%% The tools/list result example of the MCP tools specification (2025-06-18).
spec_tools_page_test() ->
    Schema = <<"{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\","
               "\"description\":\"City name or zip code\"}},\"required\":[\"location\"]}">>,
    Page = json(<<"{\"tools\":[{\"name\":\"get_weather\",\"title\":\"Weather Information Provider\","
                  "\"description\":\"Get current weather information for a location\",\"inputSchema\":",
                  Schema/binary, "}],\"nextCursor\":\"next-page-cursor\"}">>),
    ?assertEqual({ok, {tools_page, [{tool_descriptor, <<"get_weather">>, {some, <<"Weather Information Provider">>},
                                     {some, <<"Get current weather information for a location">>},
                                     json(Schema), none, none, none}],
                       {some, <<"next-page-cursor">>}}},
                 mcp_protocol:decode_tools_page(Page)).

optional_tool_members_test() ->
    Page = json(<<"{\"tools\":[{\"name\":\"t\",\"inputSchema\":{},\"outputSchema\":{\"type\":\"object\"},"
                  "\"annotations\":{\"readOnlyHint\":true},\"icons\":[],\"title\":null,"
                  "\"execution\":{\"taskSupport\":\"required\"}}]}">>),
    ?assertEqual({ok, {tools_page, [{tool_descriptor, <<"t">>, none, none, {object, []},
                                     {some, json(<<"{\"type\":\"object\"}">>)},
                                     {some, json(<<"{\"readOnlyHint\":true}">>)},
                                     {some, json(<<"{\"taskSupport\":\"required\"}">>)}}], none}},
                 mcp_protocol:decode_tools_page(Page)).

one_lying_tool_fails_the_page_test_() ->
    Good = <<"{\"name\":\"ok\",\"inputSchema\":{}}">>,
    Page = fun(Bad) -> json(<<"{\"tools\":[", Good/binary, ",", Good/binary, ",", Good/binary, ",", Bad/binary, "]}">>) end,
    [?_assertEqual(Expected, mcp_protocol:decode_tools_page(Page(Entry)))
     || {Entry, Expected} <-
            [{<<"\"t\"">>, fault(<<"$.tools[3]">>, <<"expected an object">>)},
             {<<"{\"inputSchema\":{}}">>, fault(<<"$.tools[3].name">>, <<"missing">>)},
             {<<"{\"name\":\"\",\"inputSchema\":{}}">>, fault(<<"$.tools[3].name">>, <<"empty">>)},
             {<<"{\"name\":[],\"inputSchema\":{}}">>, fault(<<"$.tools[3].name">>, <<"expected a string">>)},
             {<<"{\"name\":\"t\"}">>, fault(<<"$.tools[3].inputSchema">>, <<"missing">>)},
             {<<"{\"name\":\"t\",\"inputSchema\":true}">>, fault(<<"$.tools[3].inputSchema">>, <<"expected an object">>)},
             {<<"{\"name\":\"t\",\"inputSchema\":{},\"title\":2}">>, fault(<<"$.tools[3].title">>, <<"expected a string">>)},
             {<<"{\"name\":\"t\",\"inputSchema\":{},\"description\":false}">>,
              fault(<<"$.tools[3].description">>, <<"expected a string">>)},
             {<<"{\"name\":\"t\",\"inputSchema\":{},\"outputSchema\":\"o\"}">>,
              fault(<<"$.tools[3].outputSchema">>, <<"expected an object">>)},
             {<<"{\"name\":\"t\",\"inputSchema\":{},\"annotations\":[]}">>,
              fault(<<"$.tools[3].annotations">>, <<"expected an object">>)}]].

page_faults_test_() ->
    [?_assertEqual(fault(<<"$.tools">>, <<"missing">>), mcp_protocol:decode_tools_page({object, []})),
     ?_assertEqual(fault(<<"$.tools">>, <<"expected an array">>), mcp_protocol:decode_tools_page(json(<<"{\"tools\":{}}">>))),
     ?_assertEqual(fault(<<"$.nextCursor">>, <<"expected a string">>),
                   mcp_protocol:decode_tools_page(json(<<"{\"tools\":[],\"nextCursor\":1}">>)))].

%% An argument outside the contract, on purpose.
-dialyzer({no_fail_call, not_json_is_badarg_test/0}).
not_json_is_badarg_test() ->
    ?assertError(badarg, mcp_protocol:decode_tools_page({object, [{not_a_binary, null}]})),
    ?assertError(badarg, mcp_protocol:decode_call_tool_result(hello)).

%% ---- tools/call ----

spec_call_tool_result_test() ->
    Result = json(<<"{\"content\":[{\"type\":\"text\",\"text\":\"Current weather in New York:\\nTemperature: 72\\u00b0F\"}],"
                    "\"isError\":false}">>),
    ?assertEqual({ok, {call_tool_result, [{text, <<"Current weather in New York:\nTemperature: 72", 16#b0/utf8, "F">>}],
                       false, none}},
                 mcp_protocol:decode_call_tool_result(Result)).

other_blocks_and_is_error_test() ->
    Result = json(<<"{\"content\":[{\"type\":\"image\",\"data\":\"AAA=\",\"mimeType\":\"image/png\"},"
                    "{\"type\":\"text\",\"text\":\"t\"},{\"type\":\"resource_link\",\"uri\":\"file:///x\"}],"
                    "\"isError\":true,\"structuredContent\":{\"n\":1}}">>),
    ?assertEqual({ok, {call_tool_result, [{other, <<"image">>}, {text, <<"t">>}, {other, <<"resource_link">>}],
                       true, {some, json(<<"{\"n\":1}">>)}}},
                 mcp_protocol:decode_call_tool_result(Result)).

structured_content_without_content_test() ->
    ?assertEqual({ok, {call_tool_result, [], false, {some, {array, [{int, 1}]}}}},
                 mcp_protocol:decode_call_tool_result(json(<<"{\"structuredContent\":[1]}">>))).

call_tool_result_faults_test_() ->
    [?_assertEqual(Expected, mcp_protocol:decode_call_tool_result(json(Text)))
     || {Text, Expected} <-
            [{<<"{}">>, fault(<<"$.content">>, <<"missing">>)},
             {<<"{\"content\":{}}">>, fault(<<"$.content">>, <<"expected an array">>)},
             {<<"{\"content\":[1]}">>, fault(<<"$.content[0]">>, <<"expected an object">>)},
             {<<"{\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\"}]}">>,
              fault(<<"$.content[1].text">>, <<"missing">>)},
             {<<"{\"content\":[{}]}">>, fault(<<"$.content[0].type">>, <<"missing">>)},
             {<<"{\"content\":[],\"isError\":\"no\"}">>, fault(<<"$.isError">>, <<"expected a boolean">>)}]].

%% ---- read/2: long texts ----

%% An unescaped string of 64 KiB or more is handed over by the parser
%% instead of copied (`JsonSink::string_owned'). On both sides of that
%% length, with and without escapes, the caller gets exactly the text the
%% server sent, and it stays intact after the reading process collects its
%% garbage.
long_texts_read_whole_on_both_sides_of_the_handover_length_test() ->
    [begin
         Text = long_text(Length, Escaped),
         Line = mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 7}},
                                          {<<"result">>, {object, [{<<"content">>, {array, [text_block(Text)]}}]}}]}),
         ?assertEqual(Escaped, binary:match(Line, <<"\\n">>) =/= nomatch),
         {answer, 7, {ok, {call_tool_result, [{text, Read}], false, none}}} = mcp_protocol:read(Line, #{7 => call_tool}),
         erlang:garbage_collect(),
         ?assertEqual({Length, Escaped, true}, {byte_size(Read), Escaped, Read =:= Text})
     end
     || Length <- [65535, 65536, 65537, 1 bsl 20], Escaped <- [false, true]].

%% `Length' bytes of text; with `Escaped', lines that end in a newline (an
%% escape in the JSON line) and hold quotes and two-byte characters.
long_text(Length, false) -> binary:copy(<<"a">>, Length);
long_text(Length, true) ->
    Unit = <<"line of text with \"quotes\" and caf", 16#e9/utf8, " ", 16#e9/utf8, 16#e9/utf8, "\n">>,
    <<(binary:copy(Unit, Length div byte_size(Unit)))/binary,
      (binary:copy(<<"a">>, Length rem byte_size(Unit)))/binary>>.

text_block(Text) ->
    {object, [{<<"type">>, {string, <<"text">>}}, {<<"text">>, {string, Text}}]}.

%% The bytes of a tool call whose caller encoded its params
%% (`tools_call_request/2' around `tools_call_params_text/2') are the bytes
%% the actor would have encoded, for any name, arguments and id.
spliced_tool_call_is_the_encoded_request_test() ->
    Property = ?FORALL({Name, Arguments, Id},
                       {?LET(Chars, proper_types:list(proper_types:range(0, 16#D7FF)), unicode:characters_to_binary(Chars)),
                        mcp_json_tests:json_value(), proper_types:pos_integer()},
                       begin
                           Whole = mcp_json:encode(mcp_jsonrpc:request({id_int, Id}, <<"tools/call">>,
                                                                       {some, mcp_protocol:tools_call_params(Name, Arguments)})),
                           Spliced = mcp_protocol:tools_call_request(Id, mcp_protocol:tools_call_params_text(Name, Arguments)),
                           Whole =:= iolist_to_binary(Spliced)
                       end),
    ?assert(proper:quickcheck(Property, [{numtests, 300}, {to_file, user}])).

%% A page its listing reads within its budget (`routed_result') is
%% routed at any length, valid or not as a page, and read as `tools_page'
%% reads it afterwards; a server error is answered at once, as for
%% `tools_page'.
routed_pages_are_routed_at_any_length_test() ->
    Page = <<"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}}]}}">>,
    NotAPage = <<"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":7}}">>,
    Error = <<"{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"no\"}}">>,
    ?assertEqual({routed, 7}, mcp_protocol:read(Page, #{7 => routed_result})),
    ?assertMatch({answer, 7, {ok, {tools_page, [_], none}}}, mcp_protocol:read(Page, #{7 => tools_page})),
    ?assertEqual({routed, 7}, mcp_protocol:read(NotAPage, #{7 => routed_result})),
    ?assertMatch({answer, 7, {error, {result_malformed, _}}}, mcp_protocol:read(NotAPage, #{7 => tools_page})),
    ?assertEqual(mcp_protocol:read(Error, #{7 => tools_page}), mcp_protocol:read(Error, #{7 => routed_result})),
    ?assertMatch({answer, 7, {error, {server_error, _}}}, mcp_protocol:read(Error, #{7 => routed_result})),
    ?assertMatch({error, _}, mcp_protocol:read(<<Page/binary, "x">>, #{7 => routed_result})).

%% A routed tool call's line shorter than 1,024 bytes is read whole, as the
%% direct expectation of its kind reads it (`routed_call_tool' as
%% `call_tool', `routed_call_tool_msgpack' as `call_tool_msgpack', the
%% `structuredContent' built as that kind's term); at 1,024 bytes it is
%% routed to its caller.
short_routed_lines_are_read_whole_test() ->
    Result = <<"{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"structuredContent\":{\"n\":[1,2.5]}}">>,
    Line = fun(Length) ->
                   Head = <<"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":", Result/binary>>,
                   <<Head/binary, (binary:copy(<<" ">>, Length - byte_size(Head) - 1))/binary, "}">>
           end,
    Shorter = Line(1023),
    At = Line(1024),
    ?assertEqual({1023, 1024}, {byte_size(Shorter), byte_size(At)}),
    [begin
         Direct = mcp_protocol:read(Shorter, #{7 => Kind}),
         ?assertMatch({answer, 7, {ok, {_, [{text, <<"hi">>}], false, {some, _}}}}, Direct),
         ?assertEqual(Direct, mcp_protocol:read(Shorter, #{7 => Routed})),
         ?assertEqual({routed, 7}, mcp_protocol:read(At, #{7 => Routed}))
     end
     || {Routed, Kind} <- [{routed_call_tool, call_tool}, {routed_call_tool_msgpack, call_tool_msgpack}]],
    {answer, 7, {ok, {msgpack_call_tool_result, _, _, {some, {ok, _}}}}} =
        mcp_protocol:read(Shorter, #{7 => routed_call_tool_msgpack}).

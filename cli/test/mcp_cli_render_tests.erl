%% mcp_cli_render: the plan table (names cut to the column), tool lines,
%% the JSON listing, call results as text and as JSON, the summary table.
-module(mcp_cli_render_tests).

-include_lib("eunit/include/eunit.hrl").

tool(Name, Description, Schema) ->
    {tool_descriptor, Name, none, Description, Schema, none, none, none}.

object_schema(Properties) ->
    {object, [{<<"type">>, {string, <<"object">>}}, {<<"properties">>, {object, Properties}}]}.

plan_table_cuts_names_to_the_column_test() ->
    Long = binary:copy(<<"n">>, 8 * 1024 * 1024),
    Rows = [mcp_cli_render:plan_row(tool(Long, none, object_schema([]))),
            mcp_cli_render:plan_row(tool(<<"short\e[2J">>, none, object_schema([])))],
    [Header, First, Second] = binary:split(iolist_to_binary(mcp_cli_render:plan_table(Rows)), <<"\n">>,
                                           [global, trim]),
    ?assertMatch({match, _}, re:run(Header, "^  tool +plan +note$")),
    ?assertEqual(<<"  ", (binary:copy(<<"n">>, 31))/binary, "…  typed"/utf8>>, First),
    ?assertMatch({match, _}, re:run(Second, "^  short\x{FFFD}\\[2J +typed$", [unicode])).

tier_counts_test() ->
    Rows = [{<<"a">>, <<"typed">>, <<>>}, {<<"b">>, <<"whole value">>, <<"r">>},
            {<<"c">>, <<"typed">>, <<>>}, {<<"d">>, <<"structured params">>, <<"x: y">>}],
    ?assertEqual({2, 1, 1, 0}, mcp_cli_render:tier_counts(Rows)).

%% A tool that may only run as a task is left out of the module: its row
%% says so, no tier counts it and the left-out count does; "optional" task support keeps the tool.
task_only_tools_are_left_out_of_the_tiers_test() ->
    WithTasks = fun(Support) ->
                        setelement(8, tool(<<"t">>, none, object_schema([])),
                                   {some, {object, [{<<"taskSupport">>, {string, Support}}]}})
                end,
    Required = mcp_cli_render:plan_row(WithTasks(<<"required">>)),
    ?assertMatch({<<"t">>, <<"left out">>, _}, Required),
    ?assertEqual({<<"t">>, <<"typed">>, <<>>}, mcp_cli_render:plan_row(WithTasks(<<"optional">>))),
    ?assertEqual({1, 0, 0, 1}, mcp_cli_render:tier_counts([Required, mcp_cli_render:plan_row(WithTasks(<<"optional">>))])).

tool_line_caps_the_description_test() ->
    Line = iolist_to_binary(mcp_cli_render:tool_line(tool(<<"t">>, {some, binary:copy(<<"d">>, 100000)},
                                                          object_schema([])))),
    ?assertEqual(<<"t() - ", (binary:copy(<<"d">>, 400))/binary, "…"/utf8>>, Line).

tools_json_keeps_what_the_server_sent_test() ->
    Init = {initialize_result, <<"2025-06-18">>, {some, {tools_capability, false}},
            {server_info, <<"srv">>, <<"1.0">>}, none},
    Annotated = {tool_descriptor, <<"b">>, {some, <<"B">>}, none, object_schema([]),
                 {some, {object, []}}, {some, {object, [{<<"readOnlyHint">>, {bool, true}}]}}, none},
    ?assertEqual(<<"{\"server\":{\"name\":\"srv\",\"version\":\"1.0\"},\"protocolVersion\":\"2025-06-18\","
                   "\"tools\":[{\"name\":\"a\",\"description\":\"d\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}},"
                   "{\"name\":\"b\",\"title\":\"B\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
                   "\"outputSchema\":{},\"annotations\":{\"readOnlyHint\":true}}]}\n">>,
                 iolist_to_binary(mcp_cli_render:json_output(
                                    mcp_cli_render:tools_json(Init, [tool(<<"a">>, {some, <<"d">>}, object_schema([])),
                                                                     Annotated])))).

%% DEL, 8-bit CSI and a bidi override in a result: escaped in the JSON
%% written to the terminal, and the document still means the same.
call_json_output_is_terminal_safe_test() ->
    Text = <<"a\x{7F}b\x{9B}2Jc\x{202E}d"/utf8>>,
    Result = {call_tool_result, [{text, Text}], false, none},
    Output = iolist_to_binary(mcp_cli_render:json_output(mcp_cli_render:result_json(Result))),
    ?assertEqual(<<"{\"content\":[{\"type\":\"text\",\"text\":\"a\\u007fb\\u009b2Jc\\u202ed\"}],\"isError\":false}\n">>,
                 Output),
    {ok, Decoded} = mcp_json:decode(string:trim(Output, trailing, "\n")),
    ?assertEqual(mcp_cli_render:result_json(Result), Decoded).

text_result_prints_blocks_one_per_line_test() ->
    Result = {call_tool_result, [{text, <<"one">>}, {text, <<"two\n">>}, {other, <<"image">>}], false, none},
    ?assertEqual(<<"one\ntwo\n[image content]\n">>, iolist_to_binary(mcp_cli_render:result_text(Result))).

json_result_keeps_wire_names_and_structured_content_test() ->
    Result = {call_tool_result, [{text, <<"t">>}, {other, <<"image">>}], true, {some, {int, 1}}},
    ?assertEqual(<<"{\"content\":[{\"type\":\"text\",\"text\":\"t\"},{\"type\":\"image\"}],"
                   "\"isError\":true,\"structuredContent\":1}">>,
                 mcp_json:encode(mcp_cli_render:result_json(Result))),
    ?assertEqual(<<"{\"content\":[],\"isError\":false}">>,
                 mcp_json:encode(mcp_cli_render:result_json({call_tool_result, [], false, none}))).

summary_table_test() ->
    Rows = [#{server => <<"example">>, tools => 8, tiers => {5, 1, 1, 1}, seconds => 0.42,
              note => "wrote /tmp/x/cap/mcp/example.gleam"},
            #{server => <<"broken">>, seconds => 1.0, error => "executable not found: nope"},
            #{server => <<"remote">>, note => "not run: is a remote server"}],
    ?assertEqual(<<"  server   tools  typed  structured  whole  left out  time   result\n"
                   "  example  8      5      1           1      1         0.4 s  wrote /tmp/x/cap/mcp/example.gleam\n"
                   "  broken   -      -      -           -      -         1.0 s  failed: executable not found: nope\n"
                   "  remote   -      -      -           -      -         -      not run: is a remote server\n">>,
                 iolist_to_binary(mcp_cli_render:summary_table(Rows))).

%% The server's variables by name; mcp-gen's own credential-like ones it
%% did not pass are named too (never a value is at hand here at all).
environment_given_names_what_was_and_was_not_passed_test() ->
    Text = fun(Given, Own) -> unicode:characters_to_list(mcp_cli_render:environment_given(Given, Own)) end,
    Tail = "; mcp-gen passes on only these, so give it any other it needs with --env NAME (mcp-gen's own value "
           "of NAME), --env NAME=VALUE, or \"env\" in a config entry",
    ?assertEqual("the server was given the environment variables HOME, PATH" ++ Tail,
                 Text(["PATH", "HOME"], ["PATH", "HOME", "EDITOR", "OLDPWD"])),
    ?assertEqual("the server was given the environment variables HOME, PATH; mcp-gen's own environment has "
                 "BRAVE_API_KEY, which it did not pass" ++ Tail,
                 Text(["PATH", "HOME"], ["PATH", "HOME", "BRAVE_API_KEY", "EDITOR"])),
    ?assertEqual("the server was given the environment variables GH_TOKEN, HOME; mcp-gen's own environment has "
                 "DB_PASSWORD, OPENAI_API_KEY, which it did not pass" ++ Tail,
                 Text(["HOME", "GH_TOKEN"], ["GH_TOKEN", "OPENAI_API_KEY", "DB_PASSWORD", "HOME"])),
    ?assertEqual("the server was given no environment variables" ++ Tail, Text([], [])).

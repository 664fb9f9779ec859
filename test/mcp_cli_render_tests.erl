%% mcp_cli_render: terminal safety of server-chosen text, one-line reasons,
%% and call results as text and as JSON.
-module(mcp_cli_render_tests).

-include_lib("eunit/include/eunit.hrl").

-define(FFFD, 16#FFFD/utf8).
-define(FFFD_STRING, "\x{FFFD}").

printable_replaces_terminal_controls_test() ->
    Hostile = <<"a\e[2Jb\rc\x7f\x{202E}d\x{2066}e\x{85}"/utf8>>,
    ?assertEqual(<<"a", ?FFFD, "[2Jb", ?FFFD, "c", ?FFFD, ?FFFD, "d", ?FFFD, "e", ?FFFD>>,
                 text(mcp_cli_render:printable(Hostile, line))).

printable_keeps_newline_and_tab_only_in_multiline_test() ->
    ?assertEqual(<<"a\nb\tc">>, mcp_cli_render:printable(<<"a\nb\tc">>, multiline)),
    ?assertEqual(<<"a", ?FFFD, "b", ?FFFD, "c">>, text(mcp_cli_render:printable(<<"a\nb\tc">>, line))).

printable_keeps_ordinary_unicode_test() ->
    Text = <<"héllo 世界 \x{1F600} \x{A0}"/utf8>>,
    ?assertEqual(Text, mcp_cli_render:printable(Text, line)).

printable_replaces_each_byte_that_is_not_utf8_test() ->
    ?assertEqual(<<"a", ?FFFD, ?FFFD, "b">>, text(mcp_cli_render:printable(<<"a", 16#C3, 16#FF, "b">>, line))).

%% The boundaries of each replaced range, both sides.
printable_range_boundaries_test_() ->
    [?_assertEqual({C, Expected}, {C, mcp_cli_render:printable(<<C/utf8>>, line)})
     || {C, Expected} <- [{16#1F, <<?FFFD>>}, {16#20, <<" ">>}, {16#7E, <<"~">>},
                          {16#7F, <<?FFFD>>}, {16#9F, <<?FFFD>>}, {16#A0, <<16#A0/utf8>>},
                          {16#2029, <<?FFFD>>}, {16#202A, <<?FFFD>>}, {16#202F, <<16#202F/utf8>>},
                          {16#2065, <<16#2065/utf8>>}, {16#2069, <<?FFFD>>}, {16#206A, <<16#206A/utf8>>}]].

start_errors_read_as_one_line_test_() ->
    [?_assertEqual(Expected, flat(mcp_cli_render:start_error(Error)))
     || {Error, Expected} <-
            [{{transport_failed, {executable_not_found, <<"srv">>}}, "executable not found: srv"},
             {{transport_failed, {executable_not_found, "srv"}}, "executable not found: srv"},
             {{handshake_failed, call_timed_out}, "handshake failed: request timed out (see --timeout)"},
             {{version_unsupported, <<"2025-06-18">>, <<"1999-01-01">>},
              "server offered protocol version 1999-01-01; this client asked for 2025-06-18 "
              "and supports no common version"},
             {tools_not_declared, "server does not declare the tools capability"},
             {{handshake_failed, {unavailable, {transport_closed, {exit_status, 3}}}},
              "handshake failed: server unavailable: {transport_closed,{exit_status,3}}"}]].

client_errors_read_as_one_line_test_() ->
    [?_assertEqual(Expected, flat(mcp_cli_render:client_error(Error)))
     || {Error, Expected} <-
            [{{server_error, {rpc_error, -32602, <<"bad\nname">>, none}}, "server error -32602: bad" ?FFFD_STRING "name"},
             {{result_malformed, {protocol_fault, <<"$.tools[3].name">>, <<"expected string">>}},
              "malformed result at $.tools[3].name: expected string"},
             {too_many_pages, "tools/list did not end: more than 64 pages or a repeated cursor"},
             {{unavailable, <<"line too long">>}, "server unavailable: line too long"}]].

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

text(Binary) -> unicode:characters_to_binary(Binary).

flat(IoData) -> unicode:characters_to_list(IoData).

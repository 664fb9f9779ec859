%% mcp_cli_config: the mcpServers and VS Code servers shapes, every entry
%% accounted for (stdio, unsupported by name, invalid with why), file errors.
-module(mcp_cli_config_tests).

-include_lib("eunit/include/eunit.hrl").

parse(Json) -> mcp_cli_config:parse(iolist_to_binary(Json)).

mcp_servers_shape_test() ->
    ?assertEqual({ok, [{stdio, <<"fs">>, #{executable => <<"npx">>, args => [<<"-y">>, <<"srv">>],
                                           env => [{<<"TOKEN">>, <<"t">>}, {<<"GONE">>, false}],
                                           cd => <<"/tmp">>}},
                       {stdio, <<"bare">>, #{executable => <<"/bin/srv">>, args => [], env => []}}]},
                 parse(<<"{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"srv\"],"
                         " \"env\": {\"TOKEN\": \"t\", \"GONE\": null}, \"cwd\": \"/tmp\"},"
                         " \"bare\": {\"command\": \"/bin/srv\"}}, \"other\": 1}">>)).

vscode_servers_shape_test() ->
    ?assertMatch({ok, [{stdio, <<"a">>, #{executable := <<"srv">>}},
                       {http, <<"web">>, #{url := <<"https://x">>, headers := []}}, {unsupported, <<"events">>, _},
                       {http, <<"remote">>, #{url := <<"https://x">>}}]},
                 parse(<<"{\"inputs\": [], \"servers\": {"
                         "\"a\": {\"type\": \"stdio\", \"command\": \"srv\"},"
                         "\"web\": {\"type\": \"http\", \"url\": \"https://x\"},"
                         "\"events\": {\"type\": \"sse\", \"url\": \"https://x\"},"
                         "\"remote\": {\"url\": \"https://x\"}}}">>)).

unsupported_entries_say_why_test() ->
    {ok, [{unsupported, <<"web">>, Why}]} = parse(<<"{\"mcpServers\": {\"web\": {\"type\": \"sse\"}}}">>),
    ?assertEqual("uses the \"sse\" transport; mcp-gen speaks stdio and http", flat(Why)).

%% A remote entry: its headers with each reference spelt `${VAR}' (resolved
%% when the client connects), and the errors name the header, not its value.
remote_entries_test() ->
    ?assertEqual({ok, [{http, <<"r">>, #{url => <<"https://h/mcp">>,
                                         headers => [{<<"Authorization">>, <<"Bearer ${TOKEN}">>},
                                                     {<<"X-Key">>, <<"${TOKEN}">>}]}}]},
                 mcp_cli_config:parse(<<"{\"mcpServers\": {\"r\": {\"type\": \"http\", \"url\": \"https://h/mcp\","
                                        " \"headers\": {\"Authorization\": \"Bearer ${TOKEN}\","
                                        " \"X-Key\": \"${env:TOKEN}\"}}}}">>, vars(#{<<"TOKEN">> => <<"s3cret">>}))),
    {ok, [{invalid, <<"r">>, Bad}]} = parse(<<"{\"mcpServers\": {\"r\": {\"url\": \"u\", \"headers\": {\"X\": 1}}}}">>),
    ?assertEqual("has a \"headers\" entry X whose value is not a string", flat(Bad)),
    {ok, [{invalid, <<"r">>, NoUrl}]} = parse(<<"{\"mcpServers\": {\"r\": {\"type\": \"http\"}}}">>),
    ?assertEqual("has no \"url\"", flat(NoUrl)).

vars(Map) -> fun(Name) -> maps:get(Name, Map, false) end.

%% `${VAR}' and `${env:VAR}' are the variable's value in `env' and `args',
%% once (a `${...}' inside a value is text); `null' still unsets.
variables_expand_in_env_and_args_test() ->
    Lookup = vars(#{<<"MY_KEY">> => <<"k-${OTHER}">>, <<"DIR">> => <<"/data">>}),
    ?assertEqual({ok, [{stdio, <<"s">>, #{executable => <<"srv">>,
                                          args => [<<"--root=/data/x">>, <<"/data">>, <<"$HOME">>, <<"${open">>],
                                          env => [{<<"MY_KEY">>, <<"k-${OTHER}">>}, {<<"BOTH">>, <<"/data:k-${OTHER}">>},
                                                  {<<"GONE">>, false}]}}]},
                 mcp_cli_config:parse(<<"{\"mcpServers\": {\"s\": {\"command\": \"srv\","
                                        " \"args\": [\"--root=${DIR}/x\", \"${env:DIR}\", \"$HOME\", \"${open\"],"
                                        " \"env\": {\"MY_KEY\": \"${MY_KEY}\", \"BOTH\": \"${DIR}:${env:MY_KEY}\","
                                        " \"GONE\": null}}}}">>, Lookup)).

%% An unset variable, or a `${...}' this reader does not substitute, makes
%% the entry invalid (so it never starts), naming the field and the
%% variable; the values of the variables that are set never appear.
unset_and_unsupported_references_are_invalid_test_() ->
    Lookup = vars(#{<<"SET">> => <<"v4lue">>}),
    Cases = [{<<"{\"command\": \"s\", \"env\": {\"A\": \"${SET}\", \"K\": \"${MY_KEY}\"}}">>,
              "has an \"env\" entry K whose value names the environment variable MY_KEY, which is not set: "
              "set it where mcp-gen runs, or write the value itself"},
             {<<"{\"command\": \"s\", \"args\": [\"${SET}\", \"--k=${env:NOPE}\"]}">>,
              "has an \"args\" item that names the environment variable NOPE, which is not set: "
              "set it where mcp-gen runs, or write the value itself"},
             {<<"{\"url\": \"https://h\", \"headers\": {\"A\": \"${SET}\", \"Authorization\": \"Bearer ${TOKEN}\"}}">>,
              "has a \"headers\" entry Authorization whose value names the environment variable TOKEN, which is not set: "
              "set it where mcp-gen runs, or write the value itself"},
             {<<"{\"command\": \"s\", \"args\": [\"${input:key}\"]}">>,
              "has an \"args\" item that has ${input:key}, which mcp-gen does not substitute "
              "(${VAR} and ${env:VAR} are environment variables; nothing else is)"},
             {<<"{\"command\": \"s\", \"env\": {\"W\": \"${config:root}/x\"}}">>,
              "has an \"env\" entry W whose value has ${config:root}, which mcp-gen does not substitute "
              "(${VAR} and ${env:VAR} are environment variables; nothing else is)"},
             {<<"{\"url\": \"https://h\", \"headers\": {\"A\": \"${SET:-default}\"}}">>,
              "has a \"headers\" entry A whose value has ${SET:-default}, which mcp-gen does not substitute "
              "(${VAR} and ${env:VAR} are environment variables; nothing else is)"}],
    [{Why, fun() ->
                   {ok, [{invalid, <<"x">>, Got}]} =
                       mcp_cli_config:parse(iolist_to_binary([<<"{\"mcpServers\": {\"x\": ">>, Entry, <<"}}">>]), Lookup),
                   ?assertEqual(Why, flat(Got)),
                   ?assertEqual(nomatch, string:find(flat(Got), "v4lue"))
           end} || {Entry, Why} <- Cases].

%% parse/1 reads the VM's own environment.
variables_come_from_the_vm_environment_test() ->
    true = os:putenv("MCP_CLI_CONFIG_TEST_VAR", "from-vm"),
    try
        ?assertMatch({ok, [{stdio, <<"s">>, #{env := [{<<"K">>, <<"from-vm">>}]}}]},
                     parse(<<"{\"mcpServers\": {\"s\": {\"command\": \"srv\","
                             " \"env\": {\"K\": \"${MCP_CLI_CONFIG_TEST_VAR}\"}}}}">>))
    after
        os:unsetenv("MCP_CLI_CONFIG_TEST_VAR")
    end,
    ?assertMatch({ok, [{invalid, <<"s">>, _}]},
                 parse(<<"{\"mcpServers\": {\"s\": {\"command\": \"srv\","
                         " \"env\": {\"K\": \"${MCP_CLI_CONFIG_TEST_VAR}\"}}}}">>)).

invalid_entries_say_why_test_() ->
    Cases = [{<<"{}">>, "has no \"command\""},
             {<<"{\"command\": \"\"}">>, "has a \"command\" that is not a non-empty string"},
             {<<"{\"command\": \"s\", \"args\": [\"a\", 1]}">>, "has \"args\" that are not all strings"},
             {<<"{\"command\": \"s\", \"args\": \"a\"}">>, "has \"args\" that is not an array"},
             {<<"{\"command\": \"s\", \"env\": {\"A\": 1}}">>,
              "has an \"env\" entry A that is not NAME (no = or NUL) with a string (no NUL) or null value"},
             {<<"{\"command\": \"s\", \"env\": {\"A=B\": \"x\"}}">>,
              "has an \"env\" entry A=B that is not NAME (no = or NUL) with a string (no NUL) or null value"},
             {<<"{\"command\": \"s\", \"cwd\": 3}">>, "has a \"cwd\" that is not a non-empty string"},
             {<<"{\"command\": \"s\", \"envFile\": \".env\"}">>,
              "has \"envFile\", which mcp-gen does not read: put the variables in \"env\""},
             {<<"{\"type\": 1, \"command\": \"s\"}">>, "has a \"type\" that is not a string"},
             {<<"{\"command\": \"s\\u0000\"}">>, "has a \"command\" with a NUL character"},
             {<<"{\"command\": \"s\", \"args\": [\"a\\u0000\"]}">>, "has \"args\" with a NUL character"},
             {<<"{\"command\": \"s\", \"env\": {\"A\": \"\\u0000\"}}">>,
              "has an \"env\" entry A that is not NAME (no = or NUL) with a string (no NUL) or null value"},
             {<<"{\"command\": \"s\", \"cwd\": \"/\\u0000\"}">>, "has a \"cwd\" with a NUL character"},
             {<<"{\"command\": \"s\", \"jail\": 1}">>, "has a \"jail\" that is not true, false or an object"},
             {<<"{\"command\": \"s\", \"jail\": {\"net\": 1}}">>,
              "has a \"jail\" with a member net it does not know, or of the wrong type"},
             {<<"{\"command\": \"s\", \"jail\": {\"network\": true}}">>,
              "has a \"jail\" with a member network it does not know, or of the wrong type"},
             {<<"{\"command\": \"s\", \"jail\": {\"write\": [\"/w\", 2]}}">>,
              "has a \"jail\" whose \"write\" has an item that is not a path"},
             {<<"{\"command\": \"s\", \"stderr\": 1}">>,
              "has a \"stderr\" that is not \"inherit\", \"discard\" or {\"file\": PATH}"},
             {<<"{\"command\": \"s\", \"stderr\": \"loud\"}">>,
              "has a \"stderr\" that is not \"inherit\", \"discard\" or {\"file\": PATH}"},
             {<<"{\"command\": \"s\", \"stderr\": {\"file\": \"/l\", \"max_bytes\": 0}}">>,
              "has a \"stderr\" object that is not {\"file\": PATH, \"max_bytes\": N}"},
             {<<"{\"command\": \"s\", \"stderr\": {\"path\": \"/l\"}}">>,
              "has a \"stderr\" object that is not {\"file\": PATH, \"max_bytes\": N}"},
             {<<"[]">>, "is not an object"}],
    [?_assertMatch({Entry, {ok, [{invalid, <<"x">>, _}]}, Why},
                   {Entry, parse([<<"{\"mcpServers\": {\"x\": ">>, Entry, <<"}}">>]), Why})
     || {Entry, Why} <- Cases]
    ++ [?_assertEqual(Why, begin {ok, [{invalid, _, Got}]} = parse([<<"{\"mcpServers\": {\"x\": ">>, Entry, <<"}}">>]),
                                 flat(Got) end)
        || {Entry, Why} <- Cases].

file_errors_test_() ->
    [?_assertEqual({error, "has no \"mcpServers\" (or VS Code \"servers\") object"}, parse(<<"{}">>)),
     ?_assertEqual({error, "is not a JSON object"}, parse(<<"[]">>)),
     ?_assertMatch({error, _}, parse(<<"{\"mcpServers\": {}, \"servers\": {}}">>)),
     ?_assertMatch({error, _}, parse(<<"{\"mcpServers\": []}">>)),
     ?_assertEqual("names server a twice",
                   flat(element(2, parse(<<"{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"a\": {\"command\": \"y\"}}}">>)))),
     ?_assertEqual("is not JSON: unexpected end of input at line 1, column 2 (byte 1)", flat(element(2, parse(<<"{">>)))),
     ?_assertEqual("cannot read config /nonexistent/cfg.json: no such file or directory",
                   flat(element(2, mcp_cli_config:read("/nonexistent/cfg.json"))))].

%% Line and column as an editor shows them: lines from 1 after each
%% newline, columns from 1 counting characters, not bytes.
json_error_line_and_column_test_() ->
    Error = fun(Document) -> flat(element(2, parse(Document))) end,
    [?_assertMatch("is not JSON: " ++ _, Error(<<"{\n  \"mcpServers\": ,\n}">>)),
     ?_assertMatch({match, _}, re:run(Error(<<"{\n  \"mcpServers\": ,\n}">>), " at line 2, column 17 \\(byte 18\\)$")),
     ?_assertMatch({match, _}, re:run(Error(<<"\n\n\n   x">>), " at line 4, column 4 \\(byte 6\\)$")),
     ?_assertMatch({match, _}, re:run(Error(<<"{\"é\": x}"/utf8>>), " at line 1, column 7 \\(byte 7\\)$"))].

flat(IoData) -> unicode:characters_to_list(IoData).

jail_entries_test_() ->
    Entry = fun(Jail) ->
                    {ok, [{stdio, _, Spec}]} = parse([<<"{\"mcpServers\": {\"x\": {\"command\": \"s\", \"jail\": ">>, Jail, <<"}}}">>]),
                    maps:get(jail, Spec, none)
            end,
    {ok, Cwd} = file:get_cwd(),
    [?_assertEqual(true, Entry(<<"true">>)),
     ?_assertEqual(none, Entry(<<"false">>)),
     ?_assertEqual(#{write => [<<"/w">>], read => [iolist_to_binary(filename:join(Cwd, "r"))], deny => [<<"/d">>], net => true,
                     unix_sockets => false, landlock => false, profile => strict, bwrap => <<"/usr/bin/bwrap">>},
                   Entry(<<"{\"write\": [\"/w\"], \"read\": [\"r\"], \"deny\": [\"/d\"], \"net\": true,"
                           " \"unix_sockets\": false, \"landlock\": false, \"profile\": \"strict\","
                           " \"bwrap\": \"/usr/bin/bwrap\"}">>))].

stderr_reaches_the_spawn_spec_test() ->
    Server = fun(Stderr) ->
                     {ok, [{stdio, _, Spec}]} =
                         parse([<<"{\"mcpServers\": {\"x\": {\"command\": \"s\", \"stderr\": ">>, Stderr, <<"}}}">>]),
                     maps:get(stderr, Spec)
             end,
    ?assertEqual(inherit, Server(<<"\"inherit\"">>)),
    ?assertEqual(discard, Server(<<"\"discard\"">>)),
    ?assertEqual({file, <<"/var/log/x.log">>}, Server(<<"{\"file\": \"/var/log/x.log\"}">>)),
    ?assertEqual({file, <<"/l">>, 1}, Server(<<"{\"file\": \"/l\", \"max_bytes\": 1}">>)).

%% An entry's `reconnect': attempts from 1 to 1000, backoffs from 0 to a
%% day (both sides of each limit), every other shape refused with why.
reconnect_entries_test_() ->
    Entry = fun(Reconnect) ->
                    parse([<<"{\"mcpServers\": {\"x\": {\"command\": \"s\", \"reconnect\": ">>, Reconnect, <<"}}}">>])
            end,
    Why = fun(Reconnect) -> {ok, [{invalid, <<"x">>, Reason}]} = Entry(Reconnect), flat(Reason) end,
    Day = integer_to_binary(mcp_client:max_timeout_ms()),
    [?_assertMatch({ok, [{stdio, _, #{reconnect := #{attempts := 1}}}]}, Entry(<<"{\"attempts\": 1}">>)),
     ?_assertMatch({ok, [{stdio, _, #{reconnect := #{attempts := 1000, backoff_ms := 0, max_backoff_ms := 86400000}}}]},
                   Entry([<<"{\"attempts\": 1000, \"backoff_ms\": 0, \"max_backoff_ms\": ">>, Day, <<"}">>])),
     ?_assertEqual("has a \"reconnect\" whose \"attempts\" is not from 1 to 1000", Why(<<"{\"attempts\": 0}">>)),
     ?_assertEqual("has a \"reconnect\" whose \"attempts\" is not from 1 to 1000", Why(<<"{\"attempts\": 1001}">>)),
     ?_assertEqual("has a \"reconnect\" whose \"backoff_ms\" is not milliseconds from 0 to 86400000",
                   Why(<<"{\"attempts\": 1, \"backoff_ms\": -1}">>)),
     ?_assertEqual("has a \"reconnect\" whose \"max_backoff_ms\" is not milliseconds from 0 to 86400000",
                   Why(<<"{\"attempts\": 1, \"max_backoff_ms\": 86400001}">>)),
     ?_assertMatch({ok, [{stdio, _, #{reconnect := #{attempts := 1, unresponsive_ms := 100}}}]},
                   Entry(<<"{\"attempts\": 1, \"unresponsive_ms\": 100}">>)),
     ?_assertEqual("has a \"reconnect\" whose \"unresponsive_ms\" is not milliseconds from 100 to 86400000",
                   Why(<<"{\"attempts\": 1, \"unresponsive_ms\": 99}">>)),
     ?_assertEqual("has a \"reconnect\" without \"attempts\"", Why(<<"{\"backoff_ms\": 10}">>)),
     ?_assertEqual("has a \"reconnect\" that names a member twice", Why(<<"{\"attempts\": 1, \"attempts\": 2}">>)),
     ?_assertEqual("has a \"reconnect\" with a member jitter it does not know, or of the wrong type "
                   "(attempts, backoff_ms, max_backoff_ms and unresponsive_ms take integers)",
                   Why(<<"{\"attempts\": 1, \"jitter\": 5}">>)),
     ?_assertEqual("has a \"reconnect\" that is not an object", Why(<<"3">>)),
     ?_assertMatch({ok, [{http, <<"r">>, #{reconnect := #{attempts := 2}}}]},
                   parse(<<"{\"mcpServers\": {\"r\": {\"url\": \"https://x\", \"reconnect\": {\"attempts\": 2}}}}">>))].

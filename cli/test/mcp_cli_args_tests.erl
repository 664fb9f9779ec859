%% mcp_cli_args: what each command line parses to, and every way to get a
%% usage error instead.
-module(mcp_cli_args_tests).

-include_lib("eunit/include/eunit.hrl").

-define(DEFAULT, 30000).

generate_defaults_to_the_embedded_server_test() ->
    ?assertEqual({run, #{subcommand => generate, server => embedded, timeout_ms => ?DEFAULT,
                         verbose => false, env => []}},
                 mcp_cli_args:parse(["generate"])).

generate_with_every_flag_test() ->
    ?assertEqual({run, #{subcommand => generate, name => <<"gh">>, out => "dir", timeout_ms => 500,
                         verbose => true, env => [{"A", "1"}, {"B", "x=y"}, {"A", ""}], cwd => "/srv",
                         server => {command, "npx", ["-y", "server", "--", "x"]}}},
                 mcp_cli_args:parse(["generate", "--name", "gh", "--out=dir", "--timeout", "500",
                                     "--verbose", "--env", "A=1", "--env=B=x=y", "--env", "A=",
                                     "--cwd", "/srv", "--", "npx", "-y", "server", "--", "x"])).

%% `--env NAME' passes the value the VM has (set here for the test).
env_name_alone_passes_the_vms_value_test() ->
    true = os:putenv("MCP_CLI_ARGS_TEST_KEY", "from-the-vm"),
    try
        ?assertMatch({run, #{env := [{"MCP_CLI_ARGS_TEST_KEY", "from-the-vm"}, {"B", "2"}]}},
                     mcp_cli_args:parse(["list", "--env", "MCP_CLI_ARGS_TEST_KEY", "--env", "B=2"]))
    after
        os:unsetenv("MCP_CLI_ARGS_TEST_KEY")
    end.

config_names_every_server_or_one_test() ->
    ?assertMatch({run, #{server := {config, "cfg.json", all}}},
                 mcp_cli_args:parse(["generate", "--config", "cfg.json", "--out", "d"])),
    ?assertMatch({run, #{server := {config, "cfg.json", {one, <<"gh">>}}, json := true}},
                 mcp_cli_args:parse(["list", "--config", "cfg.json", "--server", "gh", "--json"])),
    ?assertMatch({run, #{subcommand := call, server := {config, "c", {one, <<"s">>}}}},
                 mcp_cli_args:parse(["call", "t", "--config", "c", "--server", "s"])).

server_arguments_after_double_dash_are_not_flags_test() ->
    ?assertMatch({run, #{subcommand := list, server := {command, "srv", ["--bogus", "--help"]}}},
                 mcp_cli_args:parse(["list", "--", "srv", "--bogus", "--help"])).

call_takes_a_tool_and_object_arguments_test() ->
    ?assertEqual({run, #{subcommand => call, tool => <<"echo">>, json => true, timeout_ms => ?DEFAULT,
                         verbose => false, env => [],
                         arguments => {object, [{<<"message">>, {string, <<"hé"/utf8>>}}]},
                         server => embedded}},
                 mcp_cli_args:parse(["call", "--json", "echo", "--args", "{\"message\":\"hé\"}"])).

call_arguments_default_to_an_empty_object_test() ->
    ?assertMatch({run, #{arguments := {object, []}, json := false}}, mcp_cli_args:parse(["call", "t"])).

grace_limits_on_both_sides_test() ->
    Max = mcp_port:max_shutdown_grace_ms(),
    ?assertNotMatch({run, #{grace_ms := _}}, mcp_cli_args:parse(["list"])),
    ?assertMatch({run, #{grace_ms := 0}}, mcp_cli_args:parse(["list", "--grace", "0"])),
    ?assertMatch({run, #{grace_ms := Max}}, mcp_cli_args:parse(["list", "--grace", integer_to_list(Max)])),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--grace", integer_to_list(Max + 1)])).

timeout_limits_on_both_sides_test() ->
    Max = mcp_cli_args:max_timeout_ms(),
    ?assertMatch({run, #{timeout_ms := 1}}, mcp_cli_args:parse(["list", "--timeout", "1"])),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--timeout", "0"])),
    ?assertMatch({run, #{timeout_ms := Max}}, mcp_cli_args:parse(["list", "--timeout", integer_to_list(Max)])),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--timeout", integer_to_list(Max + 1)])),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--timeout", "10ms"])).

help_wins_over_other_flags_test() ->
    ?assertMatch({help, _}, mcp_cli_args:parse(["--help"])),
    ?assertMatch({help, _}, mcp_cli_args:parse(["call", "--bogus", "-h"])),
    {help, Text} = mcp_cli_args:parse(["generate", "--help"]),
    ?assertMatch({match, _}, re:run(Text, "--out DIR")).

usage_errors_name_the_problem_test_() ->
    GraceRange = lists:flatten(io_lib:format("--grace must be milliseconds from 0 to ~b", [mcp_port:max_shutdown_grace_ms()])),
    Cases = [{[], "no subcommand given"},
             {["gen"], "unknown subcommand: gen"},
             {["generate", "--bogus"], "unknown flag: --bogus"},
             {["list", "--name", "x"], "unknown flag: --name"},
             {["generate", "--out"], "--out needs a value"},
             {["generate", "--name", "a", "--name", "b"], "--name given twice"},
             {["call", "--json=yes", "t"], "--json takes no value"},
             {["call"], "call needs the TOOL name"},
             {["call", "a", "b"], "unexpected argument: b"},
             {["list", "extra"], "unexpected argument: extra"},
             {["generate", "--name", ""], "--name must not be empty"},
             {["call", "t", "--args", "[]"], "--args must be a JSON object"},
             {["call", "t", "--args", "{"], "--args is not JSON: unexpected end of input at byte 1"},
             {["list", "--"], "-- must be followed by the server COMMAND"},
             {["list", "--server", "x"], "--server needs --config FILE"},
             {["list", "--config", "c", "--", "srv"], "--config and -- COMMAND are alternatives: give one"},
             {["list", "--config", ""], "--config must not be empty"},
             {["list", "--config", "c", "--server", ""], "--server must not be empty"},
             {["list", "--env", "MCP_CLI_ARGS_TEST_UNSET"],
              "--env MCP_CLI_ARGS_TEST_UNSET: mcp-gen's environment has no MCP_CLI_ARGS_TEST_UNSET to pass"
              " (set it, or give --env MCP_CLI_ARGS_TEST_UNSET=VALUE)"},
             {["list", "--env", "=secret"], "--env takes NAME=VALUE or NAME, not one starting with ="},
             {["list", "--env"], "--env needs a value"},
             {["list", "--cwd", ""], "--cwd must not be empty"},
             {["list", "--grace", "-1"], GraceRange},
             {["list", "--grace", integer_to_list(mcp_port:max_shutdown_grace_ms() + 1)], GraceRange},
             {["list", "--grace", "1s"], GraceRange},
             {["list", "--verbose=1"], "--verbose takes no value"},
             {["list", "--args", "{}"], "unknown flag: --args"}],
    [{Reason, fun() ->
                      {usage_error, Got, Usage} = mcp_cli_args:parse(Args),
                      ?assertEqual(Reason, unicode:characters_to_list(Got)),
                      ?assertMatch("usage: mcp-gen " ++ _, lists:flatten(Usage))
              end} || {Args, Reason} <- Cases].

jail_flags_build_the_jail_test_() ->
    {ok, Cwd} = file:get_cwd(),
    [?_assertNotMatch({run, #{jail := _}}, mcp_cli_args:parse(["list", "--", "srv"])),
     ?_assertMatch({run, #{jail := Empty}} when map_size(Empty) =:= 0, mcp_cli_args:parse(["list", "--jail", "--", "srv"])),
     ?_assertEqual({run, #{subcommand => list, server => {command, "srv", []}, timeout_ms => mcp_cli_args:default_timeout_ms(),
                           verbose => false, env => [], json => false,
                           jail => #{write => ["/w1", filename:join(Cwd, "w2")], read => ["/r"], deny => ["/d"],
                                     net => true, unix_sockets => true, landlock => false}}},
                   mcp_cli_args:parse(["list", "--jail", "--allow-write", "/w1", "--allow-write=w2", "--allow-read", "/r",
                                       "--deny-read", "/d", "--allow-net", "--allow-unix-sockets", "--no-landlock",
                                       "--", "srv"])),
     ?_assertEqual({run, #{subcommand => list, server => {command, "srv", []}, timeout_ms => mcp_cli_args:default_timeout_ms(),
                           verbose => false, env => [], json => false, jail => #{profile => strict}}},
                   mcp_cli_args:parse(["list", "--jail=strict", "--", "srv"])),
     ?_assertMatch({usage_error, "--jail=loose names no profile" ++ _, _},
                   flat_usage(mcp_cli_args:parse(["list", "--jail=loose", "--", "srv"]))),
     ?_assertMatch({usage_error, "--no-landlock shapes the jail: it needs --jail" ++ _, _},
                   flat_usage(mcp_cli_args:parse(["list", "--no-landlock", "--", "srv"]))),
     ?_assertMatch({usage_error, "--allow-write shapes the jail: it needs --jail" ++ _, _},
                   flat_usage(mcp_cli_args:parse(["list", "--allow-write", "/w", "--", "srv"]))),
     ?_assertMatch({usage_error, "--allow-net shapes the jail: it needs --jail" ++ _, _},
                   flat_usage(mcp_cli_args:parse(["list", "--allow-net", "--", "srv"])))].

flat_usage({usage_error, Reason, Usage}) -> {usage_error, lists:flatten(Reason), Usage};
flat_usage(Other) -> Other.

stderr_flag_test() ->
    ?assertNotMatch({run, #{stderr := _}}, mcp_cli_args:parse(["list"])),
    ?assertMatch({run, #{stderr := inherit}}, mcp_cli_args:parse(["list", "--stderr", "-"])),
    ?assertMatch({run, #{stderr := discard}}, mcp_cli_args:parse(["list", "--stderr", "/dev/null"])),
    ?assertMatch({run, #{stderr := {file, "/var/log/srv.log"}}},
                 mcp_cli_args:parse(["list", "--stderr", "/var/log/srv.log"])),
    {run, #{stderr := {file, Relative}}} = mcp_cli_args:parse(["list", "--stderr", "srv.log"]),
    ?assertEqual(filename:absname("srv.log"), Relative),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--stderr", ""])).

%% --url with repeated --header 'Name: Value' (the value as given: a
%% ${VAR} is resolved when the client connects).
url_and_headers_test() ->
    ?assertMatch({run, #{server := {url, "http://h/mcp", [{"Authorization", "Bearer ${T}"}, {"X-A", "b: c"}]}}},
                 mcp_cli_args:parse(["call", "t", "--url", "http://h/mcp", "--header", "Authorization: Bearer ${T}",
                                     "--header=X-A:b: c"])),
    ?assertMatch({run, #{server := {url, "u", []}}}, mcp_cli_args:parse(["list", "--url", "u"])).

url_refusals_name_no_header_value_test() ->
    Refused = fun(Args) -> {usage_error, Why, _} = mcp_cli_args:parse(Args), lists:flatten(io_lib:format("~ts", [Why])) end,
    ?assertEqual("--header needs --url", Refused(["list", "--header", "A: secret"])),
    ?assertEqual("--header takes 'Name: Value' (one was given without a name and a colon; not shown)",
                 Refused(["list", "--url", "u", "--header", "secret"])),
    ?assertEqual("--env applies to a server mcp-gen runs, not to --url", Refused(["list", "--url", "u", "--env", "A=b"])),
    ?assertEqual("--jail applies to a server mcp-gen runs, not to --url", Refused(["list", "--url", "u", "--jail"])),
    ?assertEqual("--url and -- COMMAND are alternatives: give one", Refused(["list", "--url", "u", "--", "srv"])),
    ?assertEqual("--url must not be empty", Refused(["list", "--url", ""])).

era_and_elicit_are_parsed_and_checked_test() ->
    {run, Command} = mcp_cli_args:parse(["list", "--era", "auto", "--elicit", "defaults"]),
    ?assertMatch(#{era := auto, elicit := defaults}, Command),
    {run, Plain} = mcp_cli_args:parse(["list"]),
    ?assertNot(is_map_key(era, Plain) orelse is_map_key(elicit, Plain)),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--era", "new"])),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--elicit", "accept"])).

%% login is for a remote server: its help and flags leave out what shapes
%% a process (the jail, --env, --cwd, --grace, --stderr) and `-- COMMAND'.
login_is_for_a_remote_server_test() ->
    {help, Help} = mcp_cli_args:parse(["login", "--help"]),
    Text = unicode:characters_to_list(Help),
    [?assertEqual({Absent, nomatch}, {Absent, string:find(Text, Absent)})
     || Absent <- ["--jail", "--allow-write", "--allow-read", "--allow-net", "--allow-unix-sockets", "--deny-read", "--env", "--cwd", "--grace", "--stderr", "COMMAND"]],
    [?assertNotEqual({Present, nomatch}, {Present, string:find(Text, Present)})
     || Present <- ["--url URL", "--header", "--config FILE", "--browser CMD", "--client-credentials", "--timeout"]],
    Remote = "login authorizes with a remote server: give --url URL, or --config FILE with an http entry",
    ?assertMatch({usage_error, Remote, _}, mcp_cli_args:parse(["login", "--", "cat"])),
    ?assertMatch({usage_error, Remote, _}, mcp_cli_args:parse(["login"])),
    ?assertMatch({usage_error, ["unknown flag: ", "--env"], _}, mcp_cli_args:parse(["login", "--url", "u", "--env", "A=b"])),
    ?assertMatch({run, #{subcommand := login, server := {url, "u", []}}}, mcp_cli_args:parse(["login", "--url", "u"])),
    ?assertMatch({run, #{subcommand := login, server := {config, "c", all}}}, mcp_cli_args:parse(["login", "--config", "c"])).

%% Every subcommand has a help text that starts with its usage line.
every_subcommand_has_help_test_() ->
    [?_assertMatch({help, _}, mcp_cli_args:parse([Sub, "--help"])) || Sub <- ["generate", "list", "call", "login", "new-harness"]]
    ++ [?_assertEqual({Sub, match}, {Sub, re:run(element(2, mcp_cli_args:parse([Sub, "--help"])), ["^usage: mcp-gen ", Sub, " "],
                                                 [{capture, none}])})
        || Sub <- ["generate", "list", "call", "login", "new-harness"]].

new_harness_takes_a_dir_and_a_config_test() ->
    ?assertMatch({run, #{subcommand := new_harness, harness := "d", out := "d/src", server := {config, "c.json", all}}},
                 mcp_cli_args:parse(["new-harness", "d", "--config", "c.json"])),
    ?assertMatch({usage_error, "new-harness needs the project DIR", _}, mcp_cli_args:parse(["new-harness", "--config", "c"])),
    ?assertMatch({usage_error, "new-harness takes its servers from a config file: give --config FILE", _},
                 mcp_cli_args:parse(["new-harness", "d", "--", "srv"])),
    ?assertMatch({usage_error, ["unknown flag: ", "--jail"], _}, mcp_cli_args:parse(["new-harness", "d", "--config", "c", "--jail"])).

%% The authorization flags of DPoP, workload identity and
%% enterprise-managed authorization: what they parse to, the config file's
%% keys that say the same, the run's `mcp_oauth:config()' (the grant the
%% assertion names; the identity provider's secret read from its
%% variable), and the combinations refused.
assertion_and_dpop_flags_test_() ->
    Abs = filename:absname("a.jwt"),
    [?_assertMatch({run, #{oauth := #{dpop := true, assertion := {file, Abs}, client_id := <<"w">>}}},
                   mcp_cli_args:parse(["list", "--url", "u", "--dpop", "--assertion-file", "a.jwt", "--client-id", "w"])),
     ?_assertMatch({run, #{oauth := #{identity_assertion := {env, "IDT"}, idp_token_endpoint := <<"https://idp/t">>,
                                      idp_client_id := <<"i">>, idp_client_secret_env := "IDS"}}},
                   mcp_cli_args:parse(["list", "--url", "u", "--id-token-env", "IDT", "--idp-token-endpoint", "https://idp/t",
                                       "--idp-client-id", "i", "--idp-client-secret-env", "IDS"])),
     ?_assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--url", "u", "--assertion-file", "a", "--assertion-env", "V"])),
     ?_assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--url", "u", "--id-token-file", "f"])),
     ?_assertMatch({usage_error, _, _}, mcp_cli_args:parse(["list", "--url", "u", "--assertion-env", "V", "--id-token-env", "W",
                                                             "--idp-token-endpoint", "https://idp/t"])),
     ?_assertEqual({ok, #{oauth => #{dpop => true, assertion => {env, "WL"}, identity_assertion => {file, "id.jwt"},
                                     idp_token_endpoint => <<"https://idp/t">>, idp_client_id => <<"i">>,
                                     idp_client_secret_env => "IDS"}}},
                   mcp_cli_oauth:from_config({given, {object, [{<<"dpop">>, {bool, true}}, {<<"assertion_env">>, {string, <<"WL">>}},
                                                               {<<"id_token_file">>, {string, <<"id.jwt">>}},
                                                               {<<"idp_token_endpoint">>, {string, <<"https://idp/t">>}},
                                                               {<<"idp_client_id">>, {string, <<"i">>}},
                                                               {<<"idp_client_secret_env">>, {string, <<"IDS">>}}]}})),
     ?_assertMatch({ok, #{grant := jwt_bearer, dpop := true, assertion := {file, "a.jwt"}}},
                   mcp_cli_oauth:config(list, #{}, #{dpop => true, assertion => {file, "a.jwt"}})),
     fun() ->
             true = os:putenv("MCP_CLI_ARGS_TEST_IDP_SECRET", "idp-secret-1f"),
             ?assertMatch({ok, #{grant := token_exchange, idp_client_secret := <<"idp-secret-1f">>}},
                          mcp_cli_oauth:config(list, #{}, #{identity_assertion => {env, "T"}, idp_token_endpoint => <<"https://idp/t">>,
                                                            idp_client_secret_env => "MCP_CLI_ARGS_TEST_IDP_SECRET"})),
             true = os:unsetenv("MCP_CLI_ARGS_TEST_IDP_SECRET"),
             {error, Unset} = mcp_cli_oauth:config(list, #{}, #{identity_assertion => {env, "T"}, idp_token_endpoint => <<"https://idp/t">>,
                                                               idp_client_secret_env => "MCP_CLI_ARGS_TEST_IDP_SECRET"}),
             ?assertNotEqual(nomatch, string:find(lists:flatten(Unset), "MCP_CLI_ARGS_TEST_IDP_SECRET"))
     end].

watch_defaults_to_the_current_directory_test() ->
    ?assertEqual({run, #{subcommand => watch, server => embedded, timeout_ms => ?DEFAULT, verbose => false,
                         env => [], out => "."}},
                 mcp_cli_args:parse(["watch"])),
    ?assertMatch({run, #{subcommand := watch, out := "d", name := <<"fs">>, server := {config, "c.json", all}}},
                 mcp_cli_args:parse(["watch", "--out", "d", "--name", "fs", "--config", "c.json"])).

reconnect_limits_on_both_sides_test() ->
    Max = mcp_cli_args:max_reconnect_attempts(),
    ?assertEqual(1000, Max),
    ?assertMatch({run, #{reconnect := 1}}, mcp_cli_args:parse(["watch", "--reconnect", "1"])),
    ?assertMatch({usage_error, "--reconnect must be a number of attempts from 1 to 1000", _},
                 flat_reason(mcp_cli_args:parse(["watch", "--reconnect", "0"]))),
    ?assertMatch({run, #{reconnect := Max}}, mcp_cli_args:parse(["watch", "--reconnect", integer_to_list(Max)])),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["watch", "--reconnect", integer_to_list(Max + 1)])),
    ?assertMatch({usage_error, _, _}, mcp_cli_args:parse(["watch", "--reconnect", "three"])),
    %% a one-shot command ends with its request: nothing to reconnect for
    ?assertMatch({usage_error, "unknown flag: --reconnect", _},
                 flat_reason(mcp_cli_args:parse(["list", "--reconnect", "3"]))).

watch_help_documents_the_lines_test() ->
    {help, Text} = mcp_cli_args:parse(["watch", "--help"]),
    Help = unicode:characters_to_list(Text),
    ?assertNotEqual(nomatch, string:find(Help, "SERVER: generation G: +ADDED -REMOVED ~CHANGED (PATH rewritten|unchanged)")),
    ?assertNotEqual(nomatch, string:find(Help, "--reconnect N")),
    {help, Top} = mcp_cli_args:parse(["--help"]),
    ?assertNotEqual(nomatch, string:find(unicode:characters_to_list(Top), "  watch ")).

flat_reason({usage_error, Reason, Usage}) -> {usage_error, unicode:characters_to_list(Reason), Usage};
flat_reason(Other) -> Other.

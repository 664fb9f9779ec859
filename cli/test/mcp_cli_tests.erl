%% Drives bin/mcp-gen as an OS process, the way a person does: the embedded
%% example server (against golden files), npm server-everything, list, call
%% (text and --json), the 300-tool refusal, a missing executable, usage
%% errors, and Ctrl-C / SIGTERM in the middle of a call.
%%
%% The wrapper runs this profile's beams (MCP_GEN_LIB), so nothing is
%% rebuilt. Goldens under test/fixtures/cli/ are rewritten only when
%% MCP_REGEN_GOLDEN=1 (then review the diff by hand).
-module(mcp_cli_tests).

%% bin/mcp-gen run as a person would (mcp_cli_oauth_tests runs it too;
%% mcp_cli_watch_tests opens it and reads as it goes).
-export([mcp_gen/2, open_mcp_gen/3, liveness/1]).

-include_lib("eunit/include/eunit.hrl").

-define(GOLDEN_DIR, "test/fixtures/cli").
%% A hang guard, not a timed assertion: a run that has not ended by then fails.
-define(HANG_GUARD_MS, 120000).
-define(EVERYTHING, "test/e2e/node_modules/@modelcontextprotocol/server-everything").

%% Every case runs bin/mcp-gen (a VM start each), hence the timeouts; the
%% temporary directory of the run is removed at the end.
cli_test_() ->
    {setup, fun() -> ok end, fun(ok) -> file:del_dir_r(temp_base()) end,
     [{"generate embedded matches golden", {timeout, 120, fun generate_embedded_matches_golden/0}},
      {"generate to stdout prints the module", {timeout, 120, fun generate_to_stdout_prints_the_module/0}},
      {"generate name flag names the module", {timeout, 120, fun generate_name_flag_names_the_module/0}},
      {"generate against server everything", {timeout, 120, fun generate_against_server_everything/0}},
      {"refusal of 300 tools exits 1 with the reason", {timeout, 120, fun refusal_of_300_tools_exits_1_with_the_reason/0}},
      {"one tool is counted in the singular", {timeout, 120, fun one_tool_is_counted_in_the_singular/0}},
      {"missing executable exits 1", {timeout, 120, fun missing_executable_exits_1/0}},
      {"list prints one line per tool", {timeout, 120, fun list_prints_one_line_per_tool/0}},
      {"call prints text blocks", {timeout, 120, fun call_prints_text_blocks/0}},
      {"call json prints the whole result", {timeout, 120, fun call_json_prints_the_whole_result/0}},
      {"call of a tool error exits 1", {timeout, 120, fun call_of_a_tool_error_exits_1/0}},
      {"call of an unknown tool reports the server error", {timeout, 120, fun call_of_an_unknown_tool_reports_the_server_error/0}},
      {"a call that times out is not followed by a listing", {timeout, 120, fun a_call_that_times_out_is_not_followed_by_a_listing/0}},
      {"new harness writes a project without variable values", {timeout, 120, fun new_harness_writes_a_project_without_variable_values/0}},
      {"usage errors exit 2", {timeout, 120, fun usage_errors_exit_2/0}},
      {"help exits 0 for every subcommand", {timeout, 120, fun help_exits_0_for_every_subcommand/0}},
      {"sigint while the vm boots exits 130 and leaves nothing", {timeout, 120, fun sigint_while_the_vm_boots_exits_130_and_leaves_nothing/0}},
      {"sigint mid call shuts the server down", {timeout, 120, fun sigint_mid_call_shuts_the_server_down/0}},
      {"sigterm mid call shuts the server down", {timeout, 120, fun sigterm_mid_call_shuts_the_server_down/0}},
      {"generate config runs every server with a summary", {timeout, 120, fun generate_config_runs_every_server_with_a_summary/0}},
      {"generate config names the servers that failed", {timeout, 120, fun generate_config_names_the_servers_that_failed/0}},
      {"config with several servers needs a choice", {timeout, 120, fun config_with_several_servers_needs_a_choice/0}},
      {"list json of a config server", {timeout, 120, fun list_json_of_a_config_server/0}},
      {"generate config runs a remote entry beside a local one", {timeout, 120, fun generate_config_runs_a_remote_entry_beside_a_local_one/0}},
      {"list json of the embedded server", {timeout, 120, fun list_json_of_the_embedded_server/0}},
      {"verbose logs the handshake and the exit", {timeout, 120, fun verbose_logs_the_handshake_and_the_exit/0}},
      {"grace lets the server exit on its own", {timeout, 120, fun grace_lets_the_server_exit_on_its_own/0}},
      {"a banner on stdout reads as a sentence", {timeout, 120, fun a_banner_on_stdout_reads_as_a_sentence/0}},
      {"env and cwd reach the server", {timeout, 120, fun env_and_cwd_reach_the_server/0}},
      {"a server that exits at start names its environment", {timeout, 120, fun a_server_that_exits_at_start_names_its_environment/0}},
      {"config variables reach the server and an unset one starts nothing", {timeout, 120, fun config_variables_reach_the_server_and_an_unset_one_starts_nothing/0}},
      {"call json escapes terminal controls", {timeout, 120, fun call_json_escapes_terminal_controls/0}},
      {"huge colliding names are shown capped", {timeout, 120, fun huge_colliding_names_are_shown_capped/0}},
      {"generate config reports a server that never answers", {timeout, 120, fun generate_config_reports_a_server_that_never_answers/0}},
      {"sigint during generate config shuts every server down", {timeout, 120, fun sigint_during_generate_config_shuts_every_server_down/0}}]}.

%% A jailed launcher (docs/jail.md, "Launchers"), with the cache
%% scripts/ensure-deps.sh warms: a cached package lists its tools with no
%% flag; one not in the cache ends at once with the sentence naming
%% --allow-net and the cache.
jailed_launcher_test_() ->
    {setup, fun() -> ok end, fun(ok) -> file:del_dir_r(temp_base()) end,
     [{"a jailed npx with a cached package lists its tools",
       {timeout, 120, fun a_jailed_npx_with_a_cached_package_lists_its_tools/0}},
      {"a jailed npx without its package names allow net and the cache",
       {timeout, 120, fun a_jailed_npx_without_its_package_names_allow_net_and_the_cache/0}}]}.

a_jailed_npx_with_a_cached_package_lists_its_tools() ->
    {Status, Stdout, _} = mcp_gen(["list", "--jail", "--", "npx", "-y", "@modelcontextprotocol/server-memory"]),
    ?assertEqual(0, Status),
    ?assertMatch({match, _}, re:run(Stdout, "^read_graph\\(\\)", [multiline])).

a_jailed_npx_without_its_package_names_allow_net_and_the_cache() ->
    {Status, _, Stderr} = mcp_gen(["list", "--jail", "--", "npx", "-y",
                                   "@modelcontextprotocol/server-not-in-the-cache-of-this-test"]),
    ?assertEqual(1, Status),
    Cache = filename:join(os:getenv("HOME"), ".npm"),
    ?assertMatch({match, _}, re:run(Stderr, ["^mcp-gen: the handshake failed because the server exited on its own "
                                             "with exit status 1 .*; npx runs without the network in the jail, "
                                             "from its cache \\(", Cache, "\\): .*--allow-net"], [multiline])).

%% ---- generate ----

generate_embedded_matches_golden() ->
    Out = temp_dir("out"),
    {Status, Stdout, Stderr} = mcp_gen(["generate", "--out", Out]),
    ?assertEqual({0, <<>>}, {Status, Stdout}),
    Source = read(filename:join([Out, "cap", "mcp", "example.gleam"])),
    Surface = read(filename:join(Out, "example.surface")),
    golden("example.gleam", Source),
    golden("example.surface", Surface),
    %% stderr: server and protocol, the listing, the plan table, the files
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: server example 1\\.0\\.0, protocol 2025-11-25$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: 8 tools listed$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  echo +typed$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  create_event +structured params +place: .+; attendees: .+$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  evaluate +whole value +\\S", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: wrote .*example\\.gleam and .*example\\.surface$", [multiline])).

generate_to_stdout_prints_the_module() ->
    {Status, Stdout, _} = mcp_gen(["generate"]),
    ?assertEqual(0, Status),
    ?assertEqual(read(filename:join(?GOLDEN_DIR, "example.gleam")), Stdout).

generate_name_flag_names_the_module() ->
    Out = temp_dir("named"),
    {Status, _, _} = mcp_gen(["generate", "--name", "calculator", "--out", Out]),
    ?assertEqual(0, Status),
    ?assert(filelib:is_regular(filename:join([Out, "cap", "mcp", "calculator.gleam"]))),
    ?assert(filelib:is_regular(filename:join(Out, "calculator.surface"))).

generate_against_server_everything() ->
    %% Installed by `make test' (scripts/ensure-deps.sh test): a missing one fails.
    Entry = everything_entry(),
    Out = temp_dir("everything"),
    {Status, _, Stderr} = mcp_gen(["generate", "--name", "everything", "--out", Out,
                                   "--", "node", Entry, "stdio"]),
    ?assertEqual({0, <<>>}, {Status, last_error(Stderr)}),
    Source = read(filename:join([Out, "cap", "mcp", "everything.gleam"])),
    %% `echo' is a Gleam keyword and `get-sum' not an identifier: both
    %% carry sha256(name)[0..8] (computed independently with sha256sum).
    ?assertMatch({match, _}, re:run(Source, "^pub fn echo_092c79e8\\(message message: String\\) -> mcp.Outcome \\{$", [multiline])),
    ?assertMatch({match, _}, re:run(Source, "^pub fn get_sum_2fb224d8\\(a a: Float, b b: Float\\) -> mcp.Outcome \\{$", [multiline])),
    ?assertMatch({match, _}, re:run(Source, "^  internal.invoke\\(\"everything\", \"get-sum\", \\[$", [multiline])),
    ?assert(filelib:is_regular(filename:join(Out, "everything.surface"))),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: \\d+ tools listed$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: server \\S+ \\S+, protocol \\d{4}-\\d\\d-\\d\\d$", [multiline])).

refusal_of_300_tools_exits_1_with_the_reason() ->
    Pidfile = temp_path("many.pid"),
    {Status, Stdout, Stderr} =
        mcp_gen(["generate" | server_with_env([{"MCP_EXAMPLE_PIDFILE", Pidfile}],
                                              ["escript", "examples/many_tools_server.escript"])]),
    ?assertEqual({1, <<>>}, {Status, Stdout}),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: 300 tools listed$", [multiline])),
    Reason = last_line(Stderr),
    ?assertMatch({match, _}, re:run(Reason, "^mcp-gen: refused: .*300.*256", [])),
    assert_gone(Pidfile).

one_tool_is_counted_in_the_singular() ->
    {Status, _, Stderr} = mcp_gen(["generate" | server_with_env([{"MCP_MANY_TOOLS_COUNT", "1"}],
                                                                ["escript", "examples/many_tools_server.escript"])]),
    ?assertEqual(0, Status),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: 1 tool listed$", [multiline])).

missing_executable_exits_1() ->
    {Status, Stdout, Stderr} = mcp_gen(["list", "--", "/nonexistent/mcp-server", "--flag"]),
    ?assertEqual({1, <<>>}, {Status, Stdout}),
    ?assertEqual(<<"mcp-gen: executable not found: /nonexistent/mcp-server (check the command and PATH)">>, last_line(Stderr)).

%% ---- list ----

list_prints_one_line_per_tool() ->
    Pidfile = temp_path("list.pid"),
    {Status, Stdout, _} = mcp_gen(["list" | example_with_env([{"MCP_EXAMPLE_PIDFILE", Pidfile}])]),
    ?assertEqual(0, Status),
    Lines = binary:split(Stdout, <<"\n">>, [global, trim]),
    ?assertEqual(8, length(Lines)),
    ?assertEqual(<<"echo(message: string) - Sends the message back unchanged.">>, lists:nth(1, Lines)),
    ?assertEqual(<<"greet(name: string, greeting?: string, times?: int, shout?: bool)"
                   " - Greets someone, optionally loudly and more than once.">>, lists:nth(4, Lines)),
    ?assertEqual(<<"sumList(numbers: [float]) - Sums a list of numbers.">>, lists:nth(5, Lines)),
    ?assertEqual(<<"create_event(title: string, place: json, attendees?: json)"
                   " - Creates a calendar event at a place, with attendees.">>, lists:nth(6, Lines)),
    ?assertEqual(<<"evaluate(arguments: json)"
                   " - Evaluates an arithmetic expression given as text or as a tree.">>, lists:nth(7, Lines)),
    assert_gone(Pidfile).

%% ---- call ----

call_prints_text_blocks() ->
    ?assertMatch({0, <<"HELLO, ANN! HELLO, ANN!\n">>, _},
                 mcp_gen(["call", "greet", "--args", "{\"name\":\"Ann\",\"times\":2,\"shout\":true}"])).

call_json_prints_the_whole_result() ->
    {Status, Stdout, _} = mcp_gen(["call", "add", "--json", "--args", "{\"a\":2,\"b\":40}"]),
    ?assertEqual(0, Status),
    ?assertEqual({ok, {object, [{<<"content">>, {array, [{object, [{<<"type">>, {string, <<"text">>}},
                                                                     {<<"text">>, {string, <<"42">>}}]}]}},
                                {<<"isError">>, {bool, false}},
                                {<<"structuredContent">>, {object, [{<<"sum">>, {int, 42}}]}}]}},
                 mcp_json:decode(string:trim(Stdout, trailing, "\n"))).

call_of_a_tool_error_exits_1() ->
    {Status, Stdout, Stderr} = mcp_gen(["call", "divide", "--args", "{\"dividend\":1,\"divisor\":0}"]),
    ?assertEqual({1, <<"division by zero\n">>}, {Status, Stdout}),
    ?assertEqual(<<"mcp-gen: tool divide reported an error">>, last_line(Stderr)).

call_of_an_unknown_tool_reports_the_server_error() ->
    {Status, _, Stderr} = mcp_gen(["call", "no_such_tool"]),
    ?assertEqual(1, Status),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: server error -32602: unknown tool: no_such_tool$", [multiline])),
    ?assertEqual(<<"mcp-gen: the server lists no tool named no_such_tool; "
                   "`mcp-gen list` with the same server options shows the tools it has">>, last_line(Stderr)).

%% ---- usage (every parse case is in mcp_cli_args_tests; these check the exit status) ----

usage_errors_exit_2() ->
    [begin
         {Status, Stdout, Stderr} = mcp_gen(Args),
         ?assertEqual({Args, 2, <<>>}, {Args, Status, Stdout}),
         ?assertMatch({match, _}, re:run(Stderr, "^usage: mcp-gen ", [multiline]))
     end || Args <- [["generate", "--bogus"], ["call", "echo", "--args", "[1]"]]].

help_exits_0_for_every_subcommand() ->
    [begin
         {Status, Stdout, _} = mcp_gen(Args),
         ?assertEqual({Args, 0}, {Args, Status}),
         ?assertMatch({match, _}, re:run(Stdout, "^usage: mcp-gen ", []))
     end || Args <- [["--help"], ["call", "--help"]]].

%% ---- interruption ----

sigint_mid_call_shuts_the_server_down() ->
    interrupt_mid_call("INT", 130).

sigterm_mid_call_shuts_the_server_down() ->
    interrupt_mid_call("TERM", 143).

%% A signal while the VM boots (the wrapper has made its temporary directory,
%% so its traps are set, and started the VM): the VM drops a SIGTERM that arrives before mcp_cli
%% installs its handler, so the wrapper forwards it only once mcp_cli says it
%% is ready. The outcome is 130, no server left if one was started, and the
%% wrapper's temporary directory removed.
sigint_while_the_vm_boots_exits_130_and_leaves_nothing() ->
    TmpDir = temp_dir("boot.tmp"),
    Pidfile = temp_path("boot.pid"),
    Port = open_mcp_gen(["call", "sleep", "--args", "{\"ms\":600000}"
                         | example_with_env([{"MCP_EXAMPLE_PIDFILE", Pidfile}])],
                        [{"TMPDIR", TmpDir}],
                        temp_path("boot.stderr")),
    {os_pid, WrapperPid} = erlang:port_info(Port, os_pid),
    await_entry(TmpDir),
    await_child(WrapperPid),
    _ = os:cmd("kill -INT " ++ integer_to_list(WrapperPid)),
    ?assertMatch({130, _}, collect(Port)),
    ?assertEqual({ok, []}, file:list_dir(TmpDir)),
    case filelib:is_regular(Pidfile) of
        true -> assert_gone(Pidfile);
        false -> ok
    end.

interrupt_mid_call(Signal, ExpectedStatus) ->
    Pidfile = temp_path("sleep.pid"),
    StderrFile = temp_path("sleep.stderr"),
    Port = open_mcp_gen(["call", "sleep", "--args", "{\"ms\":600000}"
                         | example_with_env([{"MCP_EXAMPLE_PIDFILE", Pidfile}])],
                        [], StderrFile),
    {os_pid, WrapperPid} = erlang:port_info(Port, os_pid),
    ServerPid = await_file(Pidfile ++ ".sleeping"),
    ?assertEqual(alive, liveness(ServerPid)),
    _ = os:cmd("kill -" ++ Signal ++ " " ++ integer_to_list(WrapperPid)),
    {Status, _Stdout} = collect(Port),
    ?assertEqual(ExpectedStatus, Status),
    ?assertMatch({match, _}, re:run(read(StderrFile), "^mcp-gen: interrupted; shutting the server down$", [multiline])),
    ?assertEqual(gone, liveness(ServerPid)).

%% ---- --config, list --json, --verbose, --env, --cwd ----

%% The issue's configuration: the example server, server-everything, the
%% Python FastMCP fixture, and a remote entry that is reported, not run.
config_file(Extra) ->
    Root = cwd(),
    Servers = [{<<"example">>, {object, [{<<"command">>, {string, <<"escript">>}},
                                         {<<"args">>, {array, [{string, path(Root, "examples/example_server.escript")}]}},
                                         {<<"env">>, {object, [{<<"ERL_LIBS">>, {string, erl_libs_dir()}}]}}]}},
               {<<"everything">>, {object, [{<<"command">>, {string, <<"node">>}},
                                            {<<"args">>, {array, [{string, path(Root, everything_entry())},
                                                                  {string, <<"stdio">>}]}}]}},
               {<<"python">>, {object, [{<<"command">>, {string, path(Root, ".venv/bin/python")}},
                                        {<<"args">>, {array, [{string, path(Root, "test/e2e/fastmcp_fixture.py")}]}}]}},
               {<<"remote">>, {object, [{<<"type">>, {string, <<"sse">>}},
                                        {<<"url">>, {string, <<"https://example.invalid/sse">>}}]}}
               | Extra],
    Path = temp_path("cfg.json"),
    ok = file:write_file(Path, mcp_json:encode({object, [{<<"mcpServers">>, {object, Servers}}]})),
    Path.

generate_config_runs_every_server_with_a_summary() ->
    Out = temp_dir("config"),
    {Status, Stdout, Stderr} = mcp_gen(["generate", "--config", config_file([]), "--out", Out]),
    ?assertEqual({0, <<>>}, {Status, Stdout}),
    %% one module per server, named after its config key
    [?assert(filelib:is_regular(filename:join([Out, "cap", "mcp", Name ++ ".gleam"])))
     || Name <- ["example", "everything", "python"]],
    ?assertMatch({match, _}, re:run(Stderr, "^  server +tools +typed +structured +whole +left out +time +result$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  example +8 +6 +1 +1 +0 +\\d+\\.\\d s +wrote .*example\\.gleam$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  everything +\\d+ .* wrote .*everything\\.gleam$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  python +9 +9 +0 +0 +0 +\\d+\\.\\d s +wrote .*python\\.gleam$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  remote +- .* not run: uses the \"sse\" transport; mcp-gen speaks stdio and http$", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: python: 9 tools listed$", [multiline])),
    %% a server's own stderr lines say whose they are
    ?assertMatch({match, _}, re:run(Stderr, "^everything \\| Starting default \\(STDIO\\) server\\.\\.\\.$", [multiline])),
    ?assertEqual(nomatch, re:run(Stderr, "^Starting default", [multiline])),
    assert_docs_sample("  server ", Stderr).

generate_config_names_the_servers_that_failed() ->
    Broken = {<<"broken">>, {object, [{<<"command">>, {string, <<"/nonexistent/server">>}}]}},
    Pidfile = temp_path("config.pid"),
    Cfg = config_file([Broken]),
    %% The servers see only the allow-listed environment plus --env.
    {Status, _, Stderr} = mcp_gen(["generate", "--config", Cfg, "--out", temp_dir("failed"),
                                   "--env", "MCP_EXAMPLE_PIDFILE=" ++ Pidfile]),
    ?assertEqual(1, Status),
    ?assertMatch({match, _}, re:run(Stderr, "^  broken +- .* failed: executable not found: /nonexistent/server", [multiline])),
    ?assertEqual(<<"mcp-gen: 1 of 5 servers failed: broken">>, last_line(Stderr)),
    assert_gone(Pidfile).

config_with_several_servers_needs_a_choice() ->
    Cfg = config_file([]),
    {Status, _, Stderr} = mcp_gen(["list", "--config", Cfg]),
    ?assertEqual(2, Status),
    ?assertMatch({match, _}, re:run(Stderr, "has 4 servers \\(example, everything, python, remote\\): "
                                            "choose one with --server NAME$", [multiline])),
    {1, _, Remote} = mcp_gen(["list", "--config", Cfg, "--server", "remote"]),
    ?assertEqual(<<"mcp-gen: server remote uses the \"sse\" transport; mcp-gen speaks stdio and http">>, last_line(Remote)).

%% A config's `"type": "http"' entry beside a stdio one: both generate
%% (a remote server has no stderr to label).
generate_config_runs_a_remote_entry_beside_a_local_one() ->
    Stub = mcp_http_stub:start(fun remote_server/1),
    try
        Root = cwd(),
        Servers = [{<<"example">>, {object, [{<<"command">>, {string, <<"escript">>}},
                                             {<<"args">>, {array, [{string, path(Root, "examples/example_server.escript")}]}},
                                             {<<"env">>, {object, [{<<"ERL_LIBS">>, {string, erl_libs_dir()}}]}}]}},
                   {<<"remote">>, {object, [{<<"type">>, {string, <<"http">>}},
                                            {<<"url">>, {string, list_to_binary(mcp_http_stub:url(Stub))}}]}}],
        Path = temp_path("remote-cfg.json"),
        ok = file:write_file(Path, mcp_json:encode({object, [{<<"mcpServers">>, {object, Servers}}]})),
        Out = temp_dir("remote-config"),
        {Status, _, Stderr} = mcp_gen(["generate", "--config", Path, "--out", Out, "--token-dir", temp_path("remote-tokens")]),
        ?assertEqual({0, nomatch}, {Status, binary:match(Stderr, <<"stderr cannot apply">>)}),
        [?assert(filelib:is_regular(filename:join([Out, "cap", "mcp", Name ++ ".gleam"]))) || Name <- ["example", "remote"]]
    after
        mcp_http_stub:stop(Stub)
    end.

%% A remote MCP server with one tool, over Streamable HTTP.
remote_server(#{method := 'POST', body := Body}) ->
    {ok, {object, Members}} = mcp_json:decode(Body),
    Result = case proplists:get_value(<<"method">>, Members) of
                 {string, <<"initialize">>} ->
                     <<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                       "\"serverInfo\":{\"name\":\"remote\",\"version\":\"1\"}}">>;
                 {string, <<"tools/list">>} ->
                     <<"{\"tools\":[{\"name\":\"ping\",\"inputSchema\":{\"type\":\"object\"}}]}">>;
                 _ -> none
             end,
    case {proplists:get_value(<<"id">>, Members), Result} of
        {undefined, _} -> {reply, 202, [], <<>>};
        {Id, none} -> {reply, 200, [{"content-type", "application/json"}],
                       [<<"{\"jsonrpc\":\"2.0\",\"id\":">>, mcp_json:encode(Id), <<",\"result\":{}}">>]};
        {Id, _} -> {reply, 200, [{"content-type", "application/json"}],
                    [<<"{\"jsonrpc\":\"2.0\",\"id\":">>, mcp_json:encode(Id), <<",\"result\":">>, Result, <<"}">>]}
    end;
remote_server(_) ->
    {reply, 405, [], <<>>}.

list_json_of_a_config_server() ->
    {Status, Stdout, _} = mcp_gen(["list", "--config", config_file([]), "--server", "everything", "--json"]),
    ?assertEqual(0, Status),
    {ok, {object, Members}} = mcp_json:decode(string:trim(Stdout, trailing, "\n")),
    {<<"tools">>, {array, Tools}} = lists:keyfind(<<"tools">>, 1, Members),
    ?assert(length(Tools) > 5),
    [?assertMatch({<<"inputSchema">>, {object, _}}, lists:keyfind(<<"inputSchema">>, 1, Tool)) || {object, Tool} <- Tools],
    ?assert(lists:any(fun({object, Tool}) -> lists:keymember(<<"annotations">>, 1, Tool) end, Tools)).

list_json_of_the_embedded_server() ->
    {0, Stdout, _} = mcp_gen(["list", "--json"]),
    {ok, {object, Members}} = mcp_json:decode(string:trim(Stdout, trailing, "\n")),
    {<<"tools">>, {array, Tools}} = lists:keyfind(<<"tools">>, 1, Members),
    ?assertEqual(8, length(Tools)),
    {object, Add} = lists:nth(2, Tools),
    ?assertMatch({<<"outputSchema">>, {object, _}}, lists:keyfind(<<"outputSchema">>, 1, Add)).

verbose_logs_the_handshake_and_the_exit() ->
    {Status, Stdout, Stderr} = mcp_gen(["call", "echo", "--verbose", "--args", "{\"message\":\"hi\"}"]),
    ?assertEqual({0, <<"hi\n">>}, {Status, Stdout}),
    Wire = "^mcp-gen: wire \\+\\d+\\.\\d{3}s ",
    [?assertMatch({Pattern, {match, _}}, {Pattern, re:run(Stderr, Wire ++ Pattern, [multiline])})
     || Pattern <- ["spawn .*escript .*example_server\\.escript$",
                    "running as pid \\d+$",
                    "> \\d+ B \\{\"jsonrpc\":\"2\\.0\",\"id\":1,\"method\":\"initialize\"",
                    "< \\d+ B \\{\"jsonrpc\":\"2\\.0\",\"id\":1,\"result\":",
                    "> 54 B \\{\"jsonrpc\":\"2\\.0\",\"method\":\"notifications/initialized\"\\}$",
                    "terminate requested$",
                    %% the evidence's shape is mcp_port's (a status, or a signal)
                    "closed: (with exit status \\d+|killed by SIG[A-Z]+)"]],
    %% without --grace, the SIGKILL that ends the server reads as the normal end
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: the server (exited with exit status \\d+|was stopped with SIGKILL, "
                                            "as mcp-gen ends a server when done)", [multiline])),
    ?assertEqual(nomatch, re:run(Stderr, "^mcp-gen: the server was killed", [multiline])),
    assert_docs_sample("mcp-gen: wire ", Stderr).

%% With --grace the example server (its VM stops on SIGTERM) exits on its
%% own: the retirement reads as an exit status, not as our SIGKILL.
grace_lets_the_server_exit_on_its_own() ->
    {Status, _Stdout, Stderr} = mcp_gen(["list", "--verbose", "--grace", "10000"]),
    ?assertEqual(0, Status),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: the server exited with exit status \\d+", [multiline])),
    ?assertEqual(nomatch, re:run(Stderr, "killed by")),
    %% node keeps the default SIGTERM action: its end is the one --grace asked for
    {0, _, Node} = mcp_gen(["list", "--verbose", "--grace", "10000", "--", "node", everything_entry()]),
    ?assertEqual(<<"mcp-gen: the server was stopped with SIGTERM, as --grace asks, and ended within the grace">>,
                 last_line(Node)).

%% A server that prints a banner on stdout (and then execs a real server,
%% so SIGKILL reaches the process holding the pipe).
a_banner_on_stdout_reads_as_a_sentence() ->
    {Status, _, Stderr} = mcp_gen(["list", "--", "sh", "-c", "echo 'Server v1 starting...'; exec sleep 60"]),
    ?assertEqual(1, Status),
    ?assertEqual(<<"mcp-gen: the handshake failed because the server wrote a line that is not JSON "
                   "(unexpected character at byte 0); servers must keep stdout for protocol messages, "
                   "so a banner or log line printed there ends the session: see its stderr above">>,
                 last_line(Stderr)).

env_and_cwd_reach_the_server() ->
    Probe = temp_path("probe"),
    Dir = temp_dir("cwd"),
    Script = "printf '%s %s' \"$MCP_PROBE\" \"$(pwd)\" > \"$0\"; exec escript \"$1\"",
    {Status, _, _} = mcp_gen(["list", "--env", "MCP_PROBE=one", "--env", "MCP_PROBE=two=2",
                              "--env", "ERL_LIBS=" ++ binary_to_list(erl_libs_dir()), "--cwd", Dir,
                              "--", "sh", "-c", Script, Probe, filename:join(cwd(), "examples/example_server.escript")]),
    ?assertEqual(0, Status),
    ?assertEqual(iolist_to_binary(["two=2 ", Dir]), read(Probe)),
    {1, _, Stderr} = mcp_gen(["list", "--cwd", "/nonexistent/dir"]),
    ?assertEqual(<<"mcp-gen: the server's working directory /nonexistent/dir is not a directory">>, last_line(Stderr)).

%% new-harness: the project around the generated module, a `${VAR}' of
%% the config as a lookup (its value in no file), and a directory that
%% already holds a project refused before any server starts.
new_harness_writes_a_project_without_variable_values() ->
    Dir = temp_path("harness"),
    Config = temp_path("harness.json"),
    ok = file:write_file(Config, mcp_json:encode(
        {object, [{<<"mcpServers">>, {object, [{<<"example">>, {object, [
            {<<"command">>, {string, <<"escript">>}},
            {<<"args">>, {array, [{string, list_to_binary(filename:join(cwd(), "examples/example_server.escript"))}]}},
            {<<"env">>, {object, [{<<"ERL_LIBS">>, {string, erl_libs_dir()}},
                                  {<<"EXAMPLE_KEY">>, {string, <<"${MCP_CLI_TEST_SECRET}">>}}]}}]}}]}}]})),
    {Status, Stdout, Stderr} = mcp_gen(["new-harness", Dir, "--config", Config], [{"MCP_CLI_TEST_SECRET", "s3cret-v4lue"}]),
    ?assertEqual({0, <<>>}, {Status, Stdout}),
    ?assertMatch({match, _}, re:run(last_line(Stderr), "^mcp-gen: wrote the Gleam project harness_\\d+ in .*: cd there and run `gleam run`$")),
    Files = [F || F <- filelib:wildcard(filename:join(Dir, "**/*")), filelib:is_regular(F),
                  string:find(F, "/build/") =:= nomatch],
    [?assert(lists:member(filename:join(Dir, F), Files))
     || F <- ["gleam.toml", "src/cap/mcp/example.gleam", "surface/example.surface", "src/cap/mcp.gleam",
              "src/cap/internal/mcp.gleam"]],
    [?assertEqual({F, nomatch}, {F, binary:match(read(F), <<"s3cret">>)}) || F <- Files],
    {ok, Main} = file:read_file(hd([F || F <- Files, re:run(F, "/src/harness_\\d+\\.gleam$") =/= nomatch])),
    ?assertMatch({_, _}, binary:match(Main, <<"env(\"MCP_CLI_TEST_SECRET\")">>)),
    ?assertEqual(read(filename:join(?GOLDEN_DIR, "example.gleam")), read(filename:join(Dir, "src/cap/mcp/example.gleam"))),
    {1, _, Again} = mcp_gen(["new-harness", Dir, "--config", Config], [{"MCP_CLI_TEST_SECRET", "x"}]),
    ?assertMatch({match, _}, re:run(Again, "already holds gleam.toml; new-harness writes a new project only$", [multiline])),
    ?assertEqual(nomatch, re:run(Again, "^mcp-gen: server ", [multiline])),
    {2, _, Usage} = mcp_gen(["new-harness", temp_path("other")]),
    ?assertMatch({match, _}, re:run(Usage, "^mcp-gen: new-harness takes its servers from a config file: give --config FILE$",
                                    [multiline])).

%% A call past its --timeout ends there: the unknown-tool check (a
%% tools/list) follows only a call the server answered with an error.
a_call_that_times_out_is_not_followed_by_a_listing() ->
    {Status, _, Stderr} = mcp_gen(["call", "sleep", "--args", "{\"ms\": 60000}", "--timeout", "1500", "--verbose"]),
    ?assertEqual(1, Status),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: wire \\S+ > \\d+ B .*\"method\":\"tools/call\"", [multiline])),
    ?assertEqual(nomatch, re:run(Stderr, "\"method\":\"tools/list\"")),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: the request timed out", [multiline])).

%% A server that exits before the handshake (here for want of a key it
%% reads from its environment) ends with the names it was given, never a
%% value, and how to pass more: `--env NAME' passes mcp-gen's own value.
a_server_that_exits_at_start_names_its_environment() ->
    Script = "echo \"OTHER_KEY is required, have $MY_KEY\" >&2; exit 1",
    {Status, _, Stderr} = mcp_gen(["list", "--env", "MY_KEY=s3cret-value", "--", "sh", "-c", Script],
                                  [{"MCP_CLI_TEST_API_KEY", "withheld-v4lue"}]),
    ?assertEqual(1, Status),
    [Failure, Given] = [L || L <- binary:split(Stderr, <<"\n">>, [global, trim]), binary:match(L, <<"mcp-gen: ">>) =/= nomatch],
    %% (the status itself may be lost when the pipe closes first: mcp_port's pidfd witness)
    ?assertMatch(<<"mcp-gen: the handshake failed because the server exited on its own", _/binary>>, Failure),
    ?assertMatch({match, _}, re:run(Given, "^mcp-gen: the server was given the environment variables [A-Z_, ]*\\bMY_KEY\\b"
                                           "[A-Z_, ]*; mcp-gen's own environment has [A-Z0-9_, ]*\\bMCP_CLI_TEST_API_KEY\\b"
                                           "[A-Z0-9_, ]*, which it did not pass; mcp-gen passes on only these, so give it any other it needs with "
                                           "--env NAME \\(mcp-gen's own value of NAME\\), --env NAME=VALUE, "
                                           "or \"env\" in a config entry$")),
    ?assertMatch({match, _}, re:run(Given, "\\bPATH\\b")),
    %% the value reached the server (its own stderr shows it), never mcp-gen's lines
    ?assertMatch({_, _}, binary:match(Stderr, <<"have s3cret-value">>)),
    ?assertEqual(nomatch, binary:match(<<Failure/binary, Given/binary>>, [<<"s3cret">>, <<"withheld-v4lue">>])),
    %% --env NAME passes the VM's value
    {1, _, Passed} = mcp_gen(["list", "--env", "MCP_CLI_TEST_KEY", "--", "sh", "-c", "echo \"got $MCP_CLI_TEST_KEY\" >&2; exit 1"],
                             [{"MCP_CLI_TEST_KEY", "vm-value"}]),
    ?assertMatch({_, _}, binary:match(Passed, <<"got vm-value">>)).

%% `${VAR}' and `${env:VAR}' in a config entry's env and args are mcp-gen's
%% variables; an unset one is an error before the server starts.
config_variables_reach_the_server_and_an_unset_one_starts_nothing() ->
    Probe = temp_path("probe"),
    Config = temp_path("vars.json"),
    Script = "printf '%s %s' \"$MY_KEY\" \"$1\" > \"$0\"; exec escript \"$2\"",
    ok = file:write_file(Config, mcp_json:encode(
        {object, [{<<"mcpServers">>, {object, [{<<"s">>, {object, [
            {<<"command">>, {string, <<"sh">>}},
            {<<"args">>, {array, [{string, S} || S <- [<<"-c">>, list_to_binary(Script), list_to_binary(Probe),
                                                        <<"--root=${env:MCP_CLI_TEST_DIR}">>,
                                                        list_to_binary(filename:join(cwd(), "examples/example_server.escript"))]]}},
            {<<"env">>, {object, [{<<"MY_KEY">>, {string, <<"${MCP_CLI_TEST_KEY}">>}},
                                  {<<"ERL_LIBS">>, {string, erl_libs_dir()}}]}}]}}]}}]})),
    {Status, _, _} = mcp_gen(["list", "--config", Config], [{"MCP_CLI_TEST_KEY", "k1"}, {"MCP_CLI_TEST_DIR", "/d"}]),
    ?assertEqual(0, Status),
    ?assertEqual(<<"k1 --root=/d">>, read(Probe)),
    ok = file:delete(Probe),
    {1, _, Stderr} = mcp_gen(["list", "--config", Config], [{"MCP_CLI_TEST_DIR", "/d"}]),
    ?assertEqual(iolist_to_binary(["mcp-gen: server s in config ", Config, " has an \"env\" entry MY_KEY whose value "
                                   "names the environment variable MCP_CLI_TEST_KEY, which is not set: set it where "
                                   "mcp-gen runs, or write the value itself"]), last_line(Stderr)),
    ?assertEqual({error, enoent}, file:read_file(Probe)).

%% echo sends its message back: DEL, U+009B (8-bit CSI), U+202E and U+FEFF
%% come out as \\uXXXX, and the JSON still decodes to the same text.
call_json_escapes_terminal_controls() ->
    Message = <<"a\x{7F}b\x{9B}c\x{202E}d\x{FEFF}e"/utf8>>,
    {0, Stdout, _} = mcp_gen(["call", "echo", "--json", "--args",
                              unicode:characters_to_list(mcp_json:encode({object, [{<<"message">>, {string, Message}}]}))]),
    ?assertMatch({_, _}, binary:match(Stdout, <<"a\\u007fb\\u009bc\\u202ed\\ufeffe">>)),
    {ok, {object, [{<<"content">>, {array, [{object, Block}]}} | _]}} = mcp_json:decode(string:trim(Stdout, trailing, "\n")),
    ?assertEqual({<<"text">>, {string, Message}}, lists:keyfind(<<"text">>, 1, Block)).

%% Two tools share one 1 MiB name that starts with an escape sequence: the
%% refusal, the plan table and `list' stay short lines with no escape.
huge_colliding_names_are_shown_capped() ->
    %% The server sees only the allow-listed environment plus --env.
    Server = ["--env", "ERL_LIBS=" ++ binary_to_list(erl_libs_dir()),
              "--", "escript", "test/fixtures/cli/collision_server.escript"],
    {Status, Stdout, Stderr} = mcp_gen(["generate" | Server], [erl_libs()]),
    ?assertEqual({1, <<>>}, {Status, Stdout}),
    ?assert(byte_size(Stderr) < 2000),
    ?assertEqual(nomatch, binary:match(Stderr, <<"\e">>)),
    ?assertMatch({match, _}, re:run(last_line(Stderr), "^mcp-gen: refused: tool names \"\\x{FFFD}\\[2Jn+…\" and", [unicode])),
    ?assertMatch({match, _}, re:run(Stderr, "^  \\x{FFFD}\\[2Jn{27}…  typed$", [multiline, unicode])),
    {0, Listed, _} = mcp_gen(["list" | Server], [erl_libs()]),
    [First, _] = binary:split(Listed, <<"\n">>, [global, trim]),
    ?assertEqual(<<"\x{FFFD}[2J"/utf8, (binary:copy(<<"n">>, 116))/binary, "…() - One of two tools with the same name."/utf8>>, First).

%% A server that never answers initialize fails its own row (the handshake
%% deadline) while the others are generated.
generate_config_reports_a_server_that_never_answers() ->
    Silent = {<<"silent">>, {object, [{<<"command">>, {string, <<"sleep">>}}, {<<"args">>, {array, [{string, <<"600">>}]}}]}},
    {Status, _, Stderr} = mcp_gen(["generate", "--config", config_file([Silent]), "--out", temp_dir("silent"),
                                   "--timeout", "3000"]),
    ?assertEqual(1, Status),
    ?assertMatch({match, _}, re:run(Stderr, "^  silent +- .* failed: the server did not answer the initialize request in time", [multiline])),
    ?assertMatch({match, _}, re:run(Stderr, "^  python +9 ", [multiline])),
    ?assertEqual(<<"mcp-gen: 1 of 5 servers failed: silent">>, last_line(Stderr)).

%% Ctrl-C while several servers start (two never answer): 130, and every
%% server's process is gone.
sigint_during_generate_config_shuts_every_server_down() ->
    Pidfiles = [temp_path("silent1.pid"), temp_path("silent2.pid")],
    Silent = [{list_to_binary("silent" ++ integer_to_list(N)),
               {object, [{<<"command">>, {string, <<"sh">>}},
                         {<<"args">>, {array, [{string, <<"-c">>}, {string, <<"printf %s $$ > \"$0\"; exec sleep 600">>},
                                               {string, list_to_binary(Pidfile)}]}}]}}
              || {N, Pidfile} <- lists:zip([1, 2], Pidfiles)],
    StderrFile = temp_path("several.stderr"),
    Port = open_mcp_gen(["generate", "--config", config_file(Silent), "--out", temp_dir("several")], [], StderrFile),
    {os_pid, WrapperPid} = erlang:port_info(Port, os_pid),
    Pids = [await_file(Pidfile) || Pidfile <- Pidfiles],
    [?assertEqual(alive, liveness(Pid)) || Pid <- Pids],
    _ = os:cmd("kill -INT " ++ integer_to_list(WrapperPid)),
    ?assertMatch({130, _}, collect(Port)),
    ?assertMatch({match, _}, re:run(read(StderrFile), "^mcp-gen: interrupted; shutting the servers down$", [multiline])),
    [?assertEqual(gone, liveness(Pid)) || Pid <- Pids].

everything_entry() ->
    filename:join(?EVERYTHING, "dist/index.js").

erl_libs_dir() ->
    list_to_binary(filename:dirname(code:lib_dir(mcp))).

cwd() ->
    {ok, Dir} = file:get_cwd(),
    Dir.

path(Root, Relative) ->
    list_to_binary(filename:join(Root, Relative)).

%% ---- helpers ----

mcp_gen(Args) -> mcp_gen(Args, []).

mcp_gen(Args, Env) ->
    StderrFile = temp_path("stderr"),
    {Status, Stdout} = collect(open_mcp_gen(Args, Env, StderrFile)),
    {Status, Stdout, read(StderrFile)}.

%% bin/mcp-gen with stderr redirected to a file (`exec' keeps the wrapper's pid).
open_mcp_gen(Args, Env, StderrFile) ->
    Lib = filename:dirname(code:lib_dir(mcp)),
    open_port({spawn_executable, "/bin/sh"},
              [{args, ["-c", "exec \"$0\" \"$@\" 2>\"$MCP_TEST_STDERR\"", "bin/mcp-gen" | Args]},
               {env, [{"MCP_GEN_LIB", Lib}, {"MCP_TEST_STDERR", StderrFile} | Env]},
               binary, exit_status, use_stdio, hide]).

collect(Port) -> collect(Port, []).

collect(Port, Acc) ->
    receive
        {Port, {data, Bytes}} -> collect(Port, [Acc, Bytes]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(Acc)}
    after ?HANG_GUARD_MS ->
        error({mcp_gen_did_not_exit, iolist_to_binary(Acc)})
    end.

%% An escript given as COMMAND finds mcp_json through ERL_LIBS (this profile's build).
erl_libs() ->
    {"ERL_LIBS", filename:dirname(code:lib_dir(mcp))}.

%% `-- COMMAND' run through `env' with ERL_LIBS and `Env': a server receives
%% only an allow-list of the VM's variables (docs/server-processes.md), so
%% what is meant for it travels on its command line.
server_with_env(Env, Command) ->
    ["--", "env" | [Name ++ "=" ++ Value || {Name, Value} <- [erl_libs() | Env]]] ++ Command.

%% The example server (what `mcp-gen' runs by default) with `Env'.
example_with_env(Env) ->
    server_with_env(Env, ["escript", "examples/example_server.escript"]).

%% The docs/cli.md sample whose first line starts with `Prefix' equals the
%% same lines of this run's stderr, up to what differs between runs: times,
%% pids, directories and column widths (`sample_form/1').
assert_docs_sample(Prefix, Stderr) ->
    Samples = [Lines || Lines = [First | _] <- docs_samples(), lists:prefix(Prefix, First)],
    ?assertMatch({Prefix, [_]}, {Prefix, Samples}),
    [Sample] = Samples,
    Real = [sample_form(Line) || Line <- string:split(unicode:characters_to_list(Stderr), "\n", all)],
    Expected = [sample_form(Line) || Line <- Sample],
    Shown = lists:sublist(lists:dropwhile(fun(Line) -> Line =/= hd(Expected) end, Real), length(Expected)),
    ?assertEqual(Expected, Shown).

%% The fenced blocks of docs/cli.md, as lists of lines.
docs_samples() ->
    {ok, Doc} = file:read_file("docs/cli.md"),
    Blocks = tl(string:split(unicode:characters_to_list(Doc), "```", all)),
    [string:split(string:trim(Block, both, "\n"), "\n", all)
     || {Index, Block} <- lists:enumerate(Blocks), Index rem 2 =:= 1].

sample_form(Line) ->
    lists:foldl(fun({Pattern, Replacement}, Acc) -> re:replace(Acc, Pattern, Replacement, [global, unicode, {return, list}]) end,
                Line,
                [{"\\+\\d+\\.\\d{3}s", "+T"},          % wire log times
                 {"\\d+\\.\\d s", "T s"},                % summary times
                 {"pid \\d+", "pid N"},
                 {"\\S*/", ""},                         % directories
                 {" {2,}", "  "}]).                      % column widths

golden(Name, Actual) ->
    Path = filename:join(?GOLDEN_DIR, Name),
    case os:getenv("MCP_REGEN_GOLDEN") of
        "1" -> ok = filelib:ensure_dir(Path), ok = file:write_file(Path, Actual);
        _ -> ?assertEqual(read(Path), Actual)
    end.

read(Path) ->
    {ok, Bytes} = file:read_file(Path),
    Bytes.

last_line(Text) ->
    lists:last(binary:split(Text, <<"\n">>, [global, trim])).

%% The last "mcp-gen: " line that is not progress, or <<>> when every line is progress.
last_error(Stderr) ->
    Progress = "^mcp-gen: (server |\\d+ tools listed|wrote )",
    Reasons = [Line || Line <- binary:split(Stderr, <<"\n">>, [global, trim]),
                       re:run(Line, "^mcp-gen: ", [{capture, none}]) =:= match,
                       re:run(Line, Progress, [{capture, none}]) =:= nomatch],
    case Reasons of
        [] -> <<>>;
        _ -> lists:last(Reasons)
    end.

temp_dir(Name) ->
    Dir = temp_path(Name),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Dir.

temp_base() ->
    filename:join(["/tmp", "mcp_cli_tests." ++ os:getpid()]).

temp_path(Name) ->
    Base = temp_base(),
    ok = filelib:ensure_dir(filename:join(Base, "x")),
    filename:join(Base, Name ++ "." ++ integer_to_list(erlang:unique_integer([positive]))).

%% Polls (a hang guard bounds it) until the server wrote its pid.
await_file(Path) -> await_file(Path, ?HANG_GUARD_MS div 50).

await_file(Path, 0) -> error({file_never_written, Path});
await_file(Path, Tries) ->
    case file:read_file(Path) of
        {ok, Pid} when Pid =/= <<>> -> binary_to_integer(Pid);
        _ -> timer:sleep(50), await_file(Path, Tries - 1)
    end.

%% Polls (a hang guard bounds it) until Dir holds an entry.
await_entry(Dir) -> await_entry(Dir, ?HANG_GUARD_MS div 10).

await_entry(Dir, 0) -> error({never_populated, Dir});
await_entry(Dir, Tries) ->
    case file:list_dir(Dir) of
        {ok, [_ | _]} -> ok;
        _ -> timer:sleep(10), await_entry(Dir, Tries - 1)
    end.

%% Polls (a hang guard bounds it) until the OS process Pid has a child.
await_child(Pid) -> await_child(Pid, ?HANG_GUARD_MS div 10).

await_child(Pid, 0) -> error({no_child, Pid});
await_child(Pid, Tries) ->
    case os:cmd("pgrep -P " ++ integer_to_list(Pid)) of
        [] -> timer:sleep(10), await_child(Pid, Tries - 1);
        _ -> ok
    end.

%% The server that wrote Pidfile at start is no longer running.
assert_gone(Pidfile) ->
    ?assertEqual(gone, liveness(binary_to_integer(read(Pidfile)))).

liveness(OsPid) ->
    case os:cmd("kill -0 " ++ integer_to_list(OsPid) ++ " 2>/dev/null && echo alive") of
        "alive\n" -> alive;
        _ -> gone
    end.

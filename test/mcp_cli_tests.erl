%% Drives bin/mcp-gen as an OS process, the way a person does: the embedded
%% example server (against golden files), npm server-everything, list, call
%% (text and --json), the 300-tool refusal, a missing executable, usage
%% errors, and Ctrl-C / SIGTERM in the middle of a call.
%%
%% The wrapper runs this profile's beams (MCP_GEN_EBIN), so nothing is
%% rebuilt. Goldens under test/fixtures/cli/ are rewritten only when
%% MCP_REGEN_GOLDEN=1 (then review the diff by hand).
-module(mcp_cli_tests).

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
      {"missing executable exits 1", {timeout, 120, fun missing_executable_exits_1/0}},
      {"list prints one line per tool", {timeout, 120, fun list_prints_one_line_per_tool/0}},
      {"call prints text blocks", {timeout, 120, fun call_prints_text_blocks/0}},
      {"call json prints the whole result", {timeout, 120, fun call_json_prints_the_whole_result/0}},
      {"call of a tool error exits 1", {timeout, 120, fun call_of_a_tool_error_exits_1/0}},
      {"call of an unknown tool reports the server error", {timeout, 120, fun call_of_an_unknown_tool_reports_the_server_error/0}},
      {"usage errors exit 2", {timeout, 120, fun usage_errors_exit_2/0}},
      {"help exits 0 for every subcommand", {timeout, 120, fun help_exits_0_for_every_subcommand/0}},
      {"sigint while the vm boots exits 130 and leaves nothing", {timeout, 120, fun sigint_while_the_vm_boots_exits_130_and_leaves_nothing/0}},
      {"sigint mid call shuts the server down", {timeout, 120, fun sigint_mid_call_shuts_the_server_down/0}},
      {"sigterm mid call shuts the server down", {timeout, 120, fun sigterm_mid_call_shuts_the_server_down/0}}]}.

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
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: server example 1\\.0\\.0, protocol 2025-06-18$", [multiline])),
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
    Entry = filename:join(?EVERYTHING, "dist/index.js"),
    case filelib:is_regular(Entry) of
        false ->
            ?debugFmt("SKIPPED: ~s is not installed (scripts/ensure-deps.sh test installs it "
                      "from test/e2e/package.json)", [?EVERYTHING]);
        true ->
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
            ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: server \\S+ \\S+, protocol \\d{4}-\\d\\d-\\d\\d$", [multiline]))
    end.

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

missing_executable_exits_1() ->
    {Status, Stdout, Stderr} = mcp_gen(["list", "--", "/nonexistent/mcp-server", "--flag"]),
    ?assertEqual({1, <<>>}, {Status, Stdout}),
    ?assertEqual(<<"mcp-gen: executable not found: /nonexistent/mcp-server">>, last_line(Stderr)).

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
    ?assertEqual(<<"mcp-gen: server error -32602: unknown tool: no_such_tool">>, last_line(Stderr)).

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

%% ---- helpers ----

mcp_gen(Args) -> mcp_gen(Args, []).

mcp_gen(Args, Env) ->
    StderrFile = temp_path("stderr"),
    {Status, Stdout} = collect(open_mcp_gen(Args, Env, StderrFile)),
    {Status, Stdout, read(StderrFile)}.

%% bin/mcp-gen with stderr redirected to a file (`exec' keeps the wrapper's pid).
open_mcp_gen(Args, Env, StderrFile) ->
    Ebin = code:lib_dir(mcp, ebin),
    open_port({spawn_executable, "/bin/sh"},
              [{args, ["-c", "exec \"$0\" \"$@\" 2>\"$MCP_TEST_STDERR\"", "bin/mcp-gen" | Args]},
               {env, [{"MCP_GEN_EBIN", Ebin}, {"MCP_TEST_STDERR", StderrFile} | Env]},
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

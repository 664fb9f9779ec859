%% `mcp-gen watch' (`mcp_cli_watch', `mcp_cli_files'): the diff of two
%% listings, the line it prints (server text made safe), the atomic write
%% that leaves an unchanged file alone, the loop against an in-VM server
%% (`mcp_fake_server') and the messages of the client's reconnect
%% contract, and bin/mcp-gen watch against a real SDK server whose tools
%% change (cli/test/listing_server.py, PyPI `mcp' 2.x) and which is killed,
%% with and without `--reconnect'.
-module(mcp_cli_watch_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("kernel/include/file.hrl").

-import(mcp_fake_server, [tools_page/2]).

-define(TIMEOUT, 5000).
%% A hang guard, not a timed assertion: a run that has not ended by then fails.
-define(HANG_GUARD_MS, 120000).
-define(NOTICE, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}},
                          {<<"method">>, {string, <<"notifications/tools/list_changed">>}}]}).
-define(SDK2_PYTHON, ".venv-sdk2/bin/python").

%% ---- diff/2 ----

tool(Name, Description) ->
    {tool_descriptor, Name, none, {some, Description},
     {object, [{<<"type">>, {string, <<"object">>}}]}, none, none, none}.

added_removed_and_changed_by_name_test() ->
    Old = [tool(<<"read_file">>, <<"Reads.">>), tool(<<"delete_file">>, <<"Deletes.">>), tool(<<"stat">>, <<"Stats.">>)],
    New = [tool(<<"write_file">>, <<"Writes.">>), tool(<<"stat">>, <<"Stats.">>), tool(<<"read_file">>, <<"Reads a file.">>),
           tool(<<"copy">>, <<"Copies.">>)],
    ?assertEqual(#{added => [<<"write_file">>, <<"copy">>], removed => [<<"delete_file">>], changed => [<<"read_file">>]},
                 mcp_cli_watch:diff(Old, New)).

the_same_listing_is_no_change_test() ->
    Tools = [tool(<<"a">>, <<"A.">>), tool(<<"b">>, <<"B.">>)],
    ?assertEqual(#{added => [], removed => [], changed => []}, mcp_cli_watch:diff(Tools, Tools)),
    %% reordered: a new listing, but no tool added, removed or changed
    ?assertEqual(#{added => [], removed => [], changed => []}, mcp_cli_watch:diff(Tools, lists:reverse(Tools))).

%% A name listed twice is one name whose descriptors are all of its entries.
a_name_listed_twice_is_one_name_test() ->
    Once = [tool(<<"a">>, <<"A.">>)],
    Twice = [tool(<<"a">>, <<"A.">>), tool(<<"a">>, <<"A.">>)],
    ?assertEqual(#{added => [], removed => [], changed => [<<"a">>]}, mcp_cli_watch:diff(Once, Twice)),
    ?assertEqual(#{added => [], removed => [<<"a">>], changed => []}, mcp_cli_watch:diff(Twice, [])).

%% ---- change_line/4 ----

line(Server, Generation, Diff, Outcome) ->
    unicode:characters_to_binary(mcp_cli_watch:change_line(Server, Generation, Diff, Outcome)).

the_change_line_names_each_tool_with_its_sign_test() ->
    Diff = #{added => [<<"write_file">>], removed => [<<"delete_file">>], changed => [<<"read_file">>]},
    ?assertEqual(<<"fs: generation 3: +write_file -delete_file ~read_file (cap/mcp/fs.gleam rewritten)">>,
                 line(<<"fs">>, 3, Diff, {rewritten, "cap/mcp/fs.gleam"})),
    ?assertEqual(<<"fs: generation 4: ~read_file (cap/mcp/fs.gleam unchanged)">>,
                 line(<<"fs">>, 4, Diff#{added := [], removed := []}, {unchanged, <<"cap/mcp/fs.gleam">>})),
    ?assertEqual(<<"fs: generation 5: tools reordered (cap/mcp/fs.gleam rewritten)">>,
                 line(<<"fs">>, 5, #{added => [], removed => [], changed => []}, {rewritten, "cap/mcp/fs.gleam"})),
    ?assertEqual(<<"fs: generation 6: +x (refused: too many; cap/mcp/fs.gleam kept)">>,
                 line(<<"fs">>, 6, Diff#{added := [<<"x">>], removed := [], changed := []},
                      {refused, "too many", "cap/mcp/fs.gleam"})),
    ?assertEqual(<<"fs: generation 7: -x (cannot write cap/mcp/fs.gleam: no space left on device)">>,
                 line(<<"fs">>, 7, Diff#{added := [], removed := [<<"x">>], changed := []},
                      {write_failed, "cap/mcp/fs.gleam", "no space left on device"})).

%% A change line shows at most `max_names_shown()' names of each sign, then
%% how many more: 32 added are all shown, 33 are 32 and `(+1 more)'.
the_change_line_shows_a_bounded_number_of_names_test() ->
    Max = mcp_cli_watch:max_names_shown(),
    Names = fun(N) -> [<<"t", (integer_to_binary(I))/binary>> || I <- lists:seq(1, N)] end,
    Count = fun(Line) -> length(binary:matches(Line, [<<" +t">>, <<" -t">>])) end,
    AtMax = line(<<"s">>, 2, #{added => Names(Max), removed => [], changed => []}, {rewritten, "x.gleam"}),
    ?assertEqual(Max, Count(AtMax)),
    ?assertEqual(nomatch, binary:match(AtMax, <<"more)">>)),
    Past = line(<<"s">>, 3, #{added => Names(Max + 1), removed => Names(Max + 5000), changed => []},
                {rewritten, "x.gleam"}),
    ?assertEqual(2 * Max, Count(Past)),
    ?assertNotEqual(nomatch, binary:match(Past, <<"(+1 more)">>)),
    ?assertNotEqual(nomatch, binary:match(Past, <<"(-5000 more)">>)).

%% A server names a tool with a terminal escape (clear the screen) and a
%% bidi override: the name holds them, the line does not.
a_tool_name_with_terminal_controls_is_shown_safely_test() ->
    Hostile = <<"bad", 27, "[2J", 16#202E/utf8, "name">>,
    ?assertNotEqual(nomatch, binary:match(Hostile, <<27>>)),
    Line = line(<<"fs">>, 2, #{added => [Hostile], removed => [], changed => []}, {rewritten, "x.gleam"}),
    ?assertEqual(nomatch, binary:match(Line, <<27>>)),
    ?assertEqual(nomatch, binary:match(Line, <<16#202E/utf8>>)),
    ?assertEqual(<<"fs: generation 2: +bad", 16#FFFD/utf8, "[2J", 16#FFFD/utf8, "name (x.gleam rewritten)">>, Line).

%% ---- mcp_cli_files ----

%% A module's file name is one plain identifier under cap/mcp/: nothing
%% after it, not even a final newline (which a `$' would let through).
a_module_segment_is_one_plain_identifier_test() ->
    ?assertEqual({ok, <<"abc_1">>}, mcp_cli_files:module_segment(<<"cap/mcp/abc_1">>)),
    [?assertEqual(error, mcp_cli_files:module_segment(Name))
     || Name <- [<<"cap/mcp/abc\n">>, <<"cap/mcp/abc/../x">>, <<"cap/mcp/Abc">>, <<"cap/mcp/">>, <<"cap/abc">>]].

a_file_is_written_then_left_alone_while_its_bytes_stay_test() ->
    Dir = temp_dir(),
    Path = filename:join([Dir, "cap", "mcp", "fs.gleam"]),
    ?assertEqual({ok, [Path]}, mcp_cli_files:write([{Path, <<"one">>}])),
    %% The same bytes: not written, so the inode and the mtime (set a
    %% minute back) stay.
    Aged = age(Path),
    ?assertEqual({ok, []}, mcp_cli_files:write([{Path, <<"one">>}])),
    ?assertEqual(identity(Aged), identity(Path)),
    %% Other bytes: a new file renamed over the old one (a new inode), and
    %% no temporary file left beside it.
    ?assertEqual({ok, [Path]}, mcp_cli_files:write([{Path, <<"two">>}])),
    {ok, After} = file:read_file_info(Path, [raw, {time, posix}]),
    ?assertNotEqual(Aged#file_info.inode, After#file_info.inode),
    ?assertEqual({ok, <<"two">>}, file:read_file(Path)),
    ?assertEqual({ok, ["fs.gleam"]}, file:list_dir(filename:dirname(Path))),
    ok = file:del_dir_r(Dir).

%% A reader that opened the old file keeps reading the old bytes whole.
a_reader_of_the_old_file_sees_it_whole_test() ->
    Dir = temp_dir(),
    Path = filename:join(Dir, "m.gleam"),
    {ok, _} = mcp_cli_files:write([{Path, <<"old bytes">>}]),
    {ok, Reader} = file:open(Path, [read, raw, binary]),
    {ok, _} = mcp_cli_files:write([{Path, <<"new bytes, longer">>}]),
    ?assertEqual({ok, <<"old bytes">>}, file:read(Reader, 100)),
    ok = file:close(Reader),
    ?assertEqual({ok, <<"new bytes, longer">>}, file:read_file(Path)),
    ok = file:del_dir_r(Dir).

%% A write that fails (the path is a directory) leaves no temporary file.
a_failed_write_leaves_no_temporary_file_test() ->
    Dir = temp_dir(),
    Target = filename:join(Dir, "taken.gleam"),
    ok = file:make_dir(Target),
    ok = file:write_file(filename:join(Target, "inside"), <<>>),
    ?assertMatch({error, Target, _}, mcp_cli_files:write([{Target, <<"module">>}])),
    ?assertEqual({ok, ["taken.gleam"]}, file:list_dir(Dir)),
    ok = file:del_dir_r(Dir).

only_a_plain_segment_names_a_path_test() ->
    ?assertEqual({ok, <<"o/cap/mcp/fs.gleam">>, <<"s/fs.surface">>}, mcp_cli_files:paths(<<"cap/mcp/fs">>, {"o", "s"})),
    ?assertEqual(error, mcp_cli_files:paths(<<"cap/mcp/../../etc/x">>, {"o", "s"})),
    ?assertEqual(error, mcp_cli_files:paths(<<"cap/mcp/Fs">>, {"o", "s"})),
    ?assertEqual(error, mcp_cli_files:paths(<<"elsewhere/fs">>, {"o", "s"})).

%% ---- the loop, against an in-VM server ----

%% A fake server whose tools are the names an ETS table holds; it declares
%% `tools.listChanged'.
fake(Table) ->
    fun({request, Id, <<"initialize">>, _}) ->
            [{reply, Id, mcp_fake_server:initialize_result(
                           <<"2025-06-18">>, [{<<"tools">>, {object, [{<<"listChanged">>, {bool, true}}]}}])}];
       ({request, Id, <<"tools/list">>, _}) ->
            [{tools, Tools}] = ets:lookup(Table, tools),
            [{reply, Id, tools_page([raw_tool(Name, Description) || {Name, Description} <- Tools], none)}];
       (_) ->
            default
    end.

raw_tool(Name, Description) ->
    {object, [{<<"name">>, {string, Name}}, {<<"description">>, {string, Description}},
              {<<"inputSchema">>, {object, [{<<"type">>, {string, <<"object">>}}]}}]}.

%% A client on the fake server, its module written once, and a watcher
%% process whose lines come to the test as `{line, Text}'.
start_watch(Tools) ->
    Table = ets:new(?MODULE, [public]),
    true = ets:insert(Table, {tools, Tools}),
    {ok, Client, _} = mcp_client:start(mcp_fake_server:spec(fake(Table)), #{}),
    Peer = receive {fake_server, P, {request, _, <<"initialize">>, _}} -> P after ?TIMEOUT -> error(no_server) end,
    {ok, {1, Listed}} = mcp_client:tools(Client),
    Dir = temp_dir(),
    {ok, {generated, ModuleName, Source, Surface}} = mcp_codegen:generate(<<"fake">>, Listed),
    {ok, SourcePath, SurfacePath} = mcp_cli_files:paths(ModuleName, {Dir, Dir}),
    {ok, _} = mcp_cli_files:write([{SourcePath, Source}, {SurfacePath, Surface}]),
    Test = self(),
    Watched = #{client => Client, server => <<"fake">>, name => <<"fake">>, out => {Dir, Dir},
                generation => 1, tools => Listed},
    {Watcher, Monitor} = spawn_monitor(fun() ->
                                               Ended = mcp_cli_watch:watch([Watched], fun(Line) -> Test ! {line, unicode:characters_to_binary(Line)} end),
                                               exit({watch, Ended})
                                       end),
    #{client => Client, peer => Peer, table => Table, dir => Dir, source => SourcePath,
      watcher => Watcher, monitor => Monitor}.

%% Polls (a hang guard bounds it) until the watcher is subscribed: the
%% actor monitors its subscribers.
await_subscribed(Watch) -> await_subscribed(Watch, ?HANG_GUARD_MS div 5).

await_subscribed(_Watch, 0) -> error(never_subscribed);
await_subscribed(#{client := Client, watcher := Watcher} = Watch, Tries) ->
    {monitored_by, By} = erlang:process_info(Watcher, monitored_by),
    case lists:member(mcp_client:pid(Client), By) of
        true -> Watch;
        false -> timer:sleep(5), await_subscribed(Watch, Tries - 1)
    end.

next_line() ->
    receive {line, Line} -> Line after ?HANG_GUARD_MS -> error(no_line) end.

ended(#{monitor := Monitor}) ->
    receive {'DOWN', Monitor, process, _, {watch, Ended}} -> Ended after ?HANG_GUARD_MS -> error(watch_did_not_end) end.

stop_watch(#{client := Client, table := Table, dir := Dir, watcher := Watcher, monitor := Monitor}) ->
    %% Its monitor goes with it: no `DOWN' is left for the next test module.
    erlang:demonitor(Monitor, [flush]),
    exit(Watcher, kill),
    _ = mcp_client:shutdown(Client, ?TIMEOUT),
    ets:delete(Table),
    ok = file:del_dir_r(Dir).

a_changed_listing_rewrites_the_module_and_says_what_changed_test() ->
    Watch = #{peer := Peer, table := Table, source := Source} =
        await_subscribed(start_watch([{<<"read_file">>, <<"Reads.">>}, {<<"delete_file">>, <<"Deletes.">>}])),
    true = ets:insert(Table, {tools, [{<<"read_file">>, <<"Reads a file.">>}, {<<"write_file">>, <<"Writes.">>}]}),
    Peer ! {perform, [{send, ?NOTICE}]},
    ?assertEqual(iolist_to_binary(["fake: generation 2: +write_file -delete_file ~read_file (", Source, " rewritten)"]),
                 next_line()),
    {ok, Module} = file:read_file(Source),
    ?assertNotEqual(nomatch, binary:match(Module, <<"pub fn write_file(">>)),
    ?assertEqual(nomatch, binary:match(Module, <<"delete_file">>)),
    stop_watch(Watch).

%% The reconnect contract's messages, sent here as the client sends them
%% (`{mcp_reconnecting, Pid, Attempt, Reason}', `{mcp_reconnected, Pid,
%% Attempt}', `{mcp_gave_up, Pid, Reason}'): a line each, and the watch
%% ends when its last server gave up.
reconnection_lines_and_the_end_of_the_last_server_test() ->
    Watch = #{client := Client} = await_subscribed(start_watch([{<<"a">>, <<"A.">>}])),
    Pid = mcp_client:pid(Client),
    #{watcher := Watcher} = Watch,
    Died = {transport_ended, {exited, {status, 3}}},
    Watcher ! {mcp_reconnecting, Pid, 1, Died},
    ?assertEqual(iolist_to_binary(["fake: reconnecting (attempt 1): ", mcp_describe:death(Died)]), next_line()),
    Watcher ! {mcp_reconnected, Pid, 1},
    ?assertEqual(<<"fake: reconnected (attempt 1)">>, next_line()),
    Watcher ! {mcp_reconnecting, Pid, 1, Died},
    _ = next_line(),
    Watcher ! {mcp_gave_up, Pid, {handshake_failed, call_timed_out}},
    ?assertEqual(iolist_to_binary(["fake: gave up reconnecting: ", mcp_describe:death({handshake_failed, call_timed_out})]),
                 next_line()),
    ?assertEqual(ended, ended(Watch)),
    stop_watch(Watch).

%% Without a reconnect policy the client says `mcp_gave_up' when its
%% server dies: the line says it died, with the CLI's death sentence.
a_server_that_dies_without_a_policy_is_reported_test() ->
    Watch = #{client := Client, watcher := Watcher} = await_subscribed(start_watch([{<<"a">>, <<"A.">>}])),
    Died = {transport_ended, {exited, {signal, 9}}},
    Watcher ! {mcp_gave_up, mcp_client:pid(Client), Died},
    ?assertEqual(iolist_to_binary(["fake: died: ", mcp_describe:death(Died)]), next_line()),
    ?assertEqual(ended, ended(Watch)),
    stop_watch(Watch).

%% A client actor that is gone is reported and no longer watched.
a_client_that_is_gone_is_reported_test() ->
    Watch = #{client := Client} = await_subscribed(start_watch([{<<"a">>, <<"A.">>}])),
    exit(mcp_client:pid(Client), kill),
    ?assertEqual(iolist_to_binary(["fake: client gone: ", mcp_describe:death({client_down, killed})]), next_line()),
    ?assertEqual(ended, ended(Watch)),
    stop_watch(Watch).

sigterm_interrupts_the_watch_test() ->
    Watch = #{watcher := Watcher} = await_subscribed(start_watch([{<<"a">>, <<"A.">>}])),
    Watcher ! {mcp_cli_signal, sigterm},
    ?assertEqual(interrupted, ended(Watch)),
    stop_watch(Watch).

%% ---- bin/mcp-gen watch against a real server ----

watch_command_test_() ->
    {timeout, 240, fun bin_mcp_gen_watch_follows_a_real_server/0}.

watch_without_a_policy_test_() ->
    {timeout, 240, fun bin_mcp_gen_watch_reports_a_killed_server_and_ends/0}.

watch_stdout_closed_test_() ->
    {timeout, 240, fun bin_mcp_gen_watch_ends_when_nobody_reads_it/0}.

watch_with_reconnect_test_() ->
    {timeout, 240, fun bin_mcp_gen_watch_reconnects_a_killed_server_and_follows_it/0}.

%% An SDK 2.x server whose tools follow a file: the module is written at
%% start, rewritten (by rename: a new inode, no temporary file left) when
%% the listing changes it, left alone (same inode, same mtime) when a new
%% listing generates the same module (a title beside a description); a
%% hostile tool name reaches stdout safe; SIGTERM retires the server.
bin_mcp_gen_watch_follows_a_real_server() ->
    with_bin_watch([], <<"{\"read_file\": \"Reads.\", \"delete_file\": \"Deletes.\"}">>,
                   fun bin_mcp_gen_watch_follows_a_real_server/1).

bin_mcp_gen_watch_follows_a_real_server(#{port := Port, tools := Tools, source := Source, pidfile := Pidfile} = Watch) ->
    {ok, First} = file:read_file_info(Source, [raw, {time, posix}]),

    set_tools(Tools, <<"{\"read_file\": \"Reads a file.\", \"write_file\": \"Writes.\"}">>),
    {Line2, Rest2} = stdout_line(Port, <<>>),
    ?assertEqual(iolist_to_binary(["fs: generation 2: +write_file -delete_file ~read_file (", Source, " rewritten)"]), Line2),
    {ok, Second} = file:read_file_info(Source, [raw, {time, posix}]),
    ?assertNotEqual(First#file_info.inode, Second#file_info.inode),
    ?assertEqual({ok, ["fs.gleam"]}, file:list_dir(filename:dirname(Source))),
    {ok, Module} = file:read_file(Source),
    ?assertNotEqual(nomatch, binary:match(Module, <<"pub fn write_file(">>)),
    ?assertEqual(nomatch, binary:match(Module, <<"delete_file">>)),

    Aged = age(Source),
    set_tools(Tools, <<"{\"read_file\": {\"description\": \"Reads a file.\", \"title\": \"Read\"}, \"write_file\": \"Writes.\"}">>),
    {Line3, Rest3} = stdout_line(Port, Rest2),
    ?assertEqual(iolist_to_binary(["fs: generation 3: ~read_file (", Source, " unchanged)"]), Line3),
    ?assertEqual(identity(Aged), identity(Source)),

    set_tools(Tools, <<"{\"write_file\": \"Writes.\", \"bad\\u001b[2Jname\": \"Hostile.\"}">>),
    {Line4, _} = stdout_line(Port, Rest3),
    ?assertEqual(nomatch, binary:match(Line4, <<27>>)),
    ?assertEqual(iolist_to_binary(["fs: generation 4: +bad", <<16#FFFD/utf8>>, "[2Jname -read_file (", Source, " rewritten)"]),
                 Line4),

    terminate_bin_watch(Watch, [binary_to_integer(read(Pidfile))]).

%% Nobody reads its stdout any more (the test closes its end): at the
%% next generation lines watch ends, says so on stderr, exits 1 and
%% retires the server.
bin_mcp_gen_watch_ends_when_nobody_reads_it() ->
    with_bin_watch([], <<"{\"read_file\": \"Reads.\"}">>, fun bin_mcp_gen_watch_ends_when_nobody_reads_it/1).

bin_mcp_gen_watch_ends_when_nobody_reads_it(#{port := Port, tools := Tools, pidfile := Pidfile, stderr := Stderr}) ->
    ServerPid = binary_to_integer(read(Pidfile)),
    {os_pid, Wrapper} = erlang:port_info(Port, os_pid),
    true = port_close(Port),
    ?assertEqual(gone, changed_until_gone(Tools, Wrapper, 1)),
    ?assertMatch({match, _}, re:run(read(Stderr), "^mcp-gen: stdout closed; shutting the servers down$", [multiline])),
    ?assertEqual(gone, mcp_cli_tests:liveness(ServerPid)).

%% Changes the server's tools (a generation line each) until `OsPid' is
%% gone; a hang guard of 50 changes.
changed_until_gone(_Tools, OsPid, 50) ->
    mcp_cli_tests:liveness(OsPid);
changed_until_gone(Tools, OsPid, N) ->
    set_tools(Tools, iolist_to_binary(["{\"read_file\": \"Reads.\", \"tool", integer_to_list(N), "\": \"New.\"}"])),
    timer:sleep(200),
    case mcp_cli_tests:liveness(OsPid) of
        gone -> gone;
        alive -> changed_until_gone(Tools, OsPid, N + 1)
    end.

%% No reconnect policy: the server is killed (SIGKILL), the line says it
%% died and how, and, its only server gone, watch exits with status 1.
bin_mcp_gen_watch_reports_a_killed_server_and_ends() ->
    with_bin_watch([], <<"{\"read_file\": \"Reads.\"}">>, fun bin_mcp_gen_watch_reports_a_killed_server_and_ends/1).

bin_mcp_gen_watch_reports_a_killed_server_and_ends(#{port := Port, pidfile := Pidfile, stderr := Stderr}) ->
    ServerPid = kill_server(Pidfile),
    {Line, _} = stdout_line(Port, <<>>),
    ?assertEqual(iolist_to_binary(["fs: died: ", mcp_describe:death(killed_by_sigkill())]), Line),
    ?assertEqual(1, exit_status(Port)),
    ?assertMatch({match, _}, re:run(read(Stderr), "^mcp-gen: no server left to watch$", [multiline])),
    ?assertEqual(gone, mcp_cli_tests:liveness(ServerPid)).

%% `--reconnect 2': the killed server is started again (a new process)
%% and listed again (the same tools: no generation line); the subscription
%% outlives it: a later change of its tools is the next generation and the
%% module is rewritten; SIGTERM retires the new server.
bin_mcp_gen_watch_reconnects_a_killed_server_and_follows_it() ->
    with_bin_watch(["--reconnect", "2"], <<"{\"read_file\": \"Reads.\"}">>,
                   fun bin_mcp_gen_watch_reconnects_a_killed_server_and_follows_it/1).

bin_mcp_gen_watch_reconnects_a_killed_server_and_follows_it(#{port := Port, tools := Tools, source := Source,
                                                               pidfile := Pidfile} = Watch) ->
    Killed = kill_server(Pidfile),
    {Reconnecting, Rest1} = stdout_line(Port, <<>>),
    ?assertEqual(iolist_to_binary(["fs: reconnecting (attempt 1): ", mcp_describe:death(killed_by_sigkill())]), Reconnecting),
    {Reconnected, Rest2} = stdout_line(Port, Rest1),
    ?assertEqual(<<"fs: reconnected (attempt 1)">>, Reconnected),
    Restarted = binary_to_integer(read(Pidfile)),
    ?assertNotEqual(Killed, Restarted),
    ?assertEqual(alive, mcp_cli_tests:liveness(Restarted)),

    set_tools(Tools, <<"{\"read_file\": \"Reads.\", \"write_file\": \"Writes.\"}">>),
    {Changed, _} = stdout_line(Port, Rest2),
    %% The listing after the reconnect was the same, so no new generation then.
    ?assertEqual(iolist_to_binary(["fs: generation 2: +write_file (", Source, " rewritten)"]), Changed),
    {ok, Module} = file:read_file(Source),
    ?assertNotEqual(nomatch, binary:match(Module, <<"pub fn write_file(">>)),

    terminate_bin_watch(Watch, [Killed, Restarted]).

%% What the client reports of a stdio server killed with SIGKILL.
killed_by_sigkill() -> {transport_ended, {exited, {signal, 9}}}.

%% Test run on bin/mcp-gen watch (with Flags) on listing_server.py, whose
%% tools are first Json, its module `fs' written under DIR/out, once watch
%% says it is watching. A test that fails midway still ends mcp-gen
%% (SIGTERM, which retires its server) and removes DIR.
with_bin_watch(Flags, Json, Test) ->
    #{port := Port, dir := Dir} = Watch = start_bin_watch(Flags, Json),
    try
        Test(Watch)
    after
        case erlang:port_info(Port, os_pid) of
            {os_pid, Wrapper} ->
                _ = os:cmd("kill -TERM " ++ integer_to_list(Wrapper)),
                catch exit_status(Port);
            undefined ->
                ok
        end,
        ok = file:del_dir_r(Dir)
    end.

start_bin_watch(Flags, Json) ->
    Dir = temp_dir(),
    Tools = filename:join(Dir, "tools.json"),
    Pidfile = filename:join(Dir, "server.pid"),
    Stderr = filename:join(Dir, "stderr"),
    Out = filename:join(Dir, "out"),
    set_tools(Tools, Json),
    Port = mcp_cli_tests:open_mcp_gen(["watch", "--name", "fs", "--out", Out | Flags]
                                      ++ ["--", ?SDK2_PYTHON, "cli/test/listing_server.py", Tools, Pidfile], [], Stderr),
    await_line(Stderr, "mcp-gen: watching 1 server; Ctrl-C ends"),
    #{port => Port, dir => Dir, tools => Tools, pidfile => Pidfile, stderr => Stderr,
      source => filename:join([Out, "cap", "mcp", "fs.gleam"])}.

%% SIGKILL to the server that wrote Pidfile; its process id.
kill_server(Pidfile) ->
    ServerPid = binary_to_integer(read(Pidfile)),
    ?assertEqual(alive, mcp_cli_tests:liveness(ServerPid)),
    _ = os:cmd("kill -KILL " ++ integer_to_list(ServerPid)),
    ServerPid.

%% SIGTERM to mcp-gen while the last of ServerPids (the one serving) runs:
%% exit status 143, it says it shut the server down, and none of
%% ServerPids is running.
terminate_bin_watch(#{port := Port, stderr := Stderr}, ServerPids) ->
    {os_pid, Wrapper} = erlang:port_info(Port, os_pid),
    ?assertEqual(alive, mcp_cli_tests:liveness(lists:last(ServerPids))),
    _ = os:cmd("kill -TERM " ++ integer_to_list(Wrapper)),
    ?assertEqual(143, exit_status(Port)),
    ?assertMatch({match, _}, re:run(read(Stderr), "^mcp-gen: interrupted; shutting the server down$", [multiline])),
    ?assertEqual([gone || _ <- ServerPids], [mcp_cli_tests:liveness(Pid) || Pid <- ServerPids]).

%% What a write would change of a file: its inode, its mtime and its size
%% (not its atime: reading a file to compare its bytes moves that).
identity(#file_info{inode = Inode, mtime = Mtime, size = Size}) -> {Inode, Mtime, Size};
identity(Path) ->
    {ok, Info} = file:read_file_info(Path, [raw, {time, posix}]),
    identity(Info).

%% The file's mtime set a minute back, so a write would move it; its info.
age(Path) ->
    {ok, Info} = file:read_file_info(Path, [raw, {time, posix}]),
    ok = file:write_file_info(Path, #file_info{mtime = Info#file_info.mtime - 60}, [raw, {time, posix}]),
    {ok, Aged} = file:read_file_info(Path, [raw, {time, posix}]),
    ?assertEqual(Info#file_info.mtime - 60, Aged#file_info.mtime),
    Aged.

%% Replaced by rename, so the server never reads half a file.
set_tools(Path, Json) ->
    Temporary = Path ++ ".new",
    ok = file:write_file(Temporary, Json),
    ok = file:rename(Temporary, Path).

stdout_line(Port, Buffer) ->
    case binary:split(Buffer, <<"\n">>) of
        [Line, Rest] -> {Line, Rest};
        [_] ->
            receive
                {Port, {data, Bytes}} -> stdout_line(Port, <<Buffer/binary, Bytes/binary>>);
                {Port, {exit_status, Status}} -> error({mcp_gen_exited, Status, Buffer})
            after ?HANG_GUARD_MS -> error({no_line, Buffer})
            end
    end.

exit_status(Port) ->
    receive
        {Port, {data, _}} -> exit_status(Port);
        {Port, {exit_status, Status}} -> Status
    after ?HANG_GUARD_MS -> error(mcp_gen_did_not_exit)
    end.

%% Polls (a hang guard bounds it) until File holds Line.
await_line(File, Line) -> await_line(File, Line, ?HANG_GUARD_MS div 20).

await_line(File, Line, 0) -> error({never_written, File, Line, file:read_file(File)});
await_line(File, Line, Tries) ->
    case file:read_file(File) of
        {ok, Text} ->
            case lists:member(list_to_binary(Line), binary:split(Text, <<"\n">>, [global])) of
                true -> ok;
                false -> timer:sleep(20), await_line(File, Line, Tries - 1)
            end;
        _ -> timer:sleep(20), await_line(File, Line, Tries - 1)
    end.

read(Path) ->
    {ok, Bytes} = file:read_file(Path),
    Bytes.

temp_dir() ->
    Dir = filename:join("/tmp", "mcp_cli_watch_tests." ++ os:getpid() ++ "." ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Dir.

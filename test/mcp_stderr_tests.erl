%% `mcp_stderr' through `mcp_port': a server's stderr inherited, discarded,
%% or appended to a file with a bound; never merged into stdout; the exit
%% status still the server's own; bad values refused before any spawn; and a
%% real server (server-everything, whose banner goes to stderr) through the
%% client.
-module(mcp_stderr_tests).

-include_lib("eunit/include/eunit.hrl").

-import(mcp_port_tests, [open/1, drain/1, trapping_port_exits/1]).

%% A shell server writing `Lines' numbered lines (32 bytes each) to stderr,
%% then `out' to stdout, then exiting with 7.
noisy(Lines, Stderr) ->
    #{executable => "sh",
      args => ["-c", "i=0; while [ $i -lt " ++ integer_to_list(Lines) ++ " ]; do "
                     "printf 'stderr line %020d\\n' $i >&2; i=$((i+1)); done; echo out; exit 7"],
      stderr => Stderr}.

temp_file(Name) ->
    File = filename:join(mcp_lifecycle_helpers_dir(), Name),
    _ = file:delete(File),
    File.

mcp_lifecycle_helpers_dir() ->
    Dir = filename:join(["/tmp", "mcp-stderr-tests-" ++ os:getpid()]),
    ok = filelib:ensure_path(Dir),
    Dir.

%% The file's size once it stops changing: the copy is a process of its own
%% that finishes writing shortly after the server exits.
file_size(File) -> settled_size(File, size_now(File), 100).

settled_size(_File, Size, 0) -> Size;
settled_size(File, Size, Tries) ->
    timer:sleep(20),
    case size_now(File) of
        Size when Tries < 95 -> Size;
        Next -> settled_size(File, Next, Tries - 1)
    end.

size_now(File) ->
    case file:read_file_info(File) of
        {ok, Info} -> element(2, Info);
        {error, enoent} -> 0
    end.

run(Spawn) ->
    trapping_port_exits(fun() -> {Conn, _OsPid} = open(Spawn), drain(Conn) end).

a_file_gets_the_stderr_and_stdout_stays_clean_test_() -> {timeout, 60, fun a_file_gets_the_stderr_and_stdout_stays_clean/0}.

a_file_gets_the_stderr_and_stdout_stays_clean() ->
    File = temp_file("all"),
    ?assertEqual({<<"out\n">>, {exited, {status, 7}}}, run(noisy(100, {file, File}))),
    ?assertEqual(100 * 33, file_size(File)),
    {ok, Written} = file:read_file(File),
    ?assertMatch(<<"stderr line 00000000000000000000\n", _/binary>>, Written).

the_file_bound_holds_at_n_and_drops_past_it_test_() -> {timeout, 60, fun the_file_bound_holds_at_n_and_drops_past_it/0}.

the_file_bound_holds_at_n_and_drops_past_it() ->
    File = temp_file("bounded"),
    %% 100 lines are 3,300 bytes: a bound of 3,200 keeps 3,200 of them,
    %% one byte less drops the last byte, and the server is never blocked.
    ?assertEqual({<<"out\n">>, {exited, {status, 7}}}, run(noisy(100, {file, File, 3200}))),
    ?assertEqual(3200, file_size(File)),
    Less = temp_file("bounded-less"),
    ?assertEqual({<<"out\n">>, {exited, {status, 7}}}, run(noisy(100, {file, Less, 3199}))),
    ?assertEqual(3199, file_size(Less)).

a_flood_past_the_bound_does_not_block_the_server_test_() ->
    {timeout, 60, fun() ->
        File = temp_file("flood"),
        Flood = #{executable => "sh",
                  args => ["-c", "head -c 50000000 /dev/zero >&2; echo out"],
                  stderr => {file, File, 1000000}},
        ?assertEqual({<<"out\n">>, {exited, {status, 0}}}, run(Flood)),
        ?assertEqual(1000000, file_size(File))
    end}.

each_spawn_appends_test_() -> {timeout, 60, fun each_spawn_appends/0}.

each_spawn_appends() ->
    File = temp_file("appended"),
    _ = run(noisy(3, {file, File, 10})),
    _ = run(noisy(3, {file, File, 10})),
    ?assertEqual(20, file_size(File)).

discard_drops_the_stderr_test_() -> {timeout, 60, fun discard_drops_the_stderr/0}.

discard_drops_the_stderr() ->
    ?assertEqual({<<"out\n">>, {exited, {status, 7}}}, run(noisy(100, discard))).

inherit_is_the_default_test_() -> {timeout, 60, fun inherit_is_the_default/0}.

inherit_is_the_default() ->
    ?assertEqual({ok, "sh", ["-c", "x"]}, mcp_stderr:wrap(inherit, "sh", ["-c", "x"])),
    ?assertEqual({<<"out\n">>, {exited, {status, 7}}}, run(maps:remove(stderr, noisy(1, inherit)))).

the_watch_and_the_kill_still_reach_the_server_test_() -> {timeout, 60, fun the_watch_and_the_kill_still_reach_the_server/0}.

the_watch_and_the_kill_still_reach_the_server() ->
    %% The wrapper `exec's: the port's child is the server itself, and
    %% termination proves its end.
    File = temp_file("killed"),
    trapping_port_exits(fun() ->
        {Conn, OsPid} = open(#{executable => "sleep", args => ["30"], stderr => {file, File}}),
        timer:sleep(100),
        ?assertEqual("sleep", string:trim(os:cmd("cat /proc/" ++ integer_to_list(OsPid) ++ "/comm"))),
        ok = mcp_transport:terminate(Conn),
        ?assertEqual({<<>>, {exited, {signal, 9}}}, drain(Conn))
    end).

%% Each line after the label, the label verbatim (sed's `/ & \\' in it), a
%% line longer than 4,096 bytes in labelled pieces of that size, a last
%% line without a newline labelled too, and the exit status the server's.
%% The wrapper writes to its own stderr (the VM's, under a port), so the
%% test runs it with fd 2 on a file.
labelled_lines_reach_stderr_after_the_label_test_() ->
    {timeout, 60, fun labelled_lines_reach_stderr_after_the_label/0}.

labelled_lines_reach_stderr_after_the_label() ->
    File = temp_file("labelled"),
    Label = <<"a/b&c\\d | ">>,
    Server = "printf 'one\\n' >&2; head -c 10000 /dev/zero | tr '\\0' x >&2; printf '\\ntail' >&2; exit 7",
    {ok, Program, Args} = mcp_stderr:wrap({labelled, Label}, "/bin/sh", ["-c", Server]),
    Port = open_port({spawn_executable, "/bin/sh"},
                     [{args, ["-c", "exec \"$@\" 2>\"$0\"", File, Program | Args]}, exit_status]),
    ?assertEqual(7, receive {Port, {exit_status, Status}} -> Status after 30000 -> hang_guard end),
    Expected = iolist_to_binary([Label, "one\n",
                                 [[Label, binary:copy(<<"x">>, N), "\n"] || N <- [4096, 4096, 1808]],
                                 Label, "tail"]),
    ?assertEqual(byte_size(Expected), file_size(File)),
    ?assertEqual({ok, Expected}, file:read_file(File)).

bad_values_spawn_nothing_test_() -> {timeout, 60, fun bad_values_spawn_nothing/0}.

bad_values_spawn_nothing() ->
    ?assertEqual({error, {bad_stderr, {"/nonexistent-dir/err.log", enoent}}},
                 mcp_transport:open(noisy(1, {file, "/nonexistent-dir/err.log"}), self())),
    ?assertEqual({error, {bad_stderr, loud}}, mcp_transport:open(noisy(1, loud), self())),
    ?assertEqual({error, {bad_stderr, {labelled, <<"a\nb">>}}},
                 mcp_transport:open(noisy(1, {labelled, <<"a\nb">>}), self())),
    ?assertEqual({error, {bad_stderr, {file, "/tmp/x", 0}}},
                 mcp_transport:open(noisy(1, {file, "/tmp/x", 0}), self())),
    Over = mcp_stderr:max_file_bytes() + 1,
    ?assertEqual({error, {bad_stderr, {file, "/tmp/x", Over}}},
                 mcp_transport:open(noisy(1, {file, "/tmp/x", Over}), self())).

real_server_banner_goes_to_the_file_test_() ->
    {timeout, 60, fun() ->
        File = temp_file("everything"),
        Spec = #{executable => "node",
                 args => [mcp_e2e_tests:installed(
                            "test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
                          "stdio"],
                 stderr => {file, File}},
        {ok, Client, _} = mcp_client:start(Spec, #{}),
        {ok, Tools} = mcp_client:list_tools(Client),
        ?assert(length(Tools) > 0),
        {ok, _} = mcp_client:shutdown(Client, 5000),
        ?assert(file_size(File) > 0),
        {ok, Banner} = file:read_file(File),
        ?assertMatch({_, _}, binary:match(Banner, <<"Starting">>))
    end}.

%% `relay' (a jailed server's `inherit'): the server's fd 2 is a FIFO of its
%% own, and what it writes there reaches the wrapper's own stderr (the
%% VM's; here a file the outer shell opened), with stdout clean and the
%% exit status the server's.
relay_copies_to_the_vms_stderr_through_a_fifo_test_() -> {timeout, 60, fun relay_copies_to_the_vms_stderr_through_a_fifo/0}.

relay_copies_to_the_vms_stderr_through_a_fifo() ->
    File = temp_file("relayed"),
    Script = "[ -p /proc/self/fd/2 ] && echo fifo; echo relayed line >&2; echo out; exit 7",
    {ok, Program, Args} = mcp_stderr:wrap(relay, "/bin/sh", ["-c", Script]),
    Port = open_port({spawn_executable, "/bin/sh"},
                     [{args, ["-c", "exec \"$@\" 2>\"$0\"", File, Program | Args]}, binary, exit_status]),
    ?assertEqual({<<"fifo\nout\n">>, 7}, port_output(Port, <<>>)),
    ?assertEqual(byte_size(<<"relayed line\n">>), file_size(File)),
    ?assertEqual({ok, <<"relayed line\n">>}, file:read_file(File)).

%% A server's escape sequences on a terminal: written to the VM's
%% terminal directly (unwrapped, here a pty) they arrive raw, able to set
%% the window title, write the clipboard, forge a line; through the relay
%% onto a terminal they arrive as inert text, and to a file unchanged.
relay_strips_terminal_controls_test_() -> {timeout, 60, fun relay_strips_terminal_controls/0}.

relay_strips_terminal_controls() ->
    Hostile = <<"\e]0;pwned\007\e]52;c;cGF5bG9hZA==\007\e[2Kserver exited cleanly\r\n">>,
    Script = "printf '\\033]0;pwned\\007\\033]52;c;cGF5bG9hZA==\\007\\033[2Kserver exited cleanly\\r\\n' >&2",
    Python = mcp_e2e_tests:installed(".venv/bin/python"),
    %% A pty as the command's stdio, read until every holder of it is gone
    %% (the relay's copy outlives the server); SIGHUP ignored, so the
    %% session leader's exit does not cut the copy short.
    OnTerminal = fun(Program, Args) ->
                     Pty = "import os, pty, signal, sys\n"
                           "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
                           "pid, fd = pty.fork()\n"
                           "if pid == 0: os.execv(sys.argv[1], sys.argv[1:])\n"
                           "while True:\n"
                           "    try: data = os.read(fd, 4096)\n"
                           "    except OSError: break\n"
                           "    if not data: break\n"
                           "    sys.stdout.buffer.write(data)\n"
                           "sys.stdout.flush(); os.waitpid(pid, 0)\n",
                     Port = open_port({spawn_executable, Python}, [{args, ["-c", Pty, Program | Args]}, binary, exit_status]),
                     {Output, 0} = port_output(Port, <<>>),
                     Output
                 end,
    %% The pty turns "\n" into "\r\n" on its own.
    ?assertEqual(<<"\e]0;pwned\007\e]52;c;cGF5bG9hZA==\007\e[2Kserver exited cleanly\r\r\n">>,
                 OnTerminal("/bin/sh", ["-c", Script])),
    {ok, Program, Args} = mcp_stderr:wrap(relay, "/bin/sh", ["-c", Script]),
    ?assertEqual(<<"]0;pwned]52;c;cGF5bG9hZA==[2Kserver exited cleanly\r\n">>, OnTerminal(Program, Args)),
    File = temp_file("relayed-raw"),
    RawPort = open_port({spawn_executable, "/bin/sh"}, [{args, ["-c", "exec \"$@\" 2>\"$0\"", File, Program | Args]}, binary, exit_status]),
    ?assertEqual({<<>>, 0}, port_output(RawPort, <<>>)),
    ?assertEqual(byte_size(Hostile), file_size(File)),
    ?assertEqual({ok, Hostile}, file:read_file(File)).

port_output(Port, Output) ->
    receive
        {Port, {data, Bytes}} -> port_output(Port, <<Output/binary, Bytes/binary>>);
        {Port, {exit_status, Status}} -> {Output, Status}
    after 10000 -> error(no_exit_status)
    end.

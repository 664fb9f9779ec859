%% Jailed servers (`jail' in the spawn spec, `mcp_jail', docs/jail.md),
%% with the real bubblewrap of the test machine (never skipped: a machine
%% that cannot run bwrap fails here, loudly).
%%
%% - The real e2e servers (server-everything on node, the FastMCP fixture
%%   on the venv's Python, server-memory through `npx --offline') work
%%   jailed: start, list, call, shutdown with proof.
%% - A hostile server (`test/e2e/hostile_server.py') tries every escape the
%%   jail exists to stop; each attempt is first made unjailed, where it must
%%   work, so a probe that cannot succeed proves nothing.
%% - `net => true' and `unix_sockets => true' open exactly what they name.
%% - A setsid double-forked descendant does not outlive the shutdown.
%% - Errors: a bwrap that does not exist or cannot jail, bad grants, a
%%   hidden executable or working directory; all before anything runs.
-module(mcp_jail_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("kernel/include/file.hrl").

%% Helpers the red-team suite (`mcp_jail_redteam_tests') shares.
-export([hostile/2, probe/3, with_client/2, in_scratch/1, plant/2, jail/1, python/0, with_vm_env/3, root/0,
         wait_until/2, within/1, closed/1, real_server/3]).

-define(TIMEOUT, 10000).
%% How long a killed jail may take to vanish from /proc (polled).
-define(REAP_WAIT_MS, 15000).

%%% ------------------------------------------------------------ helpers

%% The checkout: the directory holding test/e2e/package.json.
root() ->
    filename:dirname(filename:dirname(filename:dirname(mcp_e2e_tests:installed("test/e2e/package.json")))).

everything() ->
    mcp_e2e_tests:installed("test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js").

python() -> mcp_e2e_tests:installed(".venv/bin/python").

%% `Jail' plus a read grant for this checkout when the jail would hide it:
%% a checkout under /tmp or /run (CI may clone there) holds the `.venv'
%% interpreter, the e2e packages and the test servers.
jail(Jail) ->
    Root = root(),
    Hidden = lists:any(fun(Dir) -> lists:prefix(Dir, Root) end, ["/tmp/", "/run/"]),
    case {Hidden, Jail} of
        {false, _} -> Jail;
        {true, true} -> #{read => [Root]};
        {true, #{} = Map} -> Map#{read => [Root | maps:get(read, Map, [])]}
    end.

%% A fresh directory for one test, outside /tmp and /run (the jail's are
%% private: a directory there is invisible, or, re-exposed by a read grant,
%% lies beneath a tmpfs the server may write, for reasons other than the
%% ones under test), removed afterwards: under the checkout, or under
%% /var/tmp when the checkout is itself under /tmp or /run.
scratch() ->
    Base = case jail(true) of
               true -> filename:join([root(), "_build", "jail-tests"]);
               #{} -> "/var/tmp/mcp-jail-tests"
           end,
    Dir = filename:join(Base, integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Dir.

remove(Dir) ->
    _ = os:cmd("rm -rf '" ++ Dir ++ "'"),
    ok.

%% `Fun(Dir)' with a fresh scratch directory, removed afterwards.
in_scratch(Fun) ->
    Scratch = scratch(),
    try Fun(Scratch) after remove(Scratch) end.

plant(Path, Content) ->
    ok = filelib:ensure_dir(Path),
    ok = file:write_file(Path, Content).

%% The hostile server with `HOME' set to `Home' (the default deny list is
%% applied to the child's home as well as the VM's).
hostile(Home, Jail) ->
    Spawn = #{executable => python(),
              args => [mcp_e2e_tests:installed("test/e2e/hostile_server.py")],
              env => [{"HOME", Home}, {"PYTHONUNBUFFERED", "1"}]},
    case Jail of
        none -> Spawn;
        _ -> Spawn#{jail => jail(Jail)}
    end.

probe(Client, Tool, Arguments) ->
    Object = {object, [{atom_to_binary(Key), value(Value)} || {Key, Value} <- Arguments]},
    {ok, {call_tool_result, [{text, Text}], false, _}} =
        mcp_client:call_tool(Client, atom_to_binary(Tool), Object, ?TIMEOUT),
    Text.

value(Value) when is_integer(Value) -> {int, Value};
value(Value) -> {string, unicode:characters_to_binary(Value)}.

with_client(Spawn, Fun) ->
    {ok, Client, _} = mcp_client:start(Spawn, #{}),
    try
        Fun(Client)
    after
        _ = mcp_client:shutdown(Client, ?TIMEOUT)
    end.

%% Host processes whose command line contains `Marker'.
processes_with(Marker) ->
    [Pid || Entry <- filelib:wildcard("/proc/[0-9]*/cmdline"),
            {ok, Cmdline} <- [file:read_file(Entry)],
            binary:match(Cmdline, Marker) =/= nomatch,
            Pid <- [list_to_integer(lists:nth(3, filename:split(Entry)))]].

wait_until(Check, Deadline) ->
    case Check() of
        true -> true;
        false ->
            case erlang:monotonic_time(millisecond) > Deadline of
                true -> false;
                false -> timer:sleep(20), wait_until(Check, Deadline)
            end
    end.

within(Ms) -> erlang:monotonic_time(millisecond) + Ms.

tcp_listener() ->
    {ok, Listen} = gen_tcp:listen(0, [binary, {ip, {127, 0, 0, 1}}, {active, false}]),
    {ok, Port} = inet:port(Listen),
    {Listen, Port}.

unix_listener(Dir) ->
    Path = filename:join(Dir, "host.sock"),
    {ok, Listen} = gen_tcp:listen(0, [binary, {ifaddr, {local, Path}}, {active, false}]),
    {Listen, Path}.

accepted(Listen) ->
    case gen_tcp:accept(Listen, 2000) of
        {ok, Socket} -> gen_tcp:close(Socket), true;
        {error, timeout} -> false
    end.

%%% ------------------------------------------------------------ real servers, jailed

%% The real e2e servers under the default profile (reads denied by list).
real_servers_jailed_test_() ->
    {timeout, 300, real_servers(fun(Jail) -> jail(Jail) end)}.

%% The same servers under the strict profile (reads allowed by list: the
%% system's runtime, their install trees, their working directory, the
%% grants).
strict_real_servers_test_() ->
    {timeout, 300, real_servers(fun(Jail) -> jail(Jail#{profile => strict}) end)}.

%% A read grant for where `Dir''s `node_modules' leads when it is a link
%% (a worktree's link to a shared install): the strict profile shows no
%% link's target outside the working directory unless granted.
linked_modules(Dir) ->
    Modules = filename:join(Dir, "node_modules"),
    case file:read_link_info(Modules) of
        {ok, #file_info{type = symlink}} ->
            {ok, Target} = file:read_link_all(Modules),
            #{read => [filename:absname(Target, Dir)]};
        _ ->
            #{}
    end.

%% server-everything on node, the FastMCP fixture on the venv's Python,
%% the Python SDK 2's MCPServer fixture in its own venv, server-memory
%% through `npx --offline', server-filesystem writing into a granted
%% workspace (what it writes there reaches the host), the venv's
%% mcp-server-git on a repository granted whole (its status tool runs git
%% inside the jail): each jailed by `Jail(Options)'.
real_servers(Jail) ->
    E2e = filename:dirname(mcp_e2e_tests:installed("test/e2e/package.json")),
    Module = fun(Path) -> mcp_e2e_tests:installed("test/e2e/node_modules/@modelcontextprotocol/" ++ Path) end,
    [?_test(real_server(#{executable => "node", args => [everything(), "stdio"], jail => Jail(#{})},
                        <<"echo">>, {object, [{<<"message">>, {string, <<"hi">>}}]})),
     ?_test(real_server(#{executable => python(), args => [mcp_e2e_tests:installed("test/e2e/fastmcp_fixture.py")],
                          env => [{"PYTHONUNBUFFERED", "1"}], jail => Jail(#{})},
                        <<"echo">>, {object, [{<<"text">>, {string, <<"hi">>}}]})),
     ?_test(real_server(#{executable => mcp_e2e_tests:installed(".venv-sdk2/bin/python"),
                          args => [mcp_e2e_tests:installed("test/e2e/mcpserver_fixture.py"), "stdio"],
                          env => [{"PYTHONUNBUFFERED", "1"}], jail => Jail(#{})},
                        <<"echo">>, {object, [{<<"text">>, {string, <<"hi">>}}]})),
     ?_test(real_server(#{executable => "npx", args => ["--offline", "@modelcontextprotocol/server-memory"],
                          cd => E2e, jail => Jail(linked_modules(E2e))},
                        <<"read_graph">>, {object, []})),
     ?_test(in_scratch(fun(Scratch) ->
         Work = filename:join(Scratch, "work"),
         ok = filelib:ensure_dir(filename:join(Work, "x")),
         File = filename:join(Work, "note.txt"),
         real_server(#{executable => "node", args => [Module("server-filesystem/dist/index.js"), Work],
                       jail => Jail(#{write => [Work]})},
                     <<"write_file">>, {object, [{<<"path">>, {string, list_to_binary(File)}},
                                                {<<"content">>, {string, <<"from the jail">>}}]}),
         ?assertEqual({ok, <<"from the jail">>}, file:read_file(File))
     end)),
     ?_test(in_scratch(fun(Scratch) ->
         Repo = filename:join(Scratch, "repo"),
         ok = filelib:ensure_dir(filename:join(Repo, "x")),
         "" = os:cmd("git init -q '" ++ Repo ++ "' 2>&1"),
         real_server(#{executable => mcp_e2e_tests:installed(".venv/bin/mcp-server-git"),
                       args => ["--repository", Repo], jail => Jail(#{write => [Repo]})},
                     <<"git_status">>, {object, [{<<"repo_path">>, {string, list_to_binary(Repo)}}]})
     end))].

real_server(Spawn, Tool, Arguments) ->
    {ok, Client, _} = mcp_client:start(Spawn, #{}),
    {ok, Tools} = mcp_client:list_tools(Client),
    ?assert(lists:member(Tool, [Name || {tool_descriptor, Name, _, _, _, _, _, _} <- Tools])),
    ?assertMatch({ok, {call_tool_result, _, false, _}}, mcp_client:call_tool(Client, Tool, Arguments, ?TIMEOUT)),
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?TIMEOUT)).

%%% ------------------------------------------------------------ the hostile server

hostile_test_() ->
    {timeout, 90, ?_test(hostile_escapes_nowhere())}.

hostile_escapes_nowhere() ->
    Scratch = scratch(),
    try
        Home = filename:join(Scratch, "home"),
        Secret = <<"planted-secret-", (integer_to_binary(erlang:unique_integer([positive])))/binary>>,
        plant(filename:join(Home, ".ssh/id_ed25519"), Secret),
        plant(filename:join(Home, ".aws/credentials"), Secret),
        plant(filename:join(Home, ".erlang.cookie"), Secret),
        plant(filename:join(Home, ".config/mcp/oauth/server.json"), Secret),
        plant(filename:join(Scratch, "private/notes.txt"), Secret),
        Grant = filename:join(Scratch, "grant"),
        ok = filelib:ensure_dir(filename:join(Grant, "x")),
        {Tcp, TcpPort} = tcp_listener(),
        {Unix, UnixPath} = unix_listener(Scratch),
        VmPid = os:getpid(),
        PrivateTmp = "/tmp/mcp-jail-test-" ++ integer_to_list(erlang:unique_integer([positive])),
        Probes =
            [{read_file, [{path, filename:join(Home, ".ssh/id_ed25519")}]},
             {read_file, [{path, filename:join(Home, ".aws/credentials")}]},
             {read_file, [{path, filename:join(Home, ".erlang.cookie")}]},
             {read_file, [{path, filename:join(Home, ".config/mcp/oauth/server.json")}]},
             {read_file, [{path, filename:join(Scratch, "private/notes.txt")}]},
             {write_file, [{path, filename:join(Scratch, "outside.txt")}, {text, "escaped"}]},
             {tcp_connect, [{host, "127.0.0.1"}, {port, TcpPort}]},
             {unix_connect, [{path, UnixPath}]},
             {signal, [{pid, list_to_integer(VmPid)}]}],
        %% Unjailed, every attempt works: the probes can tell.
        Free = with_client(hostile(Home, none), fun(C) -> [probe(C, T, A) || {T, A} <- Probes] end),
        Expected = [<<"ok:", Secret/binary>>, <<"ok:", Secret/binary>>, <<"ok:", Secret/binary>>,
                    <<"ok:", Secret/binary>>, <<"ok:", Secret/binary>>, <<"ok">>, <<"ok">>, <<"ok">>, <<"ok">>],
        ?assertEqual(Expected, Free),
        ?assert(accepted(Tcp)),
        ?assert(accepted(Unix)),
        ok = file:delete(filename:join(Scratch, "outside.txt")),
        Jail = #{write => [Grant], deny => [filename:join(Scratch, "private")]},
        Spawn = hostile(Home, Jail),
        _ = with_client(Spawn, fun(C) ->
            Jailed = [probe(C, T, A) || {T, A} <- Probes],
            ?assertEqual([<<"error:ENOENT">>,   % ~/.ssh is an empty tmpfs
                          <<"error:ENOENT">>,   % so is ~/.aws
                          <<"error:EACCES">>,   % the cookie is /dev/null, mounted nodev
                          <<"error:ENOENT">>,   % remote servers' tokens: an empty tmpfs
                          <<"error:ENOENT">>,   % the caller's deny
                          <<"error:EROFS">>,    % no write outside the grants
                          <<"error:ECONNREFUSED">>, % the jail's own loopback
                          <<"error:EACCES">>,   % socket(AF_UNIX) refused by the filter
                          <<"error:ESRCH">>],   % the VM's pid does not exist in the jail
                         Jailed),
            ?assertNot(accepted(Tcp)),
            ?assertNot(accepted(Unix)),
            ?assertNot(filelib:is_file(filename:join(Scratch, "outside.txt"))),
            %% The VM's own cookie, when it has one, is covered too.
            VmCookie = filename:join(os:getenv("HOME"), ".erlang.cookie"),
            ?assertEqual(case filelib:is_regular(VmCookie) of
                             true -> <<"error:EACCES">>;
                             false -> <<"error:ENOENT">>
                         end, probe(C, read_file, [{path, VmCookie}])),
            %% Only the jail's pids are visible.
            <<"ok:", Pids/binary>> = probe(C, list_pids, []),
            Visible = binary:split(Pids, <<",">>, [global]),
            ?assertNot(lists:member(list_to_binary(VmPid), Visible)),
            ?assert(length(Visible) < 10),
            %% A write in the grant persists; one in /tmp stays in the jail.
            ?assertEqual(<<"ok">>, probe(C, write_file, [{path, filename:join(Grant, "kept.txt")}, {text, "kept"}])),
            ?assertEqual({ok, <<"kept">>}, file:read_file(filename:join(Grant, "kept.txt"))),
            ?assertEqual(<<"ok">>, probe(C, write_file, [{path, PrivateTmp}, {text, "private"}])),
            ?assertNot(filelib:is_file(PrivateTmp)),
            %% The environment is exactly the spawn's computed one, plus
            %% the PWD bwrap sets after its chdir.
            <<"ok:", Names/binary>> = probe(C, env, []),
            ?assertEqual(lists:sort([<<"PWD">> | [list_to_binary(N) || {N, _} <- mcp_port:child_env(Spawn)]]),
                         binary:split(Names, <<",">>, [global]))
        end),
        gen_tcp:close(Tcp),
        gen_tcp:close(Unix)
    after
        remove(Scratch)
    end.

%% `sleep' with a marker in its argv, double-forked into a session of its
%% own: alive on the host while the server runs, gone after the shutdown.
daemon_dies_with_the_jail_test_() ->
    {timeout, 60, ?_test(begin
        Scratch = scratch(),
        try
            Grant = filename:join(Scratch, "grant"),
            ok = filelib:ensure_dir(filename:join(Grant, "x")),
            Marker = "mcp-jail-daemon-" ++ integer_to_list(erlang:unique_integer([positive])),
            PidFile = filename:join(Grant, "daemon.pid"),
            {ok, Client, _} = mcp_client:start(hostile(Scratch, #{write => [Grant]}), #{}),
            ?assertEqual(<<"ok">>, probe(Client, daemonize, [{marker, Marker}, {pidfile, PidFile}])),
            ?assert(wait_until(fun() -> filelib:is_regular(PidFile) end, within(5000))),
            %% The daemon writes its pidfile, then execs the marked `sleep'.
            ?assert(wait_until(fun() -> length(processes_with(list_to_binary(Marker))) =:= 1 end, within(5000))),
            ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
            ?assert(wait_until(fun() -> processes_with(list_to_binary(Marker)) =:= [] end, within(?REAP_WAIT_MS)))
        after
            remove(Scratch)
        end
    end)}.

%% Exit is the end: a grandchild in a session of its own, ignoring the
%% polite signals and holding memory, takes a while to die after a
%% SIGKILL. Retiring the jail by killing bwrap (and its group), the exit
%% status arrives while it still exists; retiring it by its init, the
%% status arrives once every process of the jail is gone: no process of
%% the jail is left when `shutdown' answers.
exit_is_the_end_test_() ->
    {timeout, 120, ?_test(begin
        BwrapKilled = fun(Connection) ->
                          {ok, OsPid} = mcp_transport:os_pid(Connection),
                          _ = os:cmd("kill -s KILL -- -" ++ integer_to_list(OsPid) ++ " " ++ integer_to_list(OsPid))
                      end,
        ?assertMatch({{signal, 9}, [_]}, retired_holding_memory(BwrapKilled)),
        ?assertEqual({{signal, 9}, []}, retired_holding_memory(fun mcp_transport:terminate/1))
    end)}.

%% With a grace, SIGTERM reaches the jailed server (the init passes it
%% on), which may exit on its own terms.
graceful_stop_reaches_the_server_test_() ->
    {timeout, 60, ?_test(begin
        Script = "trap 'exit 7' TERM; echo ready; while :; do sleep 0.05; done",
        {ok, Connection} = mcp_transport:open(#{executable => "/bin/sh", args => ["-c", Script], jail => jail(true),
                                                shutdown_grace_ms => 30000}, self()),
        receive {_, {data, <<"ready\n">>}} -> ok after ?TIMEOUT -> error(not_ready) end,
        {ok, _} = mcp_transport:terminate(Connection),
        ?assertEqual({status, 7}, closed(Connection))
    end)}.

%% A shutdown before the jail's init exists, while the stderr relay's copy
%% is already the spawned process's child: the group and bwrap are
%% killed, and the exit arrives (killing only that child would leave bwrap
%% to build the jail and run the server). A bwrap that waits before it
%% starts holds the moment open.
shutdown_before_the_init_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Slow = filename:join(Scratch, "slow-bwrap"),
        ok = file:write_file(Slow, "#!/bin/sh\nsleep 1\nexec " ++ os:find_executable("bwrap") ++ " \"$@\"\n"),
        ok = file:change_mode(Slow, 8#755),
        Jail = case jail(true) of true -> #{}; Map -> Map end,
        {ok, Connection} = mcp_transport:open(#{executable => "/bin/sleep", args => ["60"], jail => Jail#{bwrap => Slow}}, self()),
        {ok, OsPid} = mcp_transport:os_pid(Connection),
        Children = "/proc/" ++ integer_to_list(OsPid) ++ "/task/" ++ integer_to_list(OsPid) ++ "/children",
        ?assert(wait_until(fun() -> case file:read_file(Children) of
                                        {ok, <<_, _/binary>>} -> true;
                                        _ -> false
                                    end
                           end, within(?TIMEOUT))),
        ok = mcp_transport:terminate(Connection),
        ?assertEqual({signal, 9}, closed(Connection))
    end))}.

%% Starts the memory holder jailed, retires it with `Retire(Connection)'
%% once its grandchild holds its memory, and answers the exit evidence and
%% the grandchild's host pids at the moment the evidence arrived.
retired_holding_memory(Retire) ->
    Marker = "mcp-jail-holder-" ++ integer_to_list(erlang:unique_integer([positive])),
    Spawn = #{executable => python(), args => [mcp_e2e_tests:installed("test/e2e/memory_holder.py"), Marker, "2048"],
              jail => jail(true)},
    Held = list_to_binary(Marker ++ "-held"),
    {ok, Connection} = mcp_transport:open(Spawn, self()),
    ?assert(wait_until(fun() ->
                           case processes_with(Held) of
                               [Pid] -> resident_mib(Pid) >= 2000;
                               _ -> false
                           end
                       end, within(30000))),
    [Holder] = processes_with(Held),
    Retire(Connection),
    Cause = closed(Connection),
    Left = [Holder || filelib:is_dir("/proc/" ++ integer_to_list(Holder))],
    ?assert(wait_until(fun() -> processes_with(Held) =:= [] end, within(?REAP_WAIT_MS))),
    {Cause, Left}.

resident_mib(Pid) ->
    case file:read_file("/proc/" ++ integer_to_list(Pid) ++ "/statm") of
        {ok, Statm} -> binary_to_integer(lists:nth(2, binary:split(Statm, <<" ">>, [global]))) * 4096 div (1024 * 1024);
        {error, _} -> 0
    end.

%%% ------------------------------------------------------------ what the options open

net_allows_loopback_test_() ->
    {timeout, 60, ?_test(begin
        Scratch = scratch(),
        {Tcp, Port} = tcp_listener(),
        try
            with_client(hostile(Scratch, #{net => true}), fun(C) ->
                ?assertEqual(<<"ok">>, probe(C, tcp_connect, [{host, "127.0.0.1"}, {port, Port}])),
                ?assert(accepted(Tcp))
            end)
        after
            gen_tcp:close(Tcp),
            remove(Scratch)
        end
    end)}.

unix_sockets_allows_connect_test_() ->
    {timeout, 60, ?_test(begin
        Scratch = scratch(),
        {Unix, Path} = unix_listener(Scratch),
        try
            with_client(hostile(Scratch, #{unix_sockets => true}), fun(C) ->
                ?assertEqual(<<"ok">>, probe(C, unix_connect, [{path, Path}])),
                ?assert(accepted(Unix))
            end)
        after
            gen_tcp:close(Unix),
            remove(Scratch)
        end
    end)}.

%% A read grant re-exposes a directory under the private /tmp.
read_grant_reexposes_tmp_test_() ->
    {timeout, 60, ?_test(begin
        Dir = "/tmp/mcp-jail-read-" ++ integer_to_list(erlang:unique_integer([positive])),
        plant(filename:join(Dir, "data.txt"), <<"visible">>),
        try
            with_client(hostile(Dir, #{read => [Dir]}), fun(C) ->
                ?assertEqual(<<"ok:visible">>, probe(C, read_file, [{path, filename:join(Dir, "data.txt")}])),
                ?assertEqual(<<"error:EROFS">>, probe(C, write_file, [{path, filename:join(Dir, "new.txt")}, {text, "x"}]))
            end)
        after
            remove(Dir)
        end
    end)}.

%%% ------------------------------------------------------------ exit evidence

%% The jailed child's status and signal reach the owner as unjailed ones do.
exit_evidence_test_() ->
    {timeout, 60, [?_assertEqual({status, 3}, jailed_exit("exit 3")),
                   ?_assertEqual({signal, 11}, jailed_exit("kill -s SEGV $$")),
                   ?_assertEqual({status, 0}, jailed_exit("exit 0"))]}.

jailed_exit(Script) ->
    {ok, Connection} = mcp_transport:open(#{executable => "/bin/sh", args => ["-c", Script], jail => true}, self()),
    closed(Connection).

closed(Connection) ->
    receive
        Info ->
            case mcp_transport:event(Connection, Info) of
                {ok, Events, Next} ->
                    case [Cause || {closed, {exited, Cause}} <- Events] of
                        [Cause] -> Cause;
                        [] -> closed(Next)
                    end;
                not_mine ->
                    closed(Connection)
            end
    after ?TIMEOUT -> error(no_exit_status)
    end.

%%% ------------------------------------------------------------ errors before anything runs

start_error(Spawn) ->
    mcp_client:start(Spawn, #{}).

unavailable_bwrap_test_() ->
    Echo = #{executable => "/bin/cat"},
    [?_assertEqual({error, {transport_failed, {jail_unavailable, {bwrap_not_found, "/nonexistent/bwrap"}}}},
                   start_error(Echo#{jail => #{bwrap => "/nonexistent/bwrap"}})),
     %% A program that is not a working bwrap fails the probe: no fallback.
     ?_assertMatch({error, {transport_failed, {jail_unavailable, {probe_failed, 1, _}}}},
                   start_error(Echo#{jail => #{bwrap => "/bin/false"}})),
     {"the probe's error keeps bwrap's stderr, never its stdout",
      ?_test(begin
                 Scratch = scratch(),
                 Fake = filename:join(Scratch, "bwrap"),
                 ok = file:write_file(Fake, "#!/bin/sh\necho on-stdout\necho on-stderr >&2\nexit 1\n"),
                 ok = file:change_mode(Fake, 8#755),
                 try
                     ?assertEqual({error, {transport_failed, {jail_unavailable, {probe_failed, 1, <<"on-stderr">>}}}},
                                  start_error(Echo#{jail => #{bwrap => Fake}}))
                 after
                     remove(Scratch)
                 end
             end)}].

%% Jail options outside their type, on purpose.
-dialyzer({no_fail_call, bad_grants_test_/0}).
bad_grants_test_() ->
    Root = root(),
    Missing = filename:join(Root, "no-such-dir"),
    Up = filename:join([Root, "test", "..", "test"]),
    Echo = #{executable => "/bin/cat"},
    Refused = fun(Jail) ->
                      case start_error(Echo#{jail => Jail}) of
                          {error, {transport_failed, {bad_jail, Why}}} -> Why;
                          Other -> {unexpected, Other}
                      end
              end,
    [?_assertEqual({relative_path, "work"}, Refused(#{write => ["work"]})),
     ?_assertEqual({missing_grant, Missing}, Refused(#{read => [Missing]})),
     ?_assertEqual({parent_reference, Up}, Refused(#{write => [Up]})),
     ?_assertEqual({relative_path, "secrets"}, Refused(#{deny => [<<"secrets">>]})),
     ?_assertEqual({not_a_boolean, {net, yes}}, Refused(#{net => yes})),
     ?_assertEqual({not_a_list, {read, "/etc"}}, Refused(#{read => "/etc"})),
     ?_assertEqual({unknown_option, network}, Refused(#{network => true})),
     ?_assertEqual({unknown_profile, loose}, Refused(#{profile => loose})),
     ?_assertEqual({nul_character, "/etc/\0x"}, Refused(#{read => ["/etc/\0x"]})),
     ?_assertEqual({relative_path, "bwrap"}, Refused(#{bwrap => "bwrap"}))].

hidden_executable_and_cd_test_() ->
    Dir = "/tmp/mcp-jail-hidden-" ++ integer_to_list(erlang:unique_integer([positive])),
    {setup,
     fun() ->
             Exe = filename:join(Dir, "server.sh"),
             plant(Exe, <<"#!/bin/sh\nexit 0\n">>),
             ok = file:change_mode(Exe, 8#755),
             Exe
     end,
     fun(_) -> remove(Dir) end,
     fun(Exe) ->
             [?_assertEqual({error, {transport_failed, {bad_jail, {executable_hidden, Exe}}}},
                            start_error(#{executable => Exe, jail => true})),
              ?_assertEqual({error, {transport_failed, {bad_jail, {cd_hidden, Dir}}}},
                            start_error(#{executable => "/bin/cat", cd => Dir, jail => true})),
              %% A link to it from a visible directory (node_modules/.bin,
              %% a virtualenv's bin/) is caught too: inside, the link
              %% would lead nowhere.
              ?_test(in_scratch(fun(Scratch) ->
                         Link = filename:join(Scratch, "server"),
                         ok = file:make_symlink(Exe, Link),
                         ?assertEqual({error, {transport_failed, {bad_jail, {executable_hidden, {Link, Exe, Exe}}}}},
                                      start_error(#{executable => Link, jail => true}))
                     end)),
              %% A grant makes both visible again.
              ?_assertMatch({ok, _, ["--seccomp-fd" | _], _}, command(#{read => [Dir]}, Exe, #{cd => Dir}))]
     end}.

%% A `node_modules/.bin' entry under /tmp whose target climbs out of the
%% granted `.bin' (`../foo/bin/cli.js'): the kernel applies the `..' after
%% following the link, so the target lies outside the grant, hidden. Run
%% through a shell (which the check does not look into), the link leads
%% nowhere: exit 127. Run directly, the start is refused before anything
%% runs, naming the real path and the install tree to grant; granted, it
%% runs.
link_out_of_a_granted_bin_test_() ->
    Dir = "/tmp/mcp-jail-bin-" ++ integer_to_list(erlang:unique_integer([positive])),
    Modules = filename:join(Dir, "node_modules"),
    Bin = filename:join(Modules, ".bin"),
    Link = filename:join(Bin, "foo"),
    Real = filename:join(Modules, "foo/bin/cli.js"),
    Exit = fun(Spawn) ->
                   {ok, Connection} = mcp_transport:open(Spawn, self()),
                   closed(Connection)
           end,
    {setup,
     fun() ->
             plant(Real, <<"#!/bin/sh\nexit 0\n">>),
             ok = file:change_mode(Real, 8#755),
             ok = filelib:ensure_dir(Link),
             ok = file:make_symlink("../foo/bin/cli.js", Link)
     end,
     fun(_) -> remove(Dir) end,
     {timeout, 60,
      [?_assertEqual({status, 127}, Exit(#{executable => "/bin/sh", args => ["-c", Link], jail => #{read => [Bin]}})),
       ?_assertEqual({error, {transport_failed, {bad_jail, {executable_hidden, {Link, Real, Modules}}}}},
                     start_error(#{executable => Link, jail => #{read => [Bin]}})),
       ?_assertEqual({status, 0}, Exit(#{executable => Link, jail => #{read => [Modules]}}))]}}.

command(Jail, Executable, Extra) ->
    mcp_jail:command(Jail, maps:merge(#{executable => Executable, args => [], env => []}, Extra)).

%%% ------------------------------------------------------------ the profile

profile_test_() ->
    Scratch = scratch(),
    {setup,
     fun() ->
             Home = filename:join(Scratch, "home"),
             plant(filename:join(Home, ".ssh/id_ed25519"), <<"k">>),
             plant(filename:join(Home, ".netrc"), <<"n">>),
             plant(filename:join(Home, ".ssh/known_hosts"), <<"h">>),
             Home
     end,
     fun(_) -> remove(Scratch) end,
     fun(Home) ->
             Target = #{executable => "/bin/cat", args => ["-u"], env => [{"HOME", Home}, {"LANG", "C.UTF-8"}]},
             {ok, Args} = mcp_jail:profile(#{read => [filename:join(Home, ".ssh/known_hosts")],
                                             write => [Home], net => true}, Target),
             Position = fun(Sequence) -> position(Sequence, Args, 1) end,
             Ssh = filename:join(Home, ".ssh"),
             Known = filename:join(Ssh, "known_hosts"),
             [?_assertEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"], lists:sublist(Args, 7)),
              ?_assert(Position(["--tmpfs", "/tmp"]) > 0),
              ?_assert(Position(["--tmpfs", "/run"]) > 0),
              %% The write grant on the home, then the deny inside it, then
              %% the read grant inside the deny: deeper paths win.
              ?_assert(Position(["--bind", Home, Home]) < Position(["--tmpfs", Ssh])),
              ?_assert(Position(["--tmpfs", Ssh]) < Position(["--ro-bind", Known, Known])),
              ?_assert(Position(["--ro-bind", "/dev/null", filename:join(Home, ".netrc")]) > 0),
              ?_assertEqual(0, Position(["--ro-bind", "/dev/null", filename:join(Home, ".pypirc")])),
              ?_assert(Position(["--share-net"]) > Position(["--unshare-all"])),
              %% The environment is never on the argv.
              ?_assertEqual(0, Position(["--setenv"])),
              ?_assertEqual(0, Position(["C.UTF-8"])),
              ?_assert(Position(["--die-with-parent"]) > 0),
              ?_assert(Position(["--new-session"]) > 0),
              ?_assert(Position(["--cap-drop", "ALL"]) > 0),
              ?_assertEqual(0, Position(["--seccomp"]))]
     end}.

%% A home snapshot never re-exposes what the jail hides, and a home of `/'
%% is never covered.
snapshot_bounds_test_() ->
    Dir = "/tmp/mcp-jail-home-" ++ integer_to_list(erlang:unique_integer([positive])),
    {setup,
     fun() -> plant(filename:join(Dir, ".npmrc"), <<"t">>), plant(filename:join(Dir, "notes"), <<"n">>) end,
     fun(_) -> remove(Dir) end,
     fun(_) ->
             Profile = fun(Home) ->
                               {ok, Args} = mcp_jail:profile(true, #{executable => "/bin/cat", args => [],
                                                                     env => [{"HOME", Home}]}),
                               Args
                       end,
             [?_assertEqual(0, position(["--ro-bind", filename:join(Dir, "notes")], Profile(Dir), 1)),
              ?_assertEqual(0, position(["--tmpfs", Dir], Profile(Dir), 1)),
              ?_assertEqual(0, position(["--tmpfs", "/"], Profile("/"), 1)),
              ?_assertEqual(0, position(["--remount-ro", "/"], Profile("/"), 1))]
     end}.

%% The 1-based index where `Sequence' starts in `List', 0 when absent.
position(Sequence, List, At) ->
    case lists:prefix(Sequence, List) of
        true -> At;
        false when List =:= [] -> 0;
        false -> position(Sequence, tl(List), At + 1)
    end.

%% The VM's token store follows `XDG_CONFIG_HOME', out of every home. The
%% attack: a jail that does not know where it is lets the server read it
%% (shown with the VM's store elsewhere); the defence: the VM's own store,
%% wherever it is, is on the default deny list.
the_vms_token_store_is_hidden_wherever_it_is_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Xdg = filename:join(Scratch, "xdg"),
        Token = filename:join([Xdg, "mcp", "oauth", "server.json"]),
        Secret = <<"planted-token-", (integer_to_binary(erlang:unique_integer([positive])))/binary>>,
        plant(Token, Secret),
        Read = fun() ->
                   with_client(hostile(filename:join(Scratch, "home"), true),
                               fun(C) -> probe(C, read_file, [{path, Token}]) end)
               end,
        ?assertEqual(<<"ok:", Secret/binary>>, with_vm_env("XDG_CONFIG_HOME", false, Read)),
        ?assertEqual(<<"error:ENOENT">>, with_vm_env("XDG_CONFIG_HOME", Xdg, Read))
    end))}.

%% `Fun()' with the VM's variable `Name' set to `Value' (`false': unset),
%% restored afterwards.
with_vm_env(Name, Value, Fun) ->
    Old = os:getenv(Name),
    Set = fun(false) -> os:unsetenv(Name); (V) -> os:putenv(Name, V) end,
    Set(Value),
    try Fun() after Set(Old) end.

default_deny_covers_the_credentials_test() ->
    Denied = mcp_jail:default_deny(["/home/u"]),
    [?assert(lists:member(filename:join("/home/u", Path), Denied))
     || Path <- [".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".netrc",
                 ".git-credentials", ".npmrc", ".pypirc", ".config/gh", ".password-store", ".erlang.cookie",
                 ".config/mcp/oauth"]],
    ?assert(lists:member("/etc/shadow", Denied)).

%% The filter reaches bwrap on a descriptor, from the launcher's argument:
%% the command names no file a server could replace, and each policy's
%% filter is the core's.
filter_on_a_descriptor_test() ->
    Command = fun(UnixSockets) ->
                      {ok, Program, Argv, _} = mcp_jail:command(jail(#{unix_sockets => UnixSockets}),
                                                                #{executable => "/bin/cat", args => [], env => []}),
                      {Program, Argv}
              end,
    [begin
         {Program, ["--seccomp-fd", Hex, "--", _Bwrap | Rest]} = Command(UnixSockets),
         ?assertEqual(filename:absname(mcp_nif:priv_file("mcp-landlock")), Program),
         ?assertEqual(mcp_nif:jail_seccomp_filter(UnixSockets), {ok, binary:decode_hex(list_to_binary(Hex))}),
         ?assertEqual(["--seccomp", "3", "--"], lists:sublist(Rest, position(["--seccomp"], Rest, 1), 3))
     end || UnixSockets <- [false, true]].

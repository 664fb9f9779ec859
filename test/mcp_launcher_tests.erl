%% Real launchers in front of real MCP servers (installed by the test setup,
%% no network): `/bin/sh -c' (dash stays the server's parent), `env',
%% `npx --offline' (the package resolves from test/e2e/node_modules) and a
%% Python wrapper that makes the server the port's grandchild. Each client
%% retires with `{exited, {signal, 9}}' within the shutdown timeout, and no
%% process of the launched tree is left: checked by pid (`/proc', with the
%% start time, so a recycled pid cannot pass for a survivor) and by group
%% (`kill -0 -- -PGID'). A zombie counts as left: orphans are reaped by init
%% asynchronously, so the check waits (bounded) for the tree to vanish.
%%
%% A descendant that leaves the group on purpose (`setsid') is out of reach:
%% the tests show it is exactly the process left, then kill it themselves.
%% See docs/server-processes.md.
-module(mcp_launcher_tests).

-include_lib("eunit/include/eunit.hrl").

-define(SHUTDOWN_MS, 5000).
%% Orphans are reaped by init, not by us: how long a dead tree may take to
%% vanish from /proc (polled every 20 ms).
-define(REAP_WAIT_MS, 15000).

%%% ------------------------------------------------------------ launchers

everything() ->
    mcp_e2e_tests:installed("test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js").

%% `sh -c' without `exec': the shell waits for the server, which inherits
%% its stdout (the case that used to leak the server).
sh_spawn() ->
    #{executable => "/bin/sh", args => ["-c", "node \"$0\" stdio", everything()]}.

env_spawn() ->
    #{executable => "env", args => ["MCP_LAUNCHED_BY=env", "node", everything(), "stdio"]}.

npx_spawn() ->
    E2e = filename:dirname(mcp_e2e_tests:installed("test/e2e/package.json")),
    #{executable => "npx", args => ["--offline", "@modelcontextprotocol/server-memory"], cd => E2e}.

python_spawn() ->
    #{executable => mcp_e2e_tests:installed(".venv/bin/python"),
      args => [mcp_e2e_tests:installed("test/e2e/grandchild_launcher.py"), "node", everything(), "stdio"]}.

%% A server that first starts a descendant in a session of its own (it
%% leaves the group) and writes that descendant's pid to `PidFile'. With
%% `HoldsPipe' the descendant keeps the server's stdout open.
escaping_spawn(PidFile, HoldsPipe) ->
    Redirect = case HoldsPipe of
                   true -> "";
                   false -> " </dev/null >/dev/null 2>&1"
               end,
    #{executable => "/bin/sh",
      args => ["-c", "setsid sleep 300" ++ Redirect ++ " & echo $! > \"$1\"; exec node \"$0\" stdio",
               everything(), PidFile]}.

%%% ------------------------------------------------------------ tests

sh_launcher_test_() ->
    {timeout, 60, ?_test(retires_whole_tree(sh_spawn(), <<"server-everything">>, launcher))}.

env_launcher_test_() ->
    %% `env' execs the server: the port's child is the server itself.
    {timeout, 60, ?_test(retires_whole_tree(env_spawn(), <<"server-everything">>, exec))}.

npx_launcher_test_() ->
    {timeout, 60, ?_test(retires_whole_tree(npx_spawn(), <<"server-memory">>, launcher))}.

python_grandchild_launcher_test_() ->
    {timeout, 60, ?_test(retires_whole_tree(python_spawn(), <<"server-everything">>, launcher))}.

%% The server works through the launcher, the tree is what the launcher
%% says (server = the child for `exec', a descendant otherwise), the client
%% retires with the witnessed SIGKILL, and the whole tree is gone.
retires_whole_tree(Spawn, ServerMarker, Shape) ->
    {ok, Client, _} = mcp_client:start(Spawn, #{}),
    try
        {ok, Tools} = mcp_client:list_tools(Client),
        ?assertNotEqual([], Tools),
        {ok, OsPid} = mcp_client:os_pid(Client),
        Tree = tree(OsPid),
        %% The server is the tree's one leaf: a `node' running the package.
        [Server] = leaves(Tree),
        [Argv0 | _] = binary:split(cmdline(Server), <<0>>),
        ?assertEqual(<<"node">>, filename:basename(Argv0)),
        ?assertNotEqual(nomatch, binary:match(cmdline(Server), ServerMarker)),
        case Shape of
            exec -> ?assertEqual([{OsPid, Server}], [{Pid, Server} || {Pid, _} <- Tree]);
            launcher -> ?assertNotEqual(OsPid, Server)
        end,
        ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?SHUTDOWN_MS)),
        assert_gone(OsPid, Tree)
    after
        _ = mcp_client:shutdown(Client, ?SHUTDOWN_MS)
    end.

%% A descendant that left the group (its stdio redirected): retirement is
%% still proven by the child's exit status, every process of the group is
%% gone, and exactly the escaped descendant lives on, not a zombie.
escaped_descendant_is_the_one_left_test_() ->
    {timeout, 60, ?_test(with_pid_file(fun(PidFile) ->
        {ok, Client, _} = mcp_client:start(escaping_spawn(PidFile, false), #{}),
        {ok, OsPid} = mcp_client:os_pid(Client),
        Escaped = read_pid(PidFile),
        try
            Tree = tree(OsPid),
            EscapedEntry = lists:keyfind(Escaped, 1, Tree),
            ?assertMatch({Escaped, _}, EscapedEntry),
            left_the_group(Escaped, OsPid),
            ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?SHUTDOWN_MS)),
            assert_gone(OsPid, Tree -- [EscapedEntry]),
            ?assertEqual([EscapedEntry], present(Tree)),
            ?assertNotEqual($Z, state(Escaped))
        after
            kill_and_reap(Escaped)
        end
    end))}.

%% An escaped descendant that keeps the server's stdout open holds back the
%% port's exit status, the only proof: retirement times out (uncertainty,
%% never success) although the group is dead. Once the descendant dies the
%% proof arrives and the retiring actor stops normally.
escaped_descendant_holding_stdout_delays_the_proof_test_() ->
    {timeout, 60, ?_test(with_pid_file(fun(PidFile) ->
        {ok, Client, _} = mcp_client:start(escaping_spawn(PidFile, true), #{}),
        {ok, OsPid} = mcp_client:os_pid(Client),
        Escaped = read_pid(PidFile),
        Actor = erlang:monitor(process, mcp_client:pid(Client)),
        try
            Tree = tree(OsPid),
            EscapedEntry = lists:keyfind(Escaped, 1, Tree),
            left_the_group(Escaped, OsPid),
            ?assertEqual({error, retirement_timed_out}, mcp_client:shutdown(Client, 2000)),
            assert_gone(OsPid, Tree -- [EscapedEntry]),
            ?assertEqual([EscapedEntry], present(Tree)),
            kill_and_reap(Escaped),
            receive {'DOWN', Actor, process, _, Reason} -> ?assertEqual(normal, Reason)
            after ?SHUTDOWN_MS -> error(actor_did_not_stop)
            end,
            assert_gone(OsPid, Tree)
        after
            kill_and_reap(Escaped)
        end
    end))}.

%% `setsid' runs in the background while the server starts: wait (bounded)
%% until the descendant has its own group.
left_the_group(Escaped, Group) -> left_the_group(Escaped, Group, ?REAP_WAIT_MS div 20).

left_the_group(Escaped, Group, 0) -> error({still_in_group, Escaped, Group});
left_the_group(Escaped, Group, Tries) ->
    case pgid(Escaped) of
        Group -> receive after 20 -> left_the_group(Escaped, Group, Tries - 1) end;
        _ -> ok
    end.

%%% ------------------------------------------------------------ process trees

%% Every process of the tree the port started: members of the child's
%% group and descendants of the child (which may have left the group), as
%% `{Pid, StartTime}'.
tree(OsPid) ->
    Stats = [{Pid, Stat} || Pid <- proc_pids(), {ok, Stat} <- [stat(Pid)]],
    ByParent = lists:foldl(fun({Pid, #{ppid := Parent}}, Acc) ->
                                   maps:update_with(Parent, fun(L) -> [Pid | L] end, [Pid], Acc)
                           end, #{}, Stats),
    Members = [Pid || {Pid, #{pgid := Group}} <- Stats, Group =:= OsPid],
    Pids = lists:usort(Members ++ descendants([OsPid], ByParent, [])),
    [{Pid, Start} || Pid <- Pids, {P, #{start := Start}} <- Stats, P =:= Pid].

%% The processes of `Tree' that are no other's parent.
leaves(Tree) ->
    Parents = [Parent || {Pid, _} <- Tree, {ok, #{ppid := Parent}} <- [stat(Pid)]],
    [Pid || {Pid, _} <- Tree, not lists:member(Pid, Parents)].

descendants([], _ByParent, Acc) -> Acc;
descendants([Pid | Rest], ByParent, Acc) ->
    Children = maps:get(Pid, ByParent, []),
    descendants(Children ++ Rest, ByParent, [Pid | Acc]).

proc_pids() ->
    {ok, Names} = file:list_dir("/proc"),
    [list_to_integer(Name) || Name <- Names, lists:all(fun(C) -> C >= $0 andalso C =< $9 end, Name)].

%% `/proc/PID/stat': the fields after the command name (which may hold
%% spaces and parentheses) are state, ppid, pgrp, ... and field 22, the
%% start time in clock ticks since boot.
stat(Pid) ->
    case file:read_file("/proc/" ++ integer_to_list(Pid) ++ "/stat") of
        {ok, Bin} ->
            [_, After] = string:split(Bin, <<")">>, trailing),
            [State, PPid, PGid | More] = string:lexemes(After, " "),
            {ok, #{state => binary:first(State), ppid => binary_to_integer(PPid),
                   pgid => binary_to_integer(PGid), start => lists:nth(22 - 5, More)}};
        {error, _} ->
            gone
    end.

state(Pid) -> {ok, #{state := State}} = stat(Pid), State.
pgid(Pid) -> {ok, #{pgid := Group}} = stat(Pid), Group.

cmdline(Pid) ->
    case file:read_file("/proc/" ++ integer_to_list(Pid) ++ "/cmdline") of
        {ok, Bin} -> Bin;
        {error, _} -> <<>>
    end.

%% The processes of `Tree' that still exist (zombies included), by pid and
%% start time.
present(Tree) ->
    [Entry || {Pid, Start} = Entry <- Tree,
              case stat(Pid) of {ok, #{start := Start}} -> true; _ -> false end].

group_alive(Group) ->
    os:cmd("kill -0 -- -" ++ integer_to_list(Group) ++ " 2>/dev/null && echo alive") =:= "alive\n".

%% No process of `Tree' and none of the group is left, zombies included.
assert_gone(Group, Tree) -> assert_gone(Group, Tree, ?REAP_WAIT_MS div 20).

assert_gone(Group, Tree, Tries) ->
    case {present(Tree), group_alive(Group)} of
        {[], false} ->
            ok;
        {Left, GroupAlive} when Tries =:= 0 ->
            error({left_behind, [{Pid, catch state(Pid), cmdline(Pid)} || {Pid, _} <- Left],
                   {group_alive, GroupAlive}});
        _ ->
            receive after 20 -> assert_gone(Group, Tree, Tries - 1) end
    end.

kill_and_reap(Pid) ->
    Tree = [Entry || {P, _} = Entry <- present([{Pid, start(Pid)}]), P =:= Pid],
    _ = os:cmd("kill -s KILL " ++ integer_to_list(Pid) ++ " 2>/dev/null"),
    assert_gone_pids(Tree, ?REAP_WAIT_MS div 20).

start(Pid) ->
    case stat(Pid) of {ok, #{start := Start}} -> Start; gone -> gone end.

assert_gone_pids(Tree, Tries) ->
    case present(Tree) of
        [] -> ok;
        Left when Tries =:= 0 -> error({left_behind, Left});
        _ -> receive after 20 -> assert_gone_pids(Tree, Tries - 1) end
    end.

with_pid_file(Fun) ->
    PidFile = filename:join("/tmp", "mcp_launcher_" ++ os:getpid() ++ "_"
                            ++ integer_to_list(erlang:unique_integer([positive])) ++ ".pid"),
    try Fun(PidFile)
    after file:delete(PidFile)
    end.

%% The shell writes the pid before it execs the server, and the server
%% answered the handshake, so the file is complete.
read_pid(PidFile) ->
    {ok, Bin} = file:read_file(PidFile),
    binary_to_integer(string:trim(Bin)).

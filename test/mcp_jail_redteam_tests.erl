%% The jail against escapes a red team found beyond the ones
%% `mcp_jail_tests' covers (docs/jail.md, "Threat model"). Each attempt is
%% made by the hostile server (`test/e2e/hostile_server.py') first unjailed,
%% where it must work (so the probe can tell), then jailed, where it must
%% fail with the errno the defence gives:
%%
%% - kernel settings under /proc, writable by a jailed root;
%% - a grant that goes through a symbolic link a server planted;
%% - the VM's own stderr (a terminal or a log file) as the server's fd 2;
%% - the caller's session keyring;
%% - tracing the jail's init (or any process) and reading its memory;
%% - credentials created, or replaced by a rename, after the jail started;
%% - AF_VSOCK, which no namespace separates from the host;
%% - a FIFO on a read-only mount, whose writes reach the host program
%%   reading it;
%% - the spec's environment (API keys) on a command line, which every
%%   local user reads in /proc/<pid>/cmdline;
%% - the jail's init written through /proc/1/mem, with or without
%%   Landlock, and a kernel without Landlock taken for one with it;
%% - a denied path that is a symbolic link, read where it leads; the VM's
%%   cookie under `$XDG_CONFIG_HOME'; a credential created after the start
%%   in a `.config' that is a link;
%% - an `LD_PRELOAD' that fakes Landlock, in the server's environment;
%% - a mount the host makes after the start under a shared mount; a
%%   nested user namespace;
%% - the host user's inotify instances and pending signals, exhausted;
%% - what a list of denied paths misses: the strict profile's reads are
%%   allowed by list;
%% - a set-user-ID file left in a write grant, run by another local user;
%% - the seccomp filter read by a path a server can write;
%% - a lease that stalls the host's writers; Linux AIO's machine-wide
%%   events, exhausted; POSIX message queues; the shared pty pool;
%% - the passwd home behind another `HOME', credentials moved by the
%%   standard variables;
%% - the strict profile showing a home through an install tree or the
%%   working directory, and the host's TLS keys.
-module(mcp_jail_redteam_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("kernel/include/file.hrl").

-import(mcp_jail_tests, [hostile/2, probe/3, with_client/2, in_scratch/1, plant/2, jail/1, python/0, with_vm_env/3,
                         wait_until/2, within/1]).

-define(TIMEOUT, 10000).

%% Runs `Probes' ({Tool, Arguments}) unjailed and jailed by `Jail', with
%% `HOME' at `Home'; answers {Unjailed, Jailed}.
both(Home, Jail, Probes) ->
    Run = fun(Spawn) -> with_client(Spawn, fun(C) -> [probe(C, T, A) || {T, A} <- Probes] end) end,
    {Run(hostile(Home, none)), Run(hostile(Home, Jail))}.

root() -> os:cmd("id -u") =:= "0\n".

%%% ------------------------------------------------------------ kernel settings

%% As root, bwrap's user namespace maps the jail's uid 0 to the host's, and
%% /proc/sys checks writes by uid: without the read-only cover a jailed
%% server opens hundreds of the host's kernel settings for writing.
kernel_settings_test_() ->
    {timeout, 120, ?_test(in_scratch(fun(Scratch) ->
        Setting = "/proc/sys/fs/lease-break-time",
        {Free, Jailed} = both(Scratch, true, [{writable_settings, []}, {rewrite_setting, [{path, Setting}]}]),
        case root() of
            true ->
                [<<"ok:", Count/binary>>, Rewrite] = Free,
                ?assert(binary_to_integer(Count) > 100),
                ?assertEqual(<<"ok">>, Rewrite);
            false ->
                %% Without root nothing there is writable to begin with.
                ok
        end,
        ?assertEqual([<<"ok:0">>, <<"error:EROFS">>], Jailed)
    end))}.

%%% ------------------------------------------------------------ symlinked grants

%% A server with a write grant plants a link to `/' in it; a later run that
%% grants the link's path (a project directory, the user believes) is
%% refused before anything runs, as is any grant whose path goes through a
%% link.
symlinked_grant_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Grant = filename:join(Scratch, "grant"),
        ok = filelib:ensure_dir(filename:join(Grant, "real/x")),
        Planted = filename:join(Grant, "proj"),
        with_client(hostile(Scratch, #{write => [Grant]}), fun(C) ->
            ?assertEqual(<<"ok">>, probe(C, symlink, [{target, "/"}, {path, Planted}]))
        end),
        ?assertEqual({ok, "/"}, file:read_link(Planted)),
        Inner = filename:join(Planted, "etc"),
        Refused = fun(Jail) -> mcp_client:start(hostile(Scratch, Jail), #{}) end,
        ?assertEqual({error, {transport_failed, {bad_jail, {symlinked_grant, Planted}}}}, Refused(#{write => [Planted]})),
        ?assertEqual({error, {transport_failed, {bad_jail, {symlinked_grant, Planted}}}}, Refused(#{read => [Planted]})),
        ?assertEqual({error, {transport_failed, {bad_jail, {symlinked_grant, Inner}}}}, Refused(#{write => [Inner]})),
        %% The real directory is granted as before.
        with_client(hostile(Scratch, #{write => [filename:join(Grant, "real")]}), fun(C) ->
            ?assertEqual(<<"ok">>, probe(C, write_file, [{path, filename:join(Grant, "real/kept")}, {text, "k"}]))
        end)
    end))}.

%%% ------------------------------------------------------------ the VM's stderr

%% Unjailed, the server's fd 2 is the VM's own stderr (with `inherit', the
%% default): a terminal it could read keystrokes from, or a log file it
%% reopens through /proc/self/fd/2 for reading. Jailed, it is a pipe of its
%% own, relayed to the VM's stderr from outside.
vm_stderr_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        {ok, #file_info{major_device = Dev, inode = Inode}} = file:read_file_info("/proc/self/fd/2"),
        Vm = iolist_to_binary(io_lib:format("ok:~b:~b", [Dev, Inode])),
        {[Free], [Jailed]} = both(Scratch, true, [{stderr_inode, []}]),
        ?assertEqual(Vm, Free),
        ?assertMatch(<<"ok:", _/binary>>, Jailed),
        ?assertNotEqual(Vm, Jailed)
    end))}.

%%% ------------------------------------------------------------ keyrings

%% The session keyring is not namespaced: unjailed, the server adds (and
%% could read or overwrite) keys of the caller's session.
keyring_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        ?assertEqual({[<<"ok">>], [<<"error:ENOSYS">>]}, both(Scratch, true, [{add_key, []}])),
        %% /proc/keys lists the keys the user may view, by name.
        {[Keys], [Hidden]} = both(Scratch, true, [{read_file, [{path, "/proc/keys"}]}]),
        ?assertMatch(<<"ok:", _/binary>>, Keys),
        ?assertNotEqual(nomatch, binary:match(Keys, <<"keyring">>)),
        ?assertEqual(<<"error:EACCES">>, Hidden)
    end))}.

%%% ------------------------------------------------------------ tracing

%% Inside the jail every process has the same uid as the jail's init
%% (bwrap, pid 1): tracing it could clear its parent-death signal and move
%% it out of the group the client retires. Unjailed, the probes reach a
%% child of the server's own.
tracing_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Own = [{ptrace_seize, [{pid, 0}]}, {read_memory, [{pid, 0}]}],
        {Free, JailedOwn} = both(Scratch, true, Own),
        ?assertEqual([<<"ok">>, <<"ok:allowed">>], Free),
        ?assertEqual([<<"error:EPERM">>, <<"error:EPERM">>], JailedOwn),
        with_client(hostile(Scratch, true), fun(C) ->
            ?assertEqual(<<"error:EPERM">>, probe(C, ptrace_seize, [{pid, 1}])),
            ?assertEqual(<<"error:EPERM">>, probe(C, read_memory, [{pid, 1}]))
        end)
    end))}.

%%% ------------------------------------------------------------ late credentials

%% Credentials the user writes while a jailed server runs: a
%% `.git-credentials' rewritten by a rename (as git's store does), an
%% `.npmrc' replaced, an `.aws/credentials' and a `.config/gh' created for
%% the first time. A cover put on a file at the start stays on the old
%% file; the home's snapshot shows only the names that existed then.
late_credentials_test_() ->
    {timeout, 90, ?_test(in_scratch(fun(Scratch) ->
        Home = filename:join(Scratch, "home"),
        plant(filename:join(Home, ".git-credentials"), <<"old">>),
        plant(filename:join(Home, ".npmrc"), <<"old">>),
        plant(filename:join(Home, ".config/app/settings"), <<"visible">>),
        plant(filename:join(Home, "notes.txt"), <<"visible">>),
        Secret = <<"late-secret-", (integer_to_binary(erlang:unique_integer([positive])))/binary>>,
        Late = [".git-credentials", ".npmrc", ".aws/credentials", ".config/gh/hosts.yml"],
        Reads = [{read_file, [{path, filename:join(Home, Path)}]} || Path <- Late],
        Write = fun() ->
                        [begin
                             Target = filename:join(Home, Path),
                             plant(Target ++ ".new", Secret),
                             ok = file:rename(Target ++ ".new", Target)
                         end || Path <- Late],
                        ok
                end,
        Start = fun(Jail) ->
                        {ok, C, _} = mcp_client:start(hostile(Home, Jail), #{}),
                        C
                end,
        Jailed = Start(true),
        Free = Start(none),
        try
            ok = Write(),
            ?assertEqual([<<"ok:", Secret/binary>> || _ <- Late], [probe(Free, T, A) || {T, A} <- Reads]),
            ?assertEqual([<<"error:EACCES">>,  % the cover stays at the path, not on the old file
                          <<"error:EACCES">>,
                          <<"error:ENOENT">>,  % a name the home did not have at the start
                          <<"error:ENOENT">>],
                         [probe(Jailed, T, A) || {T, A} <- Reads]),
            %% What existed at the start is read as before, and read-only.
            ?assertEqual(<<"ok:visible">>, probe(Jailed, read_file, [{path, filename:join(Home, "notes.txt")}])),
            ?assertEqual(<<"ok:visible">>, probe(Jailed, read_file, [{path, filename:join(Home, ".config/app/settings")}])),
            ?assertEqual(<<"error:EROFS">>, probe(Jailed, write_file, [{path, filename:join(Home, "new.txt")}, {text, "x"}]))
        after
            _ = mcp_client:shutdown(Jailed, ?TIMEOUT),
            _ = mcp_client:shutdown(Free, ?TIMEOUT)
        end
    end))}.

%%% ------------------------------------------------------------ vsock

%% AF_VSOCK sockets are not separated by any namespace: a jailed server
%% could listen on ports shared with the host.
vsock_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        ?assertEqual({[<<"ok">>], [<<"error:EAFNOSUPPORT">>]}, both(Scratch, true, [{vsock, []}]))
    end))}.

%%% ------------------------------------------------------------ FIFOs

%% A read-only mount stops writes to files, not to a FIFO: the jail's
%% mounts alone (`mcp_jail:profile/2', run by bwrap without the launcher)
%% let a server write into a FIFO a host program reads (a shell's or an
%% editor's control FIFO, say). The jail runs the server through the
%% Landlock launcher, which refuses the open.
fifo_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Fifo = filename:join(Scratch, "control.fifo"),
        "" = os:cmd("mkfifo '" ++ Fifo ++ "'"),
        Jail = jail(#{read => [Scratch]}),
        Write = [{write_fifo, [{path, Fifo}, {text, "planted"}]}],
        %% Unjailed the write arrives; jailed it is refused and nothing does.
        ?assertEqual({{[<<"ok">>], [<<"error:EACCES">>]}, <<"planted">>},
                     read_fifo(Fifo, fun() -> both(Scratch, Jail, Write) end)),
        {ok, Mounts} = mcp_jail:profile(Jail, #{executable => python(), args => [], env => []}),
        Script = "import os; os.write(os.open('" ++ Fifo ++ "', os.O_WRONLY | os.O_NONBLOCK), b'through')",
        {Status, Got} = read_fifo(Fifo, fun() ->
            Port = open_port({spawn_executable, os:find_executable("bwrap")},
                             [{args, Mounts ++ ["--", python(), "-c", Script]}, exit_status, hide]),
            receive {Port, {exit_status, S}} -> S after ?TIMEOUT -> timeout end
        end),
        ?assertEqual({0, <<"through">>}, {Status, Got})
    end))}.

%% Runs `Fun' while a host program holds `Fifo' open for reading; answers
%% what `Fun' answered and what the program read meanwhile.
read_fifo(Fifo, Fun) ->
    Reader = open_port({spawn, "cat <> '" ++ Fifo ++ "'"}, [binary, hide]),
    {os_pid, OsPid} = erlang:port_info(Reader, os_pid),
    try
        Result = Fun(),
        timer:sleep(200),
        {Result, iolist_to_binary(drain(Reader))}
    after
        _ = os:cmd("kill -s KILL " ++ integer_to_list(OsPid)),
        catch port_close(Reader)
    end.

drain(Port) ->
    receive {Port, {data, Bytes}} -> [Bytes | drain(Port)] after 0 -> [] end.

%%% ------------------------------------------------------------ git hooks

%% A write grant on a repository lets the server choose what git runs on
%% the host: keeping `.git/hooks' read-only inside it does not hold (the
%% server renames `.git' away, rebuilds it and plants a hook, which the
%% host's next commit runs), so docs/jail.md does not advise it. What it
%% advises instead holds: the server gets a clone of its own, and the host
%% fetches from it, which runs none of the clone's hooks or configuration.
git_hooks_test_() ->
    {timeout, 90, ?_test(in_scratch(fun(Scratch) ->
        Repo = filename:join(Scratch, "repo"),
        Marker = filename:join(Scratch, "hook-ran"),
        Hook = "#!/bin/sh\ntouch " ++ Marker ++ "\n",
        ok = git(Scratch, ["init", "-q", Repo]),
        ok = commit(Repo, "first"),
        %% The read-only hooks directory inside a writable repository.
        Jail = #{write => [Repo], read => [filename:join(Repo, ".git/hooks")]},
        with_client(hostile(Scratch, Jail), fun(C) ->
            Hooks = filename:join(Repo, ".git/hooks/pre-commit"),
            ?assertEqual(<<"error:EROFS">>, probe(C, write_file, [{path, Hooks}, {text, Hook}])),
            ?assertEqual(<<"ok">>, probe(C, rename, [{source, filename:join(Repo, ".git")},
                                                     {target, filename:join(Repo, "moved")}])),
            %% The worktree itself as the hooks directory, with a hook in it.
            ?assertEqual(<<"ok">>, probe(C, write_file, [{path, filename:join(Repo, "moved/config")},
                                                         {text, "[core]\n\thooksPath = " ++ Repo ++ "\n"}])),
            ?assertEqual(<<"ok">>, probe(C, write_file, [{path, filename:join(Repo, "pre-commit")}, {text, Hook}])),
            ?assertEqual(<<"ok">>, probe(C, make_executable, [{path, filename:join(Repo, "pre-commit")}])),
            ?assertEqual(<<"ok">>, probe(C, rename, [{source, filename:join(Repo, "moved")},
                                                     {target, filename:join(Repo, ".git")}]))
        end),
        ok = commit(Repo, "second"),
        ?assert(filelib:is_file(Marker)),
        ok = file:delete(Marker),
        %% The advice that holds: a clone of its own, fetched from.
        Original = filename:join(Scratch, "original"),
        Clone = filename:join(Scratch, "clone"),
        ok = git(Scratch, ["init", "-q", Original]),
        ok = commit(Original, "first"),
        ok = git(Scratch, ["clone", "-q", "--no-local", Original, Clone]),
        with_client(hostile(Scratch, #{write => [Clone]}), fun(C) ->
            [?assertEqual(<<"ok">>, probe(C, write_file, [{path, filename:join(Clone, ".git/hooks/" ++ Name)}, {text, Hook}]))
             || Name <- ["pre-commit", "post-merge", "post-checkout", "reference-transaction"]],
            [?assertEqual(<<"ok">>, probe(C, make_executable, [{path, filename:join(Clone, ".git/hooks/" ++ Name)}]))
             || Name <- ["pre-commit", "post-merge", "post-checkout", "reference-transaction"]],
            ?assertEqual(<<"ok">>, probe(C, write_file, [{path, filename:join(Clone, ".git/config")},
                                                         {text, "[core]\n\tfsmonitor = " ++ filename:join(Clone, ".git/hooks/pre-commit") ++ "\n"}]))
        end),
        ok = git(Original, ["fetch", "-q", Clone, "+refs/heads/*:refs/remotes/server/*"]),
        ok = commit(Original, "after the fetch"),
        ?assertNot(filelib:is_file(Marker))
    end))}.

git(Dir, Args) ->
    Port = open_port({spawn_executable, os:find_executable("git")},
                     [{args, Args}, {cd, Dir}, exit_status, stderr_to_stdout, binary,
                      {env, [{"GIT_AUTHOR_NAME", "t"}, {"GIT_AUTHOR_EMAIL", "t@example.org"},
                             {"GIT_COMMITTER_NAME", "t"}, {"GIT_COMMITTER_EMAIL", "t@example.org"},
                             {"GIT_CONFIG_NOSYSTEM", "1"}, {"HOME", Dir}]}]),
    git_status(Port, <<>>).

git_status(Port, Output) ->
    receive
        {Port, {data, Bytes}} -> git_status(Port, <<Output/binary, Bytes/binary>>);
        {Port, {exit_status, 0}} -> ok;
        {Port, {exit_status, Status}} -> {git_failed, Status, Output}
    after 30000 -> error(git_timed_out)
    end.

commit(Repo, Message) ->
    ok = file:write_file(filename:join(Repo, "file.txt"), Message),
    ok = git(Repo, ["add", "file.txt"]),
    git(Repo, ["commit", "-q", "-m", Message]).

%%% ------------------------------------------------------------ no secret on an argv

%% `/proc/<pid>/cmdline' is mode 0444: a variable given to bwrap as
%% `--setenv NAME VALUE' is published to every local user for the jail's
%% whole life (shown first with bwrap run that way). A jailed server gets
%% the spec's `env' through the environment of the processes between the
%% VM and it (`/proc/<pid>/environ', 0400), and no process's command line
%% holds the value while it runs.
secret_on_no_argv_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Secret = "sk-planted-" ++ integer_to_list(erlang:unique_integer([positive])),
        Setenv = open_port({spawn_executable, os:find_executable("bwrap")},
                           [{args, ["--ro-bind", "/", "/", "--setenv", "OPENAI_API_KEY", Secret,
                                    "--", "/bin/sh", "-c", "read line"]}, exit_status, hide]),
        {os_pid, SetenvPid} = erlang:port_info(Setenv, os_pid),
        ?assert(wait_until(fun() -> lists:member(SetenvPid, argv_holders(Secret)) end, within(?TIMEOUT))),
        _ = os:cmd("kill -s KILL -- -" ++ integer_to_list(SetenvPid)),
        receive {Setenv, {exit_status, _}} -> ok after ?TIMEOUT -> error(no_exit) end,
        Spawn = maps:update_with(env, fun(Env) -> [{"OPENAI_API_KEY", Secret} | Env] end, hostile(Scratch, true)),
        with_client(Spawn, fun(C) ->
            %% The server has it, and nothing on the host shows it on an argv.
            ?assertEqual(<<"ok:", (list_to_binary(Secret))/binary>>, probe(C, getenv, [{name, "OPENAI_API_KEY"}])),
            ?assertEqual([], argv_holders(Secret))
        end)
    end))}.

%% The host processes whose command line holds `Text'.
argv_holders(Text) ->
    [Pid || Entry <- filelib:wildcard("/proc/[0-9]*/cmdline"),
            {ok, Cmdline} <- [file:read_file(Entry)],
            binary:match(Cmdline, list_to_binary(Text)) =/= nomatch,
            Pid <- [list_to_integer(lists:nth(3, filename:split(Entry)))]].

%%% ------------------------------------------------------------ the jail's init

%% bwrap's own init (pid 1 of the jail, same uid as the server, dumpable)
%% opens for writing through /proc/1/mem when nothing but Landlock's
%% tracing rule stands in the way: code written there can detach it from
%% the tree the client retires and make the client report an exit while
%% the server runs on. Shown with bwrap's init and the jail's mounts alone;
%% then the jail's init is the launcher, which the server cannot open,
%% with Landlock (its domain may not trace outside) and without it (the
%% init is not dumpable).
init_memory_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        {ok, Profile} = mcp_jail:profile(jail(true), #{executable => python(), args => [], env => []}),
        Script = "import os; os.close(os.open('/proc/1/mem', os.O_RDWR))",
        BwrapInit = open_port({spawn_executable, os:find_executable("bwrap")},
                              [{args, (Profile -- ["--as-pid-1"]) ++ ["--", python(), "-c", Script]}, exit_status, hide]),
        ?assertEqual(0, receive {BwrapInit, {exit_status, S}} -> S after ?TIMEOUT -> timeout end),
        Open = [{open_memory, [{pid, 1}]}],
        ?assertEqual([<<"error:EACCES">>], with_client(hostile(Scratch, true), fun(C) -> [probe(C, T, A) || {T, A} <- Open] end)),
        ?assertEqual([<<"error:EACCES">>], with_client(hostile(Scratch, #{landlock => false}),
                                                       fun(C) -> [probe(C, T, A) || {T, A} <- Open] end))
    end))}.

%% A kernel without Landlock (as the launcher reports it: ABI 0) refuses a
%% jail that relies on it, with a sentence that says what is missing and
%% how to accept less; `landlock => false' accepts the weaker jail.
without_landlock_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Key = {mcp_jail, landlock},
        ok = with_client(hostile(Scratch, true), fun(_) -> ok end),
        {Launcher, Abi} = persistent_term:get(Key),
        ?assert(Abi >= 1),
        try
            persistent_term:put(Key, {Launcher, 0}),
            Refused = mcp_client:start(hostile(Scratch, true), #{}),
            ?assertEqual({error, {transport_failed, {jail_unavailable, landlock_unavailable}}}, Refused),
            {error, Reason} = Refused,
            Sentence = iolist_to_binary(mcp_describe:start_error(Reason)),
            [?assertNotEqual(nomatch, binary:match(Sentence, Part))
             || Part <- [<<"no Landlock">>, <<"--no-landlock">>, <<"landlock => false">>, <<"landlock: False">>]],
            with_client(hostile(Scratch, #{landlock => false}), fun(C) ->
                ?assertEqual(<<"error:EACCES">>, probe(C, open_memory, [{pid, 1}]))
            end)
        after
            persistent_term:put(Key, {Launcher, Abi})
        end
    end))}.

%%% ------------------------------------------------------------ deny by real path

%% `~/.ssh -> data/ssh': hiding the link alone leaves the key readable by
%% the path it leads to. Both are hidden.
symlinked_denied_path_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        {Home, Real} = linked_home(Scratch, ".ssh", "data/ssh", {"id_ed25519", <<"key">>}),
        Reads = [{read_file, [{path, filename:join(Home, ".ssh/id_ed25519")}]},
                 {read_file, [{path, filename:join(Real, "id_ed25519")}]}],
        ?assertEqual({[<<"ok:key">>, <<"ok:key">>], [<<"error:ENOENT">>, <<"error:ENOENT">>]}, both(Home, true, Reads))
    end))}.

%% OTP reads the VM's cookie under `$XDG_CONFIG_HOME/erlang' too; with it
%% and the network a server joins the harness's distribution.
xdg_cookie_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Xdg = filename:join(Scratch, "xdg"),
        Cookie = filename:join([Xdg, "erlang", ".erlang.cookie"]),
        plant(Cookie, <<"cookie">>),
        ?assertEqual({[<<"ok:cookie">>], [<<"error:EACCES">>]},
                     with_vm_env("XDG_CONFIG_HOME", Xdg, fun() ->
                         both(filename:join(Scratch, "home"), true, [{read_file, [{path, Cookie}]}])
                     end))
    end))}.

%% `~/.config -> real-config': the snapshot follows the link, so a
%% `gh/hosts.yml' created there after the start appears by neither path.
symlinked_config_snapshot_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        {Home, Real} = linked_home(Scratch, ".config", "real-config", {"app/settings", <<"visible">>}),
        {ok, Jailed, _} = mcp_client:start(hostile(Home, true), #{}),
        {ok, Free, _} = mcp_client:start(hostile(Home, none), #{}),
        try
            plant(filename:join(Real, "gh/hosts.yml"), <<"late-token">>),
            Reads = [{read_file, [{path, filename:join(Home, ".config/gh/hosts.yml")}]},
                     {read_file, [{path, filename:join(Real, "gh/hosts.yml")}]},
                     {read_file, [{path, filename:join(Home, ".config/app/settings")}]}],
            ?assertEqual([<<"ok:late-token">>, <<"ok:late-token">>, <<"ok:visible">>], [probe(Free, T, A) || {T, A} <- Reads]),
            ?assertEqual([<<"error:ENOENT">>, <<"error:ENOENT">>, <<"ok:visible">>], [probe(Jailed, T, A) || {T, A} <- Reads])
        after
            _ = mcp_client:shutdown(Jailed, ?TIMEOUT),
            _ = mcp_client:shutdown(Free, ?TIMEOUT)
        end
    end))}.

%% A home under `Scratch' whose `Name' is a link to `Target' (under
%% `Scratch'), which holds one planted file.
linked_home(Scratch, Name, Target, {File, Content}) ->
    Home = filename:join(Scratch, "home"),
    Real = filename:join(Scratch, Target),
    plant(filename:join(Real, File), Content),
    ok = filelib:ensure_dir(filename:join(Home, "x")),
    ok = file:make_symlink(Real, filename:join(Home, Name)),
    {Home, Real}.

%%% ------------------------------------------------------------ a launcher that cannot be switched off

%% A preloaded library (test/fixtures/landlock_shim.c) answers the Landlock
%% calls with success without making them (shown: a restriction with a
%% bad ruleset "succeeds" under it). In the server's environment it never
%% reaches the launcher (the environment is carried under other names),
%% so the FIFO stays refused while the server has its LD_PRELOAD; and a
%% launcher that does load it finds the restriction not in force and runs
%% nothing.
faked_landlock_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Shim = filename:join(Scratch, "landlock_shim.so"),
        Source = filename:join(mcp_jail_tests:root(), "test/fixtures/landlock_shim.c"),
        ?assertEqual({0, <<>>}, run(os:find_executable("cc"), ["-shared", "-fPIC", "-o", Shim, Source], [])),
        Restrict = "import ctypes; print(ctypes.CDLL(None).syscall(446, -1, 0))",
        ?assertEqual({0, <<"-1\n">>}, run(python(), ["-c", Restrict], [])),
        ?assertEqual({0, <<"0\n">>}, run(python(), ["-c", Restrict], [{"LD_PRELOAD", Shim}])),
        Ran = filename:join(Scratch, "ran"),
        Launcher = mcp_nif:priv_file("mcp-landlock"),
        {Status, Said} = run(Launcher, ["--writable", Scratch, "--", "/bin/sh", "-c", "touch " ++ Ran],
                             [{"LD_PRELOAD", Shim}]),
        ?assertEqual(126, Status),
        ?assertNotEqual(nomatch, binary:match(Said, <<"not in force">>)),
        ?assertNot(filelib:is_file(Ran)),
        Fifo = filename:join(Scratch, "control.fifo"),
        "" = os:cmd("mkfifo '" ++ Fifo ++ "'"),
        Spawn = maps:update_with(env, fun(Env) -> [{"LD_PRELOAD", Shim} | Env] end, hostile(Scratch, #{read => [Scratch]})),
        ?assertEqual({[<<"ok:", (list_to_binary(Shim))/binary>>, <<"error:EACCES">>], <<>>},
                     read_fifo(Fifo, fun() ->
                         with_client(Spawn, fun(C) ->
                             [probe(C, getenv, [{name, "LD_PRELOAD"}]),
                              probe(C, write_fifo, [{path, Fifo}, {text, "planted"}])]
                         end)
                     end))
    end))}.

%% `Program Args' with `Env' added; its exit status and what it wrote on
%% stdout and stderr.
run(Program, Args, Env) ->
    Port = open_port({spawn_executable, Program}, [{args, Args}, {env, Env}, exit_status, binary, stderr_to_stdout, hide]),
    run_output(Port, <<>>).

run_output(Port, Output) ->
    receive
        {Port, {data, Bytes}} -> run_output(Port, <<Output/binary, Bytes/binary>>);
        {Port, {exit_status, Status}} -> {Status, Output}
    after ?TIMEOUT -> error(no_exit)
    end.

%%% ------------------------------------------------------------ mounts made later

%% A mount the host makes after the start under a shared mount (systemd
%% makes `/' shared) propagates into bwrap's mounts, which are its slaves:
%% shown with the jail's mounts alone, where a tmpfs mounted mid-run
%% appears, writable. The jail's init makes every mount private first, so
%% nothing mounted later arrives.
later_mounts_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        ?assert(root()),
        Shared = filename:join(Scratch, "shared"),
        Sub = filename:join(Shared, "sub"),
        ok = filelib:ensure_dir(filename:join(Sub, "x")),
        "" = os:cmd("mount --bind '" ++ Shared ++ "' '" ++ Shared ++ "' && mount --make-shared '" ++ Shared ++ "' 2>&1"),
        Secret = filename:join(Sub, "secret"),
        MountLater = fun() ->
                         "" = os:cmd("mount -t tmpfs mcp-later '" ++ Sub ++ "' 2>&1"),
                         ok = file:write_file(Secret, <<"mounted-later">>)
                     end,
        Unmount = fun() -> _ = os:cmd("umount '" ++ Sub ++ "' 2>/dev/null"), ok end,
        try
            {ok, Profile} = mcp_jail:profile(jail(true), #{executable => python(), args => [], env => []}),
            Script = "import sys; print('ready', flush=True); sys.stdin.readline(); "
                     "print(open('" ++ Secret ++ "').read(), flush=True)",
            Port = open_port({spawn_executable, os:find_executable("bwrap")},
                             [{args, Profile ++ ["--", python(), "-c", Script]}, {line, 256}, exit_status, hide]),
            receive {Port, {data, {eol, "ready"}}} -> ok after ?TIMEOUT -> error(not_ready) end,
            MountLater(),
            true = port_command(Port, "go\n"),
            ?assertEqual("mounted-later", receive {Port, {data, {eol, Line}}} -> Line after ?TIMEOUT -> timeout end),
            receive {Port, {exit_status, _}} -> ok after ?TIMEOUT -> error(no_exit) end,
            ok = Unmount(),
            with_client(hostile(Scratch, true), fun(C) ->
                ?assertEqual(<<"error:ENOENT">>, probe(C, read_file, [{path, Secret}])),
                MountLater(),
                ?assertEqual(<<"error:ENOENT">>, probe(C, read_file, [{path, Secret}]))
            end)
        after
            ok = Unmount(),
            _ = os:cmd("umount '" ++ Shared ++ "'")
        end
    end))}.

%% A user namespace nested in the jail's would give the server every
%% capability over new namespaces of its own (a second round of namespace
%% tricks); the jail's user namespace allows none.
nested_user_namespace_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        ?assertEqual({[<<"ok">>], [<<"error:ENOSPC">>]}, both(Scratch, true, [{unshare_user, []}]))
    end))}.

%%% ------------------------------------------------------------ shared kernel resources

%% inotify instances and pending signals are counted per user: a server
%% that takes them all leaves none to the host user's other programs
%% (shown unjailed: the host's next 16 are not all granted while the server
%% holds them). The jail's user namespace and rlimits bound its share to a
%% quarter of the host's, and the host's next 16 are granted.
shared_resources_test_() ->
    {timeout, 120, ?_test(in_scratch(fun(Scratch) ->
        %% The host asks for 16: a few may come free while the server holds
        %% the rest (other programs of the host's user close an instance or
        %% take a pending signal), so "refused" is fewer than 16 granted.
        Inotify = "import ctypes; libc = ctypes.CDLL(None)\n"
                  "print(sum(libc.inotify_init() >= 0 for _ in range(16)) == 16)",
        Signal = "import ctypes, os, signal; signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN]); "
                 "libc = ctypes.CDLL(None)\n"
                 "print(sum(libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0)) == 0 "
                 "for _ in range(16)) == 16)",
        Host = fun(Script) -> {0, Said} = run(python(), ["-c", Script], []), Said end,
        HostWhileHeld = fun(Jail, Exhaust, Release, Script) ->
                            with_client(hostile(Scratch, Jail), fun(C) ->
                                <<"ok:", Count/binary>> = probe(C, Exhaust, []),
                                Said = Host(Script),
                                <<"ok">> = probe(C, Release, []),
                                {binary_to_integer(Count), Said}
                            end)
                        end,
        {_, Refused} = HostWhileHeld(none, exhaust_inotify, release_inotify, Inotify),
        ?assertEqual(<<"False\n">>, Refused),
        {Held, Granted} = HostWhileHeld(true, exhaust_inotify, release_inotify, Inotify),
        ?assertEqual(<<"True\n">>, Granted),
        ?assertEqual(file_integer("/proc/sys/fs/inotify/max_user_instances") div 4, Held),
        {_, SignalRefused} = HostWhileHeld(none, exhaust_signals, release_signals, Signal),
        ?assertEqual(<<"False\n">>, SignalRefused),
        {Queued, SignalGranted} = HostWhileHeld(true, exhaust_signals, release_signals, Signal),
        ?assertEqual(<<"True\n">>, SignalGranted),
        ?assertEqual(sigpending_limit() div 4, Queued),
        %% POSIX message queue bytes, counted per user across IPC
        %% namespaces (Landlock happens to refuse the queues; without it
        %% the limit holds them).
        MqOpen = "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True)\n"
                 "q = libc.mq_open(b'/mcp-host-check-%d' % os.getpid(), os.O_CREAT | os.O_RDWR, 0o600, None)\n"
                 "libc.mq_unlink(b'/mcp-host-check-%d' % os.getpid()); print(q >= 0)",
        {_, MqRefused} = HostWhileHeld(none, exhaust_mqueue, release_mqueue, MqOpen),
        ?assertEqual(<<"False\n">>, MqRefused),
        {_, MqGranted} = HostWhileHeld(#{landlock => false}, exhaust_mqueue, release_mqueue, MqOpen),
        ?assertEqual(<<"True\n">>, MqGranted)
    end))}.

file_integer(Path) ->
    {ok, Text} = file:read_file(Path),
    binary_to_integer(string:trim(Text)).

%% The ptys of every devpts instance but the host's own come from one
%% pool (`kernel.pty.max' minus `kernel.pty.reserve'): bwrap mounts the
%% jail's without a `max=' (shown with its mounts alone), so a server could
%% take the pool other jails and containers draw from. The jail's init
%% remounts it with a quarter of the pool, and the server gets exactly
%% that many. (The pool is not exhausted here: other programs on the
%% machine draw from it.)
pty_pool_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        {ok, Profile} = mcp_jail:profile(jail(true), #{executable => python(), args => [], env => []}),
        Options = "print([l.split(' - ')[1] for l in open('/proc/self/mountinfo') if ' /dev/pts ' in l][0])",
        {0, Unbounded} = run(os:find_executable("bwrap"), Profile ++ ["--", python(), "-c", Options], []),
        ?assertEqual(nomatch, binary:match(Unbounded, <<"max=">>)),
        Share = (file_integer("/proc/sys/kernel/pty/max") - file_integer("/proc/sys/kernel/pty/reserve")) div 4,
        with_client(hostile(Scratch, true), fun(C) ->
            ?assertEqual(<<"ok:", (integer_to_binary(Share))/binary>>, probe(C, exhaust_ptys, [])),
            ?assertEqual(<<"ok">>, probe(C, release_ptys, []))
        end)
    end))}.

%% The VM's soft limit on pending signals, which its children inherit.
sigpending_limit() ->
    {ok, Limits} = file:read_file("/proc/self/limits"),
    [Line] = [L || L <- binary:split(Limits, <<"\n">>, [global]), binary:match(L, <<"Max pending signals">>) =/= nomatch],
    [_, _, _, Soft | _] = string:lexemes(Line, " "),
    binary_to_integer(Soft).

%%% ------------------------------------------------------------ the strict profile

%% A deny list misses what it does not name: under the default profile a
%% server reads the home's other files, a checkout beside it, root-owned
%% 0600 files under /var (the VM runs as root), /etc beyond what a runtime
%% needs. The strict profile shows none of it, while the server still
%% runs (its interpreter, venv and script are its install tree).
strict_profile_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Home = filename:join(Scratch, "home"),
        plant(filename:join(Home, "notes.txt"), <<"home">>),
        plant(filename:join(Scratch, "project/src.txt"), <<"project">>),
        Var = "/var/tmp/mcp-strict-" ++ integer_to_list(erlang:unique_integer([positive])),
        plant(filename:join(Var, "secret"), <<"var">>),
        ok = file:change_mode(filename:join(Var, "secret"), 8#600),
        try
            Reads = [{read_file, [{path, filename:join(Home, "notes.txt")}]},
                     {read_file, [{path, filename:join(Scratch, "project/src.txt")}]},
                     {read_file, [{path, filename:join(Var, "secret")}]},
                     {read_file, [{path, "/etc/machine-id"}]},
                     {read_file, [{path, "/etc/hosts"}]}],
            Run = fun(Jail) -> with_client(hostile(Home, Jail), fun(C) -> [probe(C, T, A) || {T, A} <- Reads] end) end,
            [HomeFile, Project, Secret, MachineId, Hosts] = Run(true),
            ?assertEqual([<<"ok:home">>, <<"ok:project">>, <<"ok:var">>], [HomeFile, Project, Secret]),
            ?assertMatch(<<"ok:", _/binary>>, MachineId),
            ?assertMatch(<<"ok:", _/binary>>, Hosts),
            ?assertEqual([<<"error:ENOENT">>, <<"error:ENOENT">>, <<"error:ENOENT">>, <<"error:ENOENT">>, Hosts],
                         Run(#{profile => strict}))
        after
            _ = os:cmd("rm -rf '" ++ Var ++ "'")
        end
    end))}.

%%% ------------------------------------------------------------ set-user-ID files

%% The server runs as the VM's user: a set-user-ID copy of a program it
%% leaves in a write grant runs with the VM user's rights for any local
%% user who reaches it (the jail's own mounts are `nosuid', the host's are
%% not). Unjailed, every way of making one works and a user of uid 65534
%% runs `id -u' as the VM's uid; jailed, each is refused (`openat2', whose
%% mode the filter cannot read, is unavailable), and what is left runs as
%% 65534.
set_id_test_() ->
    {timeout, 120, ?_test(begin
        ?assert(root()),
        Dir = "/var/tmp/mcp-set-id-" ++ integer_to_list(erlang:unique_integer([positive])),
        ok = file:make_dir(Dir),
        ok = file:change_mode(Dir, 8#755),
        Source = filename:join(Dir, "source"),
        {ok, _} = file:copy("/usr/bin/id", Source),
        ok = file:change_mode(Source, 8#4755),
        Ways = ["fchmod", "fchmodat", "fchmodat2", "openat", "tmpfile", "openat2", "cp", "install"]
            ++ [Way || Way <- ["chmod", "open", "creat", "mknod"],  % in x86_64's table only
                       lists:prefix("x86_64", erlang:system_info(system_architecture))],
        Made = fun(Jail, Into) ->
                   with_client(hostile(Dir, Jail), fun(C) ->
                       [{Way, Path, probe(C, set_id, [{path, Path}, {how, Way}, {source, Source}])}
                        || Way <- Ways, Path <- [filename:join(Into, Way)]]
                   end)
               end,
        %% The jailed server's grant holds no set-ID file (one that does is
        %% refused: `setid_file_in_a_write_grant_test_').
        Free = filename:join(Dir, "free"),
        Grant = filename:join(Dir, "jailed"),
        ok = file:make_dir(Free),
        ok = file:make_dir(Grant),
        Vm = string:trim(os:cmd("id -u")),
        try
            Unjailed = Made(none, Free),
            [?assertEqual({Way, <<"ok:4755">>}, {Way, Said}) || {Way, _, Said} <- Unjailed],
            [?assertEqual({Way, Vm}, {Way, run_as_nobody(Path)}) || {Way, Path, _} <- Unjailed],
            Jailed = Made(#{write => [Grant]}, Grant),
            Refused = [{Way, Said} || {Way, _, Said} <- Jailed, Way =/= "cp", Way =/= "install"],
            ?assertEqual([{Way, if Way =:= "openat2" -> <<"error:ENOSYS">>; true -> <<"error:EPERM">> end}
                          || {Way, _} <- Refused], Refused),
            %% cp and install leave a copy without the bit (or none).
            [?assertEqual({Way, 0}, {Way, binary_to_integer(Mode, 8) band 8#6000})
             || {Way, _, <<"ok:", Mode/binary>>} <- Jailed, Way =:= "cp" orelse Way =:= "install"],
            [?assertEqual({Way, "65534"}, {Way, run_as_nobody(Path)})
             || {Way, Path, _} <- Jailed, {ok, #file_info{mode = Mode}} <- [file:read_file_info(Path)],
                Mode band 8#001 =/= 0]
        after
            _ = os:cmd("rm -rf '" ++ Dir ++ "'")
        end
    end)}.

%% What `Path -u' prints (its effective uid) run by uid 65534.
run_as_nobody(Path) ->
    {_, Said} = run(os:find_executable("setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", Path, "-u"], []),
    string:trim(binary_to_list(Said)).

%%% ------------------------------------------------------------ the filter by path

%% A filter bwrap reads by path can be replaced between the VM's check and
%% bwrap's read by a server of the same user with a write grant on its
%% directory (another VM's jail granted `/tmp'): shown with the filter read
%% from a file in a grant, which a jailed server swaps for an allow-all
%% program, after which the next jail opens a Unix socket. The jail's
%% command carries the filter itself, which the launcher puts on a sealed
%% memfd as bwrap's fd 3: no path leads to it, writes to it fail, and a
%% server granted `/tmp' has nothing to swap.
filter_by_path_test_() ->
    {timeout, 120, ?_test(in_scratch(fun(Scratch) ->
        Dir = filename:join(Scratch, "filters"),
        File = filename:join(Dir, "seccomp.bpf"),
        {ok, Filter} = mcp_nif:jail_seccomp_filter(false),
        plant(File, Filter),
        AllowAll = filename:join(Dir, "allow.bpf"),
        plant(AllowAll, <<6:16/native, 0, 0, 16#7fff0000:32/native>>),  % BPF_RET | BPF_K, SECCOMP_RET_ALLOW
        {ok, Profile} = mcp_jail:profile(jail(true), #{executable => python(), args => [], env => []}),
        UnixSocket = "import socket; socket.socket(socket.AF_UNIX)",
        ByPath = fun() ->
                     run("/bin/sh", ["-c", "exec \"$@\" 3<\"$0\"", File, os:find_executable("bwrap") | Profile]
                                    ++ ["--seccomp", "3", "--", python(), "-c", UnixSocket], [])
                 end,
        {Refused, _} = ByPath(),
        ?assertEqual(1, Refused),
        with_client(hostile(Scratch, #{write => [Dir]}), fun(C) ->
            ?assertEqual(<<"ok">>, probe(C, rename, [{source, AllowAll}, {target, File}]))
        end),
        ?assertEqual({0, <<>>}, ByPath()),
        %% The jail's command: the launcher with the filter's bytes.
        Target = #{executable => python(), args => ["-c", UnixSocket], env => []},
        {ok, Launcher, ["--seccomp-fd", Hex, "--" | _], _} = mcp_jail:command(jail(true), Target),
        ?assertEqual({ok, Filter}, {ok, binary:decode_hex(list_to_binary(Hex))}),
        Fd3 = "readlink /proc/self/fd/3; od -An -v -tx1 <&3 | tr -d ' \\n'; echo; (echo x >&3) 2>/dev/null || echo sealed",
        ?assertEqual({0, iolist_to_binary(["/memfd:mcp-jail-seccomp (deleted)\n", string:lowercase(Hex), "\nsealed\n"])},
                     run(Launcher, ["--seccomp-fd", Hex, "--", "/bin/sh", "-c", Fd3], [])),
        with_client(hostile(Scratch, true), fun(C) ->
            ?assertEqual(<<"error:EACCES">>, probe(C, unix_connect, [{path, File}]))
        end)
    end))}.

%%% ------------------------------------------------------------ leases and Linux AIO

%% A read lease on a file the VM's user owns makes every open of it for
%% writing on the host (the VM's `file:write_file' included) wait for the
%% lease-break time, 45 s; a host open that may not wait (`O_NONBLOCK')
%% shows it at once with `EWOULDBLOCK'. Jailed, `F_SETLEASE' is refused.
lease_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        File = filename:join(Scratch, "grant/data"),
        plant(File, <<"data">>),
        Open = "import errno, os\n"
               "try: os.close(os.open('" ++ File ++ "', os.O_WRONLY | os.O_NONBLOCK)); print('opened')\n"
               "except OSError as e: print(errno.errorcode[e.errno])",
        HostWhileLeased = fun(Jail) ->
                              with_client(hostile(Scratch, Jail), fun(C) ->
                                  Taken = probe(C, take_lease, [{path, File}]),
                                  {0, Said} = run(python(), ["-c", Open], []),
                                  <<"ok">> = probe(C, release_lease, []),
                                  {Taken, Said}
                              end)
                          end,
        ?assertEqual({<<"ok">>, <<"EAGAIN\n">>}, HostWhileLeased(none)),
        ?assertEqual({<<"error:EPERM">>, <<"opened\n">>}, HostWhileLeased(#{write => [filename:dirname(File)]}))
    end))}.

%% Linux AIO events count against one machine-wide limit (`fs.aio-max-nr'):
%% a server that reserves them all leaves every other program's
%% `io_setup' failing (shown unjailed, released at once). Jailed, AIO is
%% unavailable (`ENOSYS', what a kernel without it answers).
aio_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Setup = "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); c = ctypes.c_ulong(0)\n"
                "print(libc.syscall({'x86_64': 206, 'aarch64': 0}[os.uname().machine], 1, ctypes.byref(c)) == 0)",
        HostWhileHeld = fun(Jail) ->
                            with_client(hostile(Scratch, Jail), fun(C) ->
                                Held = probe(C, exhaust_aio, []),
                                {0, Said} = run(python(), ["-c", Setup], []),
                                <<"ok">> = probe(C, release_aio, []),
                                {Held, Said}
                            end)
                        end,
        {<<"ok:", Events/binary>>, Refused} = HostWhileHeld(none),
        ?assert(binary_to_integer(Events) > 0),
        ?assertEqual(<<"False\n">>, Refused),
        ?assertEqual({<<"error:ENOSYS">>, <<"True\n">>}, HostWhileHeld(true))
    end))}.

%%% ------------------------------------------------------------ homes beyond $HOME

%% The deny list follows the VM user's home in `/etc/passwd' as well as
%% `$HOME': a VM run with another `HOME' (sudo keeping it, a service's)
%% leaves the real home's keys readable otherwise. A file planted in the
%% passwd home's `.ssh' is read unjailed, hidden jailed.
passwd_home_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        [Real] = [Home || Home <- passwd_homes(), filelib:is_dir(Home)],
        Ssh = filename:join(Real, ".ssh"),
        Existed = filelib:is_dir(Ssh),
        Planted = filename:join(Ssh, "mcp-jail-test-" ++ integer_to_list(erlang:unique_integer([positive]))),
        plant(Planted, <<"passwd-home-key">>),
        try
            Home = filename:join(Scratch, "home"),
            ok = filelib:ensure_dir(filename:join(Home, "x")),
            ?assertEqual({[<<"ok:passwd-home-key">>], [<<"error:ENOENT">>]},
                         with_vm_env("HOME", Home, fun() -> both(Home, true, [{read_file, [{path, Planted}]}]) end))
        after
            ok = file:delete(Planted),
            Existed orelse file:del_dir(Ssh)
        end
    end))}.

%% This VM's uid's homes in /etc/passwd.
passwd_homes() ->
    Uid = string:trim(os:cmd("id -u")),
    {ok, Passwd} = file:read_file("/etc/passwd"),
    [binary_to_list(Home) || Line <- binary:split(Passwd, <<"\n">>, [global]),
                             [_, _, Id, _, _, Home | _] <- [binary:split(Line, <<":">>, [global])],
                             binary_to_list(Id) =:= Uid].

%% Credentials the standard variables move out of the home, set in the
%% VM's environment: read unjailed, hidden jailed (a directory as an empty
%% one, `ENOENT' inside it; a file as /dev/null, `EACCES'); one created
%% under `$XDG_CONFIG_HOME' after the start does not appear (the relocated
%% configuration directory is a snapshot, like `~/.config').
relocated_credentials_test_() ->
    {timeout, 90, ?_test(in_scratch(fun(Scratch) ->
        At = fun(Relative) -> filename:join(Scratch, Relative) end,
        Vars = [{"XDG_CONFIG_HOME", At("xdgcfg")}, {"XDG_DATA_HOME", At("xdgdata")}, {"GNUPGHOME", At("gnupg")},
                {"CARGO_HOME", At("cargo")}, {"DOCKER_CONFIG", At("docker")}, {"GH_CONFIG_DIR", At("ghdir")},
                {"CLOUDSDK_CONFIG", At("gcloud")}, {"PASSWORD_STORE_DIR", At("pass")},
                {"KUBECONFIG", At("kube/a") ++ ":" ++ At("kube/b")},
                {"AWS_SHARED_CREDENTIALS_FILE", At("aws/creds")}, {"AWS_CONFIG_FILE", At("aws/conf")},
                {"NPM_CONFIG_USERCONFIG", At("npm/rc")}],
        Planted = [{"xdgcfg/gh/hosts.yml", <<"error:ENOENT">>}, {"xdgcfg/gcloud/credentials.db", <<"error:ENOENT">>},
                   {"xdgcfg/git/credentials", <<"error:EACCES">>}, {"xdgcfg/erlang/.erlang.cookie", <<"error:EACCES">>},
                   {"xdgdata/keyrings/login.keyring", <<"error:ENOENT">>}, {"gnupg/secring.gpg", <<"error:ENOENT">>},
                   {"cargo/credentials.toml", <<"error:EACCES">>}, {"docker/config.json", <<"error:ENOENT">>},
                   {"ghdir/hosts.yml", <<"error:ENOENT">>}, {"gcloud/access_tokens.db", <<"error:ENOENT">>},
                   {"pass/bank.gpg", <<"error:ENOENT">>}, {"kube/a", <<"error:EACCES">>}, {"kube/b", <<"error:EACCES">>},
                   {"aws/creds", <<"error:EACCES">>}, {"aws/conf", <<"error:EACCES">>}, {"npm/rc", <<"error:EACCES">>},
                   {"xdgcfg/app/settings", <<"ok:secret">>}],
        [plant(At(Path), <<"secret">>) || {Path, _} <- Planted],
        Reads = [{read_file, [{path, At(Path)}]} || {Path, _} <- Planted],
        Late = [{read_file, [{path, At("xdgcfg/op/config")}]}],
        Home = At("home"),
        ok = filelib:ensure_dir(filename:join(Home, "x")),
        with_vm_envs(Vars, fun() ->
            {Free, Jailed} = both(Home, true, Reads),
            ?assertEqual([<<"ok:secret">> || _ <- Planted], Free),
            ?assertEqual([Expected || {_, Expected} <- Planted], Jailed),
            {ok, C, _} = mcp_client:start(hostile(Home, true), #{}),
            try
                plant(At("xdgcfg/op/config"), <<"late">>),
                ?assertEqual([<<"error:ENOENT">>], [probe(C, T, A) || {T, A} <- Late])
            after
                _ = mcp_client:shutdown(C, ?TIMEOUT)
            end
        end)
    end))}.

with_vm_envs([], Fun) -> Fun();
with_vm_envs([{Name, Value} | Rest], Fun) -> with_vm_env(Name, Value, fun() -> with_vm_envs(Rest, Fun) end).

%%% ------------------------------------------------------------ strict: homes and TLS keys

%% The strict profile shows a server's install tree; taken naively, a
%% server in `~/bin' has the home as its prefix, one in `~/.local/bin' all
%% of `~/.local' (keyrings, histories), and a working directory whose
%% `node_modules' links into the home (planted by an earlier run with a
%% write grant on it) shows the home too; a working directory that is the
%% home shows it whole. Each is read unjailed; under strict the server runs
%% (from its file alone) and the home stays an empty tmpfs, and a home as
%% the working directory is refused (`cd_hidden').
strict_homes_test_() ->
    {timeout, 120, ?_test(in_scratch(fun(Scratch) ->
        Home = filename:join(Scratch, "home"),
        plant(filename:join(Home, "notes/secret.txt"), <<"home-secret">>),
        plant(filename:join(Home, ".local/share/fish/fish_history"), <<"history">>),
        Server = mcp_e2e_tests:installed("test/e2e/hostile_server.py"),
        InBin = filename:join(Home, "bin/hostile_server.py"),
        InLocal = filename:join(Home, ".local/bin/hostile_server.py"),
        lists:foreach(fun(Copy) -> ok = filelib:ensure_dir(Copy), {ok, _} = file:copy(Server, Copy) end, [InBin, InLocal]),
        Project = filename:join(Scratch, "proj"),
        ok = filelib:ensure_dir(filename:join(Project, "x")),
        ok = file:make_symlink("../home", filename:join(Project, "node_modules")),
        Reads = [{read_file, [{path, filename:join(Home, "notes/secret.txt")}]},
                 {read_file, [{path, filename:join(Home, ".local/share/fish/fish_history")}]}],
        Spawns = [maps:put(args, [Script], hostile(Home, none)) || Script <- [InBin, InLocal]]
            ++ [maps:put(cd, Project, hostile(Home, none))],
        InHome = maps:put(cd, Home, hostile(Home, none)),
        Strict = fun(Spawn) -> Spawn#{jail => jail(#{profile => strict})} end,
        Run = fun(Spawn) -> with_client(Spawn, fun(C) -> [probe(C, T, A) || {T, A} <- Reads] end) end,
        [?assertEqual([<<"ok:home-secret">>, <<"ok:history">>], Run(Spawn)) || Spawn <- [InHome | Spawns]],
        [?assertEqual([<<"error:ENOENT">>, <<"error:ENOENT">>], Run(Strict(Spawn))) || Spawn <- Spawns],
        %% A home as the working directory is not shown: the start says so.
        ?assertEqual({error, {transport_failed, {bad_jail, {cd_hidden, Home}}}}, mcp_client:start(Strict(InHome), #{}))
    end))}.

%% `/etc/ssl/private' holds the host's TLS keys, readable when the VM runs
%% as root: read unjailed; hidden under the default profile (on the deny
%% list) and under strict (not among the certificate parts it shows),
%% which both still show the certificates.
strict_tls_keys_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        ?assert(root()),
        Key = "/etc/ssl/private/mcp-jail-test-" ++ integer_to_list(erlang:unique_integer([positive])) ++ ".key",
        plant(Key, <<"tls-key">>),
        try
            Reads = [{read_file, [{path, Key}]}, {read_file, [{path, "/etc/ssl/certs/ca-certificates.crt"}]}],
            Run = fun(Jail) -> with_client(hostile(Scratch, Jail), fun(C) -> [probe(C, T, A) || {T, A} <- Reads] end) end,
            ?assertMatch([<<"ok:tls-key">>, <<"ok:", _/binary>>], Run(none)),
            [?assertMatch([<<"error:ENOENT">>, <<"ok:-----BEGIN CERTIFICATE", _/binary>>], Run(Jail))
             || Jail <- [true, #{profile => strict}]]
        after
            ok = file:delete(Key)
        end
    end))}.

%% Strict hides the denied paths under a grant as the default profile
%% does: a home granted whole still hides `.ssh' (read unjailed), and a
%% caller's deny inside a write grant holds.
strict_denies_under_grants_test_() ->
    {timeout, 120, ?_test(in_scratch(fun(Scratch) ->
        Home = filename:join(Scratch, "home"),
        plant(filename:join(Home, ".ssh/id_ed25519"), <<"ssh-key">>),
        plant(filename:join(Home, "notes/plain.txt"), <<"plain">>),
        Work = filename:join(Scratch, "work"),
        plant(filename:join(Work, "private/secret.txt"), <<"work-secret">>),
        Reads = [{read_file, [{path, filename:join(Home, ".ssh/id_ed25519")}]},
                 {read_file, [{path, filename:join(Home, "notes/plain.txt")}]},
                 {read_file, [{path, filename:join(Work, "private/secret.txt")}]}],
        Run = fun(Jail) -> with_client(hostile(Home, Jail), fun(C) -> [probe(C, T, A) || {T, A} <- Reads] end) end,
        ?assertEqual([<<"ok:ssh-key">>, <<"ok:plain">>, <<"ok:work-secret">>], Run(none)),
        [?assertMatch([<<"error:", _/binary>>, <<"ok:plain">>, <<"error:", _/binary>>],
                      Run(#{profile => Profile, read => [Home], write => [Work],
                            deny => [filename:join(Work, "private")]}))
         || Profile <- [default, strict]]
    end))}.

%% Strict never shows a home through a link to it: as the working
%% directory (refused), or as the prefix of the executable's path (only
%% the file is shown).
strict_link_to_a_home_test_() ->
    {timeout, 120, ?_test(in_scratch(fun(Scratch) ->
        Home = filename:join(Scratch, "home"),
        plant(filename:join(Home, "notes/secret.txt"), <<"home-secret">>),
        Link = filename:join(Scratch, "homelink"),
        ok = file:make_symlink("home", Link),
        InBin = filename:join(Home, "bin/hostile_server.py"),
        ok = filelib:ensure_dir(InBin),
        {ok, _} = file:copy(mcp_e2e_tests:installed("test/e2e/hostile_server.py"), InBin),
        Secret = [{read_file, [{path, filename:join(Link, "notes/secret.txt")}]}],
        Through = maps:put(args, [filename:join(Link, "bin/hostile_server.py")], hostile(Home, none)),
        Run = fun(Spawn) -> with_client(Spawn, fun(C) -> [probe(C, T, A) || {T, A} <- Secret] end) end,
        ?assertEqual([<<"ok:home-secret">>], Run(Through)),
        ?assertEqual([<<"error:ENOENT">>], Run(Through#{jail => jail(#{profile => strict})})),
        ?assertEqual({error, {transport_failed, {bad_jail, {cd_hidden, Link}}}},
                     mcp_client:start((hostile(Home, none))#{cd => Link, jail => jail(#{profile => strict})}, #{}))
    end))}.

%% A set-ID file already in a write grant: writing it through a shared
%% mapping keeps its bit (shown here, unjailed), so a jailed server could
%% turn it into anyone's way to the owner's uid; such a grant is refused.
setid_file_in_a_write_grant_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Grant = filename:join(Scratch, "grant"),
        Helper = filename:join(Grant, "sub/helper"),
        plant(Helper, binary:copy(<<"x">>, 4096)),
        ok = file:change_mode(Helper, 8#4755),
        Rewrite = "import mmap, os; f = os.open('" ++ Helper ++ "', os.O_RDWR); m = mmap.mmap(f, 0); "
                  "m[:4] = b'ELF!'; m.flush(); print(oct(os.stat('" ++ Helper ++ "').st_mode & 0o7777))",
        ?assertEqual("0o4755\n", os:cmd(python() ++ " -c \"" ++ Rewrite ++ "\"")),
        ?assertEqual({error, {transport_failed, {bad_jail, {setid_file_in_grant, Helper}}}},
                     mcp_client:start(hostile(Scratch, #{write => [Grant]}), #{})),
        ok = file:change_mode(Helper, 8#755),
        with_client(hostile(Scratch, #{write => [Grant]}), fun(_) -> ok end)
    end))}.

%% A relocation variable with a relative value (resolved by the tool
%% against its working directory) is followed like an absolute one.
relative_relocation_test_() ->
    {timeout, 60, ?_test(in_scratch(fun(Scratch) ->
        Work = filename:join(Scratch, "work"),
        plant(filename:join(Work, "gnupg/private-keys-v1.d/key"), <<"gpg-key">>),
        Spawn = (hostile(Scratch, none))#{cd => Work,
                                           env => [{"HOME", filename:join(Scratch, "home")}, {"GNUPGHOME", "gnupg"},
                                                   {"PYTHONUNBUFFERED", "1"}]},
        Read = [{read_file, [{path, filename:join(Work, "gnupg/private-keys-v1.d/key")}]}],
        Run = fun(S) -> with_client(S, fun(C) -> [probe(C, T, A) || {T, A} <- Read] end) end,
        ?assertEqual([<<"ok:gpg-key">>], Run(Spawn)),
        ?assertMatch([<<"error:", _/binary>>], Run(Spawn#{jail => jail(true)}))
    end))}.

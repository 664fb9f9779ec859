%% @doc Jailed servers: the bubblewrap (`bwrap') command line an MCP server
%% runs under when its spawn spec says `jail => true | Options'
%% (`mcp_port:open/2' calls `command/2' before anything is spawned). The
%% threat model, the profile line by line and how to grant what a server
%% needs are in `docs/jail.md'.
%%
%% Invariants:
%% <ul>
%% <li>Never a silent fallback: when bwrap is missing, cannot build a
%%     sandbox on this host (no user namespaces, no seccomp) or the seccomp
%%     filter cannot be written, the answer is
%%     `{error, {jail_unavailable, Why}}' and nothing runs unjailed. The
%%     host is probed once per bwrap path; a success is remembered for the
%%     VM's life (`persistent_term'), a failure is not, so fixing the host
%%     needs no restart.</li>
%% <li>A spec is validated before anything runs: every path absolute,
%%     without a `..' component or a NUL, every grant existing; an error
%%     names what is wrong and the offending path, option or value
%%     (`{error, {bad_jail, {What, Detail}}}').
%%     A `read' or `write' grant never goes through a symbolic link. The
%%     executable (and the real path it leads to) and `cd' must be visible
%%     inside the jail (not under the private `/tmp' or `/run' or a denied
%%     path unless a grant re-exposes them).</li>
%% <li>No default widens what a server reaches: under the strict profile
%%     (`profile => strict', `strict_base/3') reads only what it lists,
%%     never a home whole (`shows_home/2');
%%     under the default one, reads everywhere except the
%%     deny list (`default_deny/1' for `$HOME', the passwd home and the
%%     child's, `relocated_credentials/1', plus the caller's `deny'), with the
%%     homes' directories that hold denied names shown as they were at the
%%     start; writes only to a private `/tmp' and the `write' grants; no
%%     kernel setting under `/proc'; every namespace unshared (the network
%%     only with `net => true'), no capabilities, no nested user namespace,
%%     a new session, death with its parent, and exactly the spawn's
%%     computed environment. The seccomp filter of `mcp_core::seccomp' (via
%%     `mcp_nif') always applies: socket families other than INET, INET6
%%     and NETLINK (and Unix, with `unix_sockets => true'), datagram socket
%%     pairs, io_uring, Linux AIO, `openat2', keyrings, tracing, leases,
%%     set-user-ID and set-group-ID modes and foreign ABIs are refused.
%%     The jail's init is the launcher `priv/mcp-landlock', which
%%     the server cannot write, and which runs the server restricted by
%%     Landlock to writing only beneath the write grants, the tmpfs
%%     mounts, `/dev' and `/proc' (a FIFO on a read-only mount refuses the
%%     open); a launcher missing from `priv' is `jail_unavailable', never a
%%     jail without it, and so is a kernel without Landlock unless the spec
%%     says `landlock => false'.</li>
%% <li>The server's environment is never on a command line: it is carried
%%     in the spawned process's environment (`carried/1') and decoded by
%%     the launcher.</li>
%% <li>The port's child stays the witness: the child is the launcher
%%     (`--seccomp-fd'), which puts the filter on a sealed memfd as fd 3
%%     (no path leads to it) and `exec's bwrap (the same pid); bwrap
%%     exits with its jailed child's status, or 128 + N
%%     when it died by signal N, as the port reports an unjailed child. In
%%     the pid namespace every descendant dies with bwrap.</li>
%% </ul>
-module(mcp_jail).

-include_lib("kernel/include/file.hrl").

%% Where the homes of users other than the VM's are (`shows_home/2').
-define(OTHER_HOMES, ["/home", "/root"]).
%% The entries of the write grants looked at for a set-ID file.
-define(SETID_SCAN_ENTRIES, 10000).

-export([command/2, profile/2, default_deny/1, real_path/1, offline_launcher/2]).
-export_type([spec/0, target/0, bad_jail/0, unavailable/0]).

-type path() :: file:filename_all().
-type spec() :: true
              | #{write => [path()],
                  read => [path()],
                  deny => [path()],
                  net => boolean(),
                  unix_sockets => boolean(),
                  landlock => boolean(),
                  profile => default | strict,
                  bwrap => path()}.
%% What `mcp_port' runs inside the jail: an absolute executable, its
%% arguments, the child's whole environment and its working directory.
-type target() :: #{executable := string(),
                    args := [binary() | string()],
                    env := [{string(), string()}],
                    cd => path()}.
-type bad_jail() :: {bad_jail, {unknown_option, term()}
                              | {not_a_boolean, {net | unix_sockets | landlock, term()}}
                              | {unknown_profile, term()}
                              | {not_a_list, {write | read | deny, term()}}
                              | {not_a_path, term()}
                              | {relative_path, string()}
                              | {parent_reference, string()}
                              | {nul_character, string()}
                              | {missing_grant, string()}
                              | {symlinked_grant, string()}
                              | {setid_file_in_grant, string()}
                              | {executable_hidden, string()}
                              | {executable_hidden, {Link :: string(), RealPath :: file:filename_all(), Grant :: file:filename_all()}}
                              | {cd_hidden, string()}}.
-type unavailable() :: {jail_unavailable, {bwrap_not_found, string()}
                                        | {probe_failed, Status :: integer(), Output :: binary()}
                                        | probe_timed_out
                                        | {unsupported_architecture, string()}
                                        | {launcher_missing, file:filename_all()}
                                        | landlock_unavailable}.

%% How long the availability probe (a jailed `exit 0', ~20 ms) may take.
-define(PROBE_TIMEOUT_MS, 10000).
%% Bytes of the probe's output kept for the error.
-define(PROBE_OUTPUT_BYTES, 512).
%% The shell the availability probe runs in the jail.
-define(SHELL, "/bin/sh").
%% Where the Landlock launcher appears inside the jail (the private /run).
-define(LAUNCHER_IN_JAIL, "/run/mcp-landlock").
%% What the launcher, the jail's init, holds inside the jail's user
%% namespace until it has made the mounts private and set the namespace's
%% limits (no nested user namespace, inotify); it drops them all, and
%% checks, before it forks the server (`mcp_os::jail_init').
-define(INIT_CAPABILITIES, ["CAP_SYS_ADMIN", "CAP_SYS_RESOURCE", "CAP_SETPCAP"]).
%% The prefix of the names the server's variables are carried under.
-define(CARRIER, "MCP_JAIL_ENV_").

-define(OPTIONS, [write, read, deny, net, unix_sockets, landlock, profile, bwrap]).

%% The strict profile's system: the runtime every program needs (links
%% among them, as on a merged-/usr system, are recreated as links) and the
%% `/etc' entries a runtime reads (loader, resolver, certificates, users
%% and groups, time zone, the alternatives Debian's /usr/bin links go
%% through).
-define(STRICT_SYSTEM, ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]).
-define(STRICT_ETC, ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                     "/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/nsswitch.conf", "/etc/gai.conf",
                     "/etc/services", "/etc/protocols", "/etc/passwd", "/etc/group", "/etc/localtime",
                     "/etc/timezone", "/etc/ca-certificates", "/etc/ca-certificates.conf",
                     "/etc/crypto-policies", "/etc/os-release", "/etc/mime.types", "/etc/gitconfig"]).

%% The file type bits of a mode, and a FIFO's (`file:read_file_info/1'
%% calls every special file `other').
-define(S_IFMT, 8#170000).
-define(S_IFIFO, 8#010000).

%% Symbolic links followed when resolving a path (the kernel's limit).
-define(MAX_LINKS, 40).

%% The parts of the jail's /proc that reach the host's kernel rather than
%% the jail's processes: kernel settings (checked by uid, so a jailed root
%% could write the host's), interrupts, buses, the SysRq trigger, pressure
%% triggers. Each is bound read-only from the host's /proc, which shows
%% the same files (a setting that belongs to a namespace, such as
%% `net/', shows the reader's).
-define(PROC_COVERED, ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/pressure"]).
%% The parts of the jail's /proc that list the host's keys by name
%% (keyrings are not namespaced): covered by /dev/null, like a denied file.
-define(PROC_HIDDEN, ["/proc/keys", "/proc/key-users"]).

%% Where a server writes nothing and finds nothing of the host: private
%% tmpfs mounts (the host's /run holds sockets and per-user secrets).
-define(PRIVATE_DIRS, ["/tmp", "/run"]).

%% @doc The program, argv and environment `mcp_port' spawns for `Target'
%% jailed by `Jail', after validating the spec and checking (once per VM)
%% that the jail can run here. The environment is the whole of the
%% spawned process's: `Target''s carried under other names (`carried/1'),
%% never on the argv.
-spec command(spec(), target()) ->
          {ok, Program :: string(), Argv :: [string() | binary()], Env :: [{string(), string()}]}
        | {error, bad_jail() | unavailable()}.
command(Jail, Target) ->
    case options(Jail) of
        {ok, Options} ->
            case bwrap(Options) of
                {ok, Bwrap} ->
                    case available(Bwrap) of
                        ok -> wrapped(Bwrap, Options, Target);
                        {error, _} = Error -> Error
                    end;
                {error, _} = Error ->
                    Error
            end;
        {error, _} = Error ->
            Error
    end.

%% @doc The bwrap arguments for `Target' under `Jail' (without bwrap
%% itself and without `--seccomp'): the profile of `docs/jail.md'. For
%% tests and documentation; `command/2' is what spawns use.
-spec profile(spec(), target()) -> {ok, [string() | binary()]} | {error, bad_jail()}.
profile(Jail, Target) ->
    case options(Jail) of
        {ok, Options} ->
            case arguments(Options, Target) of
                {ok, Arguments, _Mounts} -> {ok, Arguments};
                {error, _} = Error -> Error
            end;
        {error, _} = Error -> Error
    end.

wrapped(Bwrap, #{unix_sockets := UnixSockets} = Options, Target) ->
    case {arguments(Options, Target), filter(UnixSockets), landlock()} of
        {{ok, Arguments, Mounts}, {ok, Filter}, {ok, {Launcher, _} = Landlock}} ->
            case launcher(Landlock, maps:get(landlock, Options), Mounts) of
                {ok, Bind, Launch} ->
                    {ok, Launcher, ["--seccomp-fd", Filter, "--", Bwrap | Arguments] ++ Bind
                                   ++ ["--seccomp", "3", "--" | Launch] ++ command_line(Target),
                     carried(launcher_env(Options, Target))};
                {error, _} = Error ->
                    Error
            end;
        {{error, _} = Error, _, _} -> Error;
        {_, {error, _} = Error, _} -> Error;
        {_, _, {error, _} = Error} -> Error
    end.

command_line(#{executable := Executable, args := Args}) ->
    [Executable | Args].

%% The child's environment, and for a launcher (`mcp_jail_launcher'): a
%% cache that does not exist moved into the private /tmp, and without the
%% network its offline variable, unless the child's environment sets it.
launcher_env(Options, #{env := Env} = Target) ->
    Private = mcp_jail_launcher:private_env(Target),
    Offline = case {maps:get(net, Options), mcp_jail_launcher:detect(Target)} of
                  {false, #{} = Launcher} -> mcp_jail_launcher:offline_env(Launcher);
                  _ -> []
              end,
    [Variable || {Name, _} = Variable <- Env, not lists:keymember(Name, 1, Private)]
        ++ Private ++ [Variable || {Name, _} = Variable <- Offline, not lists:keymember(Name, 1, Env)].

%% @doc The launcher `Target' runs under `Jail' when the jail keeps it
%% offline (no `net'): what `mcp_describe:offline_launcher/1' turns into
%% the sentence for a launcher that ended before the handshake (a package
%% not in its cache). `none' for any other target or an invalid spec.
-spec offline_launcher(spec(), target()) -> none | mcp_jail_launcher:launcher().
offline_launcher(Jail, Target) ->
    case options(Jail) of
        {ok, #{net := false}} -> mcp_jail_launcher:detect(Target);
        _ -> none
    end.

%% The server's environment as the spawned process's own: each variable
%% `NAME=VALUE' the value of `MCP_JAIL_ENV_<index>' (`mcp_os::jail_env').
%% The processes that carry it (the stderr relay's shell, the filter's
%% shell, bwrap) show it in `/proc/<pid>/environ', readable by their owner
%% alone, never in `/proc/<pid>/cmdline', which every local user reads;
%% under these names none of it acts on them (an `LD_PRELOAD' meant for
%% the server never loads into bwrap or the launcher). The launcher
%% decodes it.
carried(Env) ->
    [{?CARRIER ++ integer_to_list(Index), Name ++ "=" ++ Value}
     || {Index, {Name, Value}} <- lists:enumerate(0, Env)].

%% The launcher bound into the jail (its init, `--as-pid-1') and the
%% words that run the server through it: with Landlock, allowed to write
%% beneath `writable/1' alone; `--no-landlock' only when the spec says
%% `landlock => false'. A kernel without Landlock refuses a jail that
%% relies on it: the caller accepts the weaker jail by name, never by
%% default.
launcher({_Path, 0}, true, _Mounts) ->
    {error, {jail_unavailable, landlock_unavailable}};
launcher({Path, Abi}, Landlock, Mounts) ->
    Restriction = case Landlock andalso Abi > 0 of
                      false -> ["--no-landlock"];
                      true -> lists:append([["--writable", Dir] || Dir <- writable(Mounts)])
                  end,
    Views = lists:append([["--copy-on-write", Dir] || {copy_on_write, Dir} <- Mounts]),
    %% An overlay's mounter needs CAP_DAC_OVERRIDE (the kernel makes its
    %% work directory with mode 0): the init holds it, in the jail's user
    %% namespace, only when it mounts views, and drops it with the rest.
    Capabilities = ?INIT_CAPABILITIES ++ ["CAP_DAC_OVERRIDE" || Views =/= []],
    {ok, ["--ro-bind", Path, ?LAUNCHER_IN_JAIL | lists:append([["--cap-add", Cap] || Cap <- Capabilities])],
     [?LAUNCHER_IN_JAIL, "--init" | Views] ++ Restriction ++ ["--"]}.

%% Where the jail meant writes to go: the write grants, the private and
%% hiding tmpfs mounts, a launcher's copy-on-write views of its caches
%% (the server's own copies), the jail's own /dev and /proc. Everywhere else is
%% a read-only mount, which stops writes to files but not to a FIFO; the
%% launcher's Landlock rules stop those too.
writable(Mounts) ->
    [Path || {Kind, Path} <- Mounts, Kind =:= bind orelse Kind =:= tmpfs orelse Kind =:= copy_on_write]
        ++ ["/dev", "/proc"].

%%% ------------------------------------------------------------ the spec

options(true) ->
    options(#{});
options(Jail) when is_map(Jail) ->
    case [Key || Key <- maps:keys(Jail), not lists:member(Key, ?OPTIONS)] of
        [Unknown | _] -> {error, {bad_jail, {unknown_option, Unknown}}};
        [] -> mcp_checks:run([fun() -> grants(write, Jail, must_exist) end,
                       fun() -> grants(read, Jail, must_exist) end,
                       fun() -> grants(deny, Jail, may_be_absent) end,
                       fun() -> flag(net, Jail) end,
                       fun() -> flag(unix_sockets, Jail) end,
                       fun() -> flag(landlock, Jail, true) end,
                       fun() -> profile_option(Jail) end,
                       fun() -> bwrap_option(Jail) end], #{})
    end;
options(Other) ->
    {error, {bad_jail, {unknown_option, Other}}}.

grants(Key, Jail, Existence) ->
    case maps:get(Key, Jail, []) of
        [Char | _] = Text when is_integer(Char) ->
            %% One path given as a string where a list of paths belongs.
            {error, {bad_jail, {not_a_list, {Key, Text}}}};
        List when is_list(List) ->
            case lists:foldl(fun(Given, Acc) -> grant(Given, Existence, Acc) end, {ok, []}, List) of
                {ok, Paths} when Key =:= write ->
                    case setid_file(Paths, ?SETID_SCAN_ENTRIES) of
                        none -> {ok, #{Key => lists:reverse(Paths)}};
                        {found, File} -> {error, {bad_jail, {setid_file_in_grant, File}}}
                    end;
                {ok, Paths} -> {ok, #{Key => lists:reverse(Paths)}};
                {error, _} = Error -> Error
            end;
        Other ->
            {error, {bad_jail, {not_a_list, {Key, Other}}}}
    end.

grant(_Given, _Existence, {error, _} = Error) ->
    Error;
grant(Given, Existence, {ok, Paths}) ->
    case absolute_path(Given) of
        {ok, Path} when Existence =:= must_exist ->
            case {filelib:is_file(Path), through_symlink(Path)} of
                {false, _} -> {error, {bad_jail, {missing_grant, Path}}};
                {true, true} -> {error, {bad_jail, {symlinked_grant, Path}}};
                {true, false} -> {ok, [Path | Paths]}
            end;
        {ok, Path} ->
            {ok, [Path | Paths]};
        {error, _} = Error ->
            Error
    end.

%% A set-user-ID or set-group-ID regular file in a write grant: a jailed
%% server cannot make one (the filter refuses the mode), but one already
%% there it could rewrite through a shared writable mapping, which keeps
%% the bit, and any local user would then run its code as the file's
%% owner. The grant is refused; its first `?SETID_SCAN_ENTRIES' entries
%% are looked at (links not followed), what lies past them is not.
setid_file([], _Budget) ->
    none;
setid_file(_Paths, 0) ->
    none;
setid_file([Path | Rest], Budget) ->
    case file:read_link_info(Path, [raw]) of
        {ok, #file_info{type = regular, mode = Mode}} when Mode band 8#6000 =/= 0 ->
            {found, unicode:characters_to_list(Path)};
        {ok, #file_info{type = directory}} ->
            Children = case file:list_dir_all(Path) of
                           {ok, Names} -> [filename:join(Path, Name) || Name <- Names];
                           {error, _} -> []
                       end,
            setid_file(Children ++ Rest, Budget - 1);
        _ ->
            setid_file(Rest, Budget - 1)
    end.

%% An absolute path without `..' or NUL, as a string.
absolute_path(Given) when is_binary(Given); is_list(Given) ->
    case unicode:characters_to_list(Given) of
        Path when is_list(Path), Path =/= [] ->
            case {filename:pathtype(Path), lists:member("..", filename:split(Path)), lists:member(0, Path)} of
                {_, _, true} -> {error, {bad_jail, {nul_character, Path}}};
                {absolute, false, false} -> {ok, Path};
                {absolute, true, false} -> {error, {bad_jail, {parent_reference, Path}}};
                {_, _, false} -> {error, {bad_jail, {relative_path, Path}}}
            end;
        _ ->
            {error, {bad_jail, {not_a_path, Given}}}
    end;
absolute_path(Other) ->
    {error, {bad_jail, {not_a_path, Other}}}.

%% Whether a component of the absolute `Path' (the last one included) is a
%% symbolic link. A grant is bound where its path leads: through a link, a
%% server that could write the link's directory in an earlier run chooses
%% what the next run is granted (a link to `/' grants the whole host).
through_symlink(Path) ->
    [Root | Names] = filename:split(Path),
    {_, Linked} = lists:foldl(fun(Name, {Dir, Seen}) ->
                                      Next = filename:join(Dir, Name),
                                      {Next, Seen orelse own_type(Next) =:= symlink}
                              end, {Root, false}, Names),
    Linked.

%% The type of `Path' itself (a link is a `symlink', not its target's).
own_type(Path) ->
    case file:read_link_info(Path) of
        {ok, #file_info{type = Type}} -> Type;
        {error, _} -> none
    end.

%% @doc The path the absolute `Path' leads to once every symbolic link on
%% it is followed (at most 40, as the kernel's `ELOOP') and every `.' and
%% `..' applied where the kernel applies them: after the links before them
%% (`node_modules/.bin/cli -> ../pkg/cli.js' leads into `node_modules/pkg',
%% not into `.bin'). What cannot be resolved stays as it is.
-spec real_path(file:filename_all()) -> file:filename_all().
real_path(Path) ->
    real_path(filename:split(Path), [], ?MAX_LINKS).

real_path([], Resolved, _) ->
    filename:join(lists:reverse(Resolved));
real_path(_, Resolved, 0) ->
    filename:join(lists:reverse(Resolved));
real_path(["." | Rest], Resolved, Links) ->
    real_path(Rest, Resolved, Links);
real_path([".." | Rest], [_Name, _ | _] = Resolved, Links) ->
    real_path(Rest, tl(Resolved), Links);
real_path([".." | Rest], Resolved, Links) ->
    %% `/..' is `/'.
    real_path(Rest, Resolved, Links);
real_path([Name | Rest], Resolved, Links) ->
    Here = filename:join(lists:reverse([Name | Resolved])),
    case file:read_link_all(Here) of
        {ok, Target} ->
            Base = case Resolved of [] -> "/"; _ -> filename:join(lists:reverse(Resolved)) end,
            real_path(filename:split(filename:absname(Target, Base)) ++ Rest, [], Links - 1);
        {error, _} ->
            real_path(Rest, [Name | Resolved], Links)
    end.

flag(Key, Jail) ->
    flag(Key, Jail, false).

flag(Key, Jail, Default) ->
    case maps:get(Key, Jail, Default) of
        Value when is_boolean(Value) -> {ok, #{Key => Value}};
        Other -> {error, {bad_jail, {not_a_boolean, {Key, Other}}}}
    end.

profile_option(Jail) ->
    case maps:get(profile, Jail, default) of
        Profile when Profile =:= default; Profile =:= strict -> {ok, #{profile => Profile}};
        Other -> {error, {bad_jail, {unknown_profile, Other}}}
    end.

bwrap_option(#{bwrap := Given}) ->
    case absolute_path(Given) of
        {ok, Path} -> {ok, #{bwrap => {given, Path}}};
        {error, _} = Error -> Error
    end;
bwrap_option(_) ->
    {ok, #{bwrap => on_path}}.

bwrap(#{bwrap := {given, Path}}) ->
    case filelib:is_regular(Path) of
        true -> {ok, Path};
        false -> {error, {jail_unavailable, {bwrap_not_found, Path}}}
    end;
bwrap(#{bwrap := on_path}) ->
    case os:find_executable("bwrap") of
        false -> {error, {jail_unavailable, {bwrap_not_found, "bwrap"}}};
        Path -> {ok, Path}
    end.

%%% ------------------------------------------------------------ the profile

arguments(Options, #{executable := Executable, env := Env} = Target) ->
    Homes = homes(Env),
    Caches = launcher_caches(Target),
    Mounts = mounts(Options, Homes, Env, Target, Caches),
    Cd = case Target of
             #{cd := GivenCd} -> {given, filename:absname(unicode:characters_to_list(GivenCd))};
             _ -> none
         end,
    Absolute = filename:absname(Executable),
    Real = real_path(Absolute),
    Views = [{copy_on_write, Cache} || Cache <- Caches, copy_on_write(Cache, Mounts)],
    case {hidden(Absolute, Mounts), hidden(Real, Mounts), Cd} of
        {true, _, _} ->
            {error, {bad_jail, {executable_hidden, Executable}}};
        {false, true, _} ->
            %% A link in a visible directory (a `node_modules/.bin' entry,
            %% a granted one) that leads where the jail hides: the kernel
            %% follows it inside and finds nothing (exit 127).
            {error, {bad_jail, {executable_hidden, {Executable, Real, hd(install_root(Real) ++ [Real])}}}};
        {false, false, {given, Dir}} ->
            case hidden(Dir, Mounts) of
                true -> {error, {bad_jail, {cd_hidden, Dir}}};
                false -> {ok, profile_arguments(Options, Mounts) ++ ["--chdir", Dir], Mounts ++ Views}
            end;
        {false, false, none} ->
            {ok, profile_arguments(Options, Mounts), Mounts ++ Views}
    end.

%% The package caches of the launcher `Target' runs (`mcp_jail_launcher'),
%% each by its real path, that exist as directories.
launcher_caches(Target) ->
    case mcp_jail_launcher:detect(Target) of
        none -> [];
        #{caches := Caches} -> lists:usort([Real || Cache <- Caches, Real <- [real_path(Cache)], filelib:is_dir(Real)])
    end.

%% Whether a cache gets a private copy-on-write view: it is visible, no
%% mount lies inside it (an overlay shows its lower layer without the
%% mounts beneath it: a denied path inside would show), it is not inside a
%% write grant (the caller gave it whole) and the overlay's option syntax
%% reads its path as it is (no comma, colon or backslash).
copy_on_write(Cache, Mounts) ->
    not hidden(Cache, Mounts)
        andalso not lists:any(fun({_, Mount}) -> Mount =/= Cache andalso under(Mount, Cache) end, Mounts)
        andalso not lists:any(fun({bind, Grant}) -> under(Cache, Grant); (_) -> false end, Mounts)
        andalso not lists:any(fun(Char) -> lists:member(Char, ",:\\") end, Cache).

profile_arguments(Options, Mounts) ->
    lists:append([["--ro-bind", "/", "/"] || maps:get(profile, Options) =:= default])  % read everything ...
    ++ ["--dev", "/dev",                     % a minimal /dev (null, zero, urandom, tty, pts, shm)
        "--proc", "/proc"]                   % the jail's own pids only,
    ++ lists:append([["--ro-bind", Path, Path] || Path <- ?PROC_COVERED, filelib:is_file(Path)])  % no kernel settings
    ++ lists:append([["--ro-bind", "/dev/null", Path] || Path <- ?PROC_HIDDEN, filelib:is_file(Path)])  % no key names
    ++ lists:append([mount_arguments(Mount) || Mount <- Mounts])  % ... but not these (strict: only these)
    ++ lists:append([["--remount-ro", Dir] || {Kind, Dir} <- Mounts,  % snapshots and strict's root, once filled
                                             Kind =:= tmpfs_snapshot orelse Kind =:= tmpfs_root])
    ++ ["--unshare-all"]                     % user, ipc, pid, net, uts, cgroup namespaces
    ++ ["--share-net" || maps:get(net, Options)]
    ++ ["--unshare-user",                    % always a user namespace, even when started as root
        "--cap-drop", "ALL",                 % no capability, even for root (the init's three: launcher/3)
        "--die-with-parent",                 % gone when the port's child (bwrap) is
        "--as-pid-1",                        % the launcher is the jail's init, not bwrap's
        "--new-session"].                    % no TIOCSTI into a terminal

%% Every mount over the read-only root, outermost first, so a deeper path
%% always wins over its ancestor (a read grant re-exposes a file inside a
%% denied directory; a deny hides a directory inside a write grant). At
%% the same path a grant wins over a deny, a write grant over a read grant.
mounts(Options, Homes, Env, Target, Caches) ->
    Private = [{tmpfs, Dir} || Dir <- ?PRIVATE_DIRS],
    {Relocated, Moved} = relocated_credentials(Env, [filename:absname(unicode:characters_to_list(Dir))
                                                     || #{cd := Dir} <- [Target]]),
    Denied = real_paths(default_deny(Homes) ++ Moved ++ maps:get(deny, Options)),
    Hides = [Hide || Path <- Denied, Hide <- [hide(Path)], Hide =/= none],
    Reads = maps:get(read, Options) ++ resolver(Options),
    Writes = maps:get(write, Options),
    Exposes = [{ro_bind, Path} || Path <- Reads] ++ [{bind, Path} || Path <- Writes],
    Base = case maps:get(profile, Options) of
               default -> Hides ++ snapshots([{Home, home_credentials()} || Home <- Homes] ++ Relocated,
                                             Denied, Reads ++ Writes);
               strict -> strict_base(Homes, Target, Hides, Caches, Reads ++ Writes)
           end,
    Ranked = [{depth(Path), rank(Kind), Path, Kind} || {Kind, Path} <- Private ++ Base ++ Exposes],
    [{Kind, Path} || {_, _, Path, Kind} <- lists:usort(Ranked)].

%%% ------------------------------------------------------------ the strict profile

%% What the strict profile shows over an empty, read-only root: the
%% system's runtime (`?STRICT_SYSTEM', the `/etc' entries of
%% `?STRICT_ETC'), the install trees of the executable, of its interpreter
%% and of every absolute path among its arguments (`install_root/1'),
%% its working directory, the caches of the launcher it runs
%% (`launcher_caches/1': each gets a copy-on-write view), and each home as
%% an empty private tmpfs; denied paths inside any of those stay hidden.
%% The grants come on top.
strict_base(Homes, #{executable := Executable, args := Args} = Target, Hides, Caches, Grants) ->
    %% The working directory, unless it would show a home (a link in it,
    %% `node_modules' too, is resolved inside the jail: one leading
    %% elsewhere finds nothing).
    Cd = [Dir || #{cd := Given} <- [Target], Dir <- [filename:absname(unicode:characters_to_list(Given))],
                 not shows_home(Dir, Homes)],
    Given = [filename:absname(Executable)]
        ++ [Path || Arg <- Args, Path <- [unicode:characters_to_list(Arg)], is_list(Path),
                    filename:pathtype(Path) =:= absolute, not lists:member(0, Path), filelib:is_file(Path)],
    Trees = lists:usort([Tree || Path <- Given, Candidate <- with_interpreter(Path),
                                 Root <- install_tree(Candidate, Homes), Tree <- [Root, real_path(Root)],
                                 not system_path(Tree), not shows_home(Tree, Homes)]),
    Shown = [{ro_bind, Path} || Path <- ?STRICT_SYSTEM ++ ?STRICT_ETC, own_type(Path) =/= none, own_type(Path) =/= symlink]
        ++ [{{symlink, Link}, Path} || Path <- ?STRICT_SYSTEM, {ok, Link} <- [file:read_link_all(Path)]]
        ++ certificates()
        ++ [{ro_bind, Path} || Path <- Trees ++ Cd ++ Caches],
    Visible = [Path || {_, Path} <- Shown],
    [{tmpfs_root, "/"}]
        ++ [{tmpfs, Home} || Home <- Homes, Home =/= "/"]
        ++ Shown
        %% Denied paths under what is shown or granted stay hidden.
        ++ [Hide || {_, Path} = Hide <- Hides, lists:any(fun(Dir) -> under(Path, Dir) end, Visible ++ Grants)].

%% The path, its real path, and the interpreter its `#!' line names (with
%% that one's real path).
with_interpreter(Path) ->
    Interpreter = case file:open(Path, [read, raw, binary]) of
                      {ok, File} ->
                          Line = file:read(File, 256),
                          ok = file:close(File),
                          case Line of
                              {ok, <<"#!", Rest/binary>>} ->
                                  [First | _] = string:lexemes(hd(binary:split(Rest, <<"\n">>)), " \t") ++ [<<>>],
                                  [unicode:characters_to_list(First) || First =/= <<>>];
                              _ -> []
                          end;
                      {error, _} -> []
                  end,
    lists:usort([Found || Candidate <- [Path | Interpreter], Found <- [Candidate, real_path(Candidate)],
                          is_list(Found), filename:pathtype(Found) =:= absolute]).

%% A program's install tree (`install_root/1'), or the file alone when
%% that tree would show a home whole: a server in `~/bin' (whose prefix is
%% the home), in `~/.local/bin' (`~/.local' holds `share/' with keyrings
%% and histories), a virtual environment made in the home itself.
install_tree(Path, Homes) ->
    case install_root(Path) of
        [Root] ->
            case shows_home(Root, Homes) of
                true -> [Path || filelib:is_regular(Path)];
                false -> [Root]
            end;
        [] -> []
    end.

%% Whether binding `Dir' would show more of a home than a program's own
%% files: `Dir' is a home, holds one, or is one of a home's directories
%% that hold credentials (`.config', `.local', `.local/share', `.cargo',
%% ...), at its path or its real path.
shows_home(Dir, Homes) ->
    %% Other users' homes too: `/home' (and `/root') hold them.
    Known = lists:usort(Homes ++ [real_path(Home) || Home <- Homes] ++ ?OTHER_HOMES),
    lists:any(fun(Shown) ->
                      lists:any(fun(Home) ->
                                        Containers = [Container || Relative <- home_credentials(),
                                                                   Container <- containers(Home, Relative)],
                                        under(Home, Shown) orelse lists:member(Shown, Containers)
                                end, Known)
              end, lists:usort([Dir, real_path(Dir)])).

%% The certificates under `/etc/ssl' and `/etc/pki', without their
%% `private' directories (TLS keys, readable when the VM runs as root):
%% each entry bound, a directory that holds a `private' one opened up in
%% turn.
certificates() ->
    lists:append([certificate_parts(Dir, 3) || Dir <- ["/etc/ssl", "/etc/pki"], own_type(Dir) =:= directory]).

certificate_parts(_Dir, 0) ->
    [];
certificate_parts(Dir, Depth) ->
    Names = case file:list_dir_all(Dir) of
                {ok, Listed} -> lists:sort(Listed);
                {error, _} -> []
            end,
    lists:append([case {Name, own_type(Path), filelib:is_dir(filename:join(Path, "private"))} of
                      {"private", _, _} -> [];
                      {_, directory, true} -> certificate_parts(Path, Depth - 1);
                      _ -> [Entry || {Kind, _} = Entry <- [{entry_kind(Path), Path}], Kind =/= skip]
                  end || Name <- Names, Path <- [filename:join(Dir, Name)]]).

%% The directory a program's files live in: the virtual environment that
%% holds it (a `pyvenv.cfg' beside its `bin'), the outermost
%% `node_modules' above it, the prefix of a `bin' directory (an
%% interpreter's `lib' beside it), else the file itself.
install_root(Path) ->
    Ancestors = ancestors(Path),
    Venvs = [Dir || Dir <- Ancestors, filelib:is_regular(filename:join(Dir, "pyvenv.cfg"))],
    Modules = [Dir || Dir <- lists:reverse(Ancestors), filename:basename(Dir) =:= "node_modules"],
    case {Venvs, Modules, filename:basename(filename:dirname(Path))} of
        {[Venv | _], _, _} -> [Venv];
        {[], [Outermost | _], _} -> [Outermost];
        {[], [], "bin"} -> [filename:dirname(filename:dirname(Path))];
        {[], [], _} -> [Path || filelib:is_file(Path)]
    end.

%% The directories above `Path', nearest first (`/' excluded).
ancestors(Path) ->
    case filename:dirname(Path) of
        Path -> [];
        "/" -> [];
        Parent -> [Parent | ancestors(Parent)]
    end.

system_path(Path) ->
    lists:any(fun(Dir) -> under(Path, Dir) end, ?STRICT_SYSTEM ++ ["/etc"]) orelse Path =:= "/".

rank(tmpfs_root) -> 0;
rank(tmpfs) -> 0;
rank(tmpfs_snapshot) -> 0;
rank(hide_file) -> 0;
rank({symlink, _}) -> 1;
rank(ro_bind) -> 1;
rank(bind) -> 2.

%% The directories of a home (or of a relocated configuration or data
%% directory, `relocated_credentials/1') that hold a denied name (the home itself,
%% `.config', `.local/share', `.cargo', ...) are snapshots: an empty tmpfs
%% in which each entry that existed at the start and is not denied is
%% bound read-only (a symbolic link is recreated as the same link), then
%% made read-only itself. A credential file created later, or replaced by
%% a rename (which leaves a cover on the old file), therefore never
%% appears: only names that existed at the start do. Not snapshotted: `/'
%% (a home of `/' would hide the whole root), a directory that is a
%% symbolic link, one the jail hides anyway (under the private `/tmp' or
%% `/run', or denied), or one inside a grant (the caller granted it whole;
%% its denied paths are still covered).
snapshots(Bases, Denied, Grants) ->
    %% A container that is a link (a home or `.config' elsewhere) is
    %% snapshotted where it leads: the link itself shows it there.
    Containers = lists:usort([real_path(Dir) || {Base, Relatives} <- Bases, Relative <- Relatives,
                                                Dir <- containers(Base, Relative)]),
    Snapshot = [Dir || Dir <- Containers, depth(Dir) > 1, own_type(Dir) =:= directory,
                       not hidden_dir_prefix(Dir),
                       not lists:any(fun(Hidden) -> under(Dir, Hidden) end, Denied),
                       not lists:any(fun(Grant) -> under(Dir, Grant) end, Grants)],
    lists:append([snapshot(Dir, Denied, Snapshot) || Dir <- Snapshot]).

%% `Home' and each directory between it and `Relative''s last component.
containers(Home, Relative) ->
    Parents = lists:droplast(filename:split(Relative)),
    [filename:join([Home | lists:sublist(Parents, N)]) || N <- lists:seq(0, length(Parents))].

snapshot(Dir, Denied, Snapshots) ->
    Names = case file:list_dir_all(Dir) of
                {ok, Listed} -> lists:sort(Listed);
                {error, _} -> []
            end,
    Entries = [{entry_kind(Path), Path} || Name <- Names,
                                            Path <- [filename:join(Dir, Name)],
                                            not lists:member(Path, Denied),
                                            not lists:member(Path, Snapshots)],
    [{tmpfs_snapshot, Dir} | [Entry || {Kind, _} = Entry <- Entries, Kind =/= skip]].

%% How an entry of a snapshot appears: a link as the same link (resolved
%% inside the jail, where a link into a denied path finds it hidden), a
%% FIFO not at all (a read-only mount does not stop writes into one),
%% anything else bound read-only.
entry_kind(Path) ->
    case file:read_link_info(Path) of
        {ok, #file_info{type = symlink}} ->
            case file:read_link_all(Path) of
                {ok, Target} -> {symlink, Target};
                {error, _} -> skip
            end;
        {ok, #file_info{mode = Mode}} when Mode band ?S_IFMT =:= ?S_IFIFO -> skip;
        {ok, _} -> ro_bind;
        {error, _} -> skip
    end.

depth(Path) -> length(filename:split(Path)).

%% Every denied path and the real path it leads to (each symbolic link on
%% it followed): a link denied alone hides the link, not what it leads to
%% (`~/.ssh -> /data/ssh' would leave `/data/ssh/id_ed25519' readable).
real_paths(Paths) ->
    lists:usort(lists:append([[Path, real_path(Path)] || Path <- Paths])).

%% A denied directory becomes an empty tmpfs, a denied file /dev/null; a
%% path that does not exist needs no hiding.
hide(Path) ->
    case file:read_file_info(Path) of
        {ok, #file_info{type = directory}} -> {tmpfs, Path};
        {ok, _} -> {hide_file, Path};
        {error, _} -> none
    end.

mount_arguments({tmpfs_root, "/"}) -> [];         % bwrap's new root is a tmpfs already
mount_arguments({tmpfs, Path}) -> ["--tmpfs", Path];
mount_arguments({tmpfs_snapshot, Path}) -> ["--tmpfs", Path];
mount_arguments({{symlink, Target}, Path}) -> ["--symlink", Target, Path];
mount_arguments({hide_file, Path}) -> ["--ro-bind", "/dev/null", Path];
mount_arguments({ro_bind, Path}) -> ["--ro-bind", Path, Path];
mount_arguments({bind, Path}) -> ["--bind", Path, Path].

%% With the network, name resolution must work: where /etc/resolv.conf is
%% a link into the private /run (systemd-resolved), its target is exposed.
resolver(#{net := true}) ->
    case file:read_link_all("/etc/resolv.conf") of
        {ok, Target} ->
            Absolute = filename:absname(Target, "/etc"),
            [Absolute || hidden_dir_prefix(Absolute), filelib:is_regular(Absolute)];
        {error, _} ->
            []
    end;
resolver(_) ->
    [].

hidden_dir_prefix(Path) ->
    lists:any(fun(Dir) -> under(Path, Dir) end, ?PRIVATE_DIRS).

%% Whether `Path' is invisible in the jail: the deepest mount covering it
%% hides it (a tmpfs or /dev/null), rather than a grant or the root.
hidden(Path, Mounts) ->
    Covering = [{depth(Mount), Kind} || {Kind, Mount} <- Mounts, under(Path, Mount)],
    case lists:last([{0, root} | Covering]) of
        {_, tmpfs_root} -> true;
        {_, tmpfs} -> true;
        {_, tmpfs_snapshot} -> true;
        {_, hide_file} -> true;
        {_, _} -> false
    end.

under(Path, Prefix) ->
    lists:prefix(filename:split(Prefix), filename:split(Path)).

%% The VM user's home (where the credentials live): `$HOME' and its
%% user's home in `/etc/passwd', which differ when the VM runs with
%% another `HOME' (sudo keeping it, a service's); and the child's, when
%% its environment names another.
homes(Env) ->
    Vm = case os:getenv("HOME") of
             false -> case init:get_argument(home) of
                          {ok, [[Home]]} -> [Home];
                          _ -> []
                      end;
             Home -> [Home]
         end,
    Child = [Home || {"HOME", Home} <- Env],
    lists:usort([Home || Home <- Vm ++ passwd_home() ++ Child, Home =/= "", filename:pathtype(Home) =:= absolute]).

%% The home `/etc/passwd' gives the VM's uid (none when the file or the
%% entry is missing: a user known only to another name service).
passwd_home() ->
    Uid = case file:read_file("/proc/self/status") of
              {ok, Status} ->
                  case re:run(Status, <<"\\nUid:\\s+(\\d+)">>, [{capture, all_but_first, list}]) of
                      {match, [Found]} -> Found;
                      nomatch -> none
                  end;
              {error, _} -> none
          end,
    case file:read_file("/etc/passwd") of
        {ok, Passwd} ->
            [unicode:characters_to_list(Home)
             || Line <- binary:split(Passwd, <<"\n">>, [global]),
                [_Name, _Password, Id, _Gid, _Gecos, Home | _] <- [binary:split(Line, <<":">>, [global])],
                binary_to_list(Id) =:= Uid];
        {error, _} ->
            []
    end.

%% Credentials the standard variables move out of the home, in the VM's
%% environment or the child's: `.config/*' entries of the deny list under
%% `$XDG_CONFIG_HOME', `.local/share/*' under `$XDG_DATA_HOME' (both
%% snapshotted like a home's `.config'), and the directories and files
%% that `GNUPGHOME', `CARGO_HOME', `DOCKER_CONFIG', `GH_CONFIG_DIR',
%% `CLOUDSDK_CONFIG', `PASSWORD_STORE_DIR', `KUBECONFIG' (a list),
%% `AWS_SHARED_CREDENTIALS_FILE', `AWS_CONFIG_FILE' and
%% `NPM_CONFIG_USERCONFIG' name. Answers the relocated bases with their
%% relative names (for the snapshots) and every absolute path to deny. A
%% relative value is taken from each directory a tool could resolve it
%% against: the VM's working directory and the server's (`Cds'). A value
%% of `/' is ignored.
relocated_credentials(Env, Cds) ->
    {ok, Cwd} = file:get_cwd(),
    Absolute = fun(Value) ->
                       case filename:pathtype(Value) of
                           absolute -> [Value];
                           _ -> [filename:join(Dir, Value) || Dir <- lists:usort([Cwd | Cds])]
                       end
               end,
    Values = fun(Name) ->
                     Vm = case os:getenv(Name) of false -> []; Value -> [Value] end,
                     lists:usort([Path || Value <- Vm ++ [V || {N, V} <- Env, N =:= Name], Value =/= "",
                                          Path <- Absolute(Value), Path =/= "/"])
             end,
    Under = fun(Prefix) -> [Rest || Relative <- home_credentials(), lists:prefix(Prefix, Relative),
                                    Rest <- [lists:nthtail(length(Prefix), Relative)]] end,
    Bases = [{Dir, Under(".config/")} || Dir <- Values("XDG_CONFIG_HOME")]
        ++ [{Dir, Under(".local/share/")} || Dir <- Values("XDG_DATA_HOME")],
    Named = lists:append([Values(Name) || Name <- ["GNUPGHOME", "DOCKER_CONFIG", "GH_CONFIG_DIR", "CLOUDSDK_CONFIG",
                                                  "PASSWORD_STORE_DIR", "AWS_SHARED_CREDENTIALS_FILE",
                                                  "AWS_CONFIG_FILE", "NPM_CONFIG_USERCONFIG",
                                                  "npm_config_userconfig"]])
        ++ [filename:join(Dir, File) || Dir <- Values("CARGO_HOME"), File <- ["credentials", "credentials.toml"]]
        ++ [Path || List <- [V || {"KUBECONFIG", V} <- Env] ++ [V || V <- [os:getenv("KUBECONFIG")], is_list(V)],
                    File <- string:split(List, ":", all), File =/= "", Path <- Absolute(File), Path =/= "/"],
    {Bases, [filename:join(Dir, Relative) || {Dir, Relatives} <- Bases, Relative <- Relatives] ++ Named}.

%% @doc The paths every jail hides, for the given home directories: the
%% credential stores under each home, this VM's store of remote servers'
%% tokens (`mcp_oauth_token_store:default_dir/0'), the Erlang distribution
%% cookie (under each home and this VM's `XDG_CONFIG_HOME'), and the
%% host's password hashes, SSH host keys and TLS keys (readable when the
%% VM runs as root). Only those that exist are hidden, each at its path and at the
%% real path a symbolic link on it leads to.
-spec default_deny([string()]) -> [string()].
default_deny(Homes) ->
    [filename:join(Home, Relative) || Home <- Homes, Relative <- home_credentials()]
        %% This VM's token store, wherever `XDG_CONFIG_HOME' puts it.
        ++ [unicode:characters_to_list(mcp_oauth_token_store:default_dir())]
        %% The VM's distribution cookie, wherever `XDG_CONFIG_HOME' puts it.
        ++ [filename:join(filename:basedir(user_config, "erlang"), ".erlang.cookie")]
        ++ ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"]
        %% TLS keys (Debian's, Fedora's), readable when the VM runs as root.
        ++ ["/etc/ssl/private", "/etc/pki/tls/private"]
        ++ filelib:wildcard("/etc/ssh/ssh_host_*_key").

home_credentials() ->
    [".ssh", ".gnupg",                                    % keys, agents' sockets
     ".erlang.cookie", ".config/erlang/.erlang.cookie",   % this VM's distribution cookie
     ".aws", ".azure", ".config/gcloud", ".oci", ".config/doctl",  % cloud credentials
     ".kube", ".docker",                                  % cluster and registry credentials
     ".netrc", ".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub",
     ".npmrc", ".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml",
     ".m2/settings.xml", ".gradle/gradle.properties",     % registry tokens
     ".password-store", ".local/share/keyrings", ".config/op", ".vault-token",
     ".terraform.d/credentials.tfrc.json", ".config/rclone", ".s3cfg", ".boto",
     ".pgpass", ".my.cnf",                                % database passwords
     ".claude/.credentials.json", ".codex/auth.json",     % coding agents' tokens
     ".config/mcp/oauth",                                 % remote MCP servers' tokens (mcp_oauth_token_store)
     ".mozilla", ".config/google-chrome", ".config/chromium",  % browser cookies and sessions
     ".bash_history", ".zsh_history", ".python_history", ".node_repl_history", ".psql_history"].

%%% ------------------------------------------------------------ availability

%% A jailed `exit 0' under the default profile and the filter: bwrap runs,
%% user namespaces work, the filter loads.
available(Bwrap) ->
    Key = {?MODULE, available, Bwrap},
    case persistent_term:get(Key, unknown) of
        ok -> ok;
        unknown ->
            case probe(Bwrap) of
                ok -> persistent_term:put(Key, ok);
                {error, _} = Error -> Error
            end
    end.

probe(Bwrap) ->
    Target = #{executable => ?SHELL, args => ["-c", "exit 0"], env => []},
    %% The probe asks bwrap alone; Landlock is asked by `landlock/0'.
    {ok, Options} = options(#{landlock => false}),
    case wrapped(Bwrap, Options, Target) of
        {ok, Program, Argv, _NoEnv} ->
            %% In a process of its own: the caller (a client actor) may trap
            %% exits and must not receive the probe port's messages.
            {Pid, Monitor} = spawn_monitor(fun() -> exit({probed, run_probe(Program, Argv)}) end),
            receive
                {'DOWN', Monitor, process, Pid, {probed, Result}} -> Result;
                {'DOWN', Monitor, process, Pid, Other} -> {error, {jail_unavailable, {probe_failed, -1, term_text(Other)}}}
            end;
        {error, _} = Error ->
            Error
    end.

%% bwrap says why it cannot run on its stderr. stderr is never merged into
%% stdout: the probe's stdout goes to /dev/null and the port reads only
%% bwrap's stderr, kept (bounded) for the error.
-define(STDERR_ONLY_SCRIPT, "exec \"$@\" 2>&1 >/dev/null").

run_probe(Program, Argv) ->
    Port = open_port({spawn_executable, ?SHELL},
                     [{args, ["-c", ?STDERR_ONLY_SCRIPT, "mcp-jail-probe", Program | Argv]},
                      binary, exit_status, hide]),
    probe_output(Port, <<>>, erlang:monotonic_time(millisecond) + ?PROBE_TIMEOUT_MS).

probe_output(Port, Output, Deadline) ->
    Left = max(0, Deadline - erlang:monotonic_time(millisecond)),
    receive
        {Port, {data, Bytes}} ->
            Kept = binary:part(<<Output/binary, Bytes/binary>>, 0,
                               min(?PROBE_OUTPUT_BYTES, byte_size(Output) + byte_size(Bytes))),
            probe_output(Port, Kept, Deadline);
        {Port, {exit_status, 0}} -> ok;
        {Port, {exit_status, Status}} -> {error, {jail_unavailable, {probe_failed, Status, string:trim(Output)}}}
    after Left ->
            killed(Port),
            {error, {jail_unavailable, probe_timed_out}}
    end.

%% A probe past its time is killed and its exit status awaited: the port
%% is never closed by us (docs/design.md, "Shutdown keeps the witness").
killed(Port) ->
    case erlang:port_info(Port, os_pid) of
        {os_pid, OsPid} -> _ = os:cmd("kill -s KILL " ++ integer_to_list(OsPid)), ok;
        undefined -> ok
    end,
    receive {Port, {exit_status, _}} -> ok after ?PROBE_TIMEOUT_MS -> ok end.

term_text(Term) -> unicode:characters_to_binary(io_lib:format("~0p", [Term])).

%%% ------------------------------------------------------------ Landlock

%% The launcher (`priv/mcp-landlock', native/mcp_os) and the kernel's
%% Landlock ABI, asked once per VM of the launcher itself (0: none, and a
%% jail that relies on Landlock is refused, as docs/jail.md says). A
%% launcher missing from `priv' is a broken build, an error rather than a
%% weaker jail.
landlock() ->
    Key = {?MODULE, landlock},
    case persistent_term:get(Key, unknown) of
        unknown ->
            case ask_landlock(filename:absname(mcp_nif:priv_file("mcp-landlock"))) of
                {ok, Landlock} -> persistent_term:put(Key, Landlock), {ok, Landlock};
                {error, _} = Error -> Error
            end;
        Landlock ->
            {ok, Landlock}
    end.

ask_landlock(Path) ->
    case filelib:is_regular(Path) of
        false ->
            {error, {jail_unavailable, {launcher_missing, Path}}};
        true ->
            {Pid, Monitor} = spawn_monitor(fun() -> exit({abi, launcher_abi(Path)}) end),
            receive
                {'DOWN', Monitor, process, Pid, {abi, Abi}} when is_integer(Abi), Abi >= 0 -> {ok, {Path, Abi}};
                {'DOWN', Monitor, process, Pid, Other} -> {error, {jail_unavailable, {probe_failed, -1, term_text(Other)}}}
            end
    end.

launcher_abi(Path) ->
    Port = open_port({spawn_executable, Path}, [{args, ["--abi"]}, {line, 64}, exit_status, hide]),
    launcher_abi(Port, none).

launcher_abi(Port, Abi) ->
    receive
        {Port, {data, {eol, Line}}} -> launcher_abi(Port, list_to_integer(string:trim(Line)));
        {Port, {exit_status, 0}} when is_integer(Abi) -> Abi;
        {Port, {exit_status, Status}} -> {launcher_failed, Status}
    after ?PROBE_TIMEOUT_MS -> killed(Port), launcher_timed_out
    end.

%%% ------------------------------------------------------------ the filter

%% The seccomp filter of a jail whose `unix_sockets' option is
%% `UnixSockets', in hexadecimal for the launcher's `--seccomp-fd', which
%% puts its bytes on a sealed memfd as bwrap's fd 3 (`mcp_os::filter_fd').
%% No file holds it: a filter read by path could be replaced by a server
%% of the same user with a write grant on its directory between the
%% VM's check and bwrap's read. The filter is no secret; it is on an argv.
filter(UnixSockets) ->
    case mcp_nif:jail_seccomp_filter(UnixSockets) of
        {ok, Filter} ->
            {ok, binary_to_list(binary:encode_hex(Filter))};
        {error, unsupported_architecture} ->
            {error, {jail_unavailable, {unsupported_architecture, erlang:system_info(system_architecture)}}}
    end.

%% @doc The production transport: one MCP server as an OS process behind an
%% Erlang port (`spawn_executable', executable plus argv, never a shell).
%%
%% Invariants:
%% <ul>
%% <li>stderr is never merged into stdout: the server's diagnostics would
%%     corrupt the JSON-RPC line stream. The child inherits the VM's stderr
%%     unless the spec's `stderr' discards it or appends it, bounded, to a
%%     file (`mcp_stderr').</li>
%% <li>This module never closes the port. The port closing would destroy the
%%     `{Port, {exit_status, S}}' message, the only proof that the child is
%%     gone. Termination is SIGKILL to the child's process group and to the
%%     child (`kill -s KILL -- -<os pid> <os pid>'; the runtime makes every
%%     child the leader of a session and group of its own) while the port is
%%     still open, so a launcher (`sh -c', `npx', `env') dies together with
%%     the server it started; the port then reports the exit status itself.
%%     (The price is that the server never sees EOF on its stdin.) With
%%     `shutdown_grace_ms => N' in the spec (0 to
%%     `max_shutdown_grace_ms()'; default 0), SIGTERM goes to the group and
%%     the child first, and SIGKILL follows N ms later unless the exit
%%     status arrived in between: the same guards, the same proof. See
%%     `docs/server-processes.md'. A jailed child (bwrap) is not signalled
%%     itself once the jail's init exists: the init is, and bwrap's exit
%%     status then arrives only after every process of the jail is gone
%%     (`targets/2').</li>
%% <li>After the exit status arrived neither the pid nor the group is
%%     signalled again (the ids may have been recycled): the owner treats the
%%     connection as inert.</li>
%% <li>The child's environment is an allow-list of the VM's variables
%%     (`inherited_env_names/0') plus the spec's `env' pairs, unless the spec
%%     says `inherit_env => true'.</li>
%% <li>Writes never suspend the owner: the port's busy limits are raised to
%%     `max_queue_bytes()' and a write past them fails with `busy'.</li>
%% <li>Framing is newline-delimited (`mcp_transport:frame/2'): a message goes
%%     out as its bytes and `\n' in one write; the child's stdout comes back
%%     as `{message, StreamOffset, Line}' events. A line longer than the
%%     spec's `max_line_bytes' (default and maximum
%%     `mcp_stdio:max_line_bytes()', 16 MiB) is a `{line_too_long, Bytes}'
%%     fault.</li>
%% </ul>
-module(mcp_port).
%% The behaviour is checked by rebar3 builds (MCP_BEHAVIOUR_CHECK in rebar.config); the Gleam
%% build compiles these files in no particular order, where it would only warn.
-ifdef(MCP_BEHAVIOUR_CHECK).
-behaviour(mcp_transport).
-endif.

-export([open/2, send/2, event/2, terminate/1, kill/1, os_pid/1, carries_bytes/2]).
-export([resolve_executable/1, max_queue_bytes/0, max_shutdown_grace_ms/0, inherited_env_names/0]).
-export([child_env/1]).

-record(port, {port :: port(), os_pid :: integer() | undefined,
               framer = mcp_transport:framer() :: mcp_transport:framer(),
               %% Milliseconds between SIGTERM and SIGKILL; 0: SIGKILL at once.
               grace = 0 :: non_neg_integer(),
               %% When a grace given by `terminate/1' ends (then `killed'):
               %% its SIGKILL is sent at the first event past it, should the
               %% grace's timer message wait behind the child's output.
               kill_at = none :: none | integer() | killed,
               %% A jail's init (bwrap's child, pid 1 of the jail's pid
               %% namespace) is signalled by its host pid instead of the
               %% group (see `targets/2').
               jailed = false :: boolean(),
               %% What witnesses the child's exit once the port is gone
               %% without its exit status (see `watch/1').
               watch = unsupported :: watch()}).

%% `{watching, W}': a pidfd on the child (`mcp_nif:child_watch_open/1');
%% `exited': the child was already reaped when the watch was taken, which
%% proves it exited; `unsupported': no pidfd on this system.
-type watch() :: {watching, reference()} | exited | unsupported.

%% How often a gone port's child is polled for its exit: from the first
%% delay, doubling, up to the last.
-define(WATCH_FIRST_MS, 1).
-define(WATCH_MAX_MS, 64).

%% The longest grace between SIGTERM and SIGKILL: a server that needs more
%% than a minute to stop is treated as one that does not stop.
-define(MAX_SHUTDOWN_GRACE_MS, 60000).

-define(MAX_QUEUE_BYTES, (2 * mcp_stdio:max_line_bytes())).

%% @doc Bytes that may queue towards a child that is not reading its stdin
%% before a write fails (two maximum-size lines).
-spec max_queue_bytes() -> pos_integer().
max_queue_bytes() -> ?MAX_QUEUE_BYTES.

%% @doc The largest `shutdown_grace_ms' a spec may give.
-spec max_shutdown_grace_ms() -> pos_integer().
max_shutdown_grace_ms() -> ?MAX_SHUTDOWN_GRACE_MS.

-spec open(mcp_transport:spawn(), pid()) -> {ok, #port{}} | {error, term()}.
open(#{executable := Executable} = Spawn, Owner) when Owner =:= self() ->
    %% Checked first: a bad `max_line_bytes' or `shutdown_grace_ms' raises
    %% before anything is spawned.
    Framer = mcp_transport:framer(maps:get(max_line_bytes, Spawn, mcp_stdio:max_line_bytes())),
    Grace = grace(maps:get(shutdown_grace_ms, Spawn, 0)),
    case launch(Executable, Spawn) of
        {ok, Program, Args, Env} ->
            Options = [binary, stream, exit_status, use_stdio, hide,
                       {busy_limits_port, {?MAX_QUEUE_BYTES div 2, ?MAX_QUEUE_BYTES}},
                       {args, Args}]
                ++ env_option(Env) ++ cd_option(Spawn),
            try open_port({spawn_executable, Program}, Options) of
                Port ->
                    OsPid = case erlang:port_info(Port, os_pid) of
                                {os_pid, Pid} -> Pid;
                                undefined -> undefined
                            end,
                    {ok, #port{port = Port, os_pid = OsPid, framer = Framer, grace = Grace,
                               jailed = maps:is_key(jail, Spawn), watch = watch(OsPid)}}
            catch
                error:Reason -> {error, {spawn_failed, Reason}}
            end;
        {error, _} = Error ->
            Error
    end;
open(Spawn, _Owner) ->
    {error, {bad_spawn, Spawn}}.

%% The program, argv and environment to spawn: the command, with its
%% stderr where the spec's `stderr' says (`mcp_stderr').
launch(Executable, Spawn) ->
    case command(Executable, Spawn) of
        {ok, Program, Args, Env} ->
            case mcp_stderr:wrap(stderr_route(Spawn), Program, Args) of
                {ok, Wrapper, WrapperArgs} -> {ok, Wrapper, WrapperArgs, Env};
                {error, _} = Error -> Error
            end;
        {error, _} = Error ->
            Error
    end.

%% A jailed server never holds the VM's own stderr: `inherit' is relayed.
stderr_route(#{jail := _} = Spawn) ->
    case maps:get(stderr, Spawn, inherit) of
        inherit -> relay;
        Stderr -> Stderr
    end;
stderr_route(Spawn) ->
    maps:get(stderr, Spawn, inherit).

%% The executable itself with the child's environment, or, with `jail' in
%% the spec, the bubblewrap command `mcp_jail' builds around it and the
%% environment that carries the child's to the launcher (an invalid jail
%% or one this host cannot run fails the open, before anything is
%% spawned).
command(Executable, Spawn) ->
    case resolve_executable(Executable) of
        {ok, Path} ->
            Args = lists:map(fun argument/1, maps:get(args, Spawn, [])),
            case Spawn of
                #{jail := Jail} ->
                    Target = #{executable => filename:absname(Path), args => Args, env => child_env(Spawn)},
                    mcp_jail:command(Jail, maps:merge(Target, maps:with([cd], Spawn)));
                _ ->
                    {ok, Path, Args, child_env(Spawn)}
            end;
        {error, _} = Error ->
            Error
    end.

%% @doc An executable name without a slash is looked up on `PATH' like
%% `os:find_executable/1'; a path must name an existing file.
-spec resolve_executable(file:filename_all()) ->
          {ok, string()} | {error, {executable_not_found, file:filename_all()}}.
resolve_executable(Executable) ->
    Name = unicode:characters_to_list(Executable),
    case is_list(Name) andalso Name =/= [] of
        false ->
            {error, {executable_not_found, Executable}};
        true ->
            Found = case lists:member($/, Name) of
                        true -> filelib:is_regular(Name) andalso Name;
                        false -> os:find_executable(Name)
                    end,
            case Found of
                false -> {error, {executable_not_found, Executable}};
                Path -> {ok, Path}
            end
    end.

%% The VM's variables a child receives unless `inherit_env => true': where
%% things are on this machine (identity, paths, locale, terminal), never a
%% credential. Each name is justified in `docs/server-processes.md'.
-define(INHERITED_ENV_NAMES,
        ["HOME", "LOGNAME", "USER", "PATH", "SHELL", "TERM",        % the SDKs' list
         "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE",     % locale
         "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LC_MONETARY", "LC_PAPER",
         "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT",
         "LC_IDENTIFICATION", "TZ",
         "TMPDIR",                                                   % temporary files
         "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",      % per-user dirs
         "XDG_RUNTIME_DIR",
         "npm_config_cache", "NPM_CONFIG_CACHE",                     % npx's package cache
         "UV_CACHE_DIR", "UV_TOOL_DIR", "UV_PYTHON_INSTALL_DIR",     % uvx's caches
         "DOCKER_HOST"]).                                            % docker run's daemon

%% @doc The names of the VM's environment variables a child inherits by
%% default (without `inherit_env => true'), when the VM has them set.
-spec inherited_env_names() -> [string()].
inherited_env_names() -> ?INHERITED_ENV_NAMES.

%% The port's `env' can only add to or remove from the VM's environment:
%% every VM variable the spawned process's environment `Env' does not have
%% is unset, and its variables are set.
env_option(Env) ->
    case [{Name, false} || {Name, _} <- vm_env(), not lists:keymember(Name, 1, Env)] ++ Env of
        [] -> [];
        Option -> [{env, Option}]
    end.

%% @doc The whole environment a child of `Spawn' starts with: what
%% `env_option/1' leaves of the VM's (the allow-list, or everything with
%% `inherit_env => true') with the spec's `env' pairs applied. A jail
%% passes exactly this to the server (`mcp_jail').
-spec child_env(mcp_transport:spawn()) -> [{string(), string()}].
child_env(Spawn) ->
    Inherited = case maps:get(inherit_env, Spawn, false) of
                    true -> vm_env();
                    false -> [{Name, Value} || {Name, Value} <- vm_env(), lists:member(Name, ?INHERITED_ENV_NAMES)]
                end,
    lists:foldl(fun({Name, false}, Env) -> lists:keydelete(Name, 1, Env);
                   ({Name, Value}, Env) -> lists:keystore(Name, 1, Env, {Name, Value})
                end, Inherited, lists:map(fun env_pair/1, maps:get(env, Spawn, []))).

vm_env() ->
    [{Name, Value} || Entry <- os:getenv(), [Name, Value] <- [string:split(Entry, "=")], Name =/= ""].

%% An argument is a binary or a string; anything else raises (open_port
%% would quietly turn an atom into a string).
argument(Argument) when is_binary(Argument) -> Argument;
argument(Argument) when is_list(Argument) -> unicode:characters_to_list(Argument).

%% A malformed entry raises (`mcp_transport:open/2' makes it a failed open).
env_pair({Name, Value}) -> {text(Name), env_value(Value)}.

env_value(false) -> false;
env_value(Value) -> text(Value).

text(Value) when is_binary(Value) -> unicode:characters_to_list(Value);
text(Value) when is_list(Value) -> Value.

cd_option(#{cd := Dir}) -> [{cd, Dir}];
cd_option(_) -> [].

-spec send(#port{}, [iodata()]) -> ok | {error, busy | closed}.
send(#port{port = Port}, Messages) ->
    try erlang:port_command(Port, [[Message, $\n] || Message <- Messages], [nosuspend]) of
        true -> ok;
        false -> {error, busy}
    catch
        error:badarg -> {error, closed}
    end.

-spec event(#port{}, term()) -> {ok, [mcp_transport:event()], #port{}} | not_mine.
event(#port{port = Port, framer = Framer} = State, {Port, {data, Bytes}}) ->
    {Events, Next} = mcp_transport:frame(Framer, Bytes),
    {ok, Events, overdue(State#port{framer = Next})};
event(#port{port = Port} = State, {Port, {exit_status, Status}}) ->
    {ok, [{closed, {exited, exit_cause(Status)}}], State};
event(#port{port = Port} = State, {'EXIT', Port, Reason}) ->
    %% The port is gone. After an exit status this is the normal follow-up
    %% (the owner has dropped the connection by then). `terminate/1' may
    %% have put the exit status back behind this message (see
    %% `exit_status_arrived/1'): it is looked for first. Without it (a write
    %% that met EPIPE closes the port and the runtime drops the status), the
    %% watch witnesses the exit.
    receive
        {Port, {exit_status, Status}} -> {ok, [{closed, {exited, exit_cause(Status)}}], State}
    after 0 ->
            port_gone(Reason, State)
    end;
event(#port{port = Port} = State, {mcp_port_grace_over, Port}) ->
    {ok, [], killed(State)};
event(#port{port = Port} = State, {mcp_port_watch, Port, Delay}) ->
    watch_exit(Delay, State);
event(_, _) ->
    not_mine.

%% A grace that ended while the child's output is still read (its timer's
%% message queued behind that output, which the child may keep writing):
%% SIGKILL now.
overdue(#port{kill_at = At} = State) when is_integer(At) ->
    case erlang:monotonic_time(millisecond) >= At of
        true -> killed(State);
        false -> State
    end;
overdue(State) ->
    State.

%% @doc Whether `Info' is a chunk of the child's output.
-spec carries_bytes(#port{}, term()) -> boolean().
carries_bytes(#port{port = Port}, {Port, {data, _}}) -> true;
carries_bytes(_, _) -> false.

%% @doc Requests the end of the child while its port is still open and its
%% exit status has not arrived: SIGKILL to its process group and to it, or,
%% with a grace, SIGTERM now and SIGKILL when the grace is over (a message
%% to the owner, which passes it to `event/2', or at the first chunk of
%% output read after the grace, whichever comes first). Must be called by
%% the port's owner.
-spec terminate(#port{}) -> ok | {ok, #port{}}.
terminate(#port{grace = 0} = State) ->
    signal("KILL", State);
terminate(#port{port = Port, grace = Grace} = State) ->
    signal("TERM", State),
    _ = erlang:send_after(Grace, self(), {mcp_port_grace_over, Port}),
    {ok, State#port{kill_at = erlang:monotonic_time(millisecond) + Grace}}.

%% SIGKILL now, the grace cut short (`mcp_transport:kill/1').
-spec kill(#port{}) -> {ok, #port{}}.
kill(State) ->
    {ok, killed(State)}.

%% SIGKILL, with the same guards as every signal, once: a grace's end, its
%% timer's message and a kill send one between them.
killed(#port{kill_at = killed} = State) ->
    State;
killed(State) ->
    signal("KILL", State),
    State#port{kill_at = killed}.

grace(Ms) when is_integer(Ms), Ms >= 0, Ms =< ?MAX_SHUTDOWN_GRACE_MS -> Ms;
grace(Other) -> error(badarg, [Other]).

signal(_Signal, #port{os_pid = undefined}) ->
    ok;
signal(Signal, #port{port = Port, os_pid = OsPid, jailed = Jailed}) ->
    %% Two guards against signalling a reaped (perhaps recycled) pid or
    %% group: the port must still be open, and its exit status must not be
    %% waiting in the owner's mailbox already.
    case erlang:port_info(Port, os_pid) =:= {os_pid, OsPid}
        andalso not exit_status_arrived(Port) of
        true -> _ = os:cmd(kill_command(Signal, targets(OsPid, Jailed))), ok;
        false -> ok
    end.

%% Whom a signal goes to. Unjailed: the group (`-Pid': the child leads it,
%% so its id is the child's pid) and the child itself, in case it left the
%% group it was started in. Jailed: the jail's init alone (bwrap's child,
%% pid 1 of the jail's pid namespace, the launcher): the kernel ends every
%% other process of the namespace before the init's exit completes, and
%% bwrap, left alive, waits for that exit and only then exits itself, so
%% the exit status the port reports comes after the last process of the
%% jail is gone. Before the init exists (bwrap still building the jail),
%% the group and bwrap, whose child dies with it (`--die-with-parent').
targets(OsPid, true) ->
    case inits(OsPid) of
        [] -> targets(OsPid, false);
        Inits -> [integer_to_list(Init) || Init <- Inits]
    end;
targets(OsPid, false) ->
    Pid = integer_to_list(OsPid),
    ["-" ++ Pid, Pid].

kill_command(Signal, Targets) ->
    "kill -s " ++ Signal ++ " --" ++ lists:append([" " ++ Target || Target <- Targets]) ++ " 2>/dev/null".

%% The jail's init: the child of the (still unreaped) child, bwrap, that
%% lives in another pid namespace (bwrap's other children, such as the
%% stderr relay's copy, share bwrap's). Only bwrap can reap it, and it has
%% not exited (the same guards as the group's).
inits(OsPid) ->
    Namespace = fun(Pid) -> file:read_link("/proc/" ++ integer_to_list(Pid) ++ "/ns/pid") end,
    case Namespace(OsPid) of
        {ok, Own} -> [Child || Child <- children(OsPid), {ok, Other} <- [Namespace(Child)], Other =/= Own];
        {error, _} -> []
    end.

%% The live children of the (still unreaped) child.
children(OsPid) ->
    Pid = integer_to_list(OsPid),
    case file:read_file("/proc/" ++ Pid ++ "/task/" ++ Pid ++ "/children") of
        {ok, Text} -> [binary_to_integer(Child) || Child <- binary:split(Text, [<<" ">>, <<"\n">>], [global, trim_all])];
        {error, _} -> []
    end.

%% The port reports a normal exit as the exit code and a death by signal N
%% as 128 + N (OTP 25's child setup, like a POSIX shell's `$?'), so 129..192
%% (128 + Linux's 64 signals) reads as a signal: a child that exits with
%% such a code on its own is indistinguishable from one killed by a signal.
exit_cause(Status) when Status > 128, Status =< 128 + 64 -> {signal, Status - 128};
exit_cause(Status) -> {status, Status}.

%% A selective receive (a scan of the mailbox, no copy of it). The status is
%% taken out to be seen, so it is sent back to the owner: it then follows
%% every message the port sent before it, and `event/2' looks for it when the
%% port's `EXIT' happens to come first.
exit_status_arrived(Port) ->
    receive
        {Port, {exit_status, _}} = Status ->
            self() ! Status,
            true
    after 0 ->
            false
    end.

%% A pidfd on the child, taken at once after the spawn. The runtime's pid
%% was the child's when the port was opened; if no process of this VM's
%% port children holds it now (`not_our_child': the pid is free, or another
%% process took it), the child was already reaped, which proves its exit.
watch(undefined) ->
    unsupported;
watch(OsPid) ->
    case mcp_nif:child_watch_open(OsPid) of
        {ok, Watch} -> {watching, Watch};
        {error, not_our_child} -> exited;
        {error, _} -> unsupported
    end.

%% The port closed without the exit status. The child is killed (with its
%% group while it lives) through the watch, which never reaches a recycled
%% pid, and the connection ends once the watch sees the exit: the evidence
%% is `{exited, unknown}', the status itself being lost with the port.
port_gone(_Reason, #port{watch = exited} = State) ->
    {ok, [{closed, {exited, unknown}}], State};
port_gone(_Reason, #port{watch = {watching, Watch}} = State) ->
    ok = mcp_nif:child_watch_kill(Watch),
    watch_exit(0, State);
port_gone(Reason, #port{watch = unsupported} = State) ->
    {ok, [{closed, {unconfirmed, {port_exited, Reason}}}], State}.

watch_exit(Delay, #port{port = Port, watch = {watching, Watch}} = State) ->
    case mcp_nif:child_watch_exited(Watch) of
        true ->
            {ok, [{closed, {exited, unknown}}], State};
        false ->
            Next = min(max(2 * Delay, ?WATCH_FIRST_MS), ?WATCH_MAX_MS),
            _ = erlang:send_after(Next, self(), {mcp_port_watch, Port, Next}),
            {ok, [], State};
        {error, Reason} ->
            {ok, [{closed, {unconfirmed, {watch_failed, Reason}}}], State}
    end.

-spec os_pid(#port{}) -> {ok, integer()} | none.
os_pid(#port{os_pid = undefined}) -> none;
os_pid(#port{os_pid = OsPid}) -> {ok, OsPid}.

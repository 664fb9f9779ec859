%% @doc `bin/mcp-gen': runs stdio MCP servers through `mcp_client' and
%% generates their code-mode modules, lists their tools or calls one.
%% Which servers run is `mcp_cli_jobs'' business (one, or every stdio server
%% of a `--config' file for `generate --out'); the text shown is
%% `mcp_cli_render''s and `mcp_describe''s. Full reference: docs/cli.md.
%%
%% Entry point `main/0' (the wrapper runs `erl -run mcp_cli main -extra
%% ARGS...'). Invariants:
%% - Exit status: 0 success; 1 a config that cannot be used, a missing
%%   working directory, a refusal, a client or server error, a tool that
%%   reported an error, a file that cannot be written, a server whose
%%   shutdown could not be confirmed, or (several servers) any server that
%%   failed; each with a sentence on stderr; 2 a usage error; 130
%%   interrupted (SIGTERM, which the wrapper sends on Ctrl-C).
%% - Every server is always retired through `mcp_client:shutdown/2', on
%%   success, on every error and on SIGTERM: each server's work runs in a
%%   worker process while this process owns every client and waits for the
%%   workers or the signal, then shuts all clients down, concurrently,
%%   before halting.
%% - stdout carries only the product (the module, the tool lines or JSON,
%%   the call result); progress, the plan table, the summary, the wire log
%%   and reasons go to stderr.
-module(mcp_cli).

-export([main/0]).

-define(INTERRUPTED, 130).

-spec main() -> no_return().
main() ->
    %% First, so that no SIGTERM from here on runs the kernel's init:stop/0
    %% under a connecting client: it becomes a message handled in run/1.
    ok = mcp_cli_signal:install(self()),
    ok = tell_wrapper_ready(os:getenv("MCP_GEN_READY_FILE")),
    ok = io:setopts(standard_io, [{encoding, unicode}]),
    _ = io:setopts(standard_error, [{encoding, unicode}]),
    Status = case mcp_cli_args:parse(init:get_plain_arguments()) of
                 {help, Text} ->
                     ok = io:put_chars(Text),
                     0;
                 {usage_error, Reason, Usage} ->
                     progress(Reason),
                     ok = io:put_chars(standard_error, [Usage, $\n]),
                     2;
                 {run, Command} ->
                     run(Command)
             end,
    erlang:halt(Status).

%% bin/mcp-gen forwards Ctrl-C as SIGTERM only once this file exists: a
%% SIGTERM that reaches the VM before the handler is installed is lost.
tell_wrapper_ready(false) -> ok;
tell_wrapper_ready(Path) -> file:write_file(Path, <<>>).

-spec run(mcp_cli_args:command()) -> non_neg_integer().
run(#{subcommand := new_harness, harness := Dir} = Command) ->
    case mcp_cli_harness:check(Dir) of
        ok -> new_harness(Dir, Command);
        {error, Why} -> progress(Why), 1
    end;
run(#{subcommand := Subcommand} = Command) ->
    case mcp_cli_jobs:resolve(Command) of
        {ok, Jobs, Skipped} when Subcommand =:= watch ->
            watch(Jobs, Skipped, Command);
        {ok, [Job], []} ->
            #{status := Status} = run_jobs([Job], Command, single),
            Status;
        {ok, Jobs, Skipped} ->
            several(Jobs, Skipped, Command);
        {usage_error, Reason} ->
            progress(Reason),
            ok = io:put_chars(standard_error, [mcp_cli_args:usage(Subcommand), $\n]),
            2;
        {error, Reason} ->
            progress(Reason),
            1
    end.

%% generate --config FILE --out DIR with several servers: each generated
%% concurrently, then one summary line per server (skipped entries too).
several(Jobs, Skipped, Command) ->
    progress(["generating ", count(length(Jobs), "server")]),
    #{status := Status, rows := Rows} = run_jobs(Jobs, Command, several),
    Ordered = summary(Rows, Skipped),
    Failed = [Server || #{server := Server} = Row <- Ordered, maps:is_key(error, Row) orelse maps:is_key(invalid, Row)],
    case {Status, Failed} of
        {?INTERRUPTED, _} -> ?INTERRUPTED;
        {_, []} -> Status;
        {_, _} ->
            progress(io_lib:format("~b of ~ts failed: ~ts",
                                   [length(Failed), count(length(Ordered), "server"),
                                    lists:join(", ", [mcp_printable:printable(F, line, mcp_printable:name_chars())
                                                      || F <- Failed])])),
            max(Status, 1)
    end.

%% The summary table on stderr: a row per server run, then one per
%% skipped entry; the rows in that order.
summary(Rows, Skipped) ->
    Ordered = Rows ++ [#{server => Name, Kind => Why} || {Kind, Name, Why} <- Skipped],
    ok = io:put_chars(standard_error, mcp_cli_render:summary_table([summary_row(Row) || Row <- Ordered])),
    Ordered.

%% watch: every server generated (as `generate --out'), then the ones
%% whose listing was read are followed by `mcp_cli_watch' in this process
%% (which receives SIGTERM), until none is left or SIGTERM; then every
%% client is retired, as after any other command.
watch(Jobs, Skipped, Command) ->
    Mode = case Jobs of
               [_] -> single;
               _ -> several
           end,
    Started = [start_job(Job, Command, Mode) || Job <- Jobs],
    {Interrupted, Results} = await(Started, #{}),
    case Mode of
        several ->
            _ = summary([(maps:get(Monitor, Results, #{}))#{server => Label}
                         || #{monitor := Monitor, job := #{label := Label}} <- Started], Skipped),
            ok;
        single ->
            ok
    end,
    Watched = [#{client => Client, server => watch_label(Job, Name), name => Name, out => out(Command),
                 generation => Generation, tools => Tools}
               || #{client := Client, monitor := Monitor, job := Job} <- Started,
                  #{listing := {Generation, Tools}, module_name := Name} <- [maps:get(Monitor, Results, #{})]],
    Ended = case {Interrupted, Watched} of
                {true, _} -> interrupted;
                {false, []} -> ended;
                {false, _} ->
                    progress(["watching ", count(length(Watched), "server"), "; Ctrl-C ends"]),
                    watch_output(),
                    case mcp_cli_watch:watch(Watched, fun watch_line/1) of
                        interrupted -> interrupted(Started), interrupted;
                        ended -> ended;
                        output_closed -> output_closed
                    end
            end,
    _ = retire_all(Started),
    case Ended of
        interrupted -> ?INTERRUPTED;
        ended -> progress("no server left to watch"), 1;
        output_closed -> progress("stdout closed; shutting the servers down"), 1
    end.

%% Tells this process `{mcp_cli_output, closed}' once the process behind
%% its standard output ends: its reader went away and a write met the
%% closed pipe (the write itself returned `ok').
watch_output() ->
    Watcher = self(),
    Output = group_leader(),
    _ = spawn_link(fun() ->
                           Monitor = erlang:monitor(process, Output),
                           receive {'DOWN', Monitor, process, Output, _} -> Watcher ! {mcp_cli_output, closed} end
                   end),
    ok.

%% One line of `watch' on stdout; a write that fails (the output's process
%% gone) is the same news.
watch_line(Line) ->
    try
        io:put_chars([Line, $\n])
    catch
        error:_ -> self() ! {mcp_cli_output, closed}
    end.

%% Lines name the server by its config key, else by its module's name.
watch_label(#{label := Label}, _Name) when is_binary(Label) -> Label;
watch_label(_Job, Name) -> Name.

%% new-harness DIR: every server generated into DIR/src/cap/mcp/ (as
%% `generate --out'), then the project around them (`mcp_cli_harness').
new_harness(Dir, #{server := {config, Path, _}} = Command) ->
    case mcp_cli_jobs:resolve(Command) of
        {ok, Jobs, Skipped} ->
            #{status := Status, rows := Rows} = run_jobs(Jobs, Command, case Jobs of [_] -> single; _ -> several end),
            ok = io:put_chars(standard_error, mcp_cli_render:summary_table(
                                                [summary_row(Row) || Row <- Rows ++ [#{server => Name, Kind => Why} || {Kind, Name, Why} <- Skipped]])),
            case Status of
                0 -> write_harness(Dir, Path, Rows);
                _ -> progress(["no project written: a server failed (its row says why)"]), Status
            end;
        {usage_error, Reason} ->
            progress(Reason),
            ok = io:put_chars(standard_error, [mcp_cli_args:usage(new_harness), $\n]),
            2;
        {error, Reason} ->
            progress(Reason),
            1
    end.

%% The config read again with each `${VAR}' kept as a marker, so the
%% project holds lookups rather than values.
write_harness(Dir, Path, Rows) ->
    {ok, Entries} = mcp_cli_config:read(Path, fun(Name) -> <<0, Name/binary, 0>> end),
    Servers = [{Key, Segment, Spec, Sample}
               || #{server := Key, segment := Segment, sample := Sample} <- Rows,
                  {Kind, K, Spec} <- Entries, K =:= Key, Kind =:= stdio orelse Kind =:= http],
    Name = mcp_cli_harness:project_name(Dir),
    case mcp_cli_harness:write(Dir, mcp_cli_jobs:root(), Name, Servers) of
        ok ->
            seed_offline(Dir),
            format_main(Dir, Name),
            progress(["wrote the Gleam project ", Name, " in ", name(unicode:characters_to_binary(Dir)),
                      ": cd there and run `gleam run`"]),
            0;
        {error, Why} ->
            progress(Why),
            1
    end.

%% With an offline Gleam toolchain (MCP_GLEAM_HOME), the project's
%% dependencies are seeded from it, so its first build asks Hex nothing.
seed_offline(Dir) ->
    Script = case os:getenv("MCP_GLEAM_HOME") of
                 false -> false;
                 Home -> filename:join(Home, "offline-deps")
             end,
    case is_list(Script) andalso filelib:is_regular(Script) of
        true ->
            Port = open_port({spawn_executable, Script}, [{args, [Dir]}, exit_status, stderr_to_stdout, binary]),
            case drain(Port) of
                0 -> progress(["dependencies seeded from MCP_GLEAM_HOME (", Script, ")"]);
                Status -> progress(io_lib:format("~ts exited with status ~b: gleam will ask Hex for the dependencies",
                                                 [Script, Status]))
            end;
        false ->
            progress("gleam resolves the project's dependencies (gleam_stdlib, gleam_erlang) on its first build")
    end.

%% `gleam format' of the main, when a compiler is at hand (MCP_GLEAM_HOME
%% or PATH); the project builds the same without it.
format_main(Dir, Name) ->
    Home = [filename:join([H, "bin", "gleam"]) || H <- [os:getenv("MCP_GLEAM_HOME")], is_list(H)],
    case [G || G <- Home ++ [os:find_executable("gleam")], is_list(G), filelib:is_regular(G)] of
        [Gleam | _] ->
            Port = open_port({spawn_executable, Gleam},
                             [{args, ["format", filename:join([Dir, "src", <<Name/binary, ".gleam">>])]},
                              exit_status, stderr_to_stdout, binary]),
            _ = drain(Port),
            ok;
        [] ->
            ok
    end.

drain(Port) ->
    receive
        {Port, {data, _}} -> drain(Port);
        {Port, {exit_status, Status}} -> Status
    end.

summary_row(#{invalid := Why} = Row) -> (maps:remove(invalid, Row))#{error => ["invalid entry: ", Why]};
summary_row(#{unsupported := Why} = Row) -> (maps:remove(unsupported, Row))#{note => ["not run: ", Why]};
summary_row(Row) -> Row.

%% Each job's client is prepared here (this process is their custodian),
%% its work runs in a worker; this process waits for every worker or for
%% SIGTERM, then shuts every client down, concurrently, on every path.
run_jobs(Jobs, Command, Mode) ->
    Started = [start_job(Job, Command, Mode) || Job <- Jobs],
    {Interrupted, Results} = await(Started, #{}),
    Retirements = retire_all(Started),
    Rows = [begin
                Result = maps:get(Monitor, Results, #{status => ?INTERRUPTED, error => "interrupted"}),
                Row = retirement_row(maps:get(Monitor, Retirements), Result),
                Row#{server => Label}
            end || #{monitor := Monitor, job := #{label := Label}} <- Started],
    Status = case Interrupted of
                 true -> ?INTERRUPTED;
                 false -> lists:max([S || #{status := S} <- Rows])
             end,
    #{status => Status, rows => Rows}.

start_job(Job, #{timeout_ms := Timeout, verbose := Verbose} = Command, Mode) ->
    Context = Job#{mode => Mode, verbose => Verbose},
    Spec = labelled_stderr(Context),
    {TransportSpec, Log} = case Verbose of
                               true ->
                                   L = mcp_wirelog:start_log(#{label => log_label(Context),
                                                               render_evidence => fun mcp_describe:evidence/1}),
                                   {mcp_wirelog:spec(Spec, L), L};
                               false ->
                                   {Spec, none}
                           end,
    {ok, Client} = mcp_client:prepare(TransportSpec, client_options(handshake_timeout(Command, Timeout), Command, Job)),
    Began = erlang:monotonic_time(millisecond),
    {Worker, Monitor} = spawn_monitor(fun() -> exit({finished, perform(Client, Context, Command)}) end),
    #{job => Context, client => Client, log => Log, worker => Worker, monitor => Monitor, began => Began}.

await(Started, Results) when map_size(Results) =:= length(Started) ->
    {false, Results};
await(Started, Results) ->
    receive
        {'DOWN', Monitor, process, _Worker, Exit} ->
            case [S || #{monitor := M} = S <- Started, M =:= Monitor] of
                [#{began := Began} = Job] ->
                    Seconds = (erlang:monotonic_time(millisecond) - Began) / 1000,
                    Result = case Exit of
                                 {finished, Finished} -> Finished;
                                 Crash -> fail(Job, ["internal error: ", mcp_describe:words(Crash)])
                             end,
                    await(Started, Results#{Monitor => Result#{seconds => Seconds}});
                [] ->
                    await(Started, Results)
            end;
        {mcp_cli_signal, sigterm} ->
            [exit(Worker, kill) || #{worker := Worker, monitor := M} <- Started, not is_map_key(M, Results)],
            interrupted(Started),
            {true, Results}
    end.

interrupted(Started) ->
    progress(case Started of
                 [_] -> "interrupted; shutting the server down";
                 _ -> "interrupted; shutting the servers down"
             end).

%% With several servers on one terminal, each line a local server writes
%% to its inherited stderr is labelled with its config key (`mcp_stderr');
%% a remote server has no stderr.
labelled_stderr(#{spec := #{url := _} = Spec}) ->
    Spec;
labelled_stderr(#{mode := several, label := Label, spec := Spec}) ->
    case maps:get(stderr, Spec, inherit) of
        inherit -> Spec#{stderr => {labelled, iolist_to_binary([name(Label), " | "])}};
        _ -> Spec
    end;
labelled_stderr(#{spec := Spec}) ->
    Spec.

%% Every client's shutdown/2 at once; each retirement error is reported.
%% A server given a grace (--grace) has that much longer to prove its exit.
retire_all(Started) ->
    Self = self(),
    [spawn_link(fun() -> Self ! {retired, Monitor, mcp_client:shutdown(Client, shutdown_timeout(Job))} end)
     || #{client := Client, monitor := Monitor, job := Job} <- Started],
    maps:from_list([receive
                        {retired, Monitor, Retirement} ->
                            _ = [mcp_wirelog:stop_log(Log) || Log =/= none],
                            report_retirement(Job, Retirement),
                            {Monitor, Retirement}
                    end || #{monitor := Monitor, log := Log, job := Job} <- Started]).

shutdown_timeout(#{spec := Spec}) ->
    client_shutdown_timeout_ms() + maps:get(shutdown_grace_ms, Spec, 0).

%% The client's own default: the command line restates no limit.
client_shutdown_timeout_ms() ->
    maps:get(shutdown_timeout_ms, mcp_client:default_options()).

report_retirement(Job, {ok, Evidence}) ->
    case Job of
        #{verbose := true} -> progress(Job, retirement(Job, Evidence));
        _ -> ok
    end;
report_retirement(Job, {error, Reason}) ->
    progress(Job, mcp_describe:retirement_error(Reason)).

%% A SIGKILL is how mcp-gen ends a server given no grace, and a SIGTERM
%% how it asks one given a grace, so those read as the normal ends they
%% are; a SIGKILL after a grace means the server outstayed it.
retirement(#{spec := Spec}, Evidence) ->
    case {killed_by(Evidence), maps:get(shutdown_grace_ms, Spec, 0)} of
        {9, 0} -> "the server was stopped with SIGKILL, as mcp-gen ends a server when done (--grace MS sends SIGTERM first)";
        {9, Grace} -> io_lib:format("the server was killed by SIGKILL: it had not exited ~b ms after SIGTERM", [Grace]);
        {15, Grace} when Grace > 0 -> "the server was stopped with SIGTERM, as --grace asks, and ended within the grace";
        {_, _} -> mcp_describe:retirement(Evidence)
    end.

killed_by({exited, {signal, Signal}}) when is_integer(Signal) -> Signal;
killed_by({exited, {status, Status}}) when Status > 128, Status < 193 -> Status - 128;   % 128 + N, from a port
killed_by(_Evidence) -> none.

retirement_row({ok, _Evidence}, Result) -> Result;
retirement_row({error, Reason}, #{status := Status} = Result) ->
    Row = Result#{status => max(Status, 1)},
    case Row of
        #{error := _} -> Row;
        _ -> Row#{error => mcp_describe:retirement_error(Reason)}
    end.

perform(Client, Job, Command) ->
    case working_directory(Job) of
        ok -> connect(Client, Job, Command);
        {missing, Dir} -> fail(Job, ["the server's working directory ", name(unicode:characters_to_binary(Dir)),
                                     " is not a directory"])
    end.

working_directory(#{spec := #{cd := Dir}}) ->
    case filelib:is_dir(Dir) of
        true -> ok;
        false -> {missing, Dir}
    end;
working_directory(_Job) ->
    ok.

connect(Client, Job, Command) ->
    case mcp_client:connect(Client) of
        {ok, InitializeResult} -> act(Client, InitializeResult, Job, Command);
        {error, Reason} ->
            Failed = fail(Job, [mcp_describe:start_error(Reason) | offline_launcher(Reason, Job)]),
            case {exited_during_start(Reason), Job} of
                {true, #{spec := #{executable := _} = Spec}} ->
                    %% By name (`mcp_port:child_env/1', which a jail passes on too).
                    progress(Job, mcp_cli_render:environment_given([Name || {Name, _} <- mcp_port:child_env(Spec)],
                                                                   [Name || [Name | _] <- [string:split(E, "=") || E <- os:getenv()]]));
                _ ->
                    ok
            end,
            Failed
    end.

%% A jailed launcher (npx, uvx) that ended before the handshake: without
%% the network, a package not in its cache is the usual cause.
offline_launcher(Reason, #{spec := #{executable := Executable, jail := Jail} = Spec}) ->
    Target = case mcp_port:resolve_executable(Executable) of
                 {ok, Path} -> #{executable => filename:absname(Path), args => maps:get(args, Spec, []),
                                 env => mcp_port:child_env(Spec)};
                 {error, _} -> none
             end,
    case exited_during_start(Reason) andalso Target =/= none andalso mcp_jail:offline_launcher(Jail, Target) of
        #{} = Launcher -> ["; ", mcp_describe:offline_launcher(Launcher)];
        _ -> []
    end;
offline_launcher(_Reason, _Job) ->
    [].

%% A server that ended on its own before the handshake was done: a missing
%% variable is the usual cause (an API key the server demands).
exited_during_start({cleanup_unconfirmed, Cause, _Retirement, _Client}) -> exited_during_start(Cause);
exited_during_start({handshake_failed, {unavailable, {transport_ended, _Evidence}}}) -> true;
exited_during_start({handshake_failed, {unavailable, transport_ended}}) -> true;
exited_during_start(_Reason) -> false.

act(Client, {initialize_result, Protocol, _Tools, {server_info, ServerName, ServerVersion}, _},
    Job, #{subcommand := Subcommand} = Command) when Subcommand =:= generate; Subcommand =:= new_harness;
                                                     Subcommand =:= watch ->
    progress(Job, ["server ", name(ServerName), " ", name(ServerVersion), ", protocol ", name(Protocol)]),
    with_tools(Client, Job, Command,
               fun(Tools) ->
                       progress(Job, [count(length(Tools), "tool"), " listed"]),
                       Rows = [mcp_cli_render:plan_row(T) || T <- Tools],
                       case Job of
                           #{mode := single} -> ok = io:put_chars(standard_error, mcp_cli_render:plan_table(Rows));
                           _ -> ok
                       end,
                       Counted = #{tools => length(Tools), tiers => mcp_cli_render:tier_counts(Rows)},
                       Name = maps:get(name, Command, maps:get(name, Job, ServerName)),
                       Outcome = case mcp_codegen:generate(Name, Tools) of
                                     {ok, Generated} -> maps:merge(harness_call(Command, Generated, Tools),
                                                                   emit(Job, Generated, out(Command)));
                                     {error, Refusal} -> fail(Job, ["refused: ", mcp_describe:refusal(Refusal)])
                                 end,
                       maps:merge(Counted#{module_name => Name}, Outcome)
               end);
act(_Client, _InitializeResult, Job, #{subcommand := login}) ->
    progress(Job, "connected; the server's tokens, if it asked for any, are stored for later runs"),
    ok(#{});
act(Client, InitializeResult, Job, #{subcommand := list, json := AsJson} = Command) ->
    with_tools(Client, Job, Command,
               fun(Tools) ->
                       ok = io:put_chars(case AsJson of
                                             true -> mcp_cli_render:json_output(mcp_cli_render:tools_json(InitializeResult, Tools));
                                             false -> [[mcp_cli_render:tool_line(T), $\n] || T <- Tools]
                                         end),
                       ok(#{tools => length(Tools)})
               end);
act(Client, _InitializeResult, Job, #{subcommand := call, tool := Tool, arguments := Arguments,
                                      json := AsJson, timeout_ms := Timeout}) ->
    case mcp_client:call_tool(Client, Tool, Arguments, Timeout) of
        {ok, {call_tool_result, _Blocks, IsError, _Structured} = Result} ->
            ok = io:put_chars(case AsJson of
                                  true -> mcp_cli_render:json_output(mcp_cli_render:result_json(Result));
                                  false -> mcp_cli_render:result_text(Result)
                              end),
            case IsError of
                true -> with_unknown_tool_hint(Client, Job, Tool, Timeout, fail(Job, ["tool ", name(Tool), " reported an error"]));
                false -> ok(#{})
            end;
        {error, {server_error, _} = Reason} ->
            with_unknown_tool_hint(Client, Job, Tool, Timeout, fail(Job, mcp_describe:client_error(Reason)));
        {error, Reason} ->
            %% no answer (a timeout, a server gone): a listing would not answer either
            fail(Job, mcp_describe:client_error(Reason))
    end.

%% After a call the server answered with an error, a tool the server does
%% not list gets a line saying so and where the names are (servers word
%% "unknown tool" in many ways). The listing waits no longer than the call
%% was allowed to.
with_unknown_tool_hint(Client, Job, Tool, Timeout, Failed) ->
    case mcp_client:list_tools(Client, min(Timeout, client_shutdown_timeout_ms())) of
        {ok, Tools} ->
            case [Name || {tool_descriptor, Name, _, _, _, _, _, _} <- Tools, Name =:= Tool] of
                [] -> progress(Job, ["the server lists no tool named ", name(Tool),
                                     "; `mcp-gen list` with the same server options shows the tools it has"]);
                _ -> ok
            end;
        {error, _} ->
            ok
    end,
    Failed.

%% watch reads the listing with its generation (`mcp_client:tools/1'), the
%% one it follows.
with_tools(Client, Job, #{subcommand := watch}, Continue) ->
    case mcp_client:tools(Client) of
        {ok, {Generation, Tools} = Listing} -> (Continue(Tools))#{listing => Listing, generation => Generation};
        {error, Reason} -> fail(Job, ["tools/list failed: ", mcp_describe:client_error(Reason)])
    end;
with_tools(Client, Job, #{timeout_ms := Timeout}, Continue) ->
    case mcp_client:list_tools(Client, Timeout) of
        {ok, Tools} -> Continue(Tools);
        {error, Reason} -> fail(Job, ["tools/list failed: ", mcp_describe:client_error(Reason)])
    end.

%% For new-harness: the module's segment and the call its main makes.
harness_call(#{subcommand := new_harness}, {generated, ModuleName, _Source, _Surface}, Tools) ->
    case mcp_cli_files:module_segment(ModuleName) of
        {ok, Segment} -> #{segment => Segment, sample => mcp_cli_harness:sample(Tools)};
        error -> #{}
    end;
harness_call(_Command, _Generated, _Tools) ->
    #{}.

%% stdout, or where the module and its surface go: both under --out DIR;
%% for new-harness DIR, DIR/src and DIR/surface.
out(#{subcommand := new_harness, harness := Dir}) -> {filename:join(Dir, "src"), filename:join(Dir, "surface")};
out(#{out := Dir}) -> {Dir, Dir};
out(_Command) -> stdout.

%% The module on stdout, or its two files under an --out directory.
emit(_Job, {generated, _ModuleName, Source, _Surface}, stdout) ->
    ok = io:put_chars(Source),
    ok(#{});
emit(Job, {generated, ModuleName, Source, Surface}, Dirs) ->
    case mcp_cli_files:paths(ModuleName, Dirs) of
        {ok, SourcePath, SurfacePath} ->
            case mcp_cli_files:write([{SourcePath, Source}, {SurfacePath, Surface}]) of
                {ok, []} ->
                    progress(Job, [SourcePath, " and ", SurfacePath, " already hold this module: left unchanged"]),
                    ok(#{note => [SourcePath, " unchanged"], paths => {SourcePath, SurfacePath}});
                {ok, _Written} ->
                    progress(Job, ["wrote ", SourcePath, " and ", SurfacePath]),
                    ok(#{note => ["wrote ", SourcePath], paths => {SourcePath, SurfacePath}});
                {error, Path, Reason} ->
                    fail(Job, io_lib:format("cannot write ~ts: ~ts", [Path, file:format_error(Reason)]))
            end;
        error ->
            fail(Job, ["unexpected module name: ", name(ModuleName)])
    end.

%% `login' waits for a person: its handshake may last the consent's time.
handshake_timeout(#{subcommand := login}, Timeout) -> min(max(Timeout, 300000), mcp_client:max_timeout_ms());
handshake_timeout(_Command, Timeout) -> Timeout.

%% `--era' as the client's era; `--elicit defaults' as an input handler
%% that accepts with the schema's defaults (`mcp_input:accept_defaults/1');
%% without it no handler, so elicitation is refused.
%% `watch' passes the job's reconnect policy on (`mcp_cli_jobs'); the other
%% subcommands end with their requests, so a server reconnected after
%% them would serve nobody.
client_options(Timeout, Command, Job) ->
    Handler = case maps:get(elicit, Command, decline) of
                  defaults -> #{input_handler => fun mcp_input:accept_defaults/1};
                  decline -> #{}
              end,
    Reconnect = case {Command, Job} of
                    {#{subcommand := watch}, #{reconnect := Policy}} -> #{reconnect => Policy};
                    _ -> #{}
                end,
    (maps:merge(Handler, Reconnect))#{client_info => {<<"mcp-gen">>, version()},
             era => maps:get(era, Command, handshake),
             handshake_timeout_ms => Timeout,
             list_timeout_ms => Timeout,
             shutdown_timeout_ms => client_shutdown_timeout_ms()}.

version() ->
    _ = application:load(mcp),
    case application:get_key(mcp, vsn) of
        {ok, Vsn} -> list_to_binary(Vsn);
        undefined -> <<"0">>
    end.

%% ---- stderr ----

name(Text) -> mcp_printable:printable(Text, line, mcp_printable:name_chars()).

%% With several servers each line names its server.
progress(#{mode := several, label := Label}, Line) -> progress([name(Label), ": ", Line]);
progress(_Job, Line) -> progress(Line).

progress(Line) ->
    ok = io:put_chars(standard_error, ["mcp-gen: ", Line, $\n]).

log_label(#{mode := several, label := Label}) -> [name(Label), " "];
log_label(_Job) -> [].

%% "1 tool", "2 tools".
count(1, Noun) -> ["1 ", Noun];
count(N, Noun) -> [integer_to_list(N), " ", Noun, "s"].

%% A job's outcome: its exit status, with what the summary shows.
ok(Outcome) -> Outcome#{status => 0}.

fail(Job, Reason) ->
    progress(Job, Reason),
    #{status => 1, error => Reason}.

%% @doc `bin/mcp-gen': runs one stdio MCP server through `mcp_client' and
%% generates its code-mode module, lists its tools or calls one.
%%
%% Entry point `main/0' (the wrapper runs `erl -run mcp_cli main -extra
%% ARGS...'). Invariants:
%% - Exit status: 0 success; 1 a refusal, a client or server error, a tool
%%   that reported an error, or a server whose shutdown could not be
%%   confirmed (each with a one-line reason on stderr); 2 a usage error;
%%   130 interrupted (SIGTERM, which the wrapper sends on Ctrl-C).
%% - The server is always retired through `mcp_client:shutdown/2', on
%%   success, on every error and on SIGTERM: the work runs in a worker
%%   process while this process owns the client and waits for the worker or
%%   the signal, then shuts the client down before halting.
%% - stdout carries only the product (the module, the tool lines, the call
%%   result); progress, the plan table and reasons go to stderr.
-module(mcp_cli).

-export([main/0]).

-define(SHUTDOWN_TIMEOUT_MS, 5000).
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
run(#{server := Server, timeout_ms := Timeout} = Command) ->
    {ok, Client} = mcp_client:prepare(spawn_spec(Server), client_options(Timeout)),
    {Worker, Monitor} = spawn_monitor(fun() -> exit({finished, perform(Client, Command)}) end),
    Status = receive
                 {'DOWN', Monitor, process, Worker, {finished, Finished}} ->
                     Finished;
                 {'DOWN', Monitor, process, Worker, Crash} ->
                     fail(["internal error: ", mcp_cli_render:client_error(Crash)]);
                 {mcp_cli_signal, sigterm} ->
                     exit(Worker, kill),
                     progress("interrupted; shutting the server down"),
                     ?INTERRUPTED
             end,
    retire(Client, Status).

retire(Client, Status) ->
    case mcp_client:shutdown(Client, ?SHUTDOWN_TIMEOUT_MS) of
        {ok, _Retired} -> Status;
        {error, Reason} ->
            progress(mcp_cli_render:retirement_error(Reason)),
            max(Status, 1)
    end.

perform(Client, Command) ->
    case mcp_client:connect(Client) of
        {ok, InitializeResult} -> act(Client, InitializeResult, Command);
        {error, Reason} -> fail(mcp_cli_render:start_error(Reason))
    end.

act(Client, {initialize_result, Protocol, _Tools, {server_info, ServerName, ServerVersion}, _},
    #{subcommand := generate} = Command) ->
    progress(["server ", printable(ServerName), " ", printable(ServerVersion),
              ", protocol ", printable(Protocol)]),
    with_tools(Client, Command,
               fun(Tools) ->
                       progress([integer_to_list(length(Tools)), " tools listed"]),
                       ok = io:put_chars(standard_error,
                                         mcp_cli_render:plan_table([mcp_cli_render:plan_row(T) || T <- Tools])),
                       case mcp_codegen:generate(maps:get(name, Command, ServerName), Tools) of
                           {ok, Generated} -> emit(Generated, maps:get(out, Command, stdout));
                           {error, Refusal} -> fail(["refused: ", mcp_codegen:describe(Refusal)])
                       end
               end);
act(Client, _InitializeResult, #{subcommand := list} = Command) ->
    with_tools(Client, Command,
               fun(Tools) ->
                       ok = io:put_chars([[mcp_cli_render:tool_line(T), $\n] || T <- Tools]),
                       0
               end);
act(Client, _InitializeResult, #{subcommand := call, tool := Tool, arguments := Arguments,
                                 json := AsJson, timeout_ms := Timeout}) ->
    case mcp_client:call_tool(Client, Tool, Arguments, Timeout) of
        {ok, {call_tool_result, _Blocks, IsError, _Structured} = Result} ->
            ok = io:put_chars(case AsJson of
                                  true -> [mcp_json:encode(mcp_cli_render:result_json(Result)), $\n];
                                  false -> mcp_cli_render:result_text(Result)
                              end),
            case IsError of
                true -> fail(["tool ", printable(Tool), " reported an error"]);
                false -> 0
            end;
        {error, Reason} ->
            fail(mcp_cli_render:client_error(Reason))
    end.

with_tools(Client, #{timeout_ms := Timeout}, Continue) ->
    case mcp_client:list_tools(Client, Timeout) of
        {ok, Tools} -> Continue(Tools);
        {error, Reason} -> fail(["tools/list failed: ", mcp_cli_render:client_error(Reason)])
    end.

%% The module on stdout, or its two files under an --out directory.
emit({generated, _ModuleName, Source, _Surface}, stdout) ->
    ok = io:put_chars(Source),
    0;
emit({generated, ModuleName, Source, Surface}, OutDir) ->
    case module_segment(ModuleName) of
        {ok, Segment} ->
            SourcePath = filename:join([OutDir, "cap", "mcp", <<Segment/binary, ".gleam">>]),
            SurfacePath = filename:join(OutDir, <<Segment/binary, ".surface">>),
            case write_files([{SourcePath, Source}, {SurfacePath, Surface}]) of
                ok ->
                    progress(["wrote ", SourcePath, " and ", SurfacePath]),
                    0;
                {error, Path, Reason} ->
                    fail(io_lib:format("cannot write ~ts: ~ts", [Path, file:format_error(Reason)]))
            end;
        error ->
            fail(["unexpected module name: ", printable(ModuleName)])
    end.

%% `cap/mcp/<segment>' where the segment is a plain Gleam identifier, so it
%% is safe as a file name (no separator, no `..').
module_segment(<<"cap/mcp/", Segment/binary>>) ->
    case re:run(Segment, "^[a-z][a-z0-9_]*$", [{capture, none}]) of
        match -> {ok, Segment};
        nomatch -> error
    end;
module_segment(_) ->
    error.

write_files([]) -> ok;
write_files([{Path, Bytes} | Rest]) ->
    case filelib:ensure_dir(Path) of
        ok ->
            case file:write_file(Path, Bytes) of
                ok -> write_files(Rest);
                {error, Reason} -> {error, Path, Reason}
            end;
        {error, Reason} -> {error, Path, Reason}
    end.

%% ---- the server to run ----

spawn_spec({command, Executable, Args}) ->
    #{executable => Executable, args => Args};
spawn_spec(embedded) ->
    %% The example server uses this application's mcp_json: ERL_LIBS points
    %% its VM at the same build.
    #{executable => escript(),
      args => [filename:join([root(), "examples", "example_server.escript"])],
      env => [{"ERL_LIBS", erl_libs()}]}.

%% The directory holding this build's `mcp' application directory.
erl_libs() ->
    case code:lib_dir(mcp) of
        {error, bad_name} -> filename:dirname(filename:dirname(filename:dirname(code:which(mcp_json))));
        AppDir -> filename:dirname(AppDir)
    end.

escript() ->
    case os:find_executable("escript") of
        false -> filename:join([code:root_dir(), "bin", "escript"]);
        Path -> Path
    end.

%% The repository checkout: bin/mcp-gen exports MCP_GEN_ROOT.
root() ->
    case os:getenv("MCP_GEN_ROOT") of
        false -> {ok, Cwd} = file:get_cwd(), Cwd;
        Root -> Root
    end.

client_options(Timeout) ->
    #{client_info => {<<"mcp-gen">>, version()},
      handshake_timeout_ms => Timeout,
      list_timeout_ms => Timeout,
      shutdown_timeout_ms => ?SHUTDOWN_TIMEOUT_MS}.

version() ->
    _ = application:load(mcp),
    case application:get_key(mcp, vsn) of
        {ok, Vsn} -> list_to_binary(Vsn);
        undefined -> <<"0">>
    end.

%% ---- stderr ----

printable(Text) -> mcp_cli_render:printable(Text, line).

progress(Line) ->
    ok = io:put_chars(standard_error, ["mcp-gen: ", Line, $\n]).

fail(Reason) ->
    progress(Reason),
    1.

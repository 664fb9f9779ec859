%% @doc Command-line parsing for `bin/mcp-gen': subcommands, flags, the
%% `-- COMMAND ARGS...' server command, usage lines and help texts.
%%
%% Total over any argument list: the answer is a command to run, a help
%% text (exit 0) or a usage error (exit 2); it never raises. Flags take
%% their value as the next argument or after `=' (`--out=DIR'). Everything
%% after the first `--' is the server command, passed on verbatim (never
%% through a shell); `--config FILE [--server NAME]' names servers from a
%% standard MCP configuration file instead (read at run time by
%% `mcp_cli_config'); with neither the embedded example server is used.
%% `--env NAME=VALUE' may be given any number of times (a later one for the
%% same NAME wins); `--env NAME' passes the value mcp-gen itself has. `--jail' runs the server in a bubblewrap jail
%% (`mcp_jail', docs/jail.md); `--allow-write DIR', `--allow-read DIR',
%% `--deny-read PATH' (each repeatable), `--allow-net' and
%% `--allow-unix-sockets', `--no-landlock' shape it and are usage errors without `--jail'.
%% Their paths are made absolute against the directory mcp-gen runs in.
%% `--url URL' names a remote server (Streamable HTTP) instead, with
%% `--header 'Name: Value'' any number of times (`${VAR}' in a value is the
%% environment variable's value, resolved by `mcp_http'); the flags that
%% shape a server process (`--env', `--cwd', `--grace', `--stderr', the
%% jail's) are usage errors with it. A header value is never echoed.
-module(mcp_cli_args).

-export([parse/1, usage/1, default_timeout_ms/0, max_timeout_ms/0, max_reconnect_attempts/0]).
-export_type([command/0, subcommand/0, server/0, parsed/0]).


-type subcommand() :: generate | list | call | login | new_harness | watch.
%% `embedded' is the example server shipped in `examples/'; `{config, ...}'
%% one server of a configuration file, or each of its stdio servers (`all').
-type server() :: embedded
                | {command, Executable :: string(), Args :: [string()]}
                | {url, Url :: string(), Headers :: [{string(), string()}]}
                | {config, Path :: string(), all | {one, Name :: binary()}}.
-type command() :: #{subcommand := subcommand(),
                     server := server(),
                     timeout_ms := pos_integer(),
                     verbose := boolean(),          % --verbose: the wire log on stderr
                     allow_plaintext => true,       % --allow-plaintext: headers and tokens over plain http
                     era => handshake | modern | auto, % --era (default handshake)
                     elicit => decline | defaults,  % --elicit (default decline)
                     env := [{string(), string()}], % --env NAME=VALUE, in order
                     cwd => string(),               % --cwd DIR
                     grace_ms => non_neg_integer(), % --grace MS: SIGTERM, then SIGKILL
                     stderr => mcp_stderr:stderr(), % --stderr FILE|-
                     jail => mcp_jail:spec(),       % --jail and the flags that shape it
                     name => binary(),              % generate: --name
                     out => string(),               % generate, watch: --out; new-harness: DIR/src
                     reconnect => pos_integer(),    % watch: --reconnect N (attempts)
                     harness => string(),           % new-harness: DIR
                     tool => binary(),              % call: TOOL
                     arguments => mcp_json:json(),  % call: --args (an object)
                     json => boolean(),             % list, call: --json
                     oauth => mcp_cli_oauth:given()}. % authorization flags (mcp_cli_oauth)
-type parsed() :: {run, command()}
                | {help, Text :: iolist()}
                | {usage_error, Reason :: iolist(), Usage :: iolist()}.

-type flag_kind() :: value | switch | repeated | optional.  % optional: a switch that may take =VALUE

%% @doc The most reconnection attempts `--reconnect' and a config entry's
%% `reconnect' accept (the client's `reconnect' option's bound).
-spec max_reconnect_attempts() -> pos_integer().
max_reconnect_attempts() -> mcp_reconnect:max_attempts().

%% @doc Milliseconds allowed for each request when `--timeout' is absent:
%% the client's own default.
-spec default_timeout_ms() -> pos_integer().
default_timeout_ms() -> maps:get(list_timeout_ms, mcp_client:default_options()).

%% @doc The largest `--timeout' accepted: the client's own maximum.
-spec max_timeout_ms() -> pos_integer().
max_timeout_ms() -> mcp_client:max_timeout_ms().

-spec parse([string()]) -> parsed().
parse(Argv) ->
    {Own, ServerPart} = split_at_double_dash(Argv),
    case Own of
        [] -> {usage_error, "no subcommand given", usage(top)};
        [Help | _] when Help =:= "--help"; Help =:= "-h"; Help =:= "help" -> {help, help(top)};
        [Name | Rest] ->
            case subcommand(Name) of
                {ok, Subcommand} -> parse_subcommand(Subcommand, Rest, ServerPart);
                error -> {usage_error, ["unknown subcommand: ", Name], usage(top)}
            end
    end.

split_at_double_dash(Argv) ->
    case lists:splitwith(fun(Arg) -> Arg =/= "--" end, Argv) of
        {Own, []} -> {Own, none};
        {Own, ["--" | Server]} -> {Own, {given, Server}}
    end.

subcommand("generate") -> {ok, generate};
subcommand("list") -> {ok, list};
subcommand("call") -> {ok, call};
subcommand("login") -> {ok, login};
subcommand("new-harness") -> {ok, new_harness};
subcommand("watch") -> {ok, watch};
subcommand(_) -> error.

parse_subcommand(Subcommand, Args, ServerPart) ->
    case lists:member("--help", Args) orelse lists:member("-h", Args) of
        true -> {help, help(Subcommand)};
        false ->
            case parse_flags(Args, flags(Subcommand), #{}, []) of
                {ok, Flags, Positional} ->
                    build(Subcommand, Flags, Positional, ServerPart);
                {error, Reason} ->
                    {usage_error, Reason, usage(Subcommand)}
            end
    end.

-spec flags(subcommand()) -> [{string(), atom(), flag_kind()}].
flags(generate) -> [{"--name", name, value}, {"--out", out, value} | common_flags()];
flags(watch) -> [{"--name", name, value}, {"--out", out, value}, {"--reconnect", reconnect, value} | common_flags()];
flags(list) -> [{"--json", json, switch} | common_flags()];
flags(call) -> [{"--args", args, value}, {"--json", json, switch} | common_flags()];
flags(new_harness) ->
    [Flag || {_, Key, _} = Flag <- common_flags(), lists:member(Key, [config, server, timeout, verbose])];
flags(login) -> [Flag || {_, Key, _} = Flag <- common_flags(), not lists:member(Key, process_keys())].

%% The flags that shape a server process: not for a remote server.
process_keys() ->
    [env, cwd, grace, stderr | [Key || {_, Key, _} <- jail_flags()]].

common_flags() ->
    [{"--timeout", timeout, value}, {"--config", config, value}, {"--server", server, value},
     {"--url", url, value}, {"--header", header, repeated}, {"--allow-plaintext", allow_plaintext, switch},
     {"--env", env, repeated}, {"--cwd", cwd, value}, {"--grace", grace, value},
     {"--stderr", stderr, value}, {"--era", era, value}, {"--elicit", elicit, value},
     {"--verbose", verbose, switch} | jail_flags() ++ mcp_cli_oauth:flags()].

jail_flags() ->
    [{"--jail", jail, optional}, {"--allow-write", write, repeated}, {"--allow-read", read, repeated},
     {"--deny-read", deny, repeated}, {"--allow-net", net, switch},
     {"--allow-unix-sockets", unix_sockets, switch}, {"--no-landlock", no_landlock, switch}].

parse_flags([], _Spec, Flags, Positional) ->
    {ok, Flags, lists:reverse(Positional)};
parse_flags(["-" ++ _ = Arg | Rest], Spec, Flags, Positional) ->
    {Flag, Inline} = case string:split(Arg, "=") of
                         [F, V] -> {F, {given, V}};
                         [F] -> {F, none}
                     end,
    case {lists:keyfind(Flag, 1, Spec), Inline, Rest} of
        {false, _, _} ->
            {error, ["unknown flag: ", Flag]};
        {{_, Key, repeated}, {given, Value}, _} ->
            parse_flags(Rest, Spec, append(Key, Value, Flags), Positional);
        {{_, Key, repeated}, none, [Value | After]} ->
            parse_flags(After, Spec, append(Key, Value, Flags), Positional);
        {{_, Key, _}, _, _} when is_map_key(Key, Flags) ->
            {error, [Flag, " given twice"]};
        {{_, Key, switch}, none, _} ->
            parse_flags(Rest, Spec, Flags#{Key => true}, Positional);
        {{_, _, switch}, {given, _}, _} ->
            {error, [Flag, " takes no value"]};
        {{_, Key, optional}, none, _} ->
            parse_flags(Rest, Spec, Flags#{Key => true}, Positional);
        {{_, Key, optional}, {given, Value}, _} ->
            parse_flags(Rest, Spec, Flags#{Key => Value}, Positional);
        {{_, Key, value}, {given, Value}, _} ->
            parse_flags(Rest, Spec, Flags#{Key => Value}, Positional);
        {{_, Key, value}, none, [Value | After]} ->
            parse_flags(After, Spec, Flags#{Key => Value}, Positional);
        {{_, _, _}, none, []} ->
            {error, [Flag, " needs a value"]}
    end;
parse_flags([Arg | Rest], Spec, Flags, Positional) ->
    parse_flags(Rest, Spec, Flags, [Arg | Positional]).

append(Key, Value, Flags) ->
    Flags#{Key => maps:get(Key, Flags, []) ++ [Value]}.

build(Subcommand, Flags, Positional, ServerPart) ->
    Checks = [fun() -> server_of(Subcommand, Flags, ServerPart) end,
              fun() -> timeout(maps:get(timeout, Flags, none)) end,
              fun() -> env(maps:get(env, Flags, [])) end,
              fun() -> cwd(maps:get(cwd, Flags, none)) end,
              fun() -> grace(maps:get(grace, Flags, none)) end,
              fun() -> stderr(maps:get(stderr, Flags, none)) end,
              fun() -> jail(Flags) end,
              fun() -> {ok, #{verbose => maps:get(verbose, Flags, false)}} end,
              fun() -> {ok, maps:with([allow_plaintext], Flags)} end,
              fun() -> era(maps:get(era, Flags, none)) end,
              fun() -> elicit(maps:get(elicit, Flags, none)) end,
              fun() -> mcp_cli_oauth:options(Flags) end,
              fun() -> positional(Subcommand, Positional) end
              | specific(Subcommand, Flags)],
    case mcp_checks:run(Checks, #{subcommand => Subcommand}) of
        {ok, Command} -> {run, Command};
        {error, Reason} -> {usage_error, Reason, usage(Subcommand)}
    end.

specific(generate, Flags) ->
    [fun() -> server_name(maps:get(name, Flags, none)) end,
     fun() -> out_dir(maps:get(out, Flags, none)) end];
specific(watch, Flags) ->
    [fun() -> server_name(maps:get(name, Flags, none)) end,
     fun() -> out_dir(maps:get(out, Flags, ".")) end,
     fun() -> reconnect(maps:get(reconnect, Flags, none)) end];
specific(login, _Flags) ->
    [];
specific(new_harness, _Flags) ->
    [];
specific(list, Flags) ->
    [fun() -> {ok, #{json => maps:get(json, Flags, false)}} end];
specific(call, Flags) ->
    [fun() -> arguments(maps:get(args, Flags, "{}")) end,
     fun() -> {ok, #{json => maps:get(json, Flags, false)}} end].

%% `new-harness' runs the servers of a config file.
server_of(new_harness, Flags, ServerPart) when ServerPart =/= none; not is_map_key(config, Flags) ->
    {error, "new-harness takes its servers from a config file: give --config FILE"};
%% `login' authorizes with a remote server: `--url', or a config (whose
%% entry `mcp_cli_jobs' takes as it is).
server_of(login, Flags, ServerPart) when ServerPart =/= none; not (is_map_key(url, Flags) orelse is_map_key(config, Flags)) ->
    {error, "login authorizes with a remote server: give --url URL, or --config FILE with an http entry"};
server_of(_Subcommand, Flags, ServerPart) ->
    server(Flags, ServerPart).

%% The server: `--url URL' with its `--header's (a server mcp-gen does not
%% run, so the flags that shape a process do not apply), else the others.
server(#{url := Url} = Flags, ServerPart) ->
    Process = [Flag || {Flag, Key, _} <- common_flags(),
                       lists:member(Key, [config, server | process_keys()]),
                       is_map_key(Key, Flags)],
    case {Url, ServerPart, Process, headers(maps:get(header, Flags, []))} of
        {"", _, _, _} -> {error, "--url must not be empty"};
        {_, {given, _}, _, _} -> {error, "--url and -- COMMAND are alternatives: give one"};
        {_, _, [Flag | _], _} -> {error, [Flag, " applies to a server mcp-gen runs, not to --url"]};
        {_, _, [], {ok, Headers}} -> {ok, #{server => {url, Url, Headers}}};
        {_, _, [], {error, _} = Error} -> Error
    end;
server(#{header := _}, _ServerPart) ->
    {error, "--header needs --url"};
server(Flags, ServerPart) ->
    server(ServerPart, maps:get(config, Flags, none), maps:get(server, Flags, none)).

%% `Name: Value' (spaces after the colon dropped); the error names the
%% header, never its value.
headers(Given) ->
    Split = [case string:split(Header, ":") of
                 [Name, Value] when Name =/= "" -> {string:trim(Name), string:trim(Value, leading)};
                 _ -> error
             end || Header <- Given],
    case lists:member(error, Split) of
        false -> {ok, Split};
        true -> {error, "--header takes 'Name: Value' (one was given without a name and a colon; not shown)"}
    end.

server(none, none, none) -> {ok, #{server => embedded}};
server({given, []}, _Config, _Name) -> {error, "-- must be followed by the server COMMAND"};
server({given, _}, Config, _Name) when Config =/= none ->
    {error, "--config and -- COMMAND are alternatives: give one"};
server({given, [Executable | Args]}, none, none) -> {ok, #{server => {command, Executable, Args}}};
server(_ServerPart, none, _Name) -> {error, "--server needs --config FILE"};
server(none, "", _Name) -> {error, "--config must not be empty"};
server(none, _Config, "") -> {error, "--server must not be empty"};
server(none, Config, none) -> {ok, #{server => {config, Config, all}}};
server(none, Config, Name) -> {ok, #{server => {config, Config, {one, unicode:characters_to_binary(Name)}}}}.

%% `--env NAME' is NAME with the value mcp-gen has; the error names NAME
%% only, and never echoes a NAME=VALUE.
env(Pairs) ->
    Split = [case string:split(Pair, "=") of
                 [Name, Value] when Name =/= "" -> {Name, Value};
                 [Name] when Name =/= "" ->
                     case os:getenv(Name) of
                         false -> {unset, Name};
                         Value -> {Name, Value}
                     end;
                 _ -> {error, "--env takes NAME=VALUE or NAME, not one starting with ="}
             end || Pair <- Pairs],
    case [Why || {error, Why} <- Split] ++
         [["--env ", Name, ": mcp-gen's environment has no ", Name, " to pass (set it, or give --env ", Name, "=VALUE)"]
          || {unset, Name} <- Split] of
        [] -> {ok, #{env => Split}};
        [Why | _] -> {error, Why}
    end.

cwd(none) -> {ok, #{}};
cwd("") -> {error, "--cwd must not be empty"};
cwd(Dir) -> {ok, #{cwd => Dir}}.

%% `-': the terminal (inherited); `/dev/null': dropped; any other path: the
%% server's stderr appended there, bounded (`mcp_stderr').
stderr(none) -> {ok, #{}};
stderr("-") -> {ok, #{stderr => inherit}};
stderr("/dev/null") -> {ok, #{stderr => discard}};
stderr("") -> {error, "--stderr must be a file or -"};
stderr(File) -> {ok, #{stderr => {file, filename:absname(File)}}}.

grace(none) ->
    {ok, #{}};
grace(Text) ->
    bounded(Text, 0, mcp_port:max_shutdown_grace_ms(), grace_ms, "--grace must be milliseconds from 0 to ~b").

%% The jail's options as `mcp_jail' takes them; shaping flags need --jail.
jail(#{jail := "strict"} = Flags) ->
    {ok, #{jail := Jail}} = jail(Flags#{jail := true}),
    {ok, #{jail => Jail#{profile => strict}}};
jail(#{jail := Profile}) when Profile =/= true ->
    {error, ["--jail=", Profile, " names no profile: --jail or --jail=strict"]};
jail(#{jail := true} = Flags) ->
    Paths = [{Key, [filename:absname(Path) || Path <- maps:get(Key, Flags, [])]} || Key <- [write, read, deny]],
    Switches = [{Key, true} || Key <- [net, unix_sockets], maps:get(Key, Flags, false)]
        ++ [{landlock, false} || maps:get(no_landlock, Flags, false)],
    {ok, #{jail => maps:from_list([Option || {_, Value} = Option <- Paths ++ Switches, Value =/= []])}};
jail(Flags) ->
    case [Flag || {Flag, Key, _} <- jail_flags(), Key =/= jail, is_map_key(Key, Flags)] of
        [] -> {ok, #{}};
        [Flag | _] -> {error, [Flag, " shapes the jail: it needs --jail"]}
    end.

era(none) -> {ok, #{}};
era("handshake") -> {ok, #{era => handshake}};
era("modern") -> {ok, #{era => modern}};
era("auto") -> {ok, #{era => auto}};
era(_) -> {error, "--era must be handshake, modern or auto"}.

elicit(none) -> {ok, #{}};
elicit("decline") -> {ok, #{elicit => decline}};
elicit("defaults") -> {ok, #{elicit => defaults}};
elicit(_) -> {error, "--elicit must be decline or defaults"}.

timeout(none) ->
    {ok, #{timeout_ms => default_timeout_ms()}};
timeout(Text) ->
    bounded(Text, 1, max_timeout_ms(), timeout_ms, "--timeout must be milliseconds from 1 to ~b").

positional(new_harness, [Dir]) when Dir =/= "" -> {ok, #{harness => Dir, out => filename:join(Dir, "src")}};
positional(new_harness, []) -> {error, "new-harness needs the project DIR"};
positional(new_harness, [_Dir, Extra | _]) -> {error, ["unexpected argument: ", Extra]};
positional(call, [Tool]) -> {ok, #{tool => unicode:characters_to_binary(Tool)}};
positional(call, []) -> {error, "call needs the TOOL name"};
positional(call, [_Tool, Extra | _]) -> {error, ["unexpected argument: ", Extra]};
positional(_, []) -> {ok, #{}};
positional(_, [Extra | _]) -> {error, ["unexpected argument: ", Extra]}.

server_name(none) -> {ok, #{}};
server_name("") -> {error, "--name must not be empty"};
server_name(Name) -> {ok, #{name => unicode:characters_to_binary(Name)}}.

%% `--reconnect N': after a server that was up dies, N attempts to start
%% it again (the client's `reconnect' option; mcp_cli_jobs merges it with
%% a config entry's).
reconnect(none) ->
    {ok, #{}};
reconnect(Text) ->
    bounded(Text, 1, max_reconnect_attempts(), reconnect, "--reconnect must be a number of attempts from 1 to ~b").

%% A flag's integer from Min to Max as `#{Key => N}', else the error
%% `Format' with Max.
bounded(Text, Min, Max, Key, Format) ->
    case string:to_integer(Text) of
        {N, []} when N >= Min, N =< Max -> {ok, #{Key => N}};
        _ -> {error, io_lib:format(Format, [Max])}
    end.

out_dir(none) -> {ok, #{}};
out_dir("") -> {error, "--out must not be empty"};
out_dir(Dir) -> {ok, #{out => Dir}}.

arguments(Text) ->
    case unicode:characters_to_binary(Text) of
        Bin when is_binary(Bin) ->
            case mcp_json:decode(Bin) of
                {ok, {object, _} = Object} -> {ok, #{arguments => Object}};
                {ok, _} -> {error, "--args must be a JSON object"};
                {error, {corruption_report, Offset, Reason}} ->
                    {error, io_lib:format("--args is not JSON: ~ts at byte ~b", [Reason, Offset])}
            end;
        _ -> {error, "--args is not valid UTF-8"}
    end.

%% @doc The one-line usage of a subcommand (or of the program: `top').
-spec usage(top | subcommand()) -> iolist().
usage(top) -> "usage: mcp-gen generate|list|call|login|new-harness|watch [OPTIONS] [SERVER]   (mcp-gen SUBCOMMAND --help)";
usage(new_harness) -> "usage: mcp-gen new-harness DIR --config FILE [--server NAME] [--timeout MS] [--verbose]";
usage(generate) -> ["usage: mcp-gen generate [--name SERVER] [--out DIR]", common_usage()];
usage(watch) -> ["usage: mcp-gen watch [--name SERVER] [--out DIR] [--reconnect N]", common_usage()];
usage(list) -> ["usage: mcp-gen list [--json]", common_usage()];
usage(call) -> ["usage: mcp-gen call TOOL [--args JSON] [--json]", common_usage()];
usage(login) -> ["usage: mcp-gen login [--browser CMD] [OAUTH]", general_usage(), remote_usage(), "]"].

common_usage() ->
    [general_usage(),
     " [--env NAME[=VALUE]]... [--cwd DIR] [--grace MS] [--stderr FILE|-]"
     " [--jail[=strict] [--allow-write DIR]... [--allow-read DIR]... [--deny-read PATH]... [--allow-net]"
     " [--allow-unix-sockets] [--no-landlock]]", remote_usage(), " | -- COMMAND ARGS...]"].

general_usage() ->
    " [--timeout MS] [--verbose] [--era handshake|modern|auto] [--elicit decline|defaults]".

remote_usage() ->
    " [--config FILE [--server NAME] | --url URL [--header 'NAME: VALUE']...".

help(top) ->
    [usage(top), "\n\n"
     "Runs an MCP server over stdio and works with its tools:\n"
     "  generate  generate the typed Gleam module cap/mcp/<server> and its surface\n"
     "  list      list the tools with their parameters, one per line (or as JSON)\n"
     "  call      call one tool and print its result\n"
     "  login     authorize with a remote server (OAuth) and keep its tokens\n"
     "  new-harness  write a Gleam project that calls the servers of a config file\n"
     "  watch     keep cap/mcp/<server> in step with the server's tools as they change\n\n",
     server_help()];
help(generate) ->
    [usage(generate), "\n\n"
     "Spawns the server, lists every tool and generates the Gleam module\n"
     "cap/mcp/<segment> and its description surface. Progress and a table of\n"
     "the tools' plans go to stderr. With --config and no --server, every stdio\n"
     "server of the file is generated into --out DIR, concurrently, and a\n"
     "summary table ends the run (exit 1 if any failed).\n\n"
     "  --name SERVER    server name the module is named after (default: the\n"
     "                   config key with --config, else the name the server\n"
     "                   reports in its serverInfo)\n"
     "  --out DIR        write DIR/cap/mcp/<segment>.gleam and DIR/<segment>.surface\n"
     "                   (default: print the module to stdout)\n",
     common_help(), "\n", server_help()];
help(watch) ->
    [usage(watch), "\n\n"
     "Generates each server's module as generate --out does, then keeps the\n"
     "servers connected and follows their tools: when a server's listing\n"
     "changes (notifications/tools/list_changed, a new HTTP session), the\n"
     "module is generated again and DIR/cap/mcp/<segment>.gleam replaced\n"
     "atomically, only when it differs. One line per event on stdout:\n"
     "  SERVER: generation G: +ADDED -REMOVED ~CHANGED (PATH rewritten|unchanged)\n"
     "  SERVER: died: WHY\n"
     "  SERVER: reconnecting (attempt N): WHY | reconnected (attempt N) | gave up reconnecting: WHY\n"
     "With --config and no --server, every stdio and http server of the file.\n"
     "Runs until every server is gone for good (exit 1) or Ctrl-C (exit 130).\n\n"
     "  --name SERVER    server name the module is named after (as generate)\n"
     "  --out DIR        write DIR/cap/mcp/<segment>.gleam and DIR/<segment>.surface\n"
     "                   (default: the current directory)\n",
     io_lib:format("  --reconnect N    when a server that was up dies, start it again, at most N\n"
                   "                   times in a row (1 to ~b; a config entry's \"reconnect\"\n"
                   "                   sets it per server; default: a dead server stays dead)\n",
                   [max_reconnect_attempts()]),
     common_help(), "\n", server_choice_help(),
     "Exit status: 1 every server gone for good, 2 usage, 130 interrupted (143 on SIGTERM).\n"];
help(list) ->
    [usage(list), "\n\n"
     "Prints each tool as NAME(PARAM: TYPE, OPTIONAL?: TYPE, ...) with its\n"
     "description; types are string, int, float, bool, [T] for lists, json for\n"
     "anything structured; (arguments: json) when only a whole value fits.\n\n"
     "  --json           print one JSON document instead: the server, and every\n"
     "                   tool as sent (inputSchema, outputSchema, annotations...)\n",
     common_help(), "\n", server_help()];
help(login) ->
    [usage(login), "\n\n"
     "Connects to a remote server (--url, or an http entry of --config) and, when\n"
     "it asks for authorization, runs OAuth 2.1: discovery, registration, the\n"
     "authorization code flow with PKCE on a loopback redirect (127.0.0.1). The\n"
     "authorization URL is printed for a person to open, or handed to --browser\n"
     "CMD. The tokens are kept (docs/authorization.md); later runs and the\n"
     "library use and renew them with no person.\n\n",
     general_help(), remote_help(), mcp_cli_oauth:help(), "\n",
     "The server is --url URL, or --config FILE [--server NAME] naming an http entry.\n"
     "Exit status: 0 success, 1 refusal or server/client error, 2 usage, 130 interrupted.\n"];
help(new_harness) ->
    [usage(new_harness), "\n\n"
     "Writes a Gleam project in DIR (which must not hold one yet) that depends on\n"
     "this checkout's gleam/ package: the generated module of every server of the\n"
     "config (src/cap/mcp/), the cap counterpart they call (src/cap/), and a main\n"
     "that starts each server, calls one read-only tool and shuts it down. Then\n"
     "`cd DIR && gleam run`. With MCP_GLEAM_HOME (an offline Gleam toolchain) its\n"
     "dependencies are seeded from there, so no Hex request is made.\n\n",
     "  --config FILE    the servers (\"mcpServers\", or VS Code's \"servers\")\n"
     "  --server NAME    only this one of them\n",
     io_lib:format("  --timeout MS     deadline for each request to a server (default ~b)\n", [default_timeout_ms()]),
     "  --verbose        log every line sent and received on stderr, with times\n\n"
     "Exit status: 0 success, 1 a server or the project failed, 2 usage.\n"];
help(call) ->
    [usage(call), "\n\n"
     "Calls TOOL once and prints its text content blocks (other blocks as a\n"
     "[kind content] line). Exit status 1 when the tool reports an error.\n\n"
     "  --args JSON      the arguments, a JSON object (default {})\n"
     "  --json           print the whole result as one JSON object instead\n",
     common_help(), "\n", server_help()].

common_help() ->
    [general_help(), process_help(), remote_help(), mcp_cli_oauth:help()].

general_help() ->
    [io_lib:format("  --timeout MS     deadline for each request to the server (default ~b)\n",
                   [default_timeout_ms()]),
     "  --verbose        log every line sent and received on stderr, with times\n"
     "  --era ERA        handshake (default: initialize), modern (2026-07-28: server/discover)\n"
     "                   or auto (probe server/discover, fall back to initialize)\n"
     "  --elicit POLICY  a server's elicitation: decline (default: refused) or defaults\n"
     "                   (accept with the schema's defaults; decline when a required\n"
     "                   field has none)\n"].

process_help() ->
    ["  --env NAME=VALUE set a variable in the server's environment (repeatable);\n"
     "                   --env NAME passes mcp-gen's own value of NAME\n"
     "  --cwd DIR        run the server in DIR\n"
     "  --grace MS       when done, send the server SIGTERM and SIGKILL only MS\n"
     "                   later if it has not exited (default: SIGKILL at once)\n"
     "  --stderr FILE|-  append the server's stderr to FILE (at most 16 MiB per\n"
     "                   run; /dev/null drops it); - leaves it on this terminal\n"
     "  --jail           run the server in a bubblewrap jail: it reads everything but\n"
     "                   credential stores, writes only a private /tmp, has no\n"
     "                   network and no Unix sockets (docs/jail.md)\n"
     "  --jail=strict    the same, reading only the system, the server's install\n"
     "                   tree, its working directory and the grants\n"
     "  --allow-write DIR   with --jail: let the server write DIR (repeatable)\n"
     "  --allow-read DIR    with --jail: let it read DIR where the jail hides it\n"
     "                      (under /tmp, /run or a denied path; repeatable)\n"
     "  --deny-read PATH    with --jail: hide PATH too (repeatable)\n"
     "  --allow-net         with --jail: share the host's network\n"
     "  --allow-unix-sockets  with --jail: allow connecting to Unix sockets\n"
     "  --no-landlock       with --jail: accept the weaker jail of a kernel without\n"
     "                      Landlock (refused otherwise)\n"].

remote_help() ->
    ["  --config FILE    take the server from an MCP config file (\"mcpServers\",\n"
     "                   or VS Code's \"servers\")\n"
     "  --server NAME    the config's server to use (needed when it has several)\n"
     "  --url URL        a remote server over Streamable HTTP instead of a command\n"
     "  --header 'NAME: VALUE'  with --url: send this header (repeatable); ${VAR}\n"
     "                   in VALUE is the environment variable VAR; never printed\n"
     "  --allow-plaintext  send headers and tokens over plain http to a host that\n"
     "                   is not this machine (refused otherwise)\n"].

server_help() ->
    [server_choice_help(),
     "Exit status: 0 success, 1 refusal or server/client error, 2 usage, 130 interrupted.\n"].

server_choice_help() ->
    "SERVER is --config FILE [--server NAME], --url URL (a remote server), or\n"
    "-- COMMAND ARGS... (an executable and its arguments, never a shell string);\n"
    "with none, the example server in examples/ runs.\n".

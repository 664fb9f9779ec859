%% @doc Command-line parsing for `bin/mcp-gen': subcommands, flags, the
%% `-- COMMAND ARGS...' server command, usage lines and help texts.
%%
%% Total over any argument list: the answer is a command to run, a help
%% text (exit 0) or a usage error (exit 2); it never raises. Flags take
%% their value as the next argument or after `=' (`--out=DIR'). Everything
%% after the first `--' is the server command, passed on verbatim (never
%% through a shell); without it the embedded example server is used.
-module(mcp_cli_args).

-export([parse/1, usage/1, default_timeout_ms/0, max_timeout_ms/0]).
-export_type([command/0, subcommand/0, server/0, parsed/0]).

-define(DEFAULT_TIMEOUT_MS, 30000).
-define(MAX_TIMEOUT_MS, 86400000).

-type subcommand() :: generate | list | call.
%% `embedded' is the example server shipped in `examples/'.
-type server() :: embedded | {command, Executable :: string(), Args :: [string()]}.
-type command() :: #{subcommand := subcommand(),
                     server := server(),
                     timeout_ms := pos_integer(),
                     name => binary(),              % generate: --name
                     out => string(),               % generate: --out
                     tool => binary(),              % call: TOOL
                     arguments => mcp_json:json(),  % call: --args (an object)
                     json => boolean()}.            % call: --json
-type parsed() :: {run, command()}
                | {help, Text :: iolist()}
                | {usage_error, Reason :: iolist(), Usage :: iolist()}.

-type flag_kind() :: value | switch.

%% @doc Milliseconds allowed for each request when `--timeout' is absent.
-spec default_timeout_ms() -> pos_integer().
default_timeout_ms() -> ?DEFAULT_TIMEOUT_MS.

%% @doc The largest `--timeout' accepted (one day).
-spec max_timeout_ms() -> pos_integer().
max_timeout_ms() -> ?MAX_TIMEOUT_MS.

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
flags(generate) -> [{"--name", name, value}, {"--out", out, value}, {"--timeout", timeout, value}];
flags(list) -> [{"--timeout", timeout, value}];
flags(call) -> [{"--args", args, value}, {"--json", json, switch}, {"--timeout", timeout, value}].

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
        {{_, Key, _}, _, _} when is_map_key(Key, Flags) ->
            {error, [Flag, " given twice"]};
        {{_, Key, switch}, none, _} ->
            parse_flags(Rest, Spec, Flags#{Key => true}, Positional);
        {{_, _, switch}, {given, _}, _} ->
            {error, [Flag, " takes no value"]};
        {{_, Key, value}, {given, Value}, _} ->
            parse_flags(Rest, Spec, Flags#{Key => Value}, Positional);
        {{_, Key, value}, none, [Value | After]} ->
            parse_flags(After, Spec, Flags#{Key => Value}, Positional);
        {{_, _, value}, none, []} ->
            {error, [Flag, " needs a value"]}
    end;
parse_flags([Arg | Rest], Spec, Flags, Positional) ->
    parse_flags(Rest, Spec, Flags, [Arg | Positional]).

build(Subcommand, Flags, Positional, ServerPart) ->
    Checks = [fun() -> server(ServerPart) end,
              fun() -> timeout(maps:get(timeout, Flags, none)) end,
              fun() -> positional(Subcommand, Positional) end
              | specific(Subcommand, Flags)],
    case collect(Checks, #{subcommand => Subcommand}) of
        {ok, Command} -> {run, Command};
        {error, Reason} -> {usage_error, Reason, usage(Subcommand)}
    end.

%% Each check answers {ok, #{...}} (merged into the command) or {error, Reason}.
collect([], Command) -> {ok, Command};
collect([Check | Rest], Command) ->
    case Check() of
        {ok, Fields} -> collect(Rest, maps:merge(Command, Fields));
        {error, _} = Error -> Error
    end.

specific(generate, Flags) ->
    [fun() -> server_name(maps:get(name, Flags, none)) end,
     fun() -> out_dir(maps:get(out, Flags, none)) end];
specific(list, _Flags) ->
    [];
specific(call, Flags) ->
    [fun() -> arguments(maps:get(args, Flags, "{}")) end,
     fun() -> {ok, #{json => maps:get(json, Flags, false)}} end].

server(none) -> {ok, #{server => embedded}};
server({given, []}) -> {error, "-- must be followed by the server COMMAND"};
server({given, [Executable | Args]}) -> {ok, #{server => {command, Executable, Args}}}.

timeout(none) ->
    {ok, #{timeout_ms => ?DEFAULT_TIMEOUT_MS}};
timeout(Text) ->
    case string:to_integer(Text) of
        {Ms, []} when Ms >= 1, Ms =< ?MAX_TIMEOUT_MS -> {ok, #{timeout_ms => Ms}};
        _ -> {error, io_lib:format("--timeout must be milliseconds from 1 to ~b", [?MAX_TIMEOUT_MS])}
    end.

positional(call, [Tool]) -> {ok, #{tool => unicode:characters_to_binary(Tool)}};
positional(call, []) -> {error, "call needs the TOOL name"};
positional(call, [_Tool, Extra | _]) -> {error, ["unexpected argument: ", Extra]};
positional(_, []) -> {ok, #{}};
positional(_, [Extra | _]) -> {error, ["unexpected argument: ", Extra]}.

server_name(none) -> {ok, #{}};
server_name("") -> {error, "--name must not be empty"};
server_name(Name) -> {ok, #{name => unicode:characters_to_binary(Name)}}.

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
usage(top) -> "usage: mcp-gen generate|list|call [OPTIONS] [-- COMMAND ARGS...]   (mcp-gen SUBCOMMAND --help)";
usage(generate) -> "usage: mcp-gen generate [--name SERVER] [--out DIR] [--timeout MS] [-- COMMAND ARGS...]";
usage(list) -> "usage: mcp-gen list [--timeout MS] [-- COMMAND ARGS...]";
usage(call) -> "usage: mcp-gen call TOOL [--args JSON] [--json] [--timeout MS] [-- COMMAND ARGS...]".

help(top) ->
    [usage(top), "\n\n"
     "Runs an MCP server over stdio and works with its tools:\n"
     "  generate  generate the typed Gleam module cap/mcp/<server> and its surface\n"
     "  list      list the tools with their parameters, one per line\n"
     "  call      call one tool and print its result\n\n",
     server_help()];
help(generate) ->
    [usage(generate), "\n\n"
     "Spawns the server, lists every tool and generates the Gleam module\n"
     "cap/mcp/<segment> and its description surface. Progress and a table of\n"
     "the tools' plans go to stderr.\n\n"
     "  --name SERVER  server name the module is named after (default: the\n"
     "                 name the server reports in its serverInfo)\n"
     "  --out DIR      write DIR/cap/mcp/<segment>.gleam and DIR/<segment>.surface\n"
     "                 (default: print the module to stdout)\n",
     timeout_help(), "\n", server_help()];
help(list) ->
    [usage(list), "\n\n"
     "Prints each tool as NAME(PARAM: TYPE, OPTIONAL?: TYPE, ...) with its\n"
     "description; types are string, int, float, bool, [T] for lists, json for\n"
     "anything structured; (arguments: json) when only a whole value fits.\n\n",
     timeout_help(), "\n", server_help()];
help(call) ->
    [usage(call), "\n\n"
     "Calls TOOL once and prints its text content blocks (other blocks as a\n"
     "[kind content] line). Exit status 1 when the tool reports an error.\n\n"
     "  --args JSON    the arguments, a JSON object (default {})\n"
     "  --json         print the whole result as one JSON object instead\n",
     timeout_help(), "\n", server_help()].

timeout_help() ->
    io_lib:format("  --timeout MS   deadline for each request to the server (default ~b)\n",
                  [?DEFAULT_TIMEOUT_MS]).

server_help() ->
    "-- COMMAND ARGS... is the server to run (an executable and its arguments,\n"
    "never a shell string); without it the example server in examples/ runs.\n"
    "Exit status: 0 success, 1 refusal or server/client error, 2 usage, 130 interrupted.\n".

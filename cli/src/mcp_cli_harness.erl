%% @doc `mcp-gen new-harness DIR --config FILE': the Gleam project written
%% around the modules `generate' writes into `DIR/src/cap/mcp/'. The project
%% depends on this checkout's `gleam/' package by path and holds the `cap'
%% counterpart the modules import (copied from `gleam/code_mode/src/', the
%% reference one: docs/cap-contract.md) and a `main' that starts every
%% configured server, calls one tool of each, prints the outcome and shuts
%% the servers down.
%%
%% Invariants:
%% <ul>
%% <li>Each server's surface (what a model reads of its module) is in
%%     `DIR/surface/'.</li>
%% <li>Nothing of an existing project is overwritten: a DIR holding a
%%     `gleam.toml' or a `src/' is refused before any server starts.</li>
%% <li>No value of an environment variable is written: a config's `${VAR}'
%%     becomes a lookup the harness makes when it runs (a variable unset
%%     then is one line naming it, and nothing starts); header values keep
%%     `${VAR}', which the HTTP transport resolves.</li>
%% <li>The tool `main' calls is one the server marks read-only
%%     (`readOnlyHint'), else one whose name says it only reads (`echo',
%%     `ping', or `get', `list', `read', `search', `describe', `show' as its
%%     first word) and whose annotations do not say it writes; among them
%%     the one with the fewest required arguments, each an empty value
%%     (`""', `0', `0.0', `False', `[]'); optional arguments are left
%%     out. A server with no such tool is started, counted and shut down,
%%     and `main' says why nothing was called: any other tool may change
%%     the world.</li>
%% <li>Paths the config gives relative to where mcp-gen runs (a command
%%     with a `/', a `cwd', and a server without a `cwd' reading relative
%%     arguments) stay right when the harness runs elsewhere: the server's
%%     working directory is written absolute.</li>
%% </ul>
-module(mcp_cli_harness).

-export([check/1, project_name/1, sample/1, write/4]).
-export_type([sample/0]).

%% The generated function to call and its arguments, as Gleam source.
-type sample() :: {call, Tool :: binary(), Function :: binary(), Arguments :: [{Label :: binary(), Source :: iodata()}]}
                | {none, ToolCount :: non_neg_integer()}.

%% @doc Refuses a directory that already holds a Gleam project.
-spec check(file:filename_all()) -> ok | {error, iolist()}.
check(Dir) ->
    case [F || F <- ["gleam.toml", "src"], filelib:is_file(filename:join(Dir, F))] of
        [] -> ok;
        [Found | _] -> {error, [display(Dir), " already holds ", Found, "; new-harness writes a new project only"]}
    end.

%% @doc The Gleam package name for a directory: its base name, lower case,
%% other characters as `_', prefixed when it would not start with a letter
%% or would be a package the project depends on.
-spec project_name(file:filename_all()) -> binary().
project_name(Dir) ->
    Base = string:lowercase(unicode:characters_to_list(filename:basename(filename:absname(Dir)))),
    Name = iolist_to_binary([case C >= $a andalso C =< $z orelse C >= $0 andalso C =< $9 of
                                 true -> C;
                                 false -> $_
                             end || C <- Base]),
    case re:run(Name, "^[a-z]", [{capture, none}]) =:= match andalso
         not lists:member(Name, [<<"mcp">>, <<"cap">>, <<"gleam">>, <<"gleam_stdlib">>, <<"gleam_erlang">>,
                                 <<"gleeunit">>]) of
        true -> Name;
        false -> <<"harness_", Name/binary>>
    end.

%% @doc The call `main' makes on a server with these tools.
-spec sample([mcp_codegen:tool_descriptor()]) -> sample().
sample(Tools) ->
    Callable = fun(Reads) -> [{Tool, Arguments} || Tool <- Tools, Reads(Tool), not mcp_codegen:requires_tasks(Tool),
                                                   {ok, Arguments} <- [arguments(Tool)]] end,
    case lists:sort(fun({_, A}, {_, B}) -> length(A) =< length(B) end,
                    case Callable(fun marked_read_only/1) of
                        [] -> Callable(fun named_as_reading/1);
                        Marked -> Marked
                    end) of
        [{{tool_descriptor, Name, _, _, _, _, _, _}, Arguments} | _] ->
            {call, Name, mcp_name:mangle(Name), Arguments};
        [] ->
            {none, length(Tools)}
    end.

marked_read_only(Tool) ->
    lists:member({<<"readOnlyHint">>, {bool, true}}, annotations(Tool)).

named_as_reading({tool_descriptor, Name, _, _, _, _, _, _} = Tool) ->
    Annotations = annotations(Tool),
    not lists:member({<<"readOnlyHint">>, {bool, false}}, Annotations)
        andalso not lists:member({<<"destructiveHint">>, {bool, true}}, Annotations)
        andalso re:run(Name, "^(echo|ping|(get|list|read|search|describe|show)([-_.A-Z].*)?)$", [{capture, none}]) =:= match.

annotations({tool_descriptor, _, _, _, _, _, {some, {object, Members}}, _}) -> Members;
annotations(_Tool) -> [].

%% The required parameters with empty values; a structured one (any JSON
%% value) or a whole-value tool has no obvious empty value, so no call.
arguments({tool_descriptor, _, _, _, InputSchema, _, _, _}) ->
    case mcp_schema:plan(InputSchema) of
        {typed, Params} ->
            Given = [{Label, empty(Type)} || {param, _Wire, Label, Type, false} <- Params],
            case lists:member(none, [Value || {_, Value} <- Given]) of
                false -> {ok, Given};
                true -> none
            end;
        {whole_value, _} ->
            none
    end.

empty({simple, string}) -> "\"\"";
empty({simple, int}) -> "0";
empty({simple, float}) -> "0.0";
empty({simple, bool}) -> "False";
empty({list_of, _}) -> "[]";
empty({structured, _}) -> none.

%% @doc Writes the project: `gleam.toml', the `cap' counterpart, the env
%% lookup and `main'. `Servers' are `{Key, Segment, Spec, Sample}', the spec
%% read with each `${VAR}' as `<<0, VAR, 0>>' (`mcp_cli_config:read/2').
-spec write(file:filename_all(), file:filename_all(), binary(),
            [{binary(), binary(), mcp_transport:spawn() | mcp_http:spec(), sample()}]) ->
          ok | {error, iolist()}.
write(Dir, Root, Name, Servers) ->
    Cap = filename:join([Root, "gleam", "code_mode", "src"]),
    Copies = [{filename:join(Cap, From), filename:join([Dir, "src", From])}
              || From <- ["cap/mcp.gleam", "cap/report.gleam", "cap/internal/mcp.gleam", "cap_registry_ffi.erl"]],
    Files = [{filename:join(Dir, "gleam.toml"), gleam_toml(Name, Root)},
             {filename:join([Dir, "src", <<Name/binary, "_env_ffi.erl">>]), env_ffi(Name)},
             {filename:join([Dir, "src", <<Name/binary, ".gleam">>]), main(Name, Servers)}],
    Read = [{To, file:read_file(From)} || {From, To} <- Copies],
    case [From || {{From, _}, {_, {error, _}}} <- lists:zip(Copies, Read)] of
        [] ->
            write_files([{To, Bytes} || {To, {ok, Bytes}} <- Read] ++ Files);
        [Missing | _] -> {error, ["cannot read the cap counterpart ", display(Missing)]}
    end.

write_files([]) -> ok;
write_files([{Path, Bytes} | Rest]) ->
    case filelib:ensure_dir(Path) =:= ok andalso file:write_file(Path, Bytes) of
        ok -> write_files(Rest);
        _ -> {error, ["cannot write ", display(Path)]}
    end.

gleam_toml(Name, Root) ->
    ["# Written by `mcp-gen new-harness`: the servers of a config file as Gleam\n"
     "# functions (src/cap/mcp/), the cap counterpart they call (src/cap/) and\n"
     "# a main that starts them, calls a tool of each and shuts them down.\n"
     "name = \"", Name, "\"\n"
     "version = \"0.1.0\"\n\n"
     "[dependencies]\n"
     "gleam_stdlib = \">= 0.60.0 and < 2.0.0\"\n"
     "gleam_erlang = \">= 1.0.0 and < 2.0.0\"\n"
     "mcp = { path = \"", filename:join(Root, "gleam"), "\" }\n"].

env_ffi(Name) ->
    ["%% The environment variables the harness passes to its servers, read\n"
     "%% when it runs (never written into the project).\n"
     "-module(", Name, "_env_ffi).\n"
     "-export([getenv/1]).\n\n"
     "getenv(Name) ->\n"
     "    case os:getenv(unicode:characters_to_list(Name)) of\n"
     "        false -> {error, nil};\n"
     "        Value -> {ok, unicode:characters_to_binary(Value)}\n"
     "    end.\n"].

main(Name, Servers) ->
    Variables = lists:usort(lists:append([variables(Spec) || {_, _, Spec, _} <- Servers])),
    ["//// Starts every server of the config mcp-gen new-harness was given, calls\n"
     "//// one tool of each through its generated module and shuts it down.\n\n",
     "import cap/internal/mcp as cap\n",
     "import cap/mcp.{type Outcome, Reply}\n",
     [["import cap/mcp/", Segment, " as ", Segment, "_tools\n"] || {_, Segment, _, {call, _, _, _}} <- Servers],
     "import gleam/io\n"
     "import gleam/list\n",
     [<<"import gleam/option\n">> || lists:any(fun({_, _, Spec, _}) -> is_map_key(executable, Spec) end, Servers)],
     "import gleam/string\n"
     "import mcp/client\n"
     "import mcp/transport\n\n"
     "pub fn main() -> Nil {\n"
     "  use <- require_env(", list_source([gleam_string(V) || V <- Variables]), ")\n",
     [["  run(", gleam_string(Key), ", ", Segment, "_transport(), ", call_source(Segment, Sample), ")\n"]
      || {Key, Segment, _, Sample} <- Servers],
     "}\n\n",
     [transport_function(Segment, Spec) || {_, Segment, Spec, _} <- Servers],
     "/// Starts the server, makes the call (a server with no tool safe to call\n"
     "/// gets none), prints the outcome and shuts the server down.\n"
     "fn run(\n"
     "  server: String,\n"
     "  transport: transport.Transport,\n"
     "  call: Result(#(String, fn() -> Outcome), String),\n"
     ") -> Nil {\n"
     "  case client.start(transport, client.default_options()) {\n"
     "    Ok(#(started, init)) -> {\n"
     "      cap.register(server, started)\n"
     "      io.println(server <> \": connected to \" <> init.server_info.name)\n"
     "      case call {\n"
     "        Ok(#(tool, call)) ->\n"
     "          io.println(server <> \": \" <> tool <> describe(call()))\n"
     "        Error(why) -> io.println(server <> \": \" <> why)\n"
     "      }\n"
     "      cap.unregister(server)\n"
     "      case client.shutdown(started, 5000) {\n"
     "        Ok(_) -> Nil\n"
     "        Error(error) ->\n"
     "          io.println(server <> \": \" <> client.describe_retirement_error(error))\n"
     "      }\n"
     "    }\n"
     "    Error(error) ->\n"
     "      io.println(server <> \": \" <> client.describe_start_error(error))\n"
     "  }\n"
     "}\n\n"
     "fn describe(outcome: Outcome) -> String {\n"
     "  case outcome {\n"
     "    Ok(Reply(text:, ..)) -> \" answered: \" <> string.join(text, \"\\n\")\n"
     "    Error(report) -> \" failed: \" <> string.inspect(report)\n"
     "  }\n"
     "}\n\n"
     "@external(erlang, \"", Name, "_env_ffi\", \"getenv\")\n"
     "fn getenv(name: String) -> Result(String, Nil)\n\n",
     [<<"fn env(name: String) -> String {\n"
        "  case getenv(name) {\n"
        "    Ok(value) -> value\n"
        "    Error(Nil) -> \"\"\n"
        "  }\n"
        "}\n\n">> || Variables =/= []],
     "/// Every variable the config passes to a server must be set, or nothing\n"
     "/// starts.\n"
     "fn require_env(names: List(String), next: fn() -> Nil) -> Nil {\n"
     "  case list.filter(names, fn(name) { getenv(name) == Error(Nil) }) {\n"
     "    [] -> next()\n"
     "    missing ->\n"
     "      io.println(\n"
     "        \"not started: the config passes these environment variables, which are not set: \"\n"
     "        <> string.join(missing, \", \"),\n"
     "      )\n"
     "  }\n"
     "}\n"].

call_source(Segment, {call, Tool, Function, Arguments}) ->
    ["Ok(#(", gleam_string(Tool), ", fn() { ", Segment, "_tools.", Function, "(",
     lists:join(", ", [[Label, ": ", Value] || {Label, Value} <- Arguments]), ") }))"];
call_source(_Segment, {none, Count}) ->
    ["Error(", gleam_string(iolist_to_binary(
                 io_lib:format("~b tools listed; none is marked or named as only reading with arguments that "
                               "can be left empty, so main calls none: call one of src/cap/mcp/ here", [Count]))), ")"].

transport_function(Segment, Spec) ->
    ["fn ", Segment, "_transport() -> transport.Transport {\n  ", transport_source(Spec), "\n}\n\n"].

transport_source(#{url := Url} = Spec) ->
    ["transport.HttpTransport(\n    transport.Remote(..transport.remote(", gleam_string(Url), "), headers: ",
     list_source([["#(", gleam_string(N), ", ", gleam_string(V), ")"] || {N, V} <- maps:get(headers, Spec, [])]),
     "),\n  )"];
transport_source(#{executable := Executable} = Spec) ->
    {ok, Here} = file:get_cwd(),
    Cwd = filename:absname(maps:get(cd, Spec, Here)),
    Fields = [["env: ", list_source([["#(", gleam_string(N), ", ", env_value(V), ")"] || {N, V} <- maps:get(env, Spec, [])])],
              ["cwd: option.Some(", gleam_string(unicode:characters_to_binary(Cwd)), ")"]]
             ++ [["jail: option.Some(", jail_source(Jail), ")"] || Jail <- [maps:get(jail, Spec, none)], Jail =/= none]
             ++ [["stderr: ", stderr_source(Stderr)] || Stderr <- [maps:get(stderr, Spec, inherit)], Stderr =/= inherit],
    ["transport.PortTransport(\n    transport.Spawn(\n      ..transport.spawn(", text_source(executable(Executable)), ", ",
     list_source([text_source(A) || A <- maps:get(args, Spec, [])]), "),\n      ",
     lists:join(",\n      ", Fields), ",\n    ),\n  )"].

%% A command with a `/' is a path from where mcp-gen runs.
executable(Executable) ->
    case binary:match(Executable, <<"/">>) of
        nomatch -> Executable;
        _ -> unicode:characters_to_binary(filename:absname(Executable))
    end.

env_value(false) -> "transport.Unset";
env_value(Value) -> ["transport.Set(", text_source(Value), ")"].

jail_source(true) -> "transport.default_jail()";
jail_source(Jail) ->
    Paths = fun(Key) -> list_source([gleam_string(unicode:characters_to_binary(P)) || P <- maps:get(Key, Jail, [])]) end,
    ["transport.Jail(..transport.default_jail(), write: ", Paths(write), ", read: ", Paths(read),
     ", deny: ", Paths(deny), ", net: ", bool(maps:get(net, Jail, false)),
     ", unix_sockets: ", bool(maps:get(unix_sockets, Jail, false)),
     case Jail of
         #{bwrap := Bwrap} -> [", bwrap: option.Some(", gleam_string(unicode:characters_to_binary(Bwrap)), ")"];
         _ -> ", bwrap: option.None"
     end, ")"].

stderr_source(discard) -> "transport.DiscardStderr";
stderr_source({file, Path}) ->
    ["transport.StderrToFile(", gleam_string(Path), ", transport.default_stderr_file_bytes())"];
stderr_source({file, Path, Max}) ->
    ["transport.StderrToFile(", gleam_string(Path), ", ", integer_to_list(Max), ")"].

bool(true) -> "True";
bool(false) -> "False".

%% A config string whose `${VAR}' references are `<<0, VAR, 0>>': a literal,
%% or the concatenation of its text and `env(VAR)' lookups.
text_source(Text) ->
    case binary:split(Text, <<0>>, [global]) of
        [Plain] -> gleam_string(Plain);
        Parts ->
            case parts(Parts, text) of
                [Lookup] -> Lookup;
                Several -> ["string.concat(", list_source(Several), ")"]
            end
    end.

parts([], _) -> [];
parts([<<>> | Rest], text) -> parts(Rest, variable);
parts([Text | Rest], text) -> [gleam_string(Text) | parts(Rest, variable)];
parts([Name | Rest], variable) -> [["env(", gleam_string(Name), ")"] | parts(Rest, text)].

variables(Spec) ->
    Texts = maps:get(args, Spec, []) ++ [V || {_, V} <- maps:get(env, Spec, []), is_binary(V)]
            ++ [E || E <- [maps:get(executable, Spec, <<>>)], is_binary(E)],
    lists:append([odd(binary:split(T, <<0>>, [global])) || T <- Texts]).

odd([_, Name | Rest]) -> [Name | odd(Rest)];
odd(_) -> [].

list_source(Items) -> ["[", lists:join(", ", Items), "]"].

gleam_string(Text) -> mcp_codegen:escape(unicode:characters_to_binary(Text)).

display(Path) -> mcp_printable:printable(unicode:characters_to_binary(Path), line, mcp_printable:name_chars()).

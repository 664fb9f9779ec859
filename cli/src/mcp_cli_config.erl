%% @doc The standard MCP configuration file for `bin/mcp-gen --config'.
%%
%% Reads `{"mcpServers": {NAME: ENTRY, ...}}' (Claude Desktop, Cursor, the
%% MCP Inspector) or `{"servers": {NAME: ENTRY, ...}}' (VS Code), other
%% top-level members ignored. A stdio ENTRY is
%% `{"command": STRING, "args": [STRING...], "env": {NAME: STRING|null},
%% "cwd": STRING, "jail": true|false|JAIL, "stderr": STDERR}' (`"type":
%% "stdio"' allowed; `null' unsets a variable); it becomes an `mcp_client'
%% spawn spec `#{executable, args, env, cd, jail, stderr}'. STDERR is
%% `"inherit"', `"discard"' or `{"file": PATH, "max_bytes": N}' (`max_bytes'
%% optional; `mcp_stderr'). JAIL is `{"write": [DIR...],
%% "read": [DIR...], "deny": [PATH...], "net": BOOL, "unix_sockets": BOOL, "landlock": BOOL, "profile": "default" | "strict",
%% "bwrap": PATH}', every member optional (`mcp_jail', docs/jail.md);
%% its relative paths are relative to the directory mcp-gen runs in, like
%% `cwd'. A remote ENTRY is `{"type": "http", "url": STRING, "headers":
%% {NAME: STRING}}' (`"streamable-http"' is the same type; a `url' without
%% a `command' or a `type' is one too); it becomes an `mcp_http' spec
%% `#{url, headers}'. Either ENTRY may hold `"reconnect": {"attempts": N,
%% "backoff_ms": B, "max_backoff_ms": M, "unresponsive_ms": U}' (N from 1
%% to `mcp_cli_args:max_reconnect_attempts()', B, M and U milliseconds up
%% to a day, U from 100, all three optional): its spec then holds
%% `reconnect => #{attempts, backoff_ms, max_backoff_ms, unresponsive_ms}'
%% (those given), which `mcp_cli_jobs' takes out of the
%% spec for the client's `reconnect' option (`mcp-gen watch').
%% In `args', `env' values and `headers' values, `${VAR}' and VS Code's
%% `${env:VAR}' are the environment variable VAR (`mcp_cli_vars'): an
%% entry naming a variable that is not set, or a `${...}' of another kind,
%% is invalid, so it is reported before it starts. Header values keep
%% the reference as `${VAR}', which `mcp_http' resolves when it connects.
%% Invariants:
%% <ul>
%% <li>Every entry is accounted for, in file order: `{stdio, Name, Spec}',
%%     `{http, Name, Spec}', `{unsupported, Name, Why}' for a transport this
%%     package does not speak (`"type"' other than `stdio' and `http', such
%%     as the older `"sse"'),
%%     or `{invalid, Name, Why}'. None is dropped silently.</li>
%% <li>Other strings are used verbatim: no `${...}' substitution, no shell; a
%%     `command' without a `/' is looked up on PATH (one with a `/' is a
%%     path), a relative `cwd' is relative to the directory mcp-gen runs
%%     in.</li>
%% <li>Names are the config's keys (binaries, never atoms); a name given
%%     twice makes the whole file an error.</li>
%% </ul>
-module(mcp_cli_config).

-export([read/1, read/2, parse/1, parse/2]).
-export_type([entry/0]).

-type entry() :: {stdio, Name :: binary(), mcp_transport:spawn()}
               | {http, Name :: binary(), mcp_http:spec()}
               | {unsupported, Name :: binary(), Why :: iolist()}
               | {invalid, Name :: binary(), Why :: iolist()}.

%% @doc The entries of the configuration file at `Path'.
-spec read(file:filename_all()) -> {ok, [entry()]} | {error, Reason :: iolist()}.
read(Path) ->
    read(Path, fun mcp_cli_vars:os_lookup/1).

%% @doc The same, its variables read through `Lookup'.
-spec read(file:filename_all(), mcp_cli_vars:lookup()) -> {ok, [entry()]} | {error, Reason :: iolist()}.
read(Path, Lookup) ->
    case file:read_file(Path) of
        {ok, Bytes} ->
            case parse(Bytes, Lookup) of
                {ok, Entries} -> {ok, Entries};
                {error, Reason} -> {error, ["config ", display(Path), " ", Reason]}
            end;
        {error, Posix} ->
            {error, ["cannot read config ", display(Path), ": ", file:format_error(Posix)]}
    end.

%% @doc The entries of a configuration document, its variables read from
%% the VM's environment.
-spec parse(binary()) -> {ok, [entry()]} | {error, Reason :: iolist()}.
parse(Bytes) ->
    parse(Bytes, fun mcp_cli_vars:os_lookup/1).

%% @doc The entries of a configuration document, its variables read
%% through `Lookup'.
-spec parse(binary(), mcp_cli_vars:lookup()) -> {ok, [entry()]} | {error, Reason :: iolist()}.
parse(Bytes, Lookup) ->
    case mcp_json:decode(Bytes) of
        {ok, {object, Members}} ->
            case [Key || {Key, _} <- Members, Key =:= <<"mcpServers">> orelse Key =:= <<"servers">>] of
                [Key] ->
                    {Key, Servers} = lists:keyfind(Key, 1, Members),
                    servers(Key, Servers, Lookup);
                [] -> {error, "has no \"mcpServers\" (or VS Code \"servers\") object"};
                _ -> {error, "has more than one \"mcpServers\"/\"servers\" member"}
            end;
        {ok, _} ->
            {error, "is not a JSON object"};
        {error, {corruption_report, Offset, Reason}} ->
            {Line, Column} = line_and_column(iolist_to_binary(Bytes), Offset),
            {error, io_lib:format("is not JSON: ~ts at line ~b, column ~b (byte ~b)", [Reason, Line, Column, Offset])}
    end.

%% The 1-based line and column (in characters: UTF-8 continuation bytes
%% do not count) of the byte at `Offset', as an editor shows them.
line_and_column(Bytes, Offset) ->
    Before = binary:part(Bytes, 0, min(Offset, byte_size(Bytes))),
    Lines = binary:split(Before, <<"\n">>, [global]),
    LastLine = lists:last(Lines),
    {length(Lines), 1 + length([Byte || <<Byte>> <= LastLine, Byte band 16#C0 =/= 16#80])}.

servers(_Key, {object, Servers}, Lookup) ->
    Names = [Name || {Name, _} <- Servers],
    case Names -- lists:usort(Names) of
        [] -> {ok, [entry(Name, Entry, Lookup) || {Name, Entry} <- Servers]};
        [Twice | _] -> {error, ["names server ", printable(Twice), " twice"]}
    end;
servers(Key, _, _Lookup) ->
    {error, ["has a \"", Key, "\" member that is not an object"]}.

entry(Name, {object, Fields}, Lookup) ->
    Field = fun(F) -> case lists:keyfind(F, 1, Fields) of
                          {F, Value} -> {given, Value};
                          false -> none
                      end
            end,
    case {Field(<<"type">>), Field(<<"command">>), Field(<<"url">>)} of
        {{given, {string, Http}}, _, _} when Http =:= <<"http">>; Http =:= <<"streamable-http">> ->
            http(Name, Field, Lookup);
        {{given, {string, Type}}, _, _} when Type =/= <<"stdio">> ->
            {unsupported, Name, ["uses the \"", printable(Type), "\" transport; mcp-gen speaks stdio and http"]};
        {{given, {string, _Stdio}}, _, _} = Given ->
            stdio(Name, Field, Given, Lookup);
        {{given, _}, _, _} ->
            {invalid, Name, "has a \"type\" that is not a string"};
        {none, none, {given, _}} ->
            http(Name, Field, Lookup);
        Given ->
            stdio(Name, Field, Given, Lookup)
    end;
entry(Name, _, _Lookup) ->
    {invalid, Name, "is not an object"}.

stdio(Name, Field, {_Type, Command, _Url}, Lookup) ->
    Checks = [fun() -> command(Command) end,
              fun() -> args(Field(<<"args">>), Lookup) end,
              fun() -> env(Field(<<"env">>), Lookup) end,
              fun() -> cwd(Field(<<"cwd">>)) end,
              fun() -> jail(Field(<<"jail">>)) end,
              fun() -> stderr(Field(<<"stderr">>)) end,
              fun() -> no_env_file(Field(<<"envFile">>)) end,
              fun() -> reconnect(Field(<<"reconnect">>)) end],
    case mcp_checks:run(Checks, #{}) of
        {ok, Spec} -> {stdio, Name, Spec};
        {error, Why} -> {invalid, Name, Why}
    end.

http(Name, Field, Lookup) ->
    Checks = [fun() -> url(Field(<<"url">>)) end,
              fun() -> headers(Field(<<"headers">>), Lookup) end,
              fun() -> mcp_cli_oauth:from_config(Field(<<"oauth">>)) end,
              fun() -> reconnect(Field(<<"reconnect">>)) end],
    case mcp_checks:run(Checks, #{}) of
        {ok, Spec} -> {http, Name, Spec};
        {error, Why} -> {invalid, Name, Why}
    end.

url({given, {string, Url}}) when Url =/= <<>> -> {ok, #{url => Url}};
url(none) -> {error, "has no \"url\""};
url(_) -> {error, "has a \"url\" that is not a non-empty string"}.

%% The error names the header, never its value.
headers(none, _Lookup) -> {ok, #{headers => []}};
headers({given, {object, Pairs}}, Lookup) ->
    case [Name || {Name, Value} <- Pairs, not is_tuple(Value) orelse element(1, Value) =/= string] of
        [] ->
            Resolved = [{Name, mcp_cli_vars:header(Value, Lookup)} || {Name, {string, Value}} <- Pairs],
            case [{Name, Fault} || {Name, {error, Fault}} <- Resolved] of
                [] -> {ok, #{headers => [{Name, Value} || {Name, {ok, Value}} <- Resolved]}};
                [{Name, Fault} | _] -> {error, variable_fault(["has a \"headers\" entry ", printable(Name), " whose value"], Fault)}
            end;
        [Bad | _] -> {error, ["has a \"headers\" entry ", printable(Bad), " whose value is not a string"]}
    end;
headers({given, _}, _Lookup) -> {error, "has \"headers\" that is not an object"}.

%% Why a string's `${...}' cannot be used, naming the variable (never a value).
variable_fault(Where, {unset, Variable}) ->
    [Where, " names the environment variable ", printable(Variable),
     ", which is not set: set it where mcp-gen runs, or write the value itself"];
variable_fault(Where, {unsupported, Reference}) ->
    [Where, " has ", printable(Reference), ", which mcp-gen does not substitute "
     "(${VAR} and ${env:VAR} are environment variables; nothing else is)"].

command({given, {string, Command}}) when Command =/= <<>> ->
    case has_nul(Command) of
        false -> {ok, #{executable => Command}};
        true -> {error, "has a \"command\" with a NUL character"}
    end;
command(none) -> {error, "has no \"command\""};
command(_) -> {error, "has a \"command\" that is not a non-empty string"}.

args(none, _Lookup) -> {ok, #{args => []}};
args({given, {array, Items}}, Lookup) ->
    case [S || {string, S} <- Items] of
        Strings when length(Strings) =:= length(Items) ->
            case lists:any(fun has_nul/1, Strings) of
                false ->
                    Expanded = [mcp_cli_vars:expand(S, Lookup) || S <- Strings],
                    case [Fault || {error, Fault} <- Expanded] of
                        [] -> {ok, #{args => [S || {ok, S} <- Expanded]}};
                        [Fault | _] -> {error, variable_fault("has an \"args\" item that", Fault)}
                    end;
                true -> {error, "has \"args\" with a NUL character"}
            end;
        _ -> {error, "has \"args\" that are not all strings"}
    end;
args({given, _}, _Lookup) -> {error, "has \"args\" that is not an array"}.

env(none, _Lookup) -> {ok, #{env => []}};
env({given, {object, Pairs}}, Lookup) ->
    Env = [{Name, value(Value)} || {Name, Value} <- Pairs],
    case [Name || {Name, invalid} <- Env] ++ [Name || {Name, _} <- Env, not valid_env_name(Name)] of
        [] ->
            Expanded = [{Name, expand_value(Value, Lookup)} || {Name, Value} <- Env],
            case [{Name, Fault} || {Name, {error, Fault}} <- Expanded] of
                [] -> {ok, #{env => [{Name, Value} || {Name, {ok, Value}} <- Expanded]}};
                [{Name, Fault} | _] -> {error, variable_fault(["has an \"env\" entry ", printable(Name), " whose value"], Fault)}
            end;
        [Bad | _] -> {error, ["has an \"env\" entry ", printable(Bad),
                              " that is not NAME (no = or NUL) with a string (no NUL) or null value"]}
    end;
env({given, _}, _Lookup) -> {error, "has \"env\" that is not an object"}.

%% `null' (unset the variable) has nothing to expand.
expand_value(false, _Lookup) -> {ok, false};
expand_value(Value, Lookup) -> mcp_cli_vars:expand(Value, Lookup).

value({string, Value}) ->
    case has_nul(Value) of
        false -> Value;
        true -> invalid
    end;
value(null) -> false;
value(_) -> invalid.

valid_env_name(Name) ->
    Name =/= <<>> andalso binary:match(Name, [<<"=">>, <<0>>]) =:= nomatch.

%% The OS takes argv, the environment and paths as C strings.
has_nul(Text) -> binary:match(Text, <<0>>) =/= nomatch.

cwd(none) -> {ok, #{}};
cwd({given, {string, Dir}}) when Dir =/= <<>> ->
    case has_nul(Dir) of
        false -> {ok, #{cd => Dir}};
        true -> {error, "has a \"cwd\" with a NUL character"}
    end;
cwd({given, _}) -> {error, "has a \"cwd\" that is not a non-empty string"}.

stderr(none) -> {ok, #{}};
stderr({given, {string, <<"inherit">>}}) -> {ok, #{stderr => inherit}};
stderr({given, {string, <<"discard">>}}) -> {ok, #{stderr => discard}};
stderr({given, {object, Members}}) ->
    case lists:sort(Members) of
        [{<<"file">>, {string, Path}}] when Path =/= <<>> ->
            {ok, #{stderr => {file, filename:absname(Path)}}};
        [{<<"file">>, {string, Path}}, {<<"max_bytes">>, {int, Max}}] when Path =/= <<>>, Max > 0 ->
            {ok, #{stderr => {file, filename:absname(Path), Max}}};
        _ ->
            {error, "has a \"stderr\" object that is not {\"file\": PATH, \"max_bytes\": N}"}
    end;
stderr({given, _}) -> {error, "has a \"stderr\" that is not \"inherit\", \"discard\" or {\"file\": PATH}"}.

jail(none) -> {ok, #{}};
jail({given, {bool, false}}) -> {ok, #{}};
jail({given, {bool, true}}) -> {ok, #{jail => true}};
jail({given, {object, Members}}) ->
    Options = [jail_option(Key, Value) || {Key, Value} <- Members],
    case [Why || {error, Why} <- Options] of
        [] -> {ok, #{jail => maps:from_list(Options)}};
        [Why | _] -> {error, ["has a \"jail\" ", Why]}
    end;
jail({given, _}) -> {error, "has a \"jail\" that is not true, false or an object"}.

jail_option(Key, {array, Items}) when Key =:= <<"write">>; Key =:= <<"read">>; Key =:= <<"deny">> ->
    case [Path || {string, Path} <- Items, Path =/= <<>>, not has_nul(Path)] of
        Paths when length(Paths) =:= length(Items) ->
            {jail_key(Key), [filename:absname(Path) || Path <- Paths]};
        _ -> {error, ["whose \"", Key, "\" has an item that is not a path"]}
    end;
jail_option(Key, {bool, Value}) when Key =:= <<"net">>; Key =:= <<"unix_sockets">>; Key =:= <<"landlock">> ->
    {jail_key(Key), Value};
jail_option(<<"profile">>, {string, <<"strict">>}) ->
    {profile, strict};
jail_option(<<"profile">>, {string, <<"default">>}) ->
    {profile, default};
jail_option(<<"bwrap">>, {string, Path}) when Path =/= <<>> ->
    case has_nul(Path) of
        false -> {bwrap, filename:absname(Path)};
        true -> {error, "whose \"bwrap\" has a NUL character"}
    end;
jail_option(Key, _Value) ->
    {error, ["with a member ", printable(Key), " it does not know, or of the wrong type"]}.

jail_key(<<"write">>) -> write;
jail_key(<<"read">>) -> read;
jail_key(<<"deny">>) -> deny;
jail_key(<<"net">>) -> net;
jail_key(<<"unix_sockets">>) -> unix_sockets;
jail_key(<<"landlock">>) -> landlock.

%% `{"attempts": N, "backoff_ms": B, "max_backoff_ms": M, "unresponsive_ms":
%% U}' (the last three optional): the client's `reconnect' option, kept in the spec under
%% `reconnect' for `mcp_cli_jobs' to take out.
reconnect(none) ->
    {ok, #{}};
reconnect({given, {object, Members}}) ->
    Keys = [Key || {Key, _} <- Members],
    Read = [reconnect_member(Key, Value) || {Key, Value} <- Members],
    case {[Why || {error, Why} <- Read], length(Keys) =:= length(lists:usort(Keys))} of
        {[Why | _], _} -> {error, ["has a \"reconnect\" ", Why]};
        {[], false} -> {error, "has a \"reconnect\" that names a member twice"};
        {[], true} ->
            case lists:keymember(attempts, 1, Read) of
                true -> {ok, #{reconnect => maps:from_list(Read)}};
                false -> {error, "has a \"reconnect\" without \"attempts\""}
            end
    end;
reconnect({given, _}) ->
    {error, "has a \"reconnect\" that is not an object"}.

reconnect_member(Key, {int, Value}) when Key =:= <<"attempts">>; Key =:= <<"backoff_ms">>; Key =:= <<"max_backoff_ms">>;
                                         Key =:= <<"unresponsive_ms">> ->
    Field = reconnect_field(Key),
    {Min, Max} = mcp_reconnect:range(Field),
    case {Value >= Min andalso Value =< Max, Field} of
        {true, _} -> {Field, Value};
        {false, attempts} -> {error, io_lib:format("whose \"attempts\" is not from ~b to ~b", [Min, Max])};
        {false, _} -> {error, io_lib:format("whose \"~ts\" is not milliseconds from ~b to ~b", [Key, Min, Max])}
    end;
reconnect_member(Key, _Value) ->
    {error, ["with a member ", printable(Key), " it does not know, or of the wrong type (attempts, backoff_ms, "
             "max_backoff_ms and unresponsive_ms take integers)"]}.

reconnect_field(<<"attempts">>) -> attempts;
reconnect_field(<<"backoff_ms">>) -> backoff_ms;
reconnect_field(<<"max_backoff_ms">>) -> max_backoff_ms;
reconnect_field(<<"unresponsive_ms">>) -> unresponsive_ms.

no_env_file(none) -> {ok, #{}};
no_env_file({given, _}) -> {error, "has \"envFile\", which mcp-gen does not read: put the variables in \"env\""}.

printable(Text) -> mcp_printable:printable(Text, line, mcp_printable:name_chars()).

display(Path) -> printable(unicode:characters_to_binary(Path)).

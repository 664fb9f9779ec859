%% @doc Which servers a `bin/mcp-gen' command runs: the embedded example
%% server, `-- COMMAND ARGS...', or entries of a `--config' file, each as a
%% job (a spawn spec for `mcp_client', or `--url' and a config's remote
%% entries an `mcp_http' spec; a label; and for a config entry the name its
%% module is generated under).
%%
%% Rules:
%% <ul>
%% <li>`--config FILE --server NAME' runs that entry; a config with a single
%%     entry runs it without `--server'.</li>
%% <li>Several entries and no `--server': `generate --out DIR' (and
%%     `watch', whose DIR defaults to the current one) runs every
%%     stdio and remote entry (the others come back as skipped, with why, for the
%%     summary); every other command is a usage error naming the
%%     choices.</li>
%% <li>`--env NAME=VALUE' pairs are added after the entry's own `env' (so
%%     they win), `--cwd DIR' replaces its `cwd'.</li>
%% <li>`--jail' jails the server; with an entry that has its own `"jail"',
%%     the flags' grants and denies are added to the entry's and a switch
%%     given on either side is on. An entry's jail applies without
%%     `--jail' too.</li>
%% <li>A config entry's module is named after its key, not after the name
%%     the server reports.</li>
%% <li>A config entry's `reconnect' leaves its spec for the job's
%%     `reconnect' (the client's option, not the transport's); `--reconnect
%%     N' sets its attempts (keeping the entry's backoff), or gives one to
%%     a server without.</li>
%% </ul>
-module(mcp_cli_jobs).

-export([resolve/1, root/0]).
-export_type([job/0, skipped/0, reconnect/0]).

-type job() :: #{label := binary() | none,
                 spec := mcp_transport:spawn() | mcp_http:spec(),
                 name => binary(),
                 reconnect => reconnect()}.
-type reconnect() :: #{attempts := pos_integer(), backoff_ms => non_neg_integer(),
                       max_backoff_ms => non_neg_integer(), unresponsive_ms => pos_integer()}.
-type skipped() :: {unsupported | invalid, Name :: binary(), Why :: iolist()}.

-spec resolve(mcp_cli_args:command()) ->
          {ok, [job(), ...], [skipped()]} | {usage_error, iolist()} | {error, iolist()}.
resolve(Command) ->
    case jobs(Command) of
        {ok, Jobs, Skipped} -> {ok, [reconnect(Job, Command) || Job <- Jobs], Skipped};
        Other -> Other
    end.

jobs(#{server := embedded} = Command) ->
    {ok, [adjust(#{label => none, spec => embedded_spec()}, Command)], []};
jobs(#{server := {command, Executable, Args}} = Command) ->
    {ok, [adjust(#{label => none, spec => #{executable => Executable, args => Args}}, Command)], []};
jobs(#{server := {url, Url, Headers}} = Command) ->
    case authorized(#{url => Url, headers => Headers}, Command) of
        {ok, Spec} -> {ok, [#{label => none, spec => Spec}], []};
        {error, _} = Error -> Error
    end;
jobs(#{server := {config, Path, Which}} = Command) ->
    case mcp_cli_config:read(Path) of
        {ok, Entries} -> choose(Entries, Which, Path, Command);
        {error, _} = Error -> Error
    end.

%% The entry's `reconnect' out of its spec, `--reconnect N' on top.
reconnect(#{spec := Spec} = Job, Command) ->
    {Own, Rest} = case maps:take(reconnect, Spec) of
                      {Entry, Without} -> {Entry, Without};
                      error -> {none, Spec}
                  end,
    Policy = case {Own, maps:get(reconnect, Command, none)} of
                 {none, none} -> none;
                 {none, Attempts} -> #{attempts => Attempts};
                 {Given, none} -> Given;
                 {Given, Attempts} -> Given#{attempts => Attempts}
             end,
    case Policy of
        none -> Job#{spec => Rest};
        _ -> Job#{spec => Rest, reconnect => Policy}
    end.

choose([], _Which, Path, _Command) ->
    {error, ["config ", display(Path), " names no servers"]};
choose([Entry], all, Path, Command) ->
    one(Entry, Path, Command);
choose(Entries, {one, Name}, Path, Command) ->
    case [Entry || Entry <- Entries, element(2, Entry) =:= Name] of
        [Entry] -> one(Entry, Path, Command);
        [] -> {error, ["config ", display(Path), " has no server ", name(Name), "; it has ", names(Entries)]}
    end;
choose(Entries, all, Path, #{subcommand := Subcommand, out := _} = Command)
  when Subcommand =:= generate; Subcommand =:= new_harness; Subcommand =:= watch ->
    case {[job(Kind, Name, Spec, Command) || {Kind, Name, Spec} <- Entries, Kind =:= stdio orelse Kind =:= http],
          maps:is_key(name, Command)} of
        {_, true} ->
            {usage_error, ["--name names one server, and config ", display(Path), " has ",
                           integer_to_list(length(Entries)), ": choose one with --server NAME, "
                           "or drop --name to name each module after its config key"]};
        {[], false} ->
            {error, ["config ", display(Path), " has no server to run: ",
                     lists:join("; ", [[name(Name), " ", Why] || {_, Name, Why} <- Entries])]};
        {Jobs, false} ->
            {ok, Jobs, [Skipped || {Kind, _, _} = Skipped <- Entries, Kind =/= stdio, Kind =/= http]}
    end;
choose(Entries, all, Path, #{subcommand := Subcommand}) ->
    {usage_error, ["config ", display(Path), " has ", integer_to_list(length(Entries)),
                   " servers (", names(Entries), "): choose one with --server NAME",
                   case Subcommand of
                       generate -> ", or give --out DIR to generate them all";
                       _ -> ""
                   end]}.

one({http, Name, Spec}, _Path, Command) ->
    case authorized(Spec, Command) of
        {ok, Authorized} -> {ok, [#{label => Name, name => Name, spec => Authorized}], []};
        {error, Why} -> {error, ["server ", name(Name), ": ", Why]}
    end;
one({stdio, Name, Spec}, _Path, Command) ->
    {ok, [job(stdio, Name, Spec, Command)], []};
one({unsupported, Name, Why}, _Path, _Command) ->
    {error, ["server ", name(Name), " ", Why]};
one({invalid, Name, Why}, Path, _Command) ->
    {error, ["server ", name(Name), " in config ", display(Path), " ", Why]}.

%% A stdio entry with the command line's flags on top; a remote one as
%% given (the process flags are usage errors with --url, and an entry's
%% own stdio keys fail its open with a clear error).
job(stdio, Name, Spec, Command) ->
    adjust(#{label => Name, name => Name, spec => Spec}, Command);
job(http, Name, Spec, Command) ->
    Authorized = case authorized(Spec, Command) of
                     {ok, WithOAuth} -> WithOAuth;
                     {error, _} -> mcp_http:seal(maps:remove(oauth, Spec))
                 end,
    #{label => Name, name => Name, spec => Authorized}.

%% A remote server's spec with its authorization (`mcp_cli_oauth'): the
%% entry's `oauth' under the command line's flags; sealed.
authorized(Spec, #{subcommand := Subcommand} = Command) ->
    Plaintext = case maps:get(allow_plaintext, Command, false) of
                    true -> #{allow_plaintext_headers => true};
                    false -> #{}
                end,
    case mcp_cli_oauth:config(Subcommand, maps:get(oauth, Spec, #{}), maps:get(oauth, Command, #{})) of
        {ok, OAuth} -> {ok, mcp_http:seal(maps:merge(Spec#{oauth => OAuth}, Plaintext))};
        {error, _} = Error -> Error
    end.

%% --env, --cwd, --grace, --stderr and --jail on top of the job's own spec.
adjust(#{spec := Spec} = Job, #{env := Env} = Command) ->
    WithEnv = jailed(case Env of
                         [] -> Spec;
                         _ -> Spec#{env => maps:get(env, Spec, []) ++ Env}
                     end, Command),
    Given = [{cd, maps:get(cwd, Command, none)}, {shutdown_grace_ms, maps:get(grace_ms, Command, none)},
             {stderr, maps:get(stderr, Command, none)}],
    Job#{spec => maps:merge(WithEnv, maps:from_list([{Key, Value} || {Key, Value} <- Given, Value =/= none]))}.

jailed(Spec, #{jail := Flags}) ->
    Own = case maps:get(jail, Spec, #{}) of
              true -> #{};
              Map -> Map
          end,
    Merged = maps:fold(fun(Key, Value, Acc) when is_list(Value) -> Acc#{Key => maps:get(Key, Acc, []) ++ Value};
                          (profile, Value, Acc) -> Acc#{profile => Value};
                          (Key, Value, Acc) -> Acc#{Key => Value orelse maps:get(Key, Acc, false)}
                       end, Own, Flags),
    Spec#{jail => Merged};
jailed(Spec, _Command) ->
    Spec.

names(Entries) ->
    lists:join(", ", [name(element(2, Entry)) || Entry <- Entries]).

name(Name) -> mcp_printable:printable(Name, line, mcp_printable:name_chars()).

display(Path) -> name(unicode:characters_to_binary(Path)).

%% ---- the embedded example server ----

%% The example server uses this application's mcp_json: ERL_LIBS points its
%% VM at the same build.
embedded_spec() ->
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

%% @doc The repository checkout: bin/mcp-gen exports MCP_GEN_ROOT.
-spec root() -> file:filename_all().
root() ->
    case os:getenv("MCP_GEN_ROOT") of
        false -> {ok, Cwd} = file:get_cwd(), Cwd;
        Root -> Root
    end.

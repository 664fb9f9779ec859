%% The README's quick start, run as written: every shell command of its
%% "The two commands", "Command line", "Remote servers" and "Gleam" blocks
%% (from the repository root, in order, each must exit 0; the Gleam
%% compiler is `gleam' on PATH or MCP_GLEAM_HOME's, and the project
%% directory the Gleam block writes is removed first), and every
%% expression of its "From Erlang" session (evaluated in order; a result
%% line printed under an expression must equal its value). The README is
%% at most 300 lines.
%%
%% `make test' is the one command not run: this suite runs inside it. The
%% commands run bin/mcp-gen as a person does (no MCP_GEN_LIB), so the
%% first one builds the default profile if needed. `make readme-check' runs
%% the same commands, `make test' included, on a fresh clone.
-module(mcp_cli_readme_tests).

-include_lib("eunit/include/eunit.hrl").

-define(README, "README.md").
%% A hang guard per command, not a timed assertion.
-define(HANG_GUARD_S, 300).

-define(HARNESS_DIR, "/tmp/mcp-agent").

readme_is_at_most_300_lines_test() ->
    ?assert(length(read_readme()) =< 301).   % the split leaves one empty item after the last newline

readme_shell_commands_run_as_written_test_() ->
    Commands = shell_commands(read_readme()),
    ?assert(length(Commands) >= 10),
    ?assert(lists:any(fun(C) -> lists:prefix("bin/mcp-gen new-harness " ?HARNESS_DIR, C) end, Commands)),
    {setup, fun() -> file:del_dir_r(?HARNESS_DIR) end, fun(_) -> file:del_dir_r(?HARNESS_DIR) end,
     {inorder, [{Command, {timeout, ?HANG_GUARD_S, fun() -> run_shell(Command) end}}
                || Command <- Commands, Command =/= "make test"]}}.

readme_make_run_prints_only_the_module_test_() ->
    {timeout, ?HANG_GUARD_S,
     fun() ->
             {0, Module} = shell("make run 2>/dev/null"),
             {ok, Golden} = file:read_file("test/fixtures/cli/example.gleam"),
             ?assertEqual(Golden, Module)
     end}.

%% The build bin/mcp-gen runs first (forced here by removing its stamp)
%% writes no terminal colour codes into a redirected stderr.
readme_make_run_stderr_redirected_has_no_colour_codes_test_() ->
    {timeout, ?HANG_GUARD_S,
     fun() ->
             Log = filename:join("_build", "make-run-stderr." ++ os:getpid()),
             {0, _Module} = shell("rm -f _build/mcp-gen.stamp && make run 2>" ++ Log),
             {ok, Stderr} = file:read_file(Log),
             ok = file:delete(Log),
             ?assertMatch({_, _}, binary:match(Stderr, <<"mcp-gen: building (rebar3 compile)">>)),
             ?assertMatch({_, _}, binary:match(Stderr, <<"Compiling mcp">>)),
             ?assertEqual(nomatch, binary:match(Stderr, <<"\e">>))
     end}.

readme_erlang_session_runs_as_written_test_() ->
    {timeout, ?HANG_GUARD_S,
     fun() ->
             Steps = erlang_session(read_readme()),
             ?assert(length(Steps) >= 5),
             lists:foldl(fun evaluate/2, erl_eval:new_bindings(), Steps)
     end}.

%% ---- the README's blocks ----

read_readme() ->
    {ok, Text} = file:read_file(?README),
    binary:split(Text, <<"\n">>, [global]).

%% The lines of the ```sh blocks under the sections a newcomer runs.
shell_commands(Lines) ->
    [strip_comment(binary_to_list(Line))
     || Section <- [<<"## The two commands">>, <<"### Command line">>, <<"### Remote servers">>, <<"### Gleam">>],
        Line <- fenced(section(Lines, Section), <<"```sh">>), Line =/= <<>>].

strip_comment(Line) ->
    case string:split(Line, "   #") of
        [Command, _Comment] -> string:trim(Command, trailing);
        [Command] -> Command
    end.

%% {Expression, [ResultLine]} for each `N> ' prompt of the ```erlang block.
erlang_session(Lines) ->
    Block = fenced(section(Lines, <<"### From Erlang">>), <<"```erlang">>),
    session(Block, []).

session([], Acc) ->
    lists:reverse(Acc);
session([Line | Rest], Acc) ->
    case re:run(Line, "^\\d+> (.*)$", [{capture, all_but_first, binary}]) of
        {match, [Expression]} ->
            {Results, After} = lists:splitwith(fun(L) -> re:run(L, "^\\d+> ") =:= nomatch end, Rest),
            session(After, [{Expression, [R || R <- Results, R =/= <<>>]} | Acc]);
        nomatch ->
            session(Rest, Acc)
    end.

%% The lines from a heading to the next heading of the same or a higher level.
section(Lines, Heading) ->
    [_ | After] = lists:dropwhile(fun(L) -> L =/= Heading end, Lines),
    Level = hashes(Heading),
    lists:takewhile(fun(L) -> not (hashes(L) > 0 andalso hashes(L) =< Level) end, After).

hashes(Line) ->
    case re:run(Line, "^(#+) ", [{capture, all_but_first, binary}]) of
        {match, [Hashes]} -> byte_size(Hashes);
        nomatch -> 0
    end.

%% The lines inside every fence opened by Open.
fenced([], _Open) -> [];
fenced([Open | Rest], Open) ->
    {Inside, [_Close | After]} = lists:splitwith(fun(L) -> L =/= <<"```">> end, Rest),
    Inside ++ fenced(After, Open);
fenced([_ | Rest], Open) ->
    fenced(Rest, Open).

%% ---- running them ----

run_shell(Command) ->
    {Status, Output} = shell(Command ++ " 2>&1"),
    ?assertEqual({Command, 0, <<>>}, {Command, Status, case Status of 0 -> <<>>; _ -> Output end}).

%% As from a person's shell: not inside the `make test' that runs this suite
%% (a nested make announces its directory on stdout).
%% With MCP_GLEAM_HOME, its compiler is on PATH as a person's would be.
shell(Command) ->
    Path = case os:getenv("MCP_GLEAM_HOME") of
               false -> [];
               Home -> [{"PATH", filename:join(Home, "bin") ++ ":" ++ os:getenv("PATH")}]
           end,
    Port = open_port({spawn_executable, "/bin/sh"},
                     [{args, ["-c", Command]}, {env, Path ++ [{Name, false} || Name <- ["MAKELEVEL", "MAKEFLAGS", "MFLAGS"]]},
                      binary, exit_status, use_stdio, hide, stderr_to_stdout]),
    collect(Port, []).

collect(Port, Acc) ->
    receive
        {Port, {data, Bytes}} -> collect(Port, [Acc, Bytes]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(Acc)}
    end.

evaluate({Expression, Results}, Bindings) ->
    {value, Value, Next} = erl_eval:exprs(parse(Expression), Bindings),
    case Results of
        [] -> ok;
        _ -> ?assertEqual({Expression, value(iolist_to_binary(lists:join(" ", Results)))}, {Expression, Value})
    end,
    Next.

parse(Text) ->
    {ok, Tokens, _} = erl_scan:string(unicode:characters_to_list(Text)),
    {ok, Exprs} = erl_parse:parse_exprs(Tokens),
    Exprs.

value(Printed) ->
    {value, Value, _} = erl_eval:exprs(parse(<<Printed/binary, ".">>), erl_eval:new_bindings()),
    Value.

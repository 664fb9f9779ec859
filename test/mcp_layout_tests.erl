%% The tree's map and the rooms it names: docs/project.md's "Layout" block names
%% every top-level entry git tracks and nothing that is not there; the
%% library application (`mcp', erlang_src/) neither lists nor calls a module
%% of the command line's application (`mcp_cli', cli/), which depends on it.
-module(mcp_layout_tests).

-include_lib("eunit/include/eunit.hrl").

readme_layout_names_every_tracked_top_level_entry_test() ->
    ?assertEqual({[], []}, gaps(readme_layout())).

%% The check can fail: a map without the cli/ line misses it.
a_map_missing_an_entry_is_refused_test() ->
    Block = [Line || Line <- readme_layout(), not lists:prefix("cli/", Line)],
    ?assertEqual({["cli"], []}, gaps(Block)),
    ?assertEqual({[], ["nowhere"]}, gaps(readme_layout() ++ ["nowhere/    not there"])).

design_layout_names_only_what_is_there_test() ->
    Block = code_block_after(<<"## 1. Layers and layout\n">>, "docs/design.md"),
    Paths = first_column(Block),
    ?assert(length(Paths) > 5),
    ?assertEqual([], [Path || Path <- Paths, not filelib:is_file(Path)]).

the_library_lists_no_cli_module_test() ->
    Library = app_modules(mcp),
    Cli = app_modules(mcp_cli),
    ?assert(lists:member(mcp_cli, Cli)),
    ?assertEqual([], [M || M <- Library, lists:member(M, Cli)]),
    %% The command line's modules are `mcp_cli' and `mcp_cli_*' (the
    %% library's `mcp_client*' are not).
    ?assertEqual([], [M || M <- Library, M =:= mcp_cli orelse lists:prefix("mcp_cli_", atom_to_list(M))]).

the_cli_depends_on_the_library_test() ->
    ok = load(mcp_cli),
    {ok, Apps} = application:get_key(mcp_cli, applications),
    ?assert(lists:member(mcp, Apps)).

no_library_module_calls_the_cli_test() ->
    Cli = app_modules(mcp_cli),
    Calls = [{M, Callee} || M <- app_modules(mcp),
                            {ok, {_, [{imports, Imports}]}} <- [beam_lib:chunks(code:which(M), [imports])],
                            {Callee, _, _} <- Imports,
                            lists:member(Callee, Cli)],
    ?assertEqual([], lists:usort(Calls)).

%% docs/design.md's module map names every module of both applications.
design_names_every_module_test() ->
    ?assertEqual([], unnamed(app_modules(mcp) ++ app_modules(mcp_cli), design_module_map())).

%% The check can fail: a module the map does not name is reported.
a_module_the_design_does_not_name_is_reported_test() ->
    ?assertEqual([mcp_not_in_the_map], unnamed([mcp_json, mcp_not_in_the_map], design_module_map())).

unnamed(Modules, Map) ->
    [M || M <- Modules, binary:match(Map, <<"`", (atom_to_binary(M))/binary, "`">>) =:= nomatch].

%% The text from "Erlang library, one module per concern" to "House rules".
design_module_map() ->
    {ok, Text} = file:read_file("docs/design.md"),
    [_, From] = binary:split(Text, <<"**Erlang library, one module per concern**">>),
    [Map, _] = binary:split(From, <<"House rules:">>),
    Map.

%% ---- helpers ----

readme_layout() -> code_block_after(<<"## Layout\n\n">>, "docs/project.md").

%% {tracked entries the map misses, entries the map names that git does not track}.
gaps(Block) ->
    Tracked = tracked_top_level(),
    Named = lists:usort([top_level(Path) || Path <- first_column(Block)]),
    {Tracked -- Named, Named -- Tracked}.

app_modules(App) ->
    ok = load(App),
    {ok, Modules} = application:get_key(App, modules),
    Modules.

load(App) ->
    case application:load(App) of
        ok -> ok;
        {error, {already_loaded, App}} -> ok
    end.

tracked_top_level() ->
    Out = os:cmd("git ls-files"),
    ?assertNotEqual(nomatch, string:find(Out, "rebar.config")),
    lists:usort([top_level(Path) || Path <- string:lexemes(Out, "\n")]).

top_level(Path) -> hd(string:lexemes(Path, "/")).

%% The fenced block that follows Heading in File, as lines.
code_block_after(Heading, File) ->
    {ok, Text} = file:read_file(File),
    [_, AfterHeading] = binary:split(Text, Heading),
    [_, AfterFence] = binary:split(AfterHeading, <<"```\n">>),
    [Block, _] = binary:split(AfterFence, <<"```\n">>),
    string:lexemes(binary_to_list(Block), "\n").

%% The path each line starts with (continuation lines start with a space).
first_column(Lines) ->
    [hd(string:lexemes(Line, " ")) || [C | _] = Line <- Lines, C =/= $\s].

%% gleam/README.md's module table names every public type of each module
%% in that module's row, so a type added later (a transport, an error
%% vocabulary) is not missing from the page a user reads first.
-module(readme_modules_test).

-export([every_public_type_is_in_its_modules_row_test/0,
         the_check_sees_a_missing_type_test/0]).

every_public_type_is_in_its_modules_row_test() ->
    {ok, Readme} = file:read_file("README.md"),
    Modules = filelib:wildcard("src/mcp/*.gleam"),
    true = length(Modules) >= 10,
    [] = [{Module, Missing} || Path <- Modules,
                               Module <- [module_name(Path)],
                               {ok, Source} <- [file:read_file(Path)],
                               Missing <- [missing(Readme, Module, Source)],
                               Missing =/= []],
    ok.

%% The check can fail: a type the row does not name is reported.
the_check_sees_a_missing_type_test() ->
    Readme = <<"| `mcp/x` | `Known`, `Other{A, B}` | `mcp_x` |\n">>,
    [<<"Unknown">>] = missing(Readme, <<"mcp/x">>, <<"pub type Known {\n}\npub opaque type Unknown\npub type Other {\n}\n">>),
    [<<"Known">>] = missing(Readme, <<"mcp/y">>, <<"pub type Known {\n}\n">>),
    ok.

module_name(Path) ->
    iolist_to_binary(["mcp/", filename:basename(Path, ".gleam")]).

missing(Readme, Module, Source) ->
    Row = case re:run(Readme, ["^\\| `", Module, "` \\|.*$"], [multiline, {capture, first, binary}]) of
              {match, [Line]} -> Line;
              nomatch -> <<>>
          end,
    {match, Types} = case re:run(Source, "^pub (?:opaque )?type (\\w+)", [multiline, global, {capture, all_but_first, binary}]) of
                         nomatch -> {match, []};
                         Found -> Found
                     end,
    [Type || [Type] <- Types, re:run(Row, ["`", Type, "[`{]"], [{capture, none}]) =:= nomatch].

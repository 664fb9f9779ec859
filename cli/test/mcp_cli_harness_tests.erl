%% mcp_cli_harness: the project name, the tool main calls (read-only only),
%% an existing project refused, and the project written with lookups in
%% place of variable values.
-module(mcp_cli_harness_tests).

-include_lib("eunit/include/eunit.hrl").

project_name_is_a_gleam_package_name_test_() ->
    [?_assertEqual(Expected, mcp_cli_harness:project_name(Dir))
     || {Dir, Expected} <- [{"/tmp/My-Harness", <<"my_harness">>}, {"/tmp/agent", <<"agent">>},
                            {"/tmp/2go", <<"harness_2go">>}, {"/tmp/mcp", <<"harness_mcp">>},
                            {"/tmp/cap", <<"harness_cap">>}, {"/tmp/gleam_stdlib", <<"harness_gleam_stdlib">>}]].

tool(Name, Annotations, Properties, Required) ->
    Schema = {object, [{<<"type">>, {string, <<"object">>}},
                       {<<"properties">>, {object, [{P, {object, [{<<"type">>, {string, T}}]}} || {P, T} <- Properties]}},
                       {<<"required">>, {array, [{string, R} || R <- Required]}}]},
    {tool_descriptor, Name, none, none, Schema, none, Annotations, none}.

read_only() -> {some, {object, [{<<"readOnlyHint">>, {bool, true}}]}}.

%% A read-only tool with the fewest required arguments, each an empty
%% value, optional ones left out; an unmarked or writing tool never (but
%% for the names below).
sample_calls_only_a_read_only_tool_test() ->
    Echo = tool(<<"echo">>, read_only(), [{<<"message">>, <<"string">>}, {<<"n">>, <<"integer">>}], [<<"message">>]),
    Env = tool(<<"get-env">>, read_only(), [], []),
    Delete = tool(<<"delete">>, none, [], []),
    Writes = tool(<<"write">>, {some, {object, [{<<"readOnlyHint">>, {bool, false}}]}}, [], []),
    ?assertEqual({call, <<"get-env">>, mcp_name:mangle(<<"get-env">>), []},
                 mcp_cli_harness:sample([Delete, Echo, Env])),
    ?assertEqual({call, <<"echo">>, mcp_name:mangle(<<"echo">>), [{<<"message">>, "\"\""}]},
                 mcp_cli_harness:sample([Delete, Echo, Writes])),
    ?assertEqual({none, 2}, mcp_cli_harness:sample([Delete, Writes])),
    %% without a marked one, a tool named as reading, unless marked as writing
    Echo2 = tool(<<"echo">>, none, [{<<"text">>, <<"string">>}], [<<"text">>]),
    GetItems = tool(<<"getItems">>, none, [], []),
    ListDestructive = tool(<<"list_and_drop">>, {some, {object, [{<<"destructiveHint">>, {bool, true}}]}}, [], []),
    Getaway = tool(<<"getaway">>, none, [], []),
    ?assertEqual({call, <<"echo">>, mcp_name:mangle(<<"echo">>), [{<<"text">>, "\"\""}]},
                 mcp_cli_harness:sample([Delete, Echo2, ListDestructive, Getaway])),
    ?assertEqual({call, <<"getItems">>, mcp_name:mangle(<<"getItems">>), []},
                 mcp_cli_harness:sample([Echo2, GetItems])),
    ?assertEqual({call, <<"get-env">>, mcp_name:mangle(<<"get-env">>), []},
                 mcp_cli_harness:sample([Echo2, GetItems, Env])),
    ?assertEqual({none, 3}, mcp_cli_harness:sample([Delete, ListDestructive, Getaway])),
    Typed = tool(<<"t">>, read_only(), [{<<"a">>, <<"integer">>}, {<<"b">>, <<"number">>}, {<<"c">>, <<"boolean">>}],
                 [<<"a">>, <<"b">>, <<"c">>]),
    ?assertEqual({call, <<"t">>, mcp_name:mangle(<<"t">>), [{<<"a">>, "0"}, {<<"b">>, "0.0"}, {<<"c">>, "False"}]},
                 mcp_cli_harness:sample([Typed])),
    %% a required JSON value has no obvious empty value
    Structured = tool(<<"s">>, read_only(), [{<<"o">>, <<"object">>}], [<<"o">>]),
    ?assertEqual({none, 1}, mcp_cli_harness:sample([Structured])).

existing_project_is_refused_test() ->
    Dir = temp_dir(),
    ?assertEqual(ok, mcp_cli_harness:check(Dir)),
    ok = file:write_file(filename:join(Dir, "gleam.toml"), <<>>),
    {error, Why} = mcp_cli_harness:check(Dir),
    ?assertMatch({match, _}, re:run(Why, "already holds gleam.toml; new-harness writes a new project only$")),
    ok = file:del_dir_r(Dir).

%% A `${VAR}' of the config (read with markers) is looked up when the
%% harness runs: its name is in main, no value is anywhere.
variables_are_lookups_in_main_test() ->
    Dir = temp_dir(),
    Spec = #{executable => <<"srv">>, args => [<<"--key=", 0, "API_KEY", 0>>],
             env => [{<<"TOKEN">>, <<0, "MY_TOKEN", 0>>}, {<<"PLAIN">>, <<"p">>}, {<<"GONE">>, false}]},
    Remote = #{url => <<"https://h/mcp">>, headers => [{<<"Authorization">>, <<"Bearer ${MY_TOKEN}">>}]},
    ok = mcp_cli_harness:write(Dir, root(), <<"h">>, [{<<"local">>, <<"local">>, Spec, {none, 0}},
                                                      {<<"web">>, <<"web">>, Remote, {none, 0}}]),
    {ok, Main} = file:read_file(filename:join([Dir, "src", "h.gleam"])),
    [?assertMatch({_, _}, binary:match(Main, Expected))
     || Expected <- [<<"use <- require_env([\"API_KEY\", \"MY_TOKEN\"])">>,
                     <<"string.concat([\"--key=\", env(\"API_KEY\")])">>,
                     <<"#(\"TOKEN\", transport.Set(env(\"MY_TOKEN\")))">>,
                     <<"#(\"PLAIN\", transport.Set(\"p\"))">>, <<"#(\"GONE\", transport.Unset)">>,
                     <<"#(\"Authorization\", \"Bearer ${MY_TOKEN}\")">>]],
    ?assertEqual(nomatch, binary:match(Main, <<0>>)),
    [?assert(filelib:is_regular(filename:join(Dir, F)))
     || F <- ["gleam.toml", "src/h_env_ffi.erl", "src/cap/mcp.gleam", "src/cap/report.gleam",
              "src/cap/internal/mcp.gleam", "src/cap_registry_ffi.erl"]],
    {ok, Toml} = file:read_file(filename:join(Dir, "gleam.toml")),
    ?assertMatch({_, _}, binary:match(Toml, iolist_to_binary(["mcp = { path = \"", filename:join(root(), "gleam"), "\" }"]))),
    ok = file:del_dir_r(Dir).

root() ->
    {ok, Cwd} = file:get_cwd(),
    Cwd.

temp_dir() ->
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"), "mcp_cli_harness_" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_path(Dir),
    Dir.

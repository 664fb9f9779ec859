%% mcp_cli_jobs: which servers a command runs, with --env/--cwd on top, and
%% the choices a config with several servers needs.
-module(mcp_cli_jobs_tests).

-include_lib("eunit/include/eunit.hrl").

command(Subcommand, Server, Extra) ->
    maps:merge(#{subcommand => Subcommand, server => Server, timeout_ms => 1000, verbose => false, env => []},
               Extra).

with_config(Json, Fun) ->
    Path = filename:join("/tmp", "mcp_cli_jobs_tests." ++ os:getpid() ++ ".json"),
    ok = file:write_file(Path, Json),
    try _ = Fun(Path), ok after file:delete(Path) end.

-define(TWO, <<"{\"mcpServers\": {\"a\": {\"command\": \"srv-a\", \"env\": {\"K\": \"config\"}, \"cwd\": \"/c\"},"
               " \"b\": {\"command\": \"srv-b\"}, \"web\": {\"url\": \"https://x\"}}}">>).

command_line_server_with_env_and_cwd_test() ->
    ?assertEqual({ok, [#{label => none, spec => #{executable => "srv", args => ["x"], env => [{"K", "v"}], cd => "/d"}}], []},
                 mcp_cli_jobs:resolve(command(list, {command, "srv", ["x"]}, #{env => [{"K", "v"}], cwd => "/d"}))).

grace_reaches_the_spawn_spec_test() ->
    ?assertMatch({ok, [#{spec := #{shutdown_grace_ms := 2500}}], []},
                 mcp_cli_jobs:resolve(command(list, {command, "srv", []}, #{grace_ms => 2500}))),
    {ok, [#{spec := Spec}], []} = mcp_cli_jobs:resolve(command(list, {command, "srv", []}, #{})),
    ?assertNot(is_map_key(shutdown_grace_ms, Spec)).

embedded_server_keeps_its_env_test() ->
    {ok, [#{spec := #{env := [{"ERL_LIBS", _}, {"K", "v"}]}}], []} =
        mcp_cli_jobs:resolve(command(list, embedded, #{env => [{"K", "v"}]})).

one_server_of_a_config_test() ->
    with_config(?TWO, fun(Path) ->
        ?assertEqual({ok, [#{label => <<"a">>, name => <<"a">>,
                             spec => #{executable => <<"srv-a">>, args => [],
                                       env => [{<<"K">>, <<"config">>}, {"K", "cli"}], cd => "/cli"}}], []},
                     mcp_cli_jobs:resolve(command(list, {config, Path, {one, <<"a">>}},
                                                  #{env => [{"K", "cli"}], cwd => "/cli"})))
    end).

every_server_for_generate_out_test() ->
    with_config(?TWO, fun(Path) ->
        {ok, [#{label := <<"a">>}, #{label := <<"b">>}, #{label := <<"web">>, spec := Remote}], []} =
            mcp_cli_jobs:resolve(command(generate, {config, Path, all}, #{out => "/o"})),
        %% A remote entry's headers are sealed (mcp_http:seal/1).
        ?assertMatch(#{url := <<"https://x">>, headers := Sealed} when is_function(Sealed, 0), Remote)
    end).

url_and_its_headers_test() ->
    ?assertMatch({ok, [#{label := none, spec := #{url := "http://h/mcp", headers := Sealed}}], []}
                     when is_function(Sealed, 0),
                 mcp_cli_jobs:resolve(command(list, {url, "http://h/mcp", [{"X", "v"}]}, #{}))).

several_servers_need_a_choice_test() ->
    with_config(?TWO, fun(Path) ->
        {usage_error, List} = mcp_cli_jobs:resolve(command(list, {config, Path, all}, #{})),
        ?assertMatch({match, _}, re:run(List, "has 3 servers \\(a, b, web\\): choose one with --server NAME$")),
        {usage_error, Generate} = mcp_cli_jobs:resolve(command(generate, {config, Path, all}, #{})),
        ?assertMatch({match, _}, re:run(Generate, "or give --out DIR to generate them all$")),
        {usage_error, Named} = mcp_cli_jobs:resolve(command(generate, {config, Path, all}, #{out => "/o", name => <<"n">>})),
        ?assertMatch({match, _}, re:run(Named, "^--name names one server"))
    end).

a_single_entry_needs_no_server_flag_test() ->
    with_config(<<"{\"servers\": {\"only\": {\"type\": \"stdio\", \"command\": \"srv\"}}}">>, fun(Path) ->
        {ok, [#{label := <<"only">>}], []} = mcp_cli_jobs:resolve(command(call, {config, Path, all}, #{}))
    end).

errors_name_the_server_test() ->
    with_config(?TWO, fun(Path) ->
        {error, Missing} = mcp_cli_jobs:resolve(command(list, {config, Path, {one, <<"c">>}}, #{})),
        ?assertMatch({match, _}, re:run(Missing, "has no server c; it has a, b, web$")),
        {ok, [#{label := <<"web">>, spec := #{url := _}}], []} =
            mcp_cli_jobs:resolve(command(list, {config, Path, {one, <<"web">>}}, #{}))
    end),
    with_config(<<"{\"mcpServers\": {\"x\": {\"type\": \"sse\", \"url\": \"u\"}, \"y\": {}}}">>, fun(Path) ->
        {error, None} = mcp_cli_jobs:resolve(command(generate, {config, Path, all}, #{out => "/o"})),
        ?assertMatch({match, _}, re:run(None, "has no server to run: x uses the \"sse\" transport.*; y has no \"command\"$"))
    end),
    ?assertMatch({error, _}, mcp_cli_jobs:resolve(command(list, {config, "/nonexistent.json", all}, #{}))).

jail_flags_reach_the_spawn_spec_test() ->
    ?assertMatch({ok, [#{spec := #{jail := #{net := true}}}], []},
                 mcp_cli_jobs:resolve(command(list, {command, "srv", []}, #{jail => #{net => true}}))),
    {ok, [#{spec := Spec}], []} = mcp_cli_jobs:resolve(command(list, {command, "srv", []}, #{})),
    ?assertNot(is_map_key(jail, Spec)).

config_jail_and_flags_combine_test() ->
    Json = <<"{\"mcpServers\": {\"a\": {\"command\": \"srv-a\", \"jail\": {\"write\": [\"/w\"], \"net\": true}}}}">>,
    with_config(Json, fun(Path) ->
        ?assertMatch({ok, [#{spec := #{jail := #{write := [<<"/w">>], net := true}}}], []},
                     mcp_cli_jobs:resolve(command(list, {config, Path, all}, #{}))),
        ?assertMatch({ok, [#{spec := #{jail := #{write := [<<"/w">>, "/x"], net := true, unix_sockets := true}}}], []},
                     mcp_cli_jobs:resolve(command(list, {config, Path, all},
                                                  #{jail => #{write => ["/x"], unix_sockets => true}})))
    end).

stderr_reaches_the_spawn_spec_test() ->
    ?assertMatch({ok, [#{spec := #{stderr := discard}}], []},
                 mcp_cli_jobs:resolve(command(list, {command, "srv", []}, #{stderr => discard}))).

%% An entry's `reconnect' leaves the spec (the transport takes no such key)
%% for the job; `--reconnect N' sets the attempts and keeps the backoff.
reconnect_leaves_the_spec_for_the_job_test() ->
    Json = <<"{\"mcpServers\": {\"a\": {\"command\": \"srv-a\", \"reconnect\": {\"attempts\": 2, \"backoff_ms\": 50}},"
             " \"b\": {\"command\": \"srv-b\"}}}">>,
    with_config(Json, fun(Path) ->
        {ok, [#{spec := SpecA, reconnect := #{attempts := 2, backoff_ms := 50}}, #{spec := SpecB} = B], []} =
            mcp_cli_jobs:resolve(command(watch, {config, Path, all}, #{out => "."})),
        ?assertNot(is_map_key(reconnect, SpecA)),
        ?assertNot(is_map_key(reconnect, B)),
        ?assertNot(is_map_key(reconnect, SpecB)),
        ?assertMatch({ok, [#{reconnect := #{attempts := 7, backoff_ms := 50}}, #{reconnect := #{attempts := 7}}], []},
                     mcp_cli_jobs:resolve(command(watch, {config, Path, all}, #{out => ".", reconnect => 7})))
    end),
    ?assertMatch({ok, [#{reconnect := #{attempts := 3}}], []},
                 mcp_cli_jobs:resolve(command(watch, {command, "srv", []}, #{out => ".", reconnect => 3}))).

%% Package launchers under the jail (`mcp_jail_launcher', docs/jail.md,
%% "Launchers"), with the real bubblewrap, npx and uvx, and the caches
%% scripts/ensure-deps.sh warms (`npx -y @modelcontextprotocol/server-memory',
%% `uvx mcp-server-time', `pipx run mcp-server-time'):
%%
%% - Unrecognized (the same launcher run through its interpreter, `node
%%   npx-cli.js' and `python -m uv', which is what the jail did with every
%%   launcher before it knew them; `python -m pipx'), a cached package does not start jailed
%%   even when told to stay offline: the cache is read-only. Recognized, it
%%   starts, lists and calls, under the default and the strict profile.
%% - A package that is not in the cache ends the launcher at once, and
%%   `mcp_jail:offline_launcher/2' names the launcher and its cache for the
%%   sentence (`mcp_describe:offline_launcher/1').
%% - The view is private: what the server writes into its cache is read
%%   back inside and never reaches the host's (with the cache granted
%%   writable, the same write lands in it); under strict nothing else of
%%   the home is read; a denied path inside a cache keeps it without a view.
-module(mcp_jail_launcher_tests).

-include_lib("eunit/include/eunit.hrl").

%% Neither name is a package of either registry's cache here.
-define(UNCACHED_NPM, "@modelcontextprotocol/server-not-in-the-cache-of-this-test").
-define(UNCACHED_PYPI, "mcp-server-not-in-the-cache-of-this-test").

uvx() -> mcp_e2e_tests:installed(".venv-uv/bin/uvx").

jail(Jail) -> mcp_jail_tests:jail(Jail).

npx_cli() -> mcp_jail:real_path(os:find_executable("npx")).

npx_spawn(Jail) ->
    #{executable => "npx", args => ["-y", "@modelcontextprotocol/server-memory"], jail => jail(Jail)}.

uvx_spawn(Jail) ->
    #{executable => uvx(), args => ["mcp-server-time"], jail => jail(Jail)}.

%% Starts, lists `Tool', calls it, shuts down with proof.
started(Spawn, Tool, Arguments) -> mcp_jail_tests:real_server(Spawn, Tool, Arguments).

%% The exit status of a start that ended before the handshake.
ended(Spawn) ->
    case mcp_client:start(Spawn, #{}) of
        {error, {handshake_failed, {unavailable, {transport_ended, {exited, {status, Status}}}}}} -> Status;
        Other -> {unexpected, Other}
    end.

%%% ------------------------------------------------------------ cached packages

%% Under each profile: `Unrecognized(Jail)' ends before the handshake with
%% the status `Ended' gives for the profile, then `Recognized(Jail)'
%% starts, lists `Tool', calls it and shuts down. Each case has its own
%% minute: a launcher building its environment in strict's empty private
%% home takes about 4 s on an idle machine, near EUnit's 5 s default.
cached(Launcher, Unrecognized, Recognized, Ended, Tool, Arguments) ->
    lists:append([[{Launcher ++ " unrecognized, " ++ Name ++ " profile",
                    {timeout, 60, ?_assertEqual(Ended(Jail), ended(Unrecognized(Jail)))}},
                   {Launcher ++ " recognized, " ++ Name ++ " profile",
                    {timeout, 60, ?_test(started(Recognized(Jail), Tool, Arguments))}}]
                  || {Name, Jail} <- [{"default", true}, {"strict", #{profile => strict}}]]).

utc() -> {object, [{<<"timezone">>, {string, <<"UTC">>}}]}.

%% `npx --offline' through node, unrecognized: the read-only cache answers
%% nothing (npm's ENOTCACHED), or strict's private home has an empty one:
%% exit 1. `npx -y', recognized: it starts.
npx_cached_test_() ->
    Unrecognized = fun(Jail) ->
                           #{executable => "node", args => [npx_cli(), "--offline", "-y", "@modelcontextprotocol/server-memory"],
                             jail => jail(Jail)}
                   end,
    cached("npx", Unrecognized, fun npx_spawn/1, fun(_) -> 1 end, <<"read_graph">>, {object, []}).

%% `uv tool run --offline' through `python -m uv', unrecognized: uv cannot
%% lock its read-only cache (default, exit 2) or finds an empty one in
%% strict's private home (exit 1). `uvx', recognized: it starts.
uvx_cached_test_() ->
    Unrecognized = fun(Jail) ->
                           #{executable => mcp_e2e_tests:installed(".venv-uv/bin/python"),
                             args => ["-m", "uv", "tool", "run", "--offline", "mcp-server-time"], jail => jail(Jail)}
                   end,
    cached("uvx", Unrecognized, fun uvx_spawn/1, fun(true) -> 2; (_Strict) -> 1 end, <<"get_current_time">>, utc()).

%% `pipx run' through `python -m pipx' with pip kept off the index,
%% unrecognized: pipx cannot write its log into the read-only home
%% (default) or finds no environment in strict's private home, exit 1.
%% `pipx run', recognized: it starts.
pipx_cached_test_() ->
    Unrecognized = fun(Jail) ->
                           #{executable => mcp_e2e_tests:installed(".venv-uv/bin/python"),
                             args => ["-m", "pipx", "run", "mcp-server-time"], env => [{"PIP_NO_INDEX", "1"}],
                             jail => jail(Jail)}
                   end,
    Recognized = fun(Jail) ->
                         #{executable => mcp_e2e_tests:installed(".venv-uv/bin/pipx"), args => ["run", "mcp-server-time"],
                           jail => jail(Jail)}
                 end,
    cached("pipx run", Unrecognized, Recognized, fun(_) -> 1 end, <<"get_current_time">>, utc()).

%%% ------------------------------------------------------------ packages not in the cache

%% Offline, a package not in the cache ends the launcher before the
%% handshake (no wait for the network), and the jail names the launcher
%% and the cache the sentence points to; with the network the jail names
%% nothing (a failure then is not the cache's).
uncached_test_() ->
    Home = os:getenv("HOME"),
    Npx = #{executable => "npx", args => ["-y", ?UNCACHED_NPM], jail => jail(true)},
    Uvx = #{executable => uvx(), args => [?UNCACHED_PYPI], jail => jail(#{profile => strict})},
    Target = fun(#{executable := Executable, args := Args} = Spawn) ->
                     {ok, Path} = mcp_port:resolve_executable(Executable),
                     #{executable => Path, args => Args, env => mcp_port:child_env(Spawn)}
             end,
    {timeout, 120,
     [?_assertEqual(1, ended(Npx)),
      ?_assertEqual(1, ended(Uvx)),
      ?_assertEqual(#{launcher => npx, caches => [filename:join(Home, ".npm")]},
                    mcp_jail:offline_launcher(true, Target(Npx))),
      ?_assertEqual(#{launcher => uvx, caches => [filename:join(Home, ".cache/uv"), filename:join(Home, ".local/share/uv/tools")]},
                    mcp_jail:offline_launcher(#{profile => strict}, Target(Uvx))),
      ?_assertEqual(none, mcp_jail:offline_launcher(#{net => true}, Target(Npx))),
      ?_test(begin
                 Sentence = unicode:characters_to_list(mcp_describe:offline_launcher(
                                                         mcp_jail:offline_launcher(true, Target(Npx)))),
                 ?assertNotEqual(nomatch, string:find(Sentence, "--allow-net")),
                 ?assertNotEqual(nomatch, string:find(Sentence, filename:join(Home, ".npm")))
             end)]}.

%%% ------------------------------------------------------------ recognized by name and subcommand

detect_test_() ->
    Env = [{"HOME", "/home/me"}],
    Detect = fun(Executable, Args) -> mcp_jail_launcher:detect(#{executable => Executable, args => Args, env => Env}) end,
    [?_assertMatch(#{launcher := npx, caches := ["/home/me/.npm"]}, Detect("/opt/bin/npx", ["-y", "x"])),
     ?_assertMatch(#{launcher := npm_exec}, Detect("/opt/bin/npm", ["exec", "x"])),
     ?_assertMatch(#{launcher := npm_exec}, Detect("/opt/bin/npm", ["x", "x"])),
     ?_assertEqual(none, Detect("/opt/bin/npm", ["install", "x"])),
     ?_assertMatch(#{launcher := uvx, caches := ["/home/me/.cache/uv", "/home/me/.local/share/uv/tools"]},
                   Detect("/opt/bin/uvx", ["x"])),
     ?_assertMatch(#{launcher := uv_tool_run}, Detect("/opt/bin/uv", ["tool", "run", "x"])),
     ?_assertMatch(#{launcher := pipx_run, caches := ["/home/me/.local/share/pipx", "/home/me/.cache/pipx",
                                                      "/home/me/.local/state/pipx"]},
                   Detect("/opt/bin/pipx", ["run", "x"])),
     ?_assertEqual(none, Detect("/opt/bin/pipx", ["install", "x"])),
     ?_assertEqual(none, Detect("/opt/bin/uv", ["run", "x"])),
     ?_assertEqual(none, Detect("/usr/bin/node", ["npx", "x"])),
     %% The caches the child's environment names, as the launchers read it.
     ?_assertMatch(#{caches := ["/c/npm"]},
                   mcp_jail_launcher:detect(#{executable => "/opt/bin/npx", args => [],
                                              env => [{"HOME", "/h"}, {"npm_config_cache", "/c/npm"}]})),
     ?_assertMatch(#{caches := ["/x/uv", "/d/uv/tools"]},
                   mcp_jail_launcher:detect(#{executable => "/opt/bin/uvx", args => [],
                                              env => [{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"},
                                                      {"XDG_DATA_HOME", "/d"}]})),
     %% A relative cache names nothing.
     ?_assertMatch(#{caches := []},
                   mcp_jail_launcher:detect(#{executable => "/opt/bin/npx", args => [],
                                              env => [{"npm_config_cache", "rel"}]}))].

%% A cache that does not exist on the host (a user who never ran the
%% launcher) is moved into the jail's private /tmp, where the launcher can
%% create it; one that exists stays where it is (it gets the view).
private_env_test_() ->
    Private = fun(Executable, Env) -> mcp_jail_launcher:private_env(#{executable => Executable, args => [], env => Env}) end,
    Tmp = mcp_jail_tests:root(),
    [?_assertEqual([{"npm_config_cache", "/tmp/mcp-launcher-cache/npm_config_cache"}],
                   Private("/opt/bin/npx", [{"HOME", "/nonexistent-home"}])),
     ?_assertEqual([], Private("/opt/bin/npx", [{"npm_config_cache", Tmp}])),
     ?_assertEqual([{"UV_TOOL_DIR", "/tmp/mcp-launcher-cache/UV_TOOL_DIR"}],
                   Private("/opt/bin/uvx", [{"HOME", "/nonexistent-home"}, {"UV_CACHE_DIR", Tmp}])),
     ?_assertEqual([], Private("/usr/bin/node", [{"HOME", "/nonexistent-home"}]))].

%%% ------------------------------------------------------------ the view is private

%% `npm exec -c' (recognized: the view) runs shell code as a server
%% would: it writes into its cache, reads it back and reads a file of the
%% home beside the cache. With the cache granted writable (what a jail
%% without views would need for a launcher that writes its cache), the
%% write lands in the host's cache, where later servers would run it; with
%% the view it is read back inside and the host's cache never has it.
%% Under strict the rest of the home stays unread.
private_view_test_() ->
    {timeout, 120,
     [?_test(mcp_jail_tests:in_scratch(fun(Scratch) -> private_view(Scratch) end))]}.

private_view(Scratch) ->
    Home = filename:join(Scratch, "home"),
    Cache = filename:join(Home, ".npm"),
    mcp_jail_tests:plant(filename:join(Cache, "_cacache/index-v5/kept"), <<"cached">>),
    mcp_jail_tests:plant(filename:join(Home, "notes.txt"), <<"beside the cache">>),
    Planted = filename:join(Cache, "_npx/planted/cli.js"),
    %% Exit 5: a capability left (the init held CAP_DAC_OVERRIDE to mount
    %% the view); 3: the cache not written and read back; 4: the file
    %% beside the cache unread.
    Script = "grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/self/status || exit 5; "
             "mkdir -p \"$HOME/.npm/_npx/planted\" && echo 'payload' > \"$HOME/.npm/_npx/planted/cli.js\" "
             "&& cat \"$HOME/.npm/_npx/planted/cli.js\" >/dev/null && cat \"$HOME/.npm/_cacache/index-v5/kept\" "
             ">/dev/null || exit 3; cat \"$HOME/notes.txt\" >/dev/null 2>&1 || exit 4; exit 0",
    Run = fun(Jail) ->
                  Spawn = #{executable => "npm", args => ["exec", "-c", Script], env => [{"HOME", Home}],
                            jail => jail(Jail)},
                  {ok, Connection} = mcp_transport:open(Spawn, self()),
                  mcp_jail_tests:closed(Connection)
          end,
    %% The cache granted writable: the write lands on the host.
    ?assertEqual({status, 0}, Run(#{write => [Cache]})),
    ?assertEqual({ok, <<"payload\n">>}, file:read_file(Planted)),
    ok = file:delete(Planted),
    %% The view: written and read inside, absent on the host.
    ?assertEqual({status, 0}, Run(true)),
    ?assertEqual({error, enoent}, file:read_file(Planted)),
    %% Strict: the cache's view, nothing else of the home.
    ?assertEqual({status, 4}, Run(#{profile => strict})),
    ?assertEqual({error, enoent}, file:read_file(Planted)),
    %% A denied path inside the cache: no view (an overlay would show it),
    %% the cache stays read-only and the denied path hidden.
    Args = fun(Jail) ->
                   {ok, _, Argv, _} = mcp_jail:command(jail(Jail), #{executable => os:find_executable("npm"),
                                                                      args => ["exec", "-c", "true"],
                                                                      env => [{"HOME", Home}]}),
                   Argv
           end,
    ?assert(lists:member("--copy-on-write", Args(true))),
    ?assertNot(lists:member("--copy-on-write", Args(#{deny => [filename:join(Cache, "_cacache")]}))),
    ?assertEqual({status, 3}, Run(#{deny => [filename:join(Cache, "_cacache")]})).

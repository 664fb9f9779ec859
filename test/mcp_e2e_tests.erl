%% End to end over real ports against real MCP servers installed by the test
%% setup (`scripts/ensure-deps.sh'): npm `@modelcontextprotocol/server-everything'
%% and a FastMCP fixture on PyPI `mcp' (`test/e2e/fastmcp_fixture.py'). After
%% each suite, the server's OS process is checked gone by pid.
-module(mcp_e2e_tests).

-include_lib("eunit/include/eunit.hrl").

%% Shared with mcp_launcher_tests, which runs the same peers behind launchers,
%% and mcp_sdk2_e2e_tests.
-export([installed/1, os_alive/1]).

-define(TIMEOUT, 10000).

%%% ------------------------------------------------------------ helpers

root() ->
    {ok, Cwd} = file:get_cwd(),
    Candidates = [Cwd, filename:join(filename:dirname(code:which(?MODULE)), "../../../..")],
    case [Dir || Dir <- Candidates, filelib:is_regular(filename:join(Dir, "test/e2e/package.json"))] of
        [Root | _] -> filename:absname(Root);
        [] -> error(e2e_root_not_found)
    end.

%% The path of an installed peer; a missing one is a loud failure (run
%% `make test', which installs them), never a skipped suite.
installed(Relative) ->
    Path = filename:join(root(), Relative),
    case filelib:is_regular(Path) of
        true -> Path;
        false -> error({e2e_peer_not_installed, Path, "run scripts/ensure-deps.sh test"})
    end.

everything_spawn() ->
    #{executable => "node",
      args => [installed("test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
               "stdio"]}.

fastmcp_spawn() ->
    #{executable => installed(".venv/bin/python"),
      args => [installed("test/e2e/fastmcp_fixture.py")],
      env => [{"PYTHONUNBUFFERED", "1"}]}.

os_alive(OsPid) ->
    os:cmd("kill -0 " ++ integer_to_list(OsPid) ++ " 2>/dev/null && echo alive") =:= "alive\n".

started(Spawn) ->
    {ok, Client, Initialized} = mcp_client:start(Spawn, #{}),
    {ok, OsPid} = mcp_client:os_pid(Client),
    #{client => Client, os_pid => OsPid, initialized => Initialized}.

%% Retirement with proof, and the child gone by pid.
retired(#{client := Client, os_pid := OsPid}) ->
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
    ?assertNot(os_alive(OsPid)).

%% Cleanup after a failed test: never leave the child behind.
cleanup(#{client := Client}) ->
    _ = mcp_client:shutdown(Client, ?TIMEOUT),
    ok.

names(Tools) -> [Name || {tool_descriptor, Name, _, _, _, _, _, _} <- Tools].

texts({ok, {call_tool_result, Blocks, false, _}}) -> [Text || {text, Text} <- Blocks];
texts(Other) -> error({not_a_successful_call, Other}).

%%% ------------------------------------------- server-everything (npm)

%% One server for a list of tests run in order, then retired with its child
%% checked gone (cleanup retires it again if a test failed first).
with_server(Spawn, Tests) ->
    {setup, fun() -> started(Spawn()) end, fun cleanup/1,
     fun(Server) ->
             {inorder, Tests(Server) ++ [{"retired, child gone by pid", ?_test(retired(Server))}]}
     end}.

everything_test_() ->
    with_server(fun everything_spawn/0, fun(Server) ->
        [{"handshake", ?_test(everything_handshake(Server))},
         {"tools/list has echo and get-sum", ?_test(everything_lists_tools(Server))},
         {"echo", ?_test(everything_echo(Server))},
         {"get-sum", ?_test(everything_get_sum(Server))},
         {"ping", ?_test(?assertEqual(ok, mcp_client:ping(maps:get(client, Server), ?TIMEOUT)))}]
    end).

everything_handshake(#{initialized := Initialized}) ->
    ?assertMatch({initialize_result, <<"2025-11-25">>, {some, {tools_capability, _}},
                  {server_info, <<"mcp-servers/everything">>, _}, _}, Initialized).

everything_lists_tools(#{client := Client}) ->
    {ok, Tools} = mcp_client:list_tools(Client),
    ?assert(lists:member(<<"echo">>, names(Tools))),
    ?assert(lists:member(<<"get-sum">>, names(Tools))).

everything_echo(#{client := Client}) ->
    Arguments = {object, [{<<"message">>, {string, <<"héllo ✓"/utf8>>}}]},
    ?assertEqual([<<"Echo: héllo ✓"/utf8>>],
                 texts(mcp_client:call_tool(Client, <<"echo">>, Arguments, ?TIMEOUT))).

everything_get_sum(#{client := Client}) ->
    Arguments = {object, [{<<"a">>, {int, 2}}, {<<"b">>, {int, 40}}]},
    [Text] = texts(mcp_client:call_tool(Client, <<"get-sum">>, Arguments, ?TIMEOUT)),
    ?assertNotEqual(nomatch, binary:match(Text, <<"42">>)).

%%% ------------------------------------------------ FastMCP fixture (PyPI)

fastmcp_test_() ->
    with_server(fun fastmcp_spawn/0, fun(Server) ->
        [{"three pages", ?_test(fastmcp_pages(Server))},
         {"echo", ?_test(fastmcp_echo(Server))},
         {"4 MiB result", {timeout, 30, ?_test(fastmcp_huge_result(Server))}},
         {"sleep past the deadline", ?_test(fastmcp_sleep_past_deadline(Server))}]
    end).

fastmcp_pages(#{client := Client}) ->
    %% Nine tools served three to a page.
    {ok, Tools} = mcp_client:list_tools(Client),
    ?assertEqual([<<"echo">>, <<"huge">>, <<"sleep">>, <<"exit_now">>,
                  <<"filler_0">>, <<"filler_1">>, <<"filler_2">>, <<"filler_3">>, <<"filler_4">>],
                 names(Tools)).

fastmcp_echo(#{client := Client}) ->
    Text = <<"ünïcødé 😀"/utf8>>,
    ?assertEqual([Text], texts(mcp_client:call_tool(Client, <<"echo">>,
                                                    {object, [{<<"text">>, {string, Text}}]}, ?TIMEOUT))).

fastmcp_huge_result(#{client := Client}) ->
    [Text] = texts(mcp_client:call_tool(Client, <<"huge">>, {object, []}, 20000)),
    ?assertEqual(4 * 1024 * 1024, byte_size(Text)),
    ?assertEqual(<<"xxxx">>, binary:part(Text, byte_size(Text) - 4, 4)).

fastmcp_sleep_past_deadline(#{client := Client}) ->
    ?assertEqual({error, call_timed_out},
                 mcp_client:call_tool(Client, <<"sleep">>, {object, [{<<"seconds">>, {int, 30}}]}, 200)),
    %% The server was told to cancel; the connection goes on.
    ?assertEqual([<<"still here">>],
                 texts(mcp_client:call_tool(Client, <<"echo">>,
                                            {object, [{<<"text">>, {string, <<"still here">>}}]}, ?TIMEOUT))).

fastmcp_exit_mid_call_test_() ->
    {setup, fun() -> started(fastmcp_spawn()) end, fun cleanup/1,
     fun(#{client := Client, os_pid := OsPid}) ->
             {"exit mid-call", ?_test(begin
                        Arguments = {object, [{<<"status">>, {int, 3}}]},
                        Died = {unavailable, {transport_ended, {exited, {status, 3}}}},
                        ?assertEqual({error, Died},
                                     mcp_client:call_tool(Client, <<"exit_now">>, Arguments, ?TIMEOUT)),
                        ?assertEqual({error, Died}, mcp_client:ping(Client, ?TIMEOUT)),
                        ?assertEqual({ok, {exited, {status, 3}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
                        ?assertNot(os_alive(OsPid))
                    end)}
     end}.

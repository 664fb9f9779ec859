%% End to end against the official Python SDK 2.x (PyPI `mcp' 2.3.0 in
%% `.venv-sdk2', installed by scripts/ensure-deps.sh): the MCPServer fixture
%% `test/e2e/mcpserver_fixture.py', which serves the handshake era and the
%% stateless revision 2026-07-28 on one endpoint, over stdio and over
%% Streamable HTTP. With `era => auto' the client must settle on
%% 2026-07-28 (the discover probe answered, no fallback), as with `era =>
%% modern'; with `era => handshake' on 2025-11-25. bin/mcp-gen `list --era auto' runs against
%% both transports. Every server process is proven gone: a port's exit
%% status and `kill -0' on its pid.
-module(mcp_sdk2_e2e_tests).

-include_lib("eunit/include/eunit.hrl").

-define(TIMEOUT, 10000).
-define(TOOLS, [<<"add">>, <<"echo">>, <<"locate">>]).
-define(LIST_LINES, [<<"add(a: int, b: int) - Add two integers.">>,
                     <<"echo(text: string) - Return the text unchanged.">>,
                     <<"locate(x: float, y: float) - A point and its distance from the origin.">>]).

%%% ------------------------------------------------------------ helpers

python() -> mcp_e2e_tests:installed(".venv-sdk2/bin/python").

fixture() -> mcp_e2e_tests:installed("test/e2e/mcpserver_fixture.py").

stdio_spawn() ->
    #{executable => python(), args => [fixture(), "stdio"], env => [{"PYTHONUNBUFFERED", "1"}]}.

http_peer() ->
    mcp_http_peer:start_announced(python(), [fixture(), "http"]).

%% The revision each era must end on with this server.
expected_version(auto) -> <<"2026-07-28">>;
expected_version(modern) -> <<"2026-07-28">>;
expected_version(handshake) -> <<"2025-11-25">>.

names(Tools) -> [Name || {tool_descriptor, Name, _, _, _, _, _, _} <- Tools].

call(Client, Tool, Arguments) ->
    mcp_client:call_tool(Client, Tool, {object, Arguments}, ?TIMEOUT).

%%% ------------------------------------------------- the client, both eras

%% The same tests over one server per transport and era; the last one
%% retires the client with proof, and the cleanup proves the server gone
%% (again, when a test failed before the retirement).
stdio_auto_test_() -> client_tests(stdio, auto).
stdio_modern_test_() -> client_tests(stdio, modern).
stdio_handshake_test_() -> client_tests(stdio, handshake).
http_auto_test_() -> client_tests(http, auto).
http_modern_test_() -> client_tests(http, modern).
http_handshake_test_() -> client_tests(http, handshake).

client_tests(Transport, Era) ->
    Label = atom_to_list(Transport) ++ ", era " ++ atom_to_list(Era) ++ ": ",
    {timeout, 120,
     {setup, fun() -> started(Transport, Era) end, fun cleanup/1,
      fun(Server) ->
              {inorder, [{Label ++ "negotiated " ++ binary_to_list(expected_version(Era)),
                          ?_test(negotiated(Server, Era))},
                         {Label ++ "tools/list", ?_test(lists_tools(Server))},
                         {Label ++ "add", ?_test(adds(Server))},
                         {Label ++ "echo", ?_test(echoes(Server))},
                         {Label ++ "locate: structured content", ?_test(locates(Server))},
                         {Label ++ "retired, server gone", ?_test(retired(Server))}]}
      end}}.

started(stdio, Era) ->
    {ok, Client, Init} = mcp_client:start(stdio_spawn(), #{era => Era}),
    {ok, OsPid} = mcp_client:os_pid(Client),
    #{transport => stdio, era => Era, client => Client, init => Init, os_pid => OsPid};
started(http, Era) ->
    Peer = http_peer(),
    case mcp_client:start(#{url => mcp_http_peer:url(Peer)}, #{era => Era}) of
        {ok, Client, Init} ->
            #{transport => http, era => Era, client => Client, init => Init, peer => Peer,
              os_pid => mcp_http_peer:os_pid(Peer)};
        Failed ->
            mcp_http_peer:stop(Peer),
            error({start_failed, Failed})
    end.

cleanup(#{client := Client} = Server) ->
    _ = mcp_client:shutdown(Client, ?TIMEOUT),
    case Server of
        #{peer := Peer} -> mcp_http_peer:stop(Peer);
        _ -> ok
    end,
    ?assertNot(mcp_e2e_tests:os_alive(maps:get(os_pid, Server))).

negotiated(#{init := Init}, Era) ->
    ?assertMatch({initialize_result, _, {some, {tools_capability, _}},
                  {server_info, <<"mcpserver-fixture">>, <<"1.0.0">>}, _}, Init),
    ?assertEqual(expected_version(Era), element(2, Init)).

lists_tools(#{client := Client}) ->
    {ok, Tools} = mcp_client:list_tools(Client),
    ?assertEqual(?TOOLS, names(Tools)),
    ?assertEqual({ok, []}, mcp_client:left_out_tools(Client)).

adds(#{client := Client}) ->
    ?assertEqual({ok, {call_tool_result, [{text, <<"42">>}], false,
                       {some, {object, [{<<"result">>, {int, 42}}]}}}},
                 call(Client, <<"add">>, [{<<"a">>, {int, 2}}, {<<"b">>, {int, 40}}])).

echoes(#{client := Client}) ->
    Text = <<"ünïcødé 😀"/utf8>>,
    ?assertEqual({ok, {call_tool_result, [{text, Text}], false, none}},
                 call(Client, <<"echo">>, [{<<"text">>, {string, Text}}])).

locates(#{client := Client}) ->
    {ok, {call_tool_result, [{text, _}], false, Structured}} =
        call(Client, <<"locate">>, [{<<"x">>, {int, 3}}, {<<"y">>, {int, 4}}]),
    ?assertEqual({some, {object, [{<<"x">>, {float, 3.0}}, {<<"y">>, {float, 4.0}},
                                  {<<"distance">>, {float, 5.0}}]}},
                 Structured).

%% A port's child is killed and its exit status is the proof; over HTTP
%% the handshake era's session ends with the DELETE the server accepted,
%% and the stateless revision has no session to end.
retired(#{transport := stdio, client := Client, os_pid := OsPid}) ->
    ?assertEqual({ok, {exited, {signal, 9}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
    ?assertNot(mcp_e2e_tests:os_alive(OsPid));
retired(#{transport := http, era := Era, client := Client}) ->
    Outcome = case Era of handshake -> deleted; _ -> no_session end,
    ?assertEqual({ok, {exited, {peer_down, {http_session, Outcome}}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
    ?assertNot(is_process_alive(mcp_client:pid(Client))).

%%% ------------------------------------------- bin/mcp-gen list --era auto

%% The wire log (`--verbose') shows which era the command line settled on:
%% the probe went out and `initialize' never did.
cli_test_() ->
    {timeout, 300,
     [{"mcp-gen list --era auto over stdio", {timeout, 120, fun cli_lists_over_stdio/0}},
      {"mcp-gen list --era auto over HTTP", {timeout, 120, fun cli_lists_over_http/0}}]}.

cli_lists_over_stdio() ->
    Pidfile = filename:join("/tmp", "mcp_sdk2_e2e." ++ os:getpid() ++ "."
                            ++ integer_to_list(erlang:unique_integer([positive])) ++ ".pid"),
    try
        Result = mcp_cli_tests:mcp_gen(["list", "--era", "auto", "--verbose", "--",
                                        python(), fixture(), "stdio", Pidfile], []),
        {ok, Pid} = file:read_file(Pidfile),
        ?assertNot(mcp_e2e_tests:os_alive(binary_to_integer(Pid))),
        lists_in_the_modern_era(Result)
    after
        file:delete(Pidfile)
    end.

cli_lists_over_http() ->
    Peer = http_peer(),
    Result = try mcp_cli_tests:mcp_gen(["list", "--era", "auto", "--verbose", "--url", mcp_http_peer:url(Peer)], [])
             after mcp_http_peer:stop(Peer)
             end,
    ?assertNot(mcp_e2e_tests:os_alive(mcp_http_peer:os_pid(Peer))),
    lists_in_the_modern_era(Result).

lists_in_the_modern_era({Status, Stdout, Stderr}) ->
    ?assertEqual({0, ?LIST_LINES}, {Status, binary:split(Stdout, <<"\n">>, [global, trim])}),
    ?assertMatch({match, _}, re:run(Stderr, "^mcp-gen: wire .*> .*\"server/discover\"", [multiline])),
    ?assertEqual(nomatch, re:run(Stderr, "\"initialize\"")).

%% End to end over Streamable HTTP against real MCP servers installed by
%% the test setup: npm `@modelcontextprotocol/server-everything'
%% (`streamableHttp', answers as event streams with a priming event and a
%% session), and the FastMCP fixture (`test/e2e/fastmcp_fixture.py') in its
%% three variants: event streams, JSON bodies, and stateless.
-module(mcp_http_e2e_tests).

-include_lib("eunit/include/eunit.hrl").

-define(TIMEOUT, 10000).

everything() ->
    mcp_http_peer:start(os:find_executable("node"),
                        [mcp_e2e_tests:installed("test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
                         "streamableHttp"]).

fastmcp(Variant) ->
    mcp_http_peer:start(mcp_e2e_tests:installed(".venv/bin/python"),
                        [mcp_e2e_tests:installed("test/e2e/fastmcp_fixture.py"), "http", port, Variant]).

started(Peer) ->
    {ok, Client, Initialized} = mcp_client:start(#{url => mcp_http_peer:url(Peer),
                                                   headers => [{"X-Test", "e2e"}]}, #{}),
    Peer#{client => Client, initialized => Initialized}.

cleanup(#{client := Client} = Server) ->
    _ = mcp_client:shutdown(Client, ?TIMEOUT),
    mcp_http_peer:stop(Server).

with_server(Start, Tests) ->
    {setup, fun() -> started(Start()) end, fun cleanup/1,
     fun(Server) -> {inorder, Tests(Server)} end}.

names(Tools) -> [Name || {tool_descriptor, Name, _, _, _, _, _, _} <- Tools].

texts({ok, {call_tool_result, Blocks, false, _}}) -> [Text || {text, Text} <- Blocks];
texts(Other) -> error({not_a_successful_call, Other}).

echo(Client, Key, Text) ->
    texts(mcp_client:call_tool(Client, <<"echo">>, {object, [{Key, {string, Text}}]}, ?TIMEOUT)).

%% The session ends with the DELETE the server accepted, or, stateless,
%% with no session to end.
retired(#{client := Client}, Outcome) ->
    ?assertEqual({ok, {exited, {peer_down, {http_session, Outcome}}}}, mcp_client:shutdown(Client, ?TIMEOUT)),
    ?assertNot(is_process_alive(mcp_client:pid(Client))).

%%% ------------------------------------------- server-everything (npm)

everything_test_() ->
    with_server(fun everything/0, fun(Server = #{client := Client}) ->
        [{"handshake", ?_assertMatch({initialize_result, _, {some, {tools_capability, _}},
                                      {server_info, <<"mcp-servers/everything">>, _}, _},
                                     maps:get(initialized, Server))},
         {"tools/list", ?_test(begin
                                   {ok, Tools} = mcp_client:list_tools(Client),
                                   ?assert(lists:member(<<"echo">>, names(Tools)))
                               end)},
         {"echo", ?_assertEqual([<<"Echo: héllo ✓"/utf8>>], echo(Client, <<"message">>, <<"héllo ✓"/utf8>>))},
         {"ten calls at once", ?_test(concurrent_echoes(Client))},
         {"ping", ?_assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT))},
         {"DELETE ends the session", ?_test(retired(Server, deleted))}]
    end).

concurrent_echoes(Client) ->
    Self = self(),
    Texts = [integer_to_binary(N) || N <- lists:seq(1, 10)],
    [spawn_link(fun() -> Self ! {Text, echo(Client, <<"message">>, Text)} end) || Text <- Texts],
    [receive {Text, Got} -> ?assertEqual([<<"Echo: ", Text/binary>>], Got) end || Text <- Texts].

%%% ------------------------------------------- FastMCP fixture (PyPI)

fastmcp_sse_test_() -> fastmcp_tests("sse", deleted).
fastmcp_json_test_() -> fastmcp_tests("json", deleted).
fastmcp_stateless_test_() -> fastmcp_tests("stateless", no_session).

fastmcp_tests(Variant, Outcome) ->
    {timeout, 120, with_server(fun() -> fastmcp(Variant) end, fun(Server = #{client := Client}) ->
        [{Variant ++ ": three pages", ?_test(begin
                                                 {ok, Tools} = mcp_client:list_tools(Client),
                                                 ?assertEqual(9, length(Tools)),
                                                 ?assertEqual(<<"echo">>, hd(names(Tools)))
                                             end)},
         {Variant ++ ": echo", ?_assertEqual([<<"ünïcødé 😀"/utf8>>], echo(Client, <<"text">>, <<"ünïcødé 😀"/utf8>>))},
         {Variant ++ ": 4 MiB result", {timeout, 30, ?_test(begin
                [Text] = texts(mcp_client:call_tool(Client, <<"huge">>, {object, []}, 20000)),
                ?assertEqual(4 * 1024 * 1024, byte_size(Text))
            end)}},
         {Variant ++ ": sleep past the deadline, then go on", ?_test(begin
                ?assertEqual({error, call_timed_out},
                             mcp_client:call_tool(Client, <<"sleep">>, {object, [{<<"seconds">>, {int, 30}}]}, 200)),
                ?assertEqual([<<"still here">>], echo(Client, <<"text">>, <<"still here">>))
            end)},
         {Variant ++ ": retired", ?_test(retired(Server, Outcome))}]
    end)}.

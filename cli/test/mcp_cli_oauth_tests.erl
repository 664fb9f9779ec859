%% bin/mcp-gen against a protected server (`mcp_oauth_fake'): the client
%% credentials grant with a secret from the environment, and `login' with
%% a browser command, whose stored tokens a later run uses with no person.
%% No token or secret appears in anything a --verbose run prints, while the
%% server does receive the token (the secret was in play).
-module(mcp_cli_oauth_tests).

-include_lib("eunit/include/eunit.hrl").

-define(TOKEN, <<"tok-5e6f7a8b">>).
-define(REFRESH, <<"ref-0c1d2e3f">>).
-define(SECRET, "sec-1a2b3c4d").

granting() ->
    fun(_) -> mcp_oauth_fake:token_answer(?TOKEN, [{<<"refresh_token">>, {string, ?REFRESH}}]) end.

a_verbose_run_prints_no_token_or_secret_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => ?TOKEN, token => granting()}),
    Dir = temp_dir(),
    {Status, Stdout, Stderr} = mcp_cli_tests:mcp_gen(["list", "--verbose", "--url", binary_to_list(mcp_oauth_fake:url(Fake)),
                                        "--client-credentials", "--client-id", "client",
                                        "--client-secret-env", "MCP_TEST_SECRET", "--token-dir", Dir],
                                       [{"MCP_TEST_SECRET", ?SECRET}]),
    Requests = mcp_oauth_fake:requests(Fake),
    mcp_oauth_fake:stop(Fake),
    ?assertEqual({0, <<>>}, {Status, Stdout}),
    %% The secret and the token were used: the server got the token, the
    %% token endpoint the secret.
    ?assert(lists:member(<<"Bearer ", ?TOKEN/binary>>,
                         [proplists:get_value(<<"authorization">>, H) || #{path := <<"/mcp">>, headers := H} <- Requests])),
    ?assert(lists:member(<<"Basic ", (base64:encode(<<"client:", ?SECRET>>))/binary>>,
                         [proplists:get_value(<<"authorization">>, H) || #{path := <<"/token">>, headers := H} <- Requests])),
    ?assertNotEqual(nomatch, binary:match(Stderr, <<"tools/list">>)),
    Printed = <<Stdout/binary, Stderr/binary>>,
    ?assertEqual([], [S || S <- [?TOKEN, ?REFRESH, <<?SECRET>>, base64:encode(<<"client:", ?SECRET>>)],
                           binary:match(Printed, S) =/= nomatch]).

login_stores_tokens_a_later_run_uses_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => ?TOKEN, token => granting()}),
    Url = binary_to_list(mcp_oauth_fake:url(Fake)),
    Dir = temp_dir(),
    Browser = filename:absname("test/conformance/browser"),
    {LoginStatus, _, LoginErr} = mcp_cli_tests:mcp_gen(["login", "--url", Url, "--browser", Browser, "--token-dir", Dir], []),
    ?assertEqual({0, nomatch}, {LoginStatus, binary:match(LoginErr, ?TOKEN)}),
    LoginRequests = mcp_oauth_fake:paths(mcp_oauth_fake:requests(Fake)),
    ?assert(lists:member({'GET', <<"/authorize">>}, LoginRequests)),
    %% Later: no browser, no authorization; the stored token is sent.
    {Status, Stdout, _} = mcp_cli_tests:mcp_gen(["list", "--url", Url, "--token-dir", Dir], []),
    Later = mcp_oauth_fake:requests(Fake),
    mcp_oauth_fake:stop(Fake),
    ?assertEqual({0, <<>>}, {Status, Stdout}),
    ?assertEqual([], [P || {_, P} <- mcp_oauth_fake:paths(Later), P =/= <<"/mcp">>]),
    [File] = filelib:wildcard(filename:join(Dir, "*.json")),
    {ok, Info} = file:read_file_info(File),
    ?assertEqual(8#600, element(8, Info) band 8#777).

a_server_that_needs_consent_says_login_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => ?TOKEN, token => granting()}),
    {Status, _, Stderr} = mcp_cli_tests:mcp_gen(["list", "--url", binary_to_list(mcp_oauth_fake:url(Fake)), "--token-dir", temp_dir()], []),
    Requests = mcp_oauth_fake:paths(mcp_oauth_fake:requests(Fake)),
    mcp_oauth_fake:stop(Fake),
    ?assertEqual(1, Status),
    ?assertNotEqual(nomatch, binary:match(Stderr, <<"mcp-gen login">>)),
    ?assertNot(lists:member({'GET', <<"/authorize">>}, Requests)).

%% ---- helpers ----

temp_dir() ->
    filename:join(["/tmp", "mcp_cli_oauth_tests." ++ os:getpid(), integer_to_list(erlang:unique_integer([positive]))]).


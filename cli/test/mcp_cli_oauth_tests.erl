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


%% A login whose browser is on another machine: the URL is printed, the
%% person pastes the address the browser ended on. A line that is not that
%% address is refused and the wait goes on; the redirect URI names the
%% fixed port given (a pre-registered client's).
login_by_pasting_the_redirect_on_a_fixed_port_test_() ->
    {timeout, 120, fun login_by_pasting_the_redirect_on_a_fixed_port/0}.

login_by_pasting_the_redirect_on_a_fixed_port() ->
    Fake = mcp_oauth_fake:start(#{accepted => ?TOKEN, token => granting()}),
    Url = binary_to_list(mcp_oauth_fake:url(Fake)),
    Dir = temp_dir(),
    {ok, Free} = gen_tcp:listen(0, [{ip, {127, 0, 0, 1}}]),
    {ok, RedirectPort} = inet:port(Free),
    ok = gen_tcp:close(Free),
    StderrFile = filename:join(Dir ++ ".stderr", "err"),
    ok = filelib:ensure_dir(StderrFile),
    Lib = filename:dirname(code:lib_dir(mcp)),
    Port = open_port({spawn_executable, "/bin/sh"},
                     [{args, ["-c", "exec \"$0\" \"$@\" 2>\"$MCP_TEST_STDERR\"", "bin/mcp-gen", "login", "--url", Url,
                              "--paste-redirect", "--redirect-port", integer_to_list(RedirectPort), "--token-dir", Dir]},
                      {env, [{"MCP_GEN_LIB", Lib}, {"MCP_TEST_STDERR", StderrFile}]},
                      binary, exit_status, use_stdio]),
    AuthorizeUrl = printed_url(StderrFile, 300),
    ?assertNotEqual(nomatch, string:find(uri_string:percent_decode(AuthorizeUrl),
                                         "redirect_uri=http://127.0.0.1:" ++ integer_to_list(RedirectPort) ++ "/callback")),
    {ok, {{_, 302, _}, Headers, _}} = httpc:request(get, {AuthorizeUrl, []}, [{autoredirect, false}], []),
    Location = proplists:get_value("location", Headers),
    true = port_command(Port, "http://127.0.0.1:1/callback?code=forged&state=forged\n"),
    true = port_command(Port, [Location, "\n"]),
    Status = receive {Port, {exit_status, S}} -> S after 60000 -> error(login_did_not_end) end,
    {ok, Stderr} = file:read_file(StderrFile),
    mcp_oauth_fake:stop(Fake),
    ?assertEqual({0, nomatch}, {Status, binary:match(Stderr, ?TOKEN)}),
    ?assertNotEqual(nomatch, binary:match(Stderr, <<"that is not the address">>)),
    ?assertMatch([_], filelib:wildcard(filename:join(Dir, "*.json"))).

%% The authorization URL mcp-gen printed, once it is in the stderr file.
printed_url(_File, 0) ->
    error(no_authorization_url_printed);
printed_url(File, Tries) ->
    case file:read_file(File) of
        {ok, Text} ->
            case re:run(Text, "^  (http://\\S+)$", [multiline, {capture, all_but_first, list}]) of
                {match, [Found]} -> Found;
                nomatch -> timer:sleep(100), printed_url(File, Tries - 1)
            end;
        {error, _} -> timer:sleep(100), printed_url(File, Tries - 1)
    end.

%% DPoP with the JWT-bearer grant of an assertion file: the server gets
%% `Authorization: DPoP' with a proof, the token endpoint the assertion
%% and a proof; a --verbose run prints none of them. The stored record
%% keeps the key its token is bound to (the token outlives the run).
a_verbose_dpop_run_prints_no_proof_token_or_assertion_test() ->
    Assertion = <<"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.YXNzZXJ0aW9u">>,
    Bound = fun(#{headers := Headers, body := Body}) ->
                    case proplists:get_value(<<"authorization">>, Headers) =:= <<"DPoP ", ?TOKEN/binary>> of
                        true -> mcp_oauth_fake:answer(Body);
                        false -> default
                    end
            end,
    Grant = fun(_) -> {200, {object, [{<<"access_token">>, {string, ?TOKEN}}, {<<"token_type">>, {string, <<"DPoP">>}},
                                      {<<"expires_in">>, {int, 3600}}]}} end,
    Fake = mcp_oauth_fake:start(#{token => Grant, mcp => Bound}),
    Dir = temp_dir(),
    AssertionFile = filename:join(temp_dir(), "assertion.jwt"),
    ok = filelib:ensure_dir(AssertionFile),
    ok = file:write_file(AssertionFile, Assertion),
    {Status, Stdout, Stderr} = mcp_cli_tests:mcp_gen(["list", "--verbose", "--url", binary_to_list(mcp_oauth_fake:url(Fake)),
                                                      "--dpop", "--assertion-file", AssertionFile, "--client-id", "workload",
                                                      "--token-dir", Dir], []),
    Requests = mcp_oauth_fake:requests(Fake),
    mcp_oauth_fake:stop(Fake),
    ?assertEqual({0, <<>>}, {Status, Stdout}),
    Proofs = [proplists:get_value(<<"dpop">>, H) || #{headers := H} <- Requests, proplists:is_defined(<<"dpop">>, H)],
    ?assert(length(Proofs) >= 2),
    ?assert(lists:member(<<"DPoP ", ?TOKEN/binary>>,
                         [proplists:get_value(<<"authorization">>, H) || #{path := <<"/mcp">>, headers := H} <- Requests])),
    ?assert(lists:any(fun(#{path := P, body := B}) -> P =:= <<"/token">> andalso binary:match(B, Assertion) =/= nomatch end,
                      Requests)),
    Printed = <<Stdout/binary, Stderr/binary>>,
    ?assertNotEqual(nomatch, binary:match(Stderr, <<"tools/list">>)),
    ?assertEqual([], [S || S <- [?TOKEN, Assertion | Proofs], binary:match(Printed, S) =/= nomatch]),
    [File] = filelib:wildcard(filename:join(Dir, "*.json")),
    {ok, Stored} = file:read_file(File),
    ?assertNotEqual(nomatch, binary:match(Stored, <<"\"dpop_key\"">>)),
    ?assertNotEqual(nomatch, binary:match(Stored, <<"\"token_type\":\"DPoP\"">>)).

%% The grants without a person (docs/authorization.md, `mcp_oauth_grant'):
%% the JWT-bearer grant of an assertion read from a file or an environment
%% variable on each use (workload identity), and enterprise-managed
%% authorization (the ID token exchanged at the identity provider of the
%% configuration for an ID-JAG, which the JWT-bearer grant presents),
%% against `mcp_oauth_fake' on the loopback; the assertion's limits, and
%% its value in no error.
-module(mcp_oauth_grant_tests).

-include_lib("eunit/include/eunit.hrl").

-define(JWT_BEARER, <<"urn:ietf:params:oauth:grant-type:jwt-bearer">>).
-define(ASSERTION, <<"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2lnbmF0dXJl">>).
-define(ID_TOKEN, <<"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.aWQtdG9rZW4">>).
-define(ID_JAG, <<"eyJ0eXAiOiJvYXV0aC1pZC1qYWcrand0In0.eyJzdWIiOiJhbGljZSJ9.amFn">>).
-define(SECRET, <<"as-secret-9d8c">>).

form(#{body := Body}) -> maps:from_list(uri_string:dissect_query(Body)).

requests_to(Path, Requests) -> [R || #{method := 'POST', path := P} = R <- Requests, P =:= Path].

temp_dir() ->
    string:trim(os:cmd("mktemp -d")).

temp_file(Dir, Name, Bytes) ->
    Path = filename:join(Dir, Name),
    ok = file:write_file(Path, Bytes),
    ok = file:change_mode(Path, 8#600),
    Path.

%% The JWT-bearer grant: the assertion of the file (trimmed) as
%% `assertion', the client id, the resource; a second client reads the
%% file again (a workload's token is rotated in place).
the_jwt_bearer_grant_presents_the_files_assertion_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"wif-token">>, token => fun(_) -> mcp_oauth_fake:token_answer(<<"wif-token">>, []) end}),
    Dir = temp_dir(),
    Path = temp_file(Dir, "assertion.jwt", <<?ASSERTION/binary, "\n">>),
    Config = #{grant => jwt_bearer, client_id => <<"workload">>, assertion => {file, Path}},
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => Config}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    _ = mcp_client:shutdown(Client, 5000),
    [Grant] = requests_to(<<"/token">>, mcp_oauth_fake:requests(Fake)),
    ?assertMatch(#{<<"grant_type">> := ?JWT_BEARER, <<"assertion">> := ?ASSERTION, <<"client_id">> := <<"workload">>,
                   <<"resource">> := _}, form(Grant)),
    Rotated = <<"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJyb3RhdGVkIn0.c2ln">>,
    ok = file:write_file(Path, Rotated),
    {ok, Again, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => Config}, #{}),
    _ = mcp_client:shutdown(Again, 5000),
    [Second] = requests_to(<<"/token">>, mcp_oauth_fake:requests(Fake)),
    ?assertMatch(#{<<"assertion">> := Rotated}, form(Second)),
    mcp_oauth_fake:stop(Fake),
    ok = file:del_dir_r(Dir).

the_assertion_comes_from_the_named_variable_test() ->
    true = os:putenv("MCP_TEST_WORKLOAD_JWT", binary_to_list(?ASSERTION)),
    ?assertEqual({ok, ?ASSERTION}, mcp_oauth_grant:assertion({env, "MCP_TEST_WORKLOAD_JWT"})),
    true = os:unsetenv("MCP_TEST_WORKLOAD_JWT"),
    ?assertEqual({error, {assertion_unreadable, {env, <<"MCP_TEST_WORKLOAD_JWT">>}}},
                 mcp_oauth_grant:assertion({env, "MCP_TEST_WORKLOAD_JWT"})).

%% At most `max_assertion_bytes()': at the limit, and one byte more; an
%% assertion with a character a JWT has not is refused, and the error
%% names the file, not the value (the value was readable: the same file
%% with the character left out is taken).
the_assertion_limits_test_() ->
    {setup, fun temp_dir/0, fun file:del_dir_r/1, fun assertion_limits/1}.

assertion_limits(Dir) ->
    Max = mcp_oauth_grant:max_assertion_bytes(),
    AtLimit = binary:copy(<<"a">>, Max),
    Marker = <<"secret-marker">>,
    [?_assertEqual({ok, AtLimit}, mcp_oauth_grant:assertion({file, temp_file(Dir, "at", AtLimit)})),
     ?_assertMatch({error, {assertion_unusable, {file, _}}},
                   mcp_oauth_grant:assertion({file, temp_file(Dir, "over", <<AtLimit/binary, "a">>)})),
     ?_assertMatch({error, {assertion_unusable, {file, _}}}, mcp_oauth_grant:assertion({file, temp_file(Dir, "empty", <<>>)})),
     ?_assertMatch({error, {assertion_unreadable, {file, <<"/nonexistent/assertion">>}}},
                   mcp_oauth_grant:assertion({file, "/nonexistent/assertion"})),
     ?_assertEqual({ok, Marker}, mcp_oauth_grant:assertion({file, temp_file(Dir, "plain", Marker)})),
     fun() ->
             Error = mcp_oauth_grant:assertion({file, temp_file(Dir, "bad", <<Marker/binary, " x">>)}),
             ?assertMatch({error, {assertion_unusable, _}}, Error),
             ?assertEqual(nomatch, string:find(io_lib:format("~p", [Error]), binary_to_list(Marker)))
     end].

%% Enterprise-managed authorization: the ID token goes to the identity
%% provider's token endpoint of the configuration (and nowhere else) with
%% the token exchange's types, the authorization server as audience and
%% the MCP server as resource; the ID-JAG it answers goes to the
%% authorization server in a JWT-bearer grant with the client's secret.
the_id_token_is_exchanged_for_an_id_jag_test() ->
    Idp = fun(_) -> {200, {object, [{<<"access_token">>, {string, ?ID_JAG}},
                                    {<<"issued_token_type">>, {string, <<"urn:ietf:params:oauth:token-type:id-jag">>}},
                                    {<<"token_type">>, {string, <<"N_A">>}}]}} end,
    Fake = mcp_oauth_fake:start(#{accepted => <<"ema-token">>, idp => Idp,
                                  token => fun(_) -> mcp_oauth_fake:token_answer(<<"ema-token">>, []) end}),
    Base = mcp_oauth_fake:base(Fake),
    Dir = temp_dir(),
    Config = #{grant => token_exchange, client_id => <<"client">>, client_secret => ?SECRET,
               identity_assertion => {file, temp_file(Dir, "id.jwt", ?ID_TOKEN)},
               idp_token_endpoint => <<Base/binary, "/idp/token">>, idp_client_id => <<"idp-client">>},
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => Config}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    _ = mcp_client:shutdown(Client, 5000),
    Requests = mcp_oauth_fake:requests(Fake),
    [Exchange] = requests_to(<<"/idp/token">>, Requests),
    Url = mcp_oauth_fake:url(Fake),
    ?assertEqual(#{<<"grant_type">> => <<"urn:ietf:params:oauth:grant-type:token-exchange">>,
                   <<"requested_token_type">> => <<"urn:ietf:params:oauth:token-type:id-jag">>,
                   <<"audience">> => Base, <<"resource">> => Url,
                   <<"subject_token">> => ?ID_TOKEN,
                   <<"subject_token_type">> => <<"urn:ietf:params:oauth:token-type:id_token">>,
                   <<"client_id">> => <<"idp-client">>}, form(Exchange)),
    [Grant] = requests_to(<<"/token">>, Requests),
    ?assertMatch(#{<<"grant_type">> := ?JWT_BEARER, <<"assertion">> := ?ID_JAG}, form(Grant)),
    ?assertEqual(<<"Basic ", (base64:encode(<<"client:", ?SECRET/binary>>))/binary>>,
                 proplists:get_value(<<"authorization">>, maps:get(headers, Grant))),
    %% The ID token went in one request only.
    ?assertEqual([Exchange], [R || #{body := Body} = R <- Requests, is_binary(Body), binary:match(Body, ?ID_TOKEN) =/= nomatch]),
    mcp_oauth_fake:stop(Fake),
    ok = file:del_dir_r(Dir).

%% The identity provider's refusal, and an answer that is not an ID-JAG,
%% end the authorization before the authorization server is asked.
a_refused_exchange_asks_the_authorization_server_nothing_test_() ->
    Answers = [{fun(_) -> {400, {object, [{<<"error">>, {string, <<"invalid_grant">>}}]}} end,
                {token_exchange_refused, 400, <<"invalid_grant">>}},
               {fun(_) -> {200, {object, [{<<"access_token">>, {string, ?ID_JAG}},
                                          {<<"issued_token_type">>, {string, <<"urn:ietf:params:oauth:token-type:access_token">>}}]}} end,
                {token_exchange_refused, 200, not_an_id_jag}}],
    [fun() ->
             Fake = mcp_oauth_fake:start(#{idp => Idp, token => fun(_) -> mcp_oauth_fake:token_answer(<<"t">>, []) end}),
             Base = mcp_oauth_fake:base(Fake),
             Config = #{grant => token_exchange, client_id => <<"client">>, client_secret => ?SECRET,
                        identity_assertion => fun() -> ?ID_TOKEN end, idp_token_endpoint => <<Base/binary, "/idp/token">>},
             Result = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => Config}, #{}),
             ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [Result]), io_lib:format("~p", [Reason]))),
             ?assertEqual([], requests_to(<<"/token">>, mcp_oauth_fake:requests(Fake))),
             mcp_oauth_fake:stop(Fake)
     end || {Idp, Reason} <- Answers].

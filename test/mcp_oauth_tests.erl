%% Authorization (docs/authorization.md) against a fake protected server and
%% authorization server (`mcp_oauth_fake'): one refresh for many callers, a
%% refused refresh token, an expired stored token, the token store's
%% permissions, the resource and issuer checks (attack first: the same
%% fake, matching, does get the token request), and no token in a crash
%% report or the session's printed state.
-module(mcp_oauth_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("kernel/include/file.hrl").

-define(SECRET, <<"client-secret-7f3a">>).

cc_config(Store) ->
    #{grant => client_credentials, client_id => <<"client">>, client_secret => ?SECRET, store => Store}.

%% A stored record for the fake at `Base', expired `Age' seconds ago.
stored(Base, Extra) ->
    maps:merge(#{<<"issuer">> => Base, <<"token_endpoint">> => <<Base/binary, "/token">>,
                 <<"client_id">> => <<"client">>, <<"auth_method">> => <<"none">>,
                 <<"access_token">> => <<"expired-token">>,
                 <<"expires_at">> => erlang:system_time(second) - 10}, Extra).

%% A store that loads `Record' and keeps what is saved nowhere (a test
%% that reads what was saved names a tag: `callback_store/2').
callback_store(Record) ->
    {callback, fun(_Url) -> {ok, Record} end, fun(_Url, _Saved) -> ok end}.

callback_store(Record, Tag) ->
    Self = self(),
    {callback, fun(_Url) -> {ok, Record} end, fun(_Url, Saved) -> Self ! {saved, Tag, Saved}, ok end}.

token_requests(Requests) ->
    [R || #{method := 'POST', path := <<"/token">>} = R <- Requests].

form(#{body := Body}) ->
    maps:from_list(uri_string:dissect_query(Body)).

many_callers_cause_one_refresh_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> timer:sleep(200), mcp_oauth_fake:token_answer(<<"renewed">>, []) end}),
    Base = mcp_oauth_fake:base(Fake),
    {ok, Session} = mcp_oauth_session:start_link(mcp_oauth_fake:url(Fake),
                                                 #{store => callback_store(stored(Base, #{<<"refresh_token">> => <<"r1">>}))}),
    Self = self(),
    Callers = [spawn_link(fun() -> Self ! {granted, mcp_oauth_session:bearer(Session)} end) || _ <- lists:seq(1, 50)],
    Tokens = [receive {granted, {ok, Bearer, _, _}} -> Bearer() end || _ <- Callers],
    ?assertEqual([<<"renewed">>], lists:usort(Tokens)),
    [Refresh] = token_requests(mcp_oauth_fake:requests(Fake)),
    ?assertMatch(#{<<"grant_type">> := <<"refresh_token">>, <<"refresh_token">> := <<"r1">>}, form(Refresh)),
    mcp_oauth_session:stop(Session),
    mcp_oauth_fake:stop(Fake).

a_refused_refresh_token_is_forgotten_test() ->
    Refused = {400, {object, [{<<"error">>, {string, <<"invalid_grant">>}}]}},
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> Refused end}),
    Base = mcp_oauth_fake:base(Fake),
    Tag = make_ref(),
    {ok, Session} = mcp_oauth_session:start_link(mcp_oauth_fake:url(Fake),
                                                 #{store => callback_store(stored(Base, #{<<"refresh_token">> => <<"r1">>}), Tag)}),
    ?assertEqual({error, {token_refused, 400, <<"invalid_grant">>}}, mcp_oauth_session:bearer(Session)),
    ?assertEqual(none, mcp_oauth_session:current(Session)),
    Saved = receive {saved, Tag, S} -> S after 1000 -> error(not_saved) end,
    ?assertEqual([], [K || K <- [<<"access_token">>, <<"refresh_token">>], is_map_key(K, Saved)]),
    ?assertEqual(<<"client">>, maps:get(<<"client_id">>, Saved)),
    mcp_oauth_session:stop(Session),
    mcp_oauth_fake:stop(Fake).

%% The expired token is never handed out: with client credentials and no
%% refresh token a new one is granted; the fresh one is then reused.
an_expired_stored_token_is_not_used_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> mcp_oauth_fake:token_answer(<<"fresh">>, []) end}),
    Base = mcp_oauth_fake:base(Fake),
    {ok, Session} = mcp_oauth_session:start_link(mcp_oauth_fake:url(Fake), cc_config(callback_store(stored(Base, #{})))),
    {ok, Held, _, _} = mcp_oauth_session:current(Session),
    ?assertEqual(<<"expired-token">>, Held()),
    {ok, Bearer, _, _} = mcp_oauth_session:bearer(Session),
    ?assertEqual(<<"fresh">>, Bearer()),
    {ok, Again, _, _} = mcp_oauth_session:bearer(Session),
    ?assertEqual(<<"fresh">>, Again()),
    [Grant] = token_requests(mcp_oauth_fake:requests(Fake)),
    ?assertMatch(#{<<"grant_type">> := <<"client_credentials">>}, form(Grant)),
    mcp_oauth_session:stop(Session),
    mcp_oauth_fake:stop(Fake).

%% A renewal that fails (here: no refresh token, and the authorization
%% code grant) does not end the session's use: the server's challenge
%% that follows starts the authorization it asks for.
a_challenge_after_a_failed_renewal_authorizes_anew_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> mcp_oauth_fake:token_answer(<<"new">>, []) end}),
    Base = mcp_oauth_fake:base(Fake),
    {ok, Session} = mcp_oauth_session:start_link(mcp_oauth_fake:url(Fake),
                                                 #{browser => filename:absname("test/conformance/browser"),
                                                   consent_timeout_ms => 10000, store => callback_store(stored(Base, #{}))}),
    {ok, _, Generation, _} = mcp_oauth_session:current(Session),
    ?assertEqual({error, no_refresh_token}, mcp_oauth_session:bearer(Session)),
    Challenge = mcp_oauth_discovery:challenge(<<"Bearer resource_metadata=\"", Base/binary,
                                                "/.well-known/oauth-protected-resource/mcp\"">>),
    {ok, Bearer, _, _} = mcp_oauth_session:authorize(Session, Challenge, Generation),
    ?assertEqual(<<"new">>, Bearer()),
    ?assert(lists:member({'GET', <<"/authorize">>}, mcp_oauth_fake:paths(mcp_oauth_fake:requests(Fake)))),
    mcp_oauth_session:stop(Session),
    mcp_oauth_fake:stop(Fake).

%% Through the transport: the first request carries the new token, the
%% expired one never reaches the server.
the_transport_renews_an_expired_token_before_sending_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"fresh">>,
                                  token => fun(_) -> mcp_oauth_fake:token_answer(<<"fresh">>, []) end}),
    Base = mcp_oauth_fake:base(Fake),
    Spec = #{url => mcp_oauth_fake:url(Fake), oauth => cc_config(callback_store(stored(Base, #{})))},
    {ok, Client, _} = mcp_client:start(Spec, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    Bearers = [proplists:get_value(<<"authorization">>, H) || #{path := <<"/mcp">>, headers := H} <- mcp_oauth_fake:requests(Fake)],
    ?assertEqual([<<"Bearer fresh">>], lists:usort(Bearers)),
    _ = mcp_client:shutdown(Client, 5000),
    mcp_oauth_fake:stop(Fake).

%% A 401 with no token held: client credentials are granted and the
%% request goes again with the token.
a_challenge_is_answered_with_client_credentials_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"granted">>,
                                  token => fun(_) -> mcp_oauth_fake:token_answer(<<"granted">>, []) end}),
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => cc_config(none)}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    Requests = mcp_oauth_fake:requests(Fake),
    [Grant] = token_requests(Requests),
    #{headers := Headers} = Grant,
    ?assertEqual(<<"Basic ", (base64:encode(<<"client:", ?SECRET/binary>>))/binary>>,
                 proplists:get_value(<<"authorization">>, Headers)),
    ?assertMatch(#{<<"resource">> := _}, form(Grant)),
    _ = mcp_client:shutdown(Client, 5000),
    mcp_oauth_fake:stop(Fake).

%% OpenID Connect grants `offline_access' (and with it a refresh token)
%% only to a request that asks for consent: where the authorization server
%% lists `offline_access', the authorization request asks for it and for
%% `prompt=consent'; where it does not, for neither.
offline_access_goes_with_prompt_consent_test_() ->
    [{timeout, 30, ?_assertEqual({<<"tools offline_access">>, <<"consent">>},
                                 authorization_request([<<"tools">>, <<"offline_access">>]))},
     {timeout, 30, ?_assertEqual({<<"tools">>, none}, authorization_request([<<"tools">>]))}].

%% The `scope' and `prompt' of the authorization request a person is sent
%% to (test/conformance/browser consents) by an authorization server that
%% lists `Supported'.
authorization_request(Supported) ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"granted">>, scopes_supported => Supported,
                                  token => fun(_) -> mcp_oauth_fake:token_answer(<<"granted">>, []) end}),
    OAuth = #{browser => filename:absname("test/conformance/browser"), consent_timeout_ms => 10000,
              scopes => [<<"tools">>], store => none},
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => OAuth}, #{}),
    _ = mcp_client:shutdown(Client, 5000),
    [Query] = [Q || #{method := 'GET', path := <<"/authorize?", Q/binary>>} <- mcp_oauth_fake:requests(Fake)],
    mcp_oauth_fake:stop(Fake),
    Params = maps:from_list(uri_string:dissect_query(Query)),
    {maps:get(<<"scope">>, Params, none), maps:get(<<"prompt">>, Params, none)}.

%%% ----------------------------------------------------------- bounded

%% An authorization server is untrusted too: an answer without end (a
%% metadata document, or an error body, which `httpc' reads whole) stops
%% at the allowance as `body_too_long'. That `httpc' alone would go on
%% holding such a body: mcp_http_tests:httpc_alone_holds_an_endless_body_test_.
an_endless_answer_is_cut_test_() ->
    [{timeout, 30, fun() ->
        Stub = mcp_http_stub:start(fun(_) -> {endless_body, Status} end),
        {ok, Http} = mcp_oauth_http:start(mcp_http_stub:url(Stub)),
        try
            {error, {body_too_long, Held}} = mcp_oauth_http:get_json(Http, mcp_http_stub:url(Stub)),
            ?assert(Held > mcp_oauth_http:max_body_bytes())
        after
            mcp_oauth_http:stop(Http),
            mcp_http_stub:stop(Stub),
            stub_requests()
        end
    end} || Status <- [200, 500]].

%%% ------------------------------------------------------ this machine

%% The attack: a remote MCP server names, in its challenge or metadata, a
%% URL on this machine (a local service, a cloud metadata address) or on
%% a private network, and the flow requests it. Shown open for a server on the loopback (where
%% the flow's endpoints legitimately are); refused for a remote one, with
%% no request made, however the address is spelt.
a_remote_server_cannot_point_the_flow_at_this_machine_test() ->
    Stub = mcp_http_stub:start(fun(_) -> {reply, 200, [{"content-type", "application/json"}], <<"{}">>} end),
    Port = integer_to_list(mcp_http_stub:port(Stub)),
    Local = mcp_http_stub:url(Stub),
    try
        {ok, Near} = mcp_oauth_http:start(Local),
        ?assertEqual({ok, {200, []}}, mcp_oauth_http:get_json(Near, Local)),
        ?assertMatch([_], stub_requests()),
        mcp_oauth_http:stop(Near),
        {ok, Far} = mcp_oauth_http:start(<<"https://mcp.example.com/mcp">>),
        [?assertMatch({Url, {error, {local_endpoint, _}}}, {Url, mcp_oauth_http:get_json(Far, Url)})
         || Url <- [Local, "http://localhost:" ++ Port ++ "/", "http://LocalHost:" ++ Port ++ "/",
                    "http://a.localhost:" ++ Port ++ "/", "http://127.1:" ++ Port ++ "/",
                    "http://2130706433:" ++ Port ++ "/", "http://0.0.0.0:" ++ Port ++ "/",
                    "http://[::1]:" ++ Port ++ "/", "http://[::ffff:127.0.0.1]:" ++ Port ++ "/",
                    "https://169.254.169.254/latest/meta-data", "https://[fe80::1]/"]],
        [?assertMatch({Url, {error, {private_endpoint, _}}}, {Url, mcp_oauth_http:get_json(Far, Url)})
         || Url <- ["https://10.0.0.1/", "https://172.16.0.1/", "https://172.31.255.255/", "https://192.168.1.1/",
                    "https://100.64.0.1/", "https://[fd00::1]/", "https://[::ffff:10.0.0.1]/"]],
        ?assertEqual([], stub_requests()),
        mcp_oauth_http:stop(Far)
    after
        mcp_http_stub:stop(Stub)
    end.

stub_requests() ->
    receive {stub_request, _, Request} -> [Request | stub_requests()] after 100 -> [] end.

%%% ------------------------------------------------------------ mismatch

obtain(Options) ->
    Fake = mcp_oauth_fake:start(Options#{token => fun(_) -> mcp_oauth_fake:token_answer(<<"t">>, []) end}),
    {ok, Http} = mcp_oauth_http:start(mcp_oauth_fake:url(Fake)),
    Outcome = mcp_oauth:obtain(Http, mcp_oauth_fake:url(Fake), #{}, cc_config(none), none),
    Paths = mcp_oauth_fake:paths(mcp_oauth_fake:requests(Fake)),
    mcp_oauth_http:stop(Http),
    mcp_oauth_fake:stop(Fake),
    {Outcome, Paths}.

%% The attack's channel, shown open: with matching metadata the flow does
%% reach the endpoints the metadata names.
matching_metadata_reaches_the_token_endpoint_test() ->
    {Outcome, Paths} = obtain(#{}),
    ?assertMatch({ok, #{<<"access_token">> := <<"t">>}}, Outcome),
    ?assert(lists:member({'POST', <<"/token">>}, Paths)).

an_issuer_mismatch_uses_no_endpoint_of_the_metadata_test() ->
    {Outcome, Paths} = obtain(#{issuer => <<"https://attacker.example">>}),
    ?assertMatch({error, {issuer_mismatch, _}}, Outcome),
    ?assertEqual([], [P || {_, P} <- Paths, lists:member(P, [<<"/token">>, <<"/register">>, <<"/authorize">>])]).

%% One byte off (a trailing slash) is a mismatch: no normalisation.
an_issuer_differing_by_a_slash_is_a_mismatch_test() ->
    {Outcome, Paths} = obtain(#{issuer => fun(Base) -> <<Base/binary, "/">> end}),
    ?assertMatch({error, {issuer_mismatch, _}}, Outcome),
    ?assertNot(lists:member({'POST', <<"/token">>}, Paths)).

a_resource_mismatch_asks_no_authorization_server_test() ->
    {Outcome, Paths} = obtain(#{resource => <<"https://evil.example/mcp">>}),
    ?assertEqual({error, {resource_mismatch, <<"https://evil.example/mcp">>}}, Outcome),
    ?assertEqual([], [P || {_, P} <- Paths, P =/= <<"/.well-known/oauth-protected-resource/mcp">>]).

resource_matching_test_() ->
    Server = <<"https://mcp.example.com/api/mcp">>,
    [?_assert(mcp_oauth_discovery:resource_matches(<<"https://mcp.example.com/api/mcp">>, Server)),
     ?_assert(mcp_oauth_discovery:resource_matches(<<"https://mcp.example.com">>, Server)),
     ?_assert(mcp_oauth_discovery:resource_matches(<<"https://MCP.example.com:443/api">>, Server)),
     ?_assertNot(mcp_oauth_discovery:resource_matches(<<"https://mcp.example.com/ap">>, Server)),
     ?_assertNot(mcp_oauth_discovery:resource_matches(<<"https://mcp.example.com:8443/api">>, Server)),
     ?_assertNot(mcp_oauth_discovery:resource_matches(<<"http://mcp.example.com/api">>, Server)),
     ?_assertNot(mcp_oauth_discovery:resource_matches(<<"https://evil.example/api/mcp">>, Server))].

challenge_parsing_test_() ->
    [?_assertEqual(#{scope => [<<"a">>, <<"b">>], error => <<"insufficient_scope">>,
                     resource_metadata => <<"https://x/.well-known/oauth-protected-resource">>},
                   mcp_oauth_discovery:challenge(
                     "Bearer error=\"insufficient_scope\", scope=\"a b\", "
                     "resource_metadata=\"https://x/.well-known/oauth-protected-resource\"")),
     ?_assertEqual(#{error => <<"invalid_token">>}, mcp_oauth_discovery:challenge("Bearer error=invalid_token")),
     ?_assertEqual(#{}, mcp_oauth_discovery:challenge(none)),
     ?_assertEqual(#{}, mcp_oauth_discovery:challenge(<<255, 0, "=\"">>))].

%%% ---------------------------------------------------------- token store

temp_dir() ->
    Dir = filename:join(["/tmp", "mcp_oauth_tests." ++ os:getpid(), integer_to_list(erlang:unique_integer([positive]))]),
    _ = file:del_dir_r(Dir),
    Dir.

a_saved_record_is_private_and_loads_back_test() ->
    Dir = temp_dir(),
    Store = {dir, Dir},
    Record = #{<<"access_token">> => <<"a">>, <<"scope">> => [<<"s">>], <<"expires_at">> => 5},
    ok = mcp_oauth_token_store:save(Store, <<"https://x/mcp">>, Record),
    ?assertEqual({ok, Record}, mcp_oauth_token_store:load(Store, <<"https://x/mcp">>)),
    {ok, #file_info{mode = DirMode}} = file:read_file_info(Dir),
    [File] = filelib:wildcard(filename:join(Dir, "*.json")),
    {ok, #file_info{mode = FileMode}} = file:read_file_info(File),
    ?assertEqual({8#700, 8#600}, {DirMode band 8#777, FileMode band 8#777}),
    ?assertEqual(none, mcp_oauth_token_store:load(Store, <<"https://other/mcp">>)).

%% 0600 is read (N); group-readable 0640 is refused (N+1), by the store and
%% by a session, which does not start.
a_token_file_others_may_read_is_refused_test() ->
    Dir = temp_dir(),
    Store = {dir, Dir},
    Url = <<"https://x/mcp">>,
    ok = mcp_oauth_token_store:save(Store, Url, #{<<"access_token">> => <<"a">>}),
    [File] = filelib:wildcard(filename:join(Dir, "*.json")),
    ?assertMatch({ok, _}, mcp_oauth_token_store:load(Store, Url)),
    ok = file:change_mode(File, 8#640),
    ?assertMatch({error, {token_file_permissions, _}}, mcp_oauth_token_store:load(Store, Url)),
    ?assertMatch({error, {token_file_permissions, _}}, mcp_oauth_session:start_link(Url, #{store => Store})),
    ok = file:change_mode(File, 8#600),
    ok = file:change_mode(Dir, 8#755),
    ?assertMatch({error, {token_file_permissions, _}}, mcp_oauth_token_store:load(Store, Url)).

%%% ------------------------------------------------------------- secrecy

%% The session's state, as `sys:get_state' and a crash report print it,
%% holds neither the tokens nor the client secret.
the_session_state_shows_no_secret_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> mcp_oauth_fake:token_answer(<<"tok-b1c2">>, [{<<"refresh_token">>, {string, <<"ref-9d8e">>}}]) end}),
    {ok, Session} = mcp_oauth_session:start_link(mcp_oauth_fake:url(Fake), cc_config(none)),
    {ok, Bearer, _, _} = mcp_oauth_session:authorize(Session, #{}, 0),
    ?assertEqual(<<"tok-b1c2">>, Bearer()),
    Printed = iolist_to_binary(io_lib:format("~p ~p", [sys:get_state(Session), sys:get_status(Session)])),
    ?assertEqual([], [S || S <- [<<"tok-b1c2">>, <<"ref-9d8e">>, ?SECRET], binary:match(Printed, S) =/= nomatch]),
    mcp_oauth_session:stop(Session),
    mcp_oauth_fake:stop(Fake).

pkce_and_base64url_test() ->
    %% RFC 7636 appendix B.
    Verifier = <<"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk">>,
    ?assertEqual(<<"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM">>, mcp_oauth:base64url(crypto:hash(sha256, Verifier))).

%% Authorization against hostile peers (docs/authorization.md, "Threat
%% model"): what a token answer may put into our requests, where a client
%% secret may go, and what reaches the disk. Each attack's channel is shown
%% open first (the same fake, honest, does get what the test then refuses).
-module(mcp_oauth_hostile_tests).

-include_lib("eunit/include/eunit.hrl").

-define(SECRET, <<"client-secret-7f3a">>).

cc_config(Store) ->
    #{grant => client_credentials, client_id => <<"client">>, client_secret => ?SECRET, store => Store}.

basic() -> <<"Basic ", (base64:encode(<<"client:", ?SECRET/binary>>))/binary>>.

token_answer(Members) ->
    {200, {object, Members}}.

%% The fake granting `Access' of `Type' (`none': no token_type) for `ExpiresIn'.
granting(Access, Type, ExpiresIn) ->
    fun(_) ->
            token_answer([{<<"access_token">>, {string, Access}}]
                         ++ [{<<"token_type">>, {string, Type}} || Type =/= none]
                         ++ [{<<"expires_in">>, ExpiresIn} || ExpiresIn =/= none])
    end.

mcp_requests(Requests) ->
    [R || #{path := <<"/mcp">>} = R <- Requests].

token_requests(Requests) ->
    [R || #{method := 'POST', path := <<"/token">>} = R <- Requests].

%%% ------------------------------------------------ the token as a header

%% The channel: the token's bytes go into the `Authorization' header as
%% they came, every character RFC 6750 allows included.
a_token_reaches_the_header_byte_for_byte_test() ->
    Token = <<"aZ09-._~+/token==">>,
    Fake = mcp_oauth_fake:start(#{accepted => Token, token => granting(Token, <<"Bearer">>, {int, 3600})}),
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => cc_config(none)}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    Bearers = [proplists:get_value(<<"authorization">>, H) || #{headers := H} <- mcp_requests(mcp_oauth_fake:requests(Fake))],
    ?assert(lists:member(<<"Bearer ", Token/binary>>, Bearers)),
    _ = mcp_client:shutdown(Client, 5000),
    mcp_oauth_fake:stop(Fake).

%% The attack: a token carrying CR LF and a header of its own. Refused as
%% unusable: no request carries it, nothing is stored, and the client
%% fails with the typed reason.
a_token_that_would_inject_a_header_is_refused_test() ->
    Token = <<"abc\r\nX-Injected: yes">>,
    Tag = make_ref(),
    Self = self(),
    Store = {callback, fun(_) -> none end, fun(_, Saved) -> Self ! {saved, Tag, Saved}, ok end},
    Fake = mcp_oauth_fake:start(#{accepted => Token, token => granting(Token, <<"Bearer">>, {int, 3600})}),
    ?assertEqual({error, {handshake_failed, {unavailable, {authorization_failed, {token_unusable, malformed}}}}},
                 mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => cc_config(Store)}, #{})),
    Requests = mcp_oauth_fake:requests(Fake),
    ?assertMatch([_], token_requests(Requests)),
    ?assertEqual([], [R || #{headers := H} = R <- Requests, lists:keymember(<<"x-injected">>, 1, H)]),
    ?assertEqual([], [S || {saved, T, S} <- flush(), T =:= Tag]),
    mcp_oauth_fake:stop(Fake).

%% A token put into the store by other means is checked when loaded: not
%% sent; the server's challenge then drives a grant.
a_stored_token_that_would_inject_a_header_is_not_sent_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"fresh">>, token => granting(<<"fresh">>, <<"Bearer">>, {int, 3600})}),
    Base = mcp_oauth_fake:base(Fake),
    Stored = #{<<"issuer">> => Base, <<"token_endpoint">> => <<Base/binary, "/token">>,
               <<"client_id">> => <<"client">>, <<"auth_method">> => <<"client_secret_basic">>,
               <<"access_token">> => <<"stored\r\nX-Injected: yes">>},
    Store = {callback, fun(_) -> {ok, Stored} end, fun(_, _) -> ok end},
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => cc_config(Store)}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    Requests = mcp_oauth_fake:requests(Fake),
    ?assertEqual([], [R || #{headers := H} = R <- Requests, lists:keymember(<<"x-injected">>, 1, H)]),
    _ = mcp_client:shutdown(Client, 5000),
    mcp_oauth_fake:stop(Fake).

token_values_test_() ->
    Long = binary:copy(<<"a">>, mcp_oauth_token:max_token_bytes()),
    [?_assertEqual(ok, mcp_oauth_token:usable(<<"a">>)),
     ?_assertEqual(ok, mcp_oauth_token:usable(Long)),
     ?_assertEqual({error, {token_unusable, too_long}}, mcp_oauth_token:usable(<<Long/binary, "a">>)),
     ?_assertEqual(ok, mcp_oauth_token:usable(<<"eyJ.x-y_z~1+2/3==">>)),
     [?_assertEqual({T, {error, {token_unusable, malformed}}}, {T, mcp_oauth_token:usable(T)})
      || T <- [<<>>, <<"=abc">>, <<"a=b">>, <<"a b">>, <<"a\rb">>, <<"a\nb">>, <<"a", 0, "b">>, <<"a\"b">>,
               <<"a,b">>, <<"é"/utf8>>, 42]]].

%% A token bound to a key we do not hold is refused, never sent as Bearer;
%% the type compares case-insensitively and an answer without one is Bearer.
token_types_test_() ->
    Read = fun(Type) -> mcp_oauth_token:read([{<<"access_token">>, {string, <<"t">>}} | Type], 0) end,
    [?_assertMatch({ok, <<"t">>, _}, Read([{<<"token_type">>, {string, <<"Bearer">>}}])),
     ?_assertMatch({ok, <<"t">>, _}, Read([{<<"token_type">>, {string, <<"bEARER">>}}])),
     ?_assertMatch({ok, <<"t">>, _}, Read([])),
     ?_assertEqual({error, {token_type_unsupported, <<"DPoP">>}}, Read([{<<"token_type">>, {string, <<"DPoP">>}}])),
     ?_assertEqual({error, {token_type_unsupported, <<"MAC">>}}, Read([{<<"token_type">>, {string, <<"MAC">>}}])),
     ?_assertEqual({error, {token_type_unsupported, <<>>}}, Read([{<<"token_type">>, {int, 1}}]))].

a_dpop_bound_token_is_refused_by_the_client_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"bound">>, token => granting(<<"bound">>, <<"DPoP">>, {int, 3600})}),
    ?assertEqual({error, {handshake_failed, {unavailable, {authorization_failed, {token_type_unsupported, <<"DPoP">>}}}}},
                 mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => cc_config(none)}, #{})),
    Requests = mcp_oauth_fake:requests(Fake),
    ?assertMatch([_], token_requests(Requests)),
    Bearers = [proplists:get_value(<<"authorization">>, H) || #{headers := H} <- mcp_requests(Requests)],
    ?assertEqual([undefined], lists:usort(Bearers)),
    mcp_oauth_fake:stop(Fake).

%%% ------------------------------------------------------------ lifetimes

%% `expires_in' from 1 to a year is believed (both ends), anything else is
%% an unknown lifetime: held for an hour, never "never expires".
lifetimes_test_() ->
    Now = 1000000,
    Expiry = fun(ExpiresIn) ->
                     Members = [{<<"access_token">>, {string, <<"t">>}} | [{<<"expires_in">>, ExpiresIn} || ExpiresIn =/= none]],
                     {ok, _, #{<<"expires_at">> := At}} = mcp_oauth_token:read(Members, Now),
                     At - Now
             end,
    Max = mcp_oauth_token:max_lifetime_s(),
    Unknown = mcp_oauth_token:unknown_lifetime_s(),
    [?_assertEqual(1, Expiry({int, 1})),
     ?_assertEqual(3600, Expiry({int, 3600})),
     ?_assertEqual(Max, Expiry({int, Max})),
     ?_assertEqual(Unknown, Expiry({int, Max + 1})),
     [?_assertEqual({E, Unknown}, {E, Expiry(E)})
      || E <- [none, {int, 0}, {int, -5}, {float, 1.0e30}, {string, <<"3600">>}, {int, 1 bsl 70}, null]]].

%% A token is renewed a quarter of its lifetime before expiry, at most 60 s
%% before: a 60 s token is used for 45 s, an hour's for 59 minutes.
renewal_margin_test_() ->
    [?_assertEqual(45, mcp_oauth_token:renew_at(0, 60)),
     ?_assertEqual(3540, mcp_oauth_token:renew_at(0, 3600)),
     ?_assertEqual(240, mcp_oauth_token:renew_at(0, 300)),
     ?_assertEqual(1, mcp_oauth_token:renew_at(0, 1)),
     ?_assertEqual(false, mcp_oauth_token:due(#{<<"renew_at">> => erlang:system_time(second) + 5})),
     ?_assertEqual(true, mcp_oauth_token:due(#{<<"renew_at">> => erlang:system_time(second)})),
     ?_assertEqual(false, mcp_oauth_token:due(#{}))].

%% A 30 s token is used: many calls, one grant.
a_short_lived_token_is_used_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"short">>, token => granting(<<"short">>, <<"Bearer">>, {int, 30})}),
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => cc_config(none)}, #{}),
    [?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 5000)) || _ <- lists:seq(1, 5)],
    ?assertMatch([_], token_requests(mcp_oauth_fake:requests(Fake))),
    _ = mcp_client:shutdown(Client, 5000),
    mcp_oauth_fake:stop(Fake).

%%% ---------------------------------------------- where a secret may go

%% An MCP server whose challenge names protected-resource metadata at a
%% path of its own, pointing at an authorization server elsewhere (a
%% second stub); its own origin publishes no metadata and keeps a `/token'
%% that records what it is sent. `Issued' is the authorization server's
%% token answer.
split_servers(Issued) ->
    Self = self(),
    As = mcp_http_stub:start(fun(#{method := 'GET', path := <<"/.well-known/oauth-authorization-server">>} = R) ->
                                     Base = host(R),
                                     json(200, {object, [{<<"issuer">>, {string, Base}},
                                                         {<<"token_endpoint">>, {string, <<Base/binary, "/token">>}}]});
                                (#{method := 'POST', path := <<"/token">>}) ->
                                     {Status, Json} = Issued(),
                                     json(Status, Json);
                                (_) -> {reply, 404, [], <<>>}
                             end),
    AsBase = iolist_to_binary(["http://127.0.0.1:", integer_to_list(mcp_http_stub:port(As))]),
    Mcp = mcp_http_stub:start(
            fun(#{path := <<"/prm">>} = R) ->
                    json(200, {object, [{<<"resource">>, {string, <<(host(R))/binary, "/mcp">>}},
                                        {<<"authorization_servers">>, {array, [{string, AsBase}]}}]});
               (#{method := 'POST', path := <<"/token">>} = R) ->
                    Self ! {stolen, R},
                    json(200, {object, [{<<"access_token">>, {string, <<"attacker">>}}]});
               (#{method := 'POST', path := <<"/mcp">>, headers := H, body := Body} = R) ->
                    case proplists:get_value(<<"authorization">>, H) of
                        <<"Bearer issued">> -> mcp_oauth_fake_answer(Body);
                        _ -> {reply, 401, [{"www-authenticate", ["Bearer resource_metadata=\"", host(R), "/prm\""]}], <<>>}
                    end;
               (#{method := 'DELETE'}) -> {reply, 200, [], <<>>};
               (_) -> {reply, 404, [], <<>>}
            end),
    {As, Mcp}.

mcp_oauth_fake_answer(Body) ->
    {ok, {object, Members}} = mcp_json:decode(Body),
    Id = proplists:get_value(<<"id">>, Members),
    case proplists:get_value(<<"method">>, Members) of
        _ when Id =:= undefined -> {reply, 202, [], <<>>};
        {string, <<"initialize">>} ->
            {reply, Status, Headers, Json} =
                result(Id, <<"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                             "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}">>),
            {reply, Status, [{"mcp-session-id", "s-1"} | Headers], Json};
        {string, <<"tools/list">>} -> result(Id, <<"{\"tools\":[]}">>);
        _ -> result(Id, <<"{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}">>)
    end.

result(Id, Result) ->
    {reply, 200, [{"content-type", "application/json"}],
     [<<"{\"jsonrpc\":\"2.0\",\"id\":">>, mcp_json:encode(Id), <<",\"result\":">>, Result, <<"}">>]}.

json(Status, Json) ->
    {reply, Status, [{"content-type", "application/json"}], mcp_json:encode(Json)}.

host(#{headers := Headers}) -> <<"http://", (proplists:get_value(<<"host">>, Headers))/binary>>.

%% The channel: a discovery without the challenge (what a renewal that
%% forgot it would run) finds no metadata at the MCP server's origin and
%% falls back to the 2025-03-26 default endpoints there; with a configured
%% secret, that fallback is refused before any token request.
a_discovery_without_the_challenge_falls_back_to_the_server_origin_test() ->
    {As, Mcp} = split_servers(fun() -> {200, {object, []}} end),
    Url = list_to_binary(mcp_http_stub:url(Mcp)),
    {ok, Http} = mcp_oauth_http:start(Url),
    ?assertEqual({error, {unstated_endpoint, <<"token_endpoint">>}},
                 mcp_oauth:obtain(Http, Url, #{}, cc_config(none), none)),
    ?assertEqual([], [R || {stolen, R} <- flush()]),
    mcp_oauth_http:stop(Http),
    stop(As, Mcp).

%% An authorization server that answers 503 with `Retry-After: 1': `httpc'
%% hands the retry to its manager by a registered name a stand-alone
%% manager has not, and the request is dropped without an answer (a flow
%% that waited for `httpc''s own timeout waited for good); it ends
%% `timeout' a second past that timeout (30 s).
a_dropped_request_ends_test_() ->
    {timeout, 60, fun() ->
        Stub = mcp_http_stub:start(fun(_) -> {reply, 503, [{"retry-after", "1"}], <<"busy">>} end),
        try
            Url = list_to_binary(mcp_http_stub:url(Stub)),
            {ok, Http} = mcp_oauth_http:start(Url),
            ?assertMatch({error, {http_failed, _, timeout}}, mcp_oauth_http:get_json(Http, Url)),
            mcp_oauth_http:stop(Http)
        after
            mcp_http_stub:stop(Stub),
            _ = flush()
        end
    end}.

%% The attack: a token that expires within the renewal margin (here 20 s)
%% is renewed; a renewal that rediscovered without the challenge POSTed
%% the client secret to the MCP server's own `/token'. The renewal goes to
%% the endpoint that issued the token, and the MCP origin gets nothing.
a_renewal_sends_the_secret_only_to_the_issuing_endpoint_test() ->
    Issued = fun() -> {200, {object, [{<<"access_token">>, {string, <<"issued">>}},
                                     {<<"token_type">>, {string, <<"Bearer">>}}, {<<"expires_in">>, {int, 2}}]}}
             end,
    {As, Mcp} = split_servers(Issued),
    {ok, Client, _} = mcp_client:start(#{url => list_to_binary(mcp_http_stub:url(Mcp)), oauth => cc_config(none)}, #{}),
    ?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 5000)),
    timer:sleep(2100),
    ?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 5000)),
    Messages = flush(),
    AsPid = maps:get(pid, As),
    Grants = [R || {stub_request, P, #{method := 'POST', path := <<"/token">>} = R} <- Messages, P =:= AsPid],
    ?assertEqual([basic(), basic()], [proplists:get_value(<<"authorization">>, H) || #{headers := H} <- Grants]),
    ?assertEqual([], [R || {stolen, R} <- Messages]),
    _ = mcp_client:shutdown(Client, 5000),
    stop(As, Mcp).

%% An authorization server of its own (token "issued-by-PORT").
an_authorization_server() ->
    mcp_http_stub:start(fun(#{method := 'GET', path := <<"/.well-known/oauth-authorization-server">>} = R) ->
                                Base = host(R),
                                json(200, {object, [{<<"issuer">>, {string, Base}},
                                                    {<<"token_endpoint">>, {string, <<Base/binary, "/token">>}}]});
                           (#{method := 'POST', path := <<"/token">>}) ->
                                json(200, {object, [{<<"access_token">>, {string, <<"fresh">>}},
                                                    {<<"token_type">>, {string, <<"Bearer">>}}]});
                           (_) -> {reply, 404, [], <<>>}
                        end).

base(Stub) -> iolist_to_binary(["http://127.0.0.1:", integer_to_list(mcp_http_stub:port(Stub))]).

%% An MCP server whose metadata names `As' and that takes no token.
naming(As) ->
    mcp_http_stub:start(
      fun(#{path := <<"/prm">>} = R) ->
              json(200, {object, [{<<"resource">>, {string, <<(host(R))/binary, "/mcp">>}},
                                  {<<"authorization_servers">>, {array, [{string, base(As)}]}}]});
         (#{method := 'POST', path := <<"/mcp">>} = R) ->
              {reply, 401, [{"www-authenticate", ["Bearer resource_metadata=\"", host(R), "/prm\""]}], <<>>};
         (_) -> {reply, 404, [], <<>>}
      end).

%% What `As' received at its token endpoint during `Run'.
token_requests_of(As, Run) ->
    _ = Run(),
    Pid = maps:get(pid, As),
    [R || {stub_request, P, #{method := 'POST', path := <<"/token">>} = R} <- flush(), P =:= Pid].

%% Given credentials go only to their authorization server: the one the
%% configuration names (`issuer'), else the one of the stored record. A
%% server naming another gets nothing; first shown getting the secret when
%% nothing ties the credentials (first use, no `issuer').
given_credentials_go_only_to_their_authorization_server_test() ->
    Real = an_authorization_server(),
    Attacker = an_authorization_server(),
    Mcp = naming(Attacker),
    Url = list_to_binary(mcp_http_stub:url(Mcp)),
    Start = fun(OAuth) -> fun() -> mcp_client:start(#{url => Url, oauth => OAuth}, #{}) end end,
    try
        %% First use, nothing configured: trusted on first use.
        ?assertMatch([_ | _], token_requests_of(Attacker, Start(cc_config(none)))),
        %% A stored record of the real server: the attacker gets nothing.
        Stored = #{<<"issuer">> => base(Real), <<"token_endpoint">> => <<(base(Real))/binary, "/token">>,
                   <<"client_id">> => <<"client">>, <<"auth_method">> => <<"client_secret_basic">>,
                   <<"access_token">> => <<"refused-by-the-server">>},
        Store = {callback, fun(_) -> {ok, Stored} end, fun(_, _) -> ok end},
        Refused = fun(OAuth) ->
                          Requests = token_requests_of(Attacker, fun() ->
                              ?assertMatch({error, {handshake_failed, {unavailable, {authorization_failed,
                                                                                     {issuer_not_trusted, _}}}}},
                                           (Start(OAuth))())
                          end),
                          ?assertEqual([], Requests)
                  end,
        Refused(cc_config(Store)),
        %% The configured issuer, with no store.
        Refused((cc_config(none))#{issuer => base(Real)}),
        %% A stored record of the attacker's, its token due: the renewal
        %% does not go there either.
        Due = #{<<"issuer">> => base(Attacker), <<"token_endpoint">> => <<(base(Attacker))/binary, "/token">>,
                <<"client_id">> => <<"client">>, <<"auth_method">> => <<"client_secret_basic">>,
                <<"access_token">> => <<"due">>, <<"expires_at">> => erlang:system_time(second) - 10},
        DueStore = {callback, fun(_) -> {ok, Due} end, fun(_, _) -> ok end},
        Refused((cc_config(DueStore))#{issuer => base(Real)})
    after
        [mcp_http_stub:stop(S) || S <- [Real, Attacker, Mcp]],
        _ = flush()
    end.

%% An authorization endpoint in plain `http' off the loopback is refused
%% before the URL goes to a browser (it carries the state and the PKCE
%% challenge, and a person's login follows); without the check the
%% browser gets it and the flow waits for a consent (here 1 s).
a_plaintext_authorization_endpoint_is_refused_test() ->
    As = mcp_http_stub:start(fun(#{method := 'GET', path := <<"/.well-known/oauth-authorization-server">>} = R) ->
                                     Base = host(R),
                                     json(200, {object, [{<<"issuer">>, {string, Base}},
                                                         {<<"authorization_endpoint">>,
                                                          {string, <<"http://login.example.com/authorize">>}},
                                                         {<<"token_endpoint">>, {string, <<Base/binary, "/token">>}},
                                                         {<<"registration_endpoint">>, {string, <<Base/binary, "/register">>}},
                                                         {<<"code_challenge_methods_supported">>, {array, [{string, <<"S256">>}]}}]});
                                (#{method := 'POST', path := <<"/register">>}) ->
                                     json(201, {object, [{<<"client_id">>, {string, <<"registered">>}}]});
                                (_) -> {reply, 404, [], <<>>}
                             end),
    Mcp = naming(As),
    try
        OAuth = #{browser => "true", consent_timeout_ms => 1000, store => none},
        ?assertMatch({error, {handshake_failed, {unavailable, {authorization_failed,
                                                               {plaintext_endpoint, <<"http://login.example.com/authorize">>}}}}},
                     mcp_client:start(#{url => list_to_binary(mcp_http_stub:url(Mcp)), oauth => OAuth}, #{}))
    after
        [mcp_http_stub:stop(S) || S <- [As, Mcp]],
        _ = flush()
    end.

stop(As, Mcp) ->
    mcp_http_stub:stop(As),
    mcp_http_stub:stop(Mcp),
    _ = flush(),
    ok.

flush() ->
    receive Message -> [Message | flush()] after 200 -> [] end.

%%% ---------------------------------------------------------- the disk

temp_dir() ->
    Dir = filename:join(["/tmp", "mcp_oauth_hostile_tests." ++ os:getpid(), integer_to_list(erlang:unique_integer([positive]))]),
    _ = file:del_dir_r(Dir),
    Dir.

%% The secret came from the configuration: the token file holds the
%% token, never the secret; a later run renews with the configuration's
%% secret (the Basic header) from the record it loads.
the_client_secret_is_never_written_to_disk_test() ->
    Dir = temp_dir(),
    Fake = mcp_oauth_fake:start(#{accepted => <<"t1">>, token => granting(<<"t1">>, <<"Bearer">>, {int, 3600})}),
    Url = mcp_oauth_fake:url(Fake),
    {ok, Client, _} = mcp_client:start(#{url => Url, oauth => cc_config({dir, Dir})}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    _ = mcp_client:shutdown(Client, 5000),
    [File] = filelib:wildcard(filename:join(Dir, "*.json")),
    {ok, Bytes} = file:read_file(File),
    ?assertNotEqual(nomatch, binary:match(Bytes, <<"t1">>)),
    ?assertEqual(nomatch, binary:match(Bytes, ?SECRET)),
    %% Expired: the next run renews it from the stored record.
    {ok, {object, Members}} = mcp_json:decode(Bytes),
    Expired = lists:keystore(<<"renew_at">>, 1, Members, {<<"renew_at">>, {int, 0}}),
    ok = file:write_file(File, mcp_json:encode({object, Expired})),
    _ = mcp_oauth_fake:requests(Fake),
    {ok, Again, _} = mcp_client:start(#{url => Url, oauth => cc_config({dir, Dir})}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Again, 5000)),
    [Grant] = token_requests(mcp_oauth_fake:requests(Fake)),
    #{headers := Headers} = Grant,
    ?assertEqual(basic(), proplists:get_value(<<"authorization">>, Headers)),
    {ok, After} = file:read_file(File),
    ?assertEqual(nomatch, binary:match(After, ?SECRET)),
    _ = mcp_client:shutdown(Again, 5000),
    mcp_oauth_fake:stop(Fake).

%%% ----------------------------------------------------- the challenge

%% The fewest reductions of five runs of `Fun', each after a collection (a
%% collection during a run is charged to it: a run of the linear reader
%% once measured past 2.5 times its half).
reductions(Fun) ->
    lists:min([begin
                   erlang:garbage_collect(),
                   {reductions, Before} = process_info(self(), reductions),
                   _ = Fun(),
                   {reductions, After} = process_info(self(), reductions),
                   After - Before
               end || _ <- lists:seq(1, 5)]).

%% `a…a x="y"' of N and 2N bytes: the cost doubles. The channel: the
%% regular expression the challenge was once read with costs four times
%% as much for twice the bytes (quadratic: 400 KB took minutes).
the_challenge_is_read_in_linear_time_test() ->
    Challenge = fun(N) -> <<(binary:copy(<<"a">>, N))/binary, " x=\"y\"">> end,
    Regex = fun(Text) -> re:run(Text, "([A-Za-z_]+)\\s*=\\s*(?:\"([^\"]*)\"|([^\\s,]+))",
                                [global, {capture, all_but_first, binary}])
            end,
    Ratio = fun(Read) -> reductions(fun() -> Read(Challenge(8000)) end) / reductions(fun() -> Read(Challenge(4000)) end) end,
    ?assert(Ratio(Regex) > 3.5),
    ?assert(Ratio(fun mcp_oauth_discovery:challenge/1) < 2.5).

challenge_values_test_() ->
    Read = fun mcp_oauth_discovery:challenge/1,
    [?_assertEqual(#{resource_metadata => <<"https://x/a\"b">>, error => <<"invalid_token">>},
                   Read(<<"Bearer realm=\"r\", resource_metadata=\"https://x/a\\\"b\",error=invalid_token">>)),
     ?_assertEqual(#{scope => [<<"a">>, <<"b">>]}, Read(<<"DPoP algs=\"ES256\", Bearer scope = \"a b\"">>)),
     ?_assertEqual(#{error => <<"x">>}, Read(<<"Bearer token68abc==, error=x">>)),
     ?_assertEqual(#{error => <<"unterminated">>}, Read(<<"Bearer error=\"unterminated">>)),
     ?_assertEqual(#{}, Read(<<"=,=\"\\">>)),
     ?_assertEqual(#{}, Read(<<"Bearer ", (binary:copy(<<"a">>, mcp_oauth_discovery:max_challenge_bytes()))/binary>>))].

%% A 401 whose challenge is exactly the cap is read (the flow goes on to
%% discovery, which finds nothing here); one byte more ends the
%% connection with a typed error, without reading it.
the_challenge_cap_test_() ->
    Max = mcp_oauth_discovery:max_challenge_bytes(),
    Start = fun(Bytes) ->
                    Head = <<"Bearer error=\"invalid_token\", x=\"">>,
                    Value = <<Head/binary, (binary:copy(<<"a">>, Bytes - byte_size(Head) - 1))/binary, "\"">>,
                    Bytes = byte_size(Value),
                    Stub = mcp_http_stub:start(fun(#{path := <<"/mcp">>}) -> {reply, 401, [{"www-authenticate", Value}], <<>>};
                                                  (_) -> {reply, 404, [], <<>>}
                                               end),
                    try mcp_client:start(#{url => mcp_http_stub:url(Stub), oauth => cc_config(none)}, #{})
                    after mcp_http_stub:stop(Stub), flush()
                    end
            end,
    [{timeout, 30, ?_assertMatch({error, {handshake_failed, {unavailable, {authorization_failed, {unstated_endpoint, _}}}}},
                                 Start(Max))},
     {timeout, 30, ?_assertEqual({error, {handshake_failed, {unavailable, {authorization_failed, {challenge_too_long, Max + 1}}}}},
                                 Start(Max + 1))}].

%%% ------------------------------------------------ the loopback redirect

get_callback(Port, Query) ->
    case gen_tcp:connect({127, 0, 0, 1}, Port, [binary, {active, false}]) of
        {ok, Socket} ->
            ok = gen_tcp:send(Socket, ["GET /callback?", Query, " HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"]),
            Answer = gen_tcp:recv(Socket, 0, 5000),
            gen_tcp:close(Socket),
            case Answer of
                {ok, Bytes} -> hd(binary:split(Bytes, <<"\r\n">>));
                {error, _} -> no_answer
            end;
        {error, _} ->
            no_answer
    end.

%% A forged redirect first, the real one after it. The channel: a listener
%% that takes the first redirect takes the forged one. The flow's listener
%% answers it 400 and goes on waiting for its own `state'.
a_forged_redirect_does_not_end_the_wait_test_() ->
    {timeout, 30, fun a_forged_redirect_does_not_end_the_wait/0}.

a_forged_redirect_does_not_end_the_wait() ->
    Run = fun(Ours) ->
                  {ok, Listener} = mcp_oauth_loopback:listen(),
                  {ok, Port} = inet:port(Listener),
                  Self = self(),
                  _ = spawn(fun() ->
                                         Forged = get_callback(Port, "code=forged&state=guess"),
                                         Real = get_callback(Port, "code=real&state=ours"),
                                         Self ! {statuses, Forged, Real}
                                 end),
                  Got = mcp_oauth_loopback:await(Listener, 5000, Ours),
                  mcp_oauth_loopback:close(Listener),
                  Statuses = receive {statuses, F, R} -> {F, R} after 6000 -> none end,
                  {Got, Statuses}
          end,
    ?assertMatch({{ok, [{<<"code">>, <<"forged">>} | _]}, _}, Run(fun(_) -> true end)),
    ?assertEqual({{ok, [{<<"code">>, <<"real">>}, {<<"state">>, <<"ours">>}]},
                  {<<"HTTP/1.1 400 Bad Request">>, <<"HTTP/1.1 200 OK">>}},
                 Run(fun(Params) -> proplists:get_value(<<"state">>, Params) =:= <<"ours">> end)).

%% Through the flow: a browser whose first request is a forged redirect to
%% the loopback listener, then the person's consent; the token is granted.
a_forged_redirect_does_not_end_a_login_test() ->
    Dir = temp_dir(),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Browser = filename:join(Dir, "forging-browser"),
    ok = file:write_file(Browser, ["#!/bin/sh\n",
                                   "redirect=$(printf '%s' \"$1\" | sed -n 's/.*[?&]redirect_uri=\\([^&]*\\).*/\\1/p' "
                                   "| sed 's/%3A/:/g; s/%2F/\\//g')\n",
                                   "curl -s -o /dev/null \"$redirect?code=forged&state=forged\"\n",
                                   "exec ", filename:absname("test/conformance/browser"), " \"$1\"\n"]),
    ok = file:change_mode(Browser, 8#700),
    Fake = mcp_oauth_fake:start(#{token => fun(#{body := Body}) ->
                                                  Code = proplists:get_value(<<"code">>, uri_string:dissect_query(Body)),
                                                  mcp_oauth_fake:token_answer(<<"for-", Code/binary>>, [])
                                          end}),
    {ok, Session} = mcp_oauth_session:start_link(mcp_oauth_fake:url(Fake),
                                                 #{browser => Browser, consent_timeout_ms => 10000, store => none}),
    {ok, Bearer, _, _} = mcp_oauth_session:authorize(Session, #{}, 0),
    ?assertEqual(<<"for-code-1">>, Bearer()),
    mcp_oauth_session:stop(Session),
    mcp_oauth_fake:stop(Fake).

%%% ------------------------------------------------------------ addresses

address_kinds_test_() ->
    Kind = fun mcp_http_address:kind/1,
    [?_assertEqual(loopback, Kind({127, 0, 0, 1})), ?_assertEqual(loopback, Kind({0, 0, 0, 0, 0, 0, 0, 1})),
     ?_assertEqual(unspecified, Kind({0, 0, 0, 0})),
     ?_assertEqual(link_local, Kind({169, 254, 169, 254})), ?_assertEqual(link_local, Kind({16#fe80, 0, 0, 0, 0, 0, 0, 1})),
     ?_assertEqual(private, Kind({10, 1, 2, 3})),
     ?_assertEqual(public, Kind({172, 15, 255, 255})), ?_assertEqual(private, Kind({172, 16, 0, 0})),
     ?_assertEqual(private, Kind({172, 31, 255, 255})), ?_assertEqual(public, Kind({172, 32, 0, 0})),
     ?_assertEqual(private, Kind({192, 168, 0, 1})), ?_assertEqual(public, Kind({192, 169, 0, 1})),
     ?_assertEqual(public, Kind({100, 63, 255, 255})), ?_assertEqual(private, Kind({100, 64, 0, 0})),
     ?_assertEqual(private, Kind({100, 127, 255, 255})), ?_assertEqual(public, Kind({100, 128, 0, 0})),
     ?_assertEqual(private, Kind({16#fd00, 0, 0, 0, 0, 0, 0, 1})), ?_assertEqual(public, Kind({16#2001, 16#db8, 0, 0, 0, 0, 0, 1})),
     ?_assertEqual(private, Kind({0, 0, 0, 0, 0, 16#ffff, 16#0a00, 1})),
     ?_assertEqual(public, Kind({8, 8, 8, 8}))].

%% A name resolves once; the request goes to that address, the name in
%% `host' (so a later, different answer of the DNS is never used).
a_request_is_pinned_to_the_checked_address_test_() ->
    [?_assertEqual({"https://93.184.215.14:8443/.well-known/x?a=1", {"host", "as.example:8443"}},
                   mcp_http_address:pinned("https://as.example:8443/.well-known/x?a=1", {93, 184, 215, 14})),
     ?_assertEqual({"https://[2001:db8::1]/t", {"host", "as.example"}},
                   mcp_http_address:pinned("https://as.example/t", {16#2001, 16#db8, 0, 0, 0, 0, 0, 1})),
     ?_assertEqual({ok, [{{127, 0, 0, 1}, loopback}]}, mcp_http_address:resolve("a.localhost")),
     ?_assertEqual({error, unresolved}, mcp_http_address:resolve("no-such-host.invalid"))].

%%% ------------------------------------------- a client that is gone

%% A protected MCP server whose authorization takes `Delay' ms at the
%% protected-resource metadata: `initialize' needs no token, `tools/call'
%% needs "Bearer t" (the token endpoint grants it). Requests go to the
%% test process as `{seen, Method, Path, Authorization}'.
slow_authorization(Delay) ->
    Self = self(),
    mcp_http_stub:start(
      fun(#{method := M, path := P, headers := H} = R) ->
              Self ! {seen, M, P, proplists:get_value(<<"authorization">>, H), rpc_method(R)},
              slow_route(R, Delay)
      end).

rpc_method(#{body := Body}) when Body =/= <<>> ->
    case mcp_json:decode(Body) of
        {ok, {object, Members}} -> proplists:get_value(<<"method">>, Members, none);
        _ -> none
    end;
rpc_method(_) ->
    none.

slow_route(#{path := <<"/prm">>} = R, Delay) ->
    timer:sleep(Delay),
    Base = host(R),
    json(200, {object, [{<<"resource">>, {string, <<Base/binary, "/mcp">>}},
                        {<<"authorization_servers">>, {array, [{string, Base}]}}]});
slow_route(#{path := <<"/.well-known/oauth-authorization-server">>} = R, _) ->
    Base = host(R),
    json(200, {object, [{<<"issuer">>, {string, Base}}, {<<"token_endpoint">>, {string, <<Base/binary, "/token">>}}]});
slow_route(#{method := 'POST', path := <<"/token">>}, _) ->
    json(200, {object, [{<<"access_token">>, {string, <<"t">>}}, {<<"token_type">>, {string, <<"Bearer">>}}]});
slow_route(#{method := 'POST', path := <<"/mcp">>, headers := H, body := Body} = R, _) ->
    {ok, {object, Members}} = mcp_json:decode(Body),
    case {proplists:get_value(<<"method">>, Members), proplists:get_value(<<"authorization">>, H)} of
        {{string, <<"tools/call">>}, <<"Bearer t">>} -> mcp_oauth_fake_answer(Body);
        {{string, <<"tools/call">>}, _} ->
            {reply, 401, [{"www-authenticate", ["Bearer resource_metadata=\"", host(R), "/prm\""]}], <<>>};
        _ -> mcp_oauth_fake_answer(Body)
    end;
slow_route(#{method := 'DELETE'}, _) -> {reply, 200, [], <<>>};
slow_route(_, _) -> {reply, 404, [], <<>>}.

seen(Method, Path) ->
    [Auth || {seen, M, P, Auth, _} <- flush(), M =:= Method, P =:= Path].

%% The Authorization of each `tools/call' POSTed so far.
calls_seen() ->
    [Auth || {seen, 'POST', _, Auth, {string, <<"tools/call">>}} <- flush()].

%% A call that waits for a token and is given up (its deadline) is never
%% sent once the token comes. The channel: the same call with a longer
%% deadline is sent, with the token, and answered.
a_call_given_up_while_waiting_for_a_token_is_never_sent_test_() ->
    {timeout, 60, fun() ->
        Stub = slow_authorization(1500),
        Url = list_to_binary(mcp_http_stub:url(Stub)),
        try
            {ok, Patient, _} = mcp_client:start(#{url => Url, oauth => cc_config(none)}, #{}),
            ?assertMatch({ok, _}, mcp_client:call_tool(Patient, <<"t">>, {object, []}, 10000)),
            _ = mcp_client:shutdown(Patient, 5000),
            ?assertEqual([undefined, <<"Bearer t">>], calls_seen()),
            {ok, Hasty, _} = mcp_client:start(#{url => Url, oauth => cc_config(none)}, #{}),
            ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Hasty, <<"t">>, {object, []}, 500)),
            timer:sleep(2500),
            ?assertEqual([undefined], calls_seen()),
            _ = mcp_client:shutdown(Hasty, 5000)
        after
            mcp_http_stub:stop(Stub), flush()
        end
    end}.

%% A client that gives up while its authorization flow is under way takes
%% the flow with it: no token request (with the client secret) reaches
%% the authorization server afterwards.
a_client_gone_mid_flow_sends_no_secret_afterwards_test_() ->
    {timeout, 60, fun() ->
        Stub = slow_authorization(2000),
        Url = list_to_binary(mcp_http_stub:url(Stub)),
        Spec = #{url => Url, oauth => cc_config(none)},
        try
            {ok, Client, _} = mcp_client:start(Spec, #{}),
            ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 300)),
            _ = mcp_client:shutdown(Client, 5000),
            timer:sleep(3000),
            ?assertEqual([], seen('POST', <<"/token">>))
        after
            mcp_http_stub:stop(Stub), flush()
        end
    end}.

%% The session's DELETE carries the token like every other request.
the_session_delete_carries_the_token_test_() ->
    {timeout, 30, fun() ->
        Stub = slow_authorization(0),
        try
            {ok, Client, _} = mcp_client:start(#{url => list_to_binary(mcp_http_stub:url(Stub)), oauth => cc_config(none)}, #{}),
            ?assertMatch({ok, _}, mcp_client:call_tool(Client, <<"t">>, {object, []}, 5000)),
            _ = mcp_client:shutdown(Client, 5000),
            ?assertEqual([<<"Bearer t">>], seen('DELETE', <<"/mcp">>))
        after
            mcp_http_stub:stop(Stub), flush()
        end
    end}.

%% An idle connection to the redirect listener gets `?REQUEST_MS' (2 s),
%% not the whole consent wait: the real redirect behind it is taken well
%% before a 10 s deadline (an idle connection once held it to the end).
an_idle_connection_does_not_hold_the_redirect_listener_test_() ->
    {timeout, 30, fun() ->
        {ok, Listener} = mcp_oauth_loopback:listen(),
        {ok, Port} = inet:port(Listener),
        {ok, Idle} = gen_tcp:connect({127, 0, 0, 1}, Port, [binary, {active, false}]),
        Self = self(),
        _ = spawn(fun() -> timer:sleep(200), Self ! {real, get_callback(Port, "code=c&state=ours")} end),
        Started = erlang:monotonic_time(millisecond),
        Got = mcp_oauth_loopback:await(Listener, 10000, fun(P) -> proplists:get_value(<<"state">>, P) =:= <<"ours">> end),
        Waited = erlang:monotonic_time(millisecond) - Started,
        mcp_oauth_loopback:close(Listener),
        ok = gen_tcp:close(Idle),
        ?assertEqual({ok, [{<<"code">>, <<"c">>}, {<<"state">>, <<"ours">>}]}, Got),
        ?assert(Waited < 8000)
    end}.

%% A server named by a host name whose records include this machine (a
%% public A and a loopback AAAA, as a hostile DNS answers) cannot point
%% the flow here: only a URL that names the loopback itself widens what
%% the flow may reach. The names are this VM's own host table (no DNS).
a_name_that_also_resolves_here_widens_nothing_test() ->
    ok = inet_db:add_host({198, 51, 100, 7}, ["mcp.twofaced.test"]),
    ok = inet_db:add_host({0, 0, 0, 0, 0, 0, 0, 1}, ["mcp.twofaced.test"]),
    Stub = mcp_http_stub:start(fun(_) -> {reply, 200, [{"content-type", "application/json"}], <<"{}">>} end),
    Local = mcp_http_stub:url(Stub),
    try
        {ok, Near} = mcp_oauth_http:start(<<"http://localhost:1/mcp">>),
        ?assertEqual({ok, {200, []}}, mcp_oauth_http:get_json(Near, Local)),
        mcp_oauth_http:stop(Near),
        {ok, Twofaced} = mcp_oauth_http:start(<<"https://mcp.twofaced.test/mcp">>),
        ?assertMatch({error, {local_endpoint, _}}, mcp_oauth_http:get_json(Twofaced, Local)),
        mcp_oauth_http:stop(Twofaced)
    after
        mcp_http_stub:stop(Stub),
        inet_db:del_host({198, 51, 100, 7}),
        inet_db:del_host({0, 0, 0, 0, 0, 0, 0, 1}),
        flush()
    end.

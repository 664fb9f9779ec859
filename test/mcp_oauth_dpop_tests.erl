%% DPoP (RFC 9449, docs/authorization.md): the proof (its header and
%% claims, `ath', `htu' without query and fragment, a fresh `jti' each
%% time, a signature the public key verifies), the nonce rules (one retry
%% at the token endpoint and at the MCP server, not two; a nonce that
%% could not go into a proof is not used), the refusal of a token of the
%% binding not asked for (each with its twin showing the same answer
%% taken where nothing refuses it), and the key kept out of the session's
%% printed state. Against `mcp_oauth_fake' on the loopback.
-module(mcp_oauth_dpop_tests).

-include_lib("eunit/include/eunit.hrl").

-define(SECRET, <<"client-secret-dpop">>).

%%% ------------------------------------------------------------- helpers

%% `{Header, Claims}' of a proof whose signature verifies with the key
%% its header carries.
verified(Proof) ->
    [H, C, S] = binary:split(Proof, <<".">>, [global]),
    Header = decode_part(H),
    Claims = decode_part(C),
    #{<<"jwk">> := #{<<"x">> := X, <<"y">> := Y}} = Header,
    <<R:256, Sig:256>> = unb64(S),
    Der = public_key:der_encode('ECDSA-Sig-Value', {'ECDSA-Sig-Value', R, Sig}),
    ?assert(crypto:verify(ecdsa, sha256, <<H/binary, ".", C/binary>>, Der,
                          [<<4, (unb64(X))/binary, (unb64(Y))/binary>>, secp256r1])),
    {Header, Claims}.

decode_part(Part) ->
    {ok, Json} = mcp_json:decode(unb64(Part)),
    plain(Json).

plain({object, Members}) -> maps:from_list([{K, plain(V)} || {K, V} <- Members]);
plain({string, S}) -> S;
plain({int, I}) -> I;
plain(Other) -> Other.

unb64(Text) ->
    Plain = << <<(case C of $- -> $+; $_ -> $/; _ -> C end)>> || <<C>> <= Text >>,
    base64:decode(<<Plain/binary, (binary:copy(<<"=">>, (4 - byte_size(Plain) rem 4) rem 4))/binary>>).

header(Name, #{headers := Headers}) -> proplists:get_value(Name, Headers).


dpop_config(Store) ->
    #{grant => client_credentials, client_id => <<"client">>, client_secret => ?SECRET, store => Store, dpop => true}.

%% A token endpoint answering a DPoP-bound token.
dpop_token(Access) ->
    {200, {object, [{<<"access_token">>, {string, Access}}, {<<"token_type">>, {string, <<"DPoP">>}},
                    {<<"expires_in">>, {int, 3600}}]}}.

%% `/mcp' of a server that takes `Access' as a DPoP token with a proof
%% (any proof: what it carries is asserted afterwards), and asks for
%% `Nonce' (unless `none') before it answers.
dpop_server(Access, Nonce) ->
    fun(#{body := Body} = Request) ->
            Presented = header(<<"authorization">>, Request),
            Proof = header(<<"dpop">>, Request),
            Sent = case Proof of
                       undefined -> undefined;
                       _ -> maps:get(<<"nonce">>, element(2, verified(Proof)), undefined)
                   end,
            if
                Presented =/= <<"DPoP ", Access/binary>> -> default;
                Nonce =/= none, Sent =/= Nonce ->
                    {reply, 401, [{"www-authenticate", "DPoP error=\"use_dpop_nonce\""}, {"dpop-nonce", Nonce}], <<>>};
                true -> mcp_oauth_fake:answer(Body)
            end
    end.

mcp_requests(Requests) ->
    [R || #{path := <<"/mcp">>} = R <- Requests].

token_requests(Requests) ->
    [R || #{method := 'POST', path := <<"/token">>} = R <- Requests].

%%% --------------------------------------------------------------- proof

the_proof_has_the_header_and_claims_of_rfc_9449_test() ->
    Key = mcp_oauth_dpop:new_key(),
    Before = erlang:system_time(second),
    {Header, Claims} = verified(mcp_oauth_dpop:proof(Key, post, <<"https://as.example/token">>, none, none)),
    ?assertMatch(#{<<"typ">> := <<"dpop+jwt">>, <<"alg">> := <<"ES256">>,
                   <<"jwk">> := #{<<"kty">> := <<"EC">>, <<"crv">> := <<"P-256">>}}, Header),
    ?assertNot(is_map_key(<<"d">>, maps:get(<<"jwk">>, Header))),
    ?assertMatch(#{<<"htm">> := <<"POST">>, <<"htu">> := <<"https://as.example/token">>}, Claims),
    ?assert(maps:get(<<"iat">>, Claims) >= Before andalso maps:get(<<"iat">>, Claims) =< erlang:system_time(second)),
    ?assertEqual(22, byte_size(maps:get(<<"jti">>, Claims))),
    %% No token, no nonce: neither claim.
    ?assertEqual([], [K || K <- [<<"ath">>, <<"nonce">>], is_map_key(K, Claims)]),
    {_, WithBoth} = verified(mcp_oauth_dpop:proof(Key, delete, "http://127.0.0.1:1/mcp", <<"n-1">>, <<"tok">>)),
    ?assertMatch(#{<<"htm">> := <<"DELETE">>, <<"nonce">> := <<"n-1">>}, WithBoth),
    ?assertEqual(mcp_oauth_dpop:ath(<<"tok">>), maps:get(<<"ath">>, WithBoth)).

%% RFC 9449 §7.1's example: the access token and its `ath'.
ath_is_the_rfc_9449_example_test() ->
    ?assertEqual(<<"fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo">>,
                 mcp_oauth_dpop:ath(<<"Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU">>)).

htu_leaves_out_query_and_fragment_test_() ->
    [?_assertEqual(<<"https://mcp.example/mcp">>, mcp_oauth_dpop:htu(<<"https://mcp.example/mcp?session=1">>)),
     ?_assertEqual(<<"https://mcp.example/mcp">>, mcp_oauth_dpop:htu(<<"https://mcp.example/mcp#frag">>)),
     ?_assertEqual(<<"https://mcp.example/mcp">>, mcp_oauth_dpop:htu("https://mcp.example/mcp?a=b#c")),
     ?_assertEqual(<<"http://127.0.0.1:8080/a/b">>, mcp_oauth_dpop:htu(<<"http://127.0.0.1:8080/a/b">>))].

every_proof_has_its_own_jti_test() ->
    Key = mcp_oauth_dpop:new_key(),
    Jtis = [maps:get(<<"jti">>, element(2, verified(mcp_oauth_dpop:proof(Key, post, <<"https://x/mcp">>, none, <<"t">>))))
            || _ <- lists:seq(1, 200)],
    ?assertEqual(200, length(lists:usort(Jtis))).

a_stored_key_signs_as_the_original_test() ->
    Key = mcp_oauth_dpop:new_key(),
    {ok, Loaded} = mcp_oauth_dpop:import(mcp_oauth_dpop:export(Key)),
    ?assertEqual(mcp_oauth_dpop:public_jwk(Key), mcp_oauth_dpop:public_jwk(Loaded)),
    ?assertEqual(error, mcp_oauth_dpop:import(<<"not a key">>)),
    ?assertEqual(error, mcp_oauth_dpop:import(42)).

%% A nonce goes into a proof only when it is NQCHAR (RFC 9449 §8.1), of
%% at most `max_nonce_bytes()': at the limit and one byte more.
the_nonce_cap_and_characters_test_() ->
    Max = mcp_oauth_dpop:max_nonce_bytes(),
    AtLimit = binary:copy(<<"n">>, Max),
    [?_assertEqual({ok, AtLimit}, mcp_oauth_dpop:nonce(binary_to_list(AtLimit))),
     ?_assertEqual(none, mcp_oauth_dpop:nonce(binary:copy(<<"n">>, Max + 1))),
     ?_assertEqual(none, mcp_oauth_dpop:nonce("")),
     ?_assertEqual(none, mcp_oauth_dpop:nonce(none))]
        ++ [?_assertEqual(none, mcp_oauth_dpop:nonce(<<"ab", C, "cd">>)) || C <- [$\r, $\n, 0, $\s, $", $\\, 16#7F, 16#C3]].

%% The authorization servers' nonces are kept per origin, at most
%% `max_origins()' of them: a new origin past the limit empties the table.
as_nonces_are_kept_per_origin_test() ->
    Nonces = mcp_oauth_dpop:new_nonces(),
    ok = mcp_oauth_dpop:remember(Nonces, <<"https://a.example/token">>, <<"na">>),
    ?assertEqual(<<"na">>, mcp_oauth_dpop:nonce_for(Nonces, <<"https://a.example/other">>)),
    ?assertEqual(none, mcp_oauth_dpop:nonce_for(Nonces, <<"https://b.example/token">>)),
    Max = mcp_oauth_dpop:max_origins(),
    [ok = mcp_oauth_dpop:remember(Nonces, <<"https://h", (integer_to_binary(N))/binary, ".example/t">>, <<"x">>)
     || N <- lists:seq(2, Max)],
    ?assertEqual(<<"na">>, mcp_oauth_dpop:nonce_for(Nonces, <<"https://a.example/token">>)),
    ok = mcp_oauth_dpop:remember(Nonces, <<"https://one-more.example/t">>, <<"y">>),
    ?assertEqual(none, mcp_oauth_dpop:nonce_for(Nonces, <<"https://a.example/token">>)),
    ?assertEqual(<<"y">>, mcp_oauth_dpop:nonce_for(Nonces, <<"https://one-more.example/t">>)).

%%% ------------------------------------------------- through the transport

%% The token request carries a proof for the token endpoint; every MCP
%% request `Authorization: DPoP' with a proof
%% for its method and URL whose `ath' is the token's, of the same key.
token_and_mcp_requests_carry_proofs_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> dpop_token(<<"bound">>) end, mcp => dpop_server(<<"bound">>, none)}),
    Base = mcp_oauth_fake:base(Fake),
    Url = mcp_oauth_fake:url(Fake),
    {ok, Client, _} = mcp_client:start(#{url => Url, oauth => dpop_config(none)}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    _ = mcp_client:shutdown(Client, 5000),
    Requests = mcp_oauth_fake:requests(Fake),
    [Grant] = token_requests(Requests),
    {TokenHeader, TokenClaims} = verified(header(<<"dpop">>, Grant)),
    ?assertMatch(#{<<"htm">> := <<"POST">>}, TokenClaims),
    ?assertEqual(<<Base/binary, "/token">>, maps:get(<<"htu">>, TokenClaims)),
    Authorized = [R || R <- mcp_requests(Requests), header(<<"authorization">>, R) =/= undefined],
    ?assert(length(Authorized) >= 3),
    Proofs = [{R, verified(header(<<"dpop">>, R))} || R <- Authorized],
    [begin
         ?assertEqual(<<"DPoP bound">>, header(<<"authorization">>, R)),
         ?assertEqual(atom_to_binary(Method), maps:get(<<"htm">>, Claims)),
         ?assertEqual(Url, maps:get(<<"htu">>, Claims)),
         ?assertEqual(mcp_oauth_dpop:ath(<<"bound">>), maps:get(<<"ath">>, Claims)),
         ?assertEqual(maps:get(<<"jwk">>, TokenHeader), maps:get(<<"jwk">>, Header))
     end || {#{method := Method} = R, {Header, Claims}} <- Proofs],
    mcp_oauth_fake:stop(Fake).

%% The resource server's `use_dpop_nonce': the request goes again once,
%% with the nonce, and the session is asked nothing (one grant).
the_resource_servers_nonce_is_used_after_one_retry_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> dpop_token(<<"bound">>) end,
                                  mcp => dpop_server(<<"bound">>, <<"rs-nonce-1">>)}),
    {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => dpop_config(none)}, #{}),
    ?assertMatch({ok, []}, mcp_client:list_tools(Client, 5000)),
    _ = mcp_client:shutdown(Client, 5000),
    Requests = mcp_oauth_fake:requests(Fake),
    ?assertEqual(1, length(token_requests(Requests))),
    Nonces = [maps:get(<<"nonce">>, element(2, verified(header(<<"dpop">>, R))), none)
              || R <- mcp_requests(Requests), header(<<"dpop">>, R) =/= undefined],
    %% The first proof has none; every one after the challenge has it.
    ?assertMatch([none, <<"rs-nonce-1">> | _], Nonces),
    ?assertEqual([<<"rs-nonce-1">>], lists:usort(tl(Nonces))),
    mcp_oauth_fake:stop(Fake).

%% A server that answers `use_dpop_nonce' to the request that carries its
%% nonce gets it once more, not twice: the connection ends.
a_nonce_is_retried_once_not_twice_test() ->
    Counter = counters:new(1, []),
    Always = fun(#{headers := _} = Request) ->
                     case header(<<"authorization">>, Request) of
                         undefined -> default;
                         _ ->
                             counters:add(Counter, 1, 1),
                             Nonce = integer_to_list(counters:get(Counter, 1)),
                             {reply, 401, [{"www-authenticate", "DPoP error=\"use_dpop_nonce\""}, {"dpop-nonce", Nonce}], <<>>}
                     end
             end,
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> dpop_token(<<"bound">>) end, mcp => Always}),
    Result = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => dpop_config(none)}, #{}),
    ?assertMatch({error, _}, Result),
    ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [Result]), "dpop_nonce_refused")),
    %% The request with a token, and its one retry.
    ?assertEqual(2, counters:get(Counter, 1)),
    mcp_oauth_fake:stop(Fake).

%% A nonce that could not go into a proof ends the connection (no retry).
an_unusable_nonce_is_not_used_test() ->
    Bad = fun(Request) ->
                  case header(<<"authorization">>, Request) of
                      undefined -> default;
                      _ -> {reply, 401, [{"www-authenticate", "DPoP error=\"use_dpop_nonce\""}, {"dpop-nonce", "a\"b"}], <<>>}
                  end
          end,
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> dpop_token(<<"bound">>) end, mcp => Bad}),
    Result = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => dpop_config(none)}, #{}),
    ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [Result]), "dpop_nonce_unusable")),
    ?assertEqual(1, length([R || R <- mcp_requests(mcp_oauth_fake:requests(Fake)), header(<<"authorization">>, R) =/= undefined])),
    mcp_oauth_fake:stop(Fake).

%% The token endpoint's 400 `use_dpop_nonce': one retry with the nonce
%% (which works), and against an endpoint that always says so, one retry
%% and then its refusal.
the_token_endpoints_nonce_is_retried_once_test_() ->
    {timeout, 30, fun() ->
        AsNonce = fun(Request) ->
                          case maps:get(<<"nonce">>, element(2, verified(header(<<"dpop">>, Request))), none) of
                              <<"as-nonce">> -> dpop_token(<<"bound">>);
                              _ -> {400, {object, [{<<"error">>, {string, <<"use_dpop_nonce">>}}]}, [{"dpop-nonce", "as-nonce"}]}
                          end
                  end,
        Fake = mcp_oauth_fake:start(#{token => AsNonce, mcp => dpop_server(<<"bound">>, none)}),
        {ok, Client, _} = mcp_client:start(#{url => mcp_oauth_fake:url(Fake), oauth => dpop_config(none)}, #{}),
        _ = mcp_client:shutdown(Client, 5000),
        ?assertEqual(2, length(token_requests(mcp_oauth_fake:requests(Fake)))),
        mcp_oauth_fake:stop(Fake),
        Never = fun(_) -> {400, {object, [{<<"error">>, {string, <<"use_dpop_nonce">>}}]}, [{"dpop-nonce", "again"}]} end,
        Refusing = mcp_oauth_fake:start(#{token => Never, mcp => dpop_server(<<"bound">>, none)}),
        Result = mcp_client:start(#{url => mcp_oauth_fake:url(Refusing), oauth => dpop_config(none)}, #{}),
        ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [Result]), "{token_refused,400,<<\"use_dpop_nonce\">>}")),
        ?assertEqual(2, length(token_requests(mcp_oauth_fake:requests(Refusing)))),
        mcp_oauth_fake:stop(Refusing)
    end}.

%% An authorization server that answers a DPoP token request with a
%% Bearer token: the client that asked for DPoP refuses it (no downgrade);
%% the same answer is taken, and sent, by a client without DPoP.
a_bearer_token_is_refused_when_dpop_was_asked_test() ->
    Fake = mcp_oauth_fake:start(#{accepted => <<"plain">>, token => fun(_) -> mcp_oauth_fake:token_answer(<<"plain">>, []) end}),
    Url = mcp_oauth_fake:url(Fake),
    {ok, Plain, _} = mcp_client:start(#{url => Url, oauth => (dpop_config(none))#{dpop => false}}, #{}),
    _ = mcp_client:shutdown(Plain, 5000),
    ?assert(lists:member(<<"Bearer plain">>, [header(<<"authorization">>, R) || R <- mcp_requests(mcp_oauth_fake:requests(Fake))])),
    Result = mcp_client:start(#{url => Url, oauth => dpop_config(none)}, #{}),
    ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [Result]), "{token_type_unsupported,<<\"Bearer\">>}")),
    ?assertEqual([undefined], lists:usort([header(<<"authorization">>, R) || R <- mcp_requests(mcp_oauth_fake:requests(Fake))])),
    mcp_oauth_fake:stop(Fake).

%% A DPoP-bound token for a client that did not ask for one is refused,
%% never sent as Bearer; the same answer serves the client that asked.
a_dpop_token_is_refused_when_dpop_was_not_asked_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> dpop_token(<<"bound">>) end, mcp => dpop_server(<<"bound">>, none)}),
    Url = mcp_oauth_fake:url(Fake),
    {ok, Bound, _} = mcp_client:start(#{url => Url, oauth => dpop_config(none)}, #{}),
    _ = mcp_client:shutdown(Bound, 5000),
    _ = mcp_oauth_fake:requests(Fake),
    Result = mcp_client:start(#{url => Url, oauth => (dpop_config(none))#{dpop => false}}, #{}),
    ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [Result]), "{token_type_unsupported,<<\"DPoP\">>}")),
    ?assertEqual([undefined], lists:usort([header(<<"authorization">>, R) || R <- mcp_requests(mcp_oauth_fake:requests(Fake))])),
    mcp_oauth_fake:stop(Fake).

%% A stored Bearer token is not sent by a client configured for DPoP (it
%% would go unbound); the stored DPoP token is, with the stored key.
a_stored_token_goes_only_with_its_binding_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> dpop_token(<<"bound">>) end, mcp => dpop_server(<<"bound">>, none)}),
    Base = mcp_oauth_fake:base(Fake),
    Key = mcp_oauth_dpop:new_key(),
    Stored = #{<<"issuer">> => Base, <<"token_endpoint">> => <<Base/binary, "/token">>,
               <<"client_id">> => <<"client">>, <<"auth_method">> => <<"client_secret_basic">>,
               <<"access_token">> => <<"bound">>, <<"expires_at">> => erlang:system_time(second) + 3600},
    Store = fun(Record) -> {callback, fun(_) -> {ok, Record} end, fun(_, _) -> ok end} end,
    Url = mcp_oauth_fake:url(Fake),
    %% Stored as Bearer: not sent; a new token is granted.
    {ok, C1, _} = mcp_client:start(#{url => Url, oauth => dpop_config(Store(Stored))}, #{}),
    _ = mcp_client:shutdown(C1, 5000),
    R1 = mcp_oauth_fake:requests(Fake),
    ?assertEqual(1, length(token_requests(R1))),
    ?assertEqual(undefined, header(<<"authorization">>, hd(mcp_requests(R1)))),
    %% Stored as DPoP with its key: sent from the first request, proved by that key.
    {ok, C2, _} = mcp_client:start(#{url => Url, oauth => dpop_config(Store(Stored#{<<"token_type">> => <<"DPoP">>,
                                                                                  <<"dpop_key">> => mcp_oauth_dpop:export(Key)}))}, #{}),
    _ = mcp_client:shutdown(C2, 5000),
    R2 = mcp_oauth_fake:requests(Fake),
    ?assertEqual([], token_requests(R2)),
    First = hd(mcp_requests(R2)),
    ?assertEqual(<<"DPoP bound">>, header(<<"authorization">>, First)),
    ?assertEqual(plain(mcp_oauth_dpop:public_jwk(Key)), maps:get(<<"jwk">>, element(1, verified(header(<<"dpop">>, First))))),
    mcp_oauth_fake:stop(Fake).

%% The private key is in the session only inside a closure: its printed
%% state does not show it, where a record holding it as a value would.
the_session_state_shows_no_dpop_key_test() ->
    Fake = mcp_oauth_fake:start(#{token => fun(_) -> dpop_token(<<"bound">>) end}),
    {ok, Session} = mcp_oauth_session:start_link(mcp_oauth_fake:url(Fake), dpop_config(none)),
    Exported = mcp_oauth_dpop:export(mcp_oauth_session:dpop_key(Session)),
    Shown = fun(Term) -> iolist_to_binary(io_lib:format("~p ~w", [Term, Term])) end,
    ?assertNotEqual(nomatch, binary:match(Shown(#{<<"dpop_key">> => Exported}), Exported)),
    ?assertEqual(nomatch, binary:match(Shown(sys:get_state(Session)), Exported)),
    ok = mcp_oauth_session:stop(Session),
    mcp_oauth_fake:stop(Fake).

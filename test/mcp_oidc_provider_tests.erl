%% Authorization (docs/authorization.md) against a real authorization
%% server: panva's certified OpenID provider `oidc-provider' (npm, pinned in
%% test/oidc/package.json, run with the Node 22 of test/conformance;
%% test/oidc/provider.mjs), issuing RFC 9068 JWT access tokens whose
%% audience is the resource indicator asked for, in front of an MCP server
%% of the Python SDK 2.x (test/oidc/mcp_server.py, `.venv-sdk2') that
%% verifies them: signature by the provider's JWKS, issuer, audience (its
%% own URL), expiry, scope. All of it on 127.0.0.1 at ports the kernel
%% picks; both servers are proven gone at the end (a port's exit status and
%% `kill -0').
%%
%% Through `mcp_client' with `oauth', and through bin/mcp-gen: client
%% credentials with a secret and with `private_key_jwt'; dynamic client
%% registration and the authorization code grant with PKCE, consented by
%% test/oidc/browser (a scripted person at the provider's login and consent
%% forms); a short-lived token renewed by its refresh token, and a
%% short-lived client credentials token renewed by new grants, over calls
%% that last longer than two lifetimes. What the provider did is read from
%% its event log (one JSON line per registration, authorization and grant:
%% never a token). The server's verifier is shown to refuse: a token for
%% another audience, a signature that is not the provider's, an expired
%% token, each beside a token it accepts.
%%
%% DPoP (RFC 9449): the provider requires its nonce on every token request
%% with a proof, and the server (MCP_DPOP=nonce) takes DPoP-bound tokens
%% only, with a proof it checks and its own nonce: `mcp_client' and
%% mcp-gen with DPoP are served; the same client without DPoP is refused;
%% the bound token replayed without its key (as Bearer, or with another
%% key's proof) is refused, and taken with a proof of its key.
-module(mcp_oidc_provider_tests).

-include_lib("eunit/include/eunit.hrl").

-define(TIMEOUT, 15000).
%% The access token lifetime of the renewal scenarios, in seconds.
-define(SHORT_TTL, 5).
-define(SECRET, <<"svc-secret-7d41c0e9b2a85f36">>).
-define(SECRET_ENV, "MCP_OIDC_TEST_SECRET").
-define(SCOPE, <<"mcp:tools">>).
%% The client name whose registrations the provider gives no refresh token.
-define(NO_REFRESH, <<"no-refresh">>).

%%% ------------------------------------------------------------ fixtures

node_executable() -> mcp_e2e_tests:installed("test/conformance/node_modules/.bin/node").

provider_script() ->
    _ = mcp_e2e_tests:installed("test/oidc/node_modules/oidc-provider/package.json"),
    mcp_e2e_tests:installed("test/oidc/provider.mjs").

python() -> mcp_e2e_tests:installed(".venv-sdk2/bin/python").

server_script() -> mcp_e2e_tests:installed("test/oidc/mcp_server.py").

browser() -> mcp_e2e_tests:installed("test/oidc/browser").

%% The provider with its pre-registered clients and the MCP server it
%% protects. `svc-secret' authenticates with a secret
%% (client_secret_basic), `svc-key' with a signed assertion
%% (private_key_jwt, an ES256 key made here), `svc-probe' (a secret) is
%% the test's own, for tokens it presents to the server by hand.
started(Ttl) ->
    started(Ttl, false).

%% `Dpop': the provider requires its DPoP nonce and the server takes
%% DPoP-bound tokens only, with its own nonce.
started(Ttl, Dpop) ->
    Dir = temp_dir(),
    Pem = private_key_pem(),
    Events = filename:join(Dir, "events.jsonl"),
    Config = {object, [{<<"clients">>, {array, [secret_client(<<"svc-secret">>), secret_client(<<"svc-probe">>),
                                                key_client(<<"svc-key">>, Pem)]}},
                       {<<"access_token_ttl">>, {int, Ttl}},
                       {<<"dpop_nonce">>, {bool, Dpop}},
                       {<<"no_refresh_tokens">>, {array, [{string, ?NO_REFRESH}]}},
                       {<<"event_log">>, {string, list_to_binary(Events)}}]},
    Provider = mcp_http_peer:start_announced(node_executable(), [provider_script()],
                                             [{"OIDC_PROVIDER_CONFIG", binary_to_list(mcp_json:encode(Config))}]),
    Issuer = mcp_http_peer:url(Provider),
    Server = try mcp_http_peer:start_announced(python(), [server_script()],
                                               [{"OIDC_ISSUER", Issuer} | [{"MCP_DPOP", "nonce"} || Dpop]])
             catch Class:Reason:Stack -> mcp_http_peer:stop(Provider), erlang:raise(Class, Reason, Stack)
             end,
    #{provider => Provider, server => Server, issuer => list_to_binary(Issuer),
      url => list_to_binary(mcp_http_peer:url(Server)), dir => Dir, events => Events, key => Pem}.

stopped(#{provider := Provider, server := Server, dir := Dir}) ->
    mcp_http_peer:stop(Server),
    mcp_http_peer:stop(Provider),
    ?assertNot(mcp_e2e_tests:os_alive(mcp_http_peer:os_pid(Server))),
    ?assertNot(mcp_e2e_tests:os_alive(mcp_http_peer:os_pid(Provider))),
    ok = file:del_dir_r(Dir).

secret_client(Id) ->
    {object, [{<<"client_id">>, {string, Id}}, {<<"client_secret">>, {string, ?SECRET}},
              {<<"grant_types">>, {array, [{string, <<"client_credentials">>}]}},
              {<<"redirect_uris">>, {array, []}}, {<<"response_types">>, {array, []}},
              {<<"token_endpoint_auth_method">>, {string, <<"client_secret_basic">>}}]}.

key_client(Id, Pem) ->
    {object, [{<<"client_id">>, {string, Id}},
              {<<"grant_types">>, {array, [{string, <<"client_credentials">>}]}},
              {<<"redirect_uris">>, {array, []}}, {<<"response_types">>, {array, []}},
              {<<"token_endpoint_auth_method">>, {string, <<"private_key_jwt">>}},
              {<<"jwks">>, {object, [{<<"keys">>, {array, [public_jwk(Pem)]}}]}}]}.

private_key_pem() ->
    Key = public_key:generate_key({namedCurve, secp256r1}),
    public_key:pem_encode([public_key:pem_entry_encode('ECPrivateKey', Key)]).

public_jwk(Pem) ->
    {_, Public} = jose_jwk:to_public_map(jose_jwk:from_pem(Pem)),
    {object, [{K, {string, V}} || {K, V} <- lists:sort(maps:to_list(Public))]}.

temp_dir() ->
    Dir = filename:join("/tmp", "mcp_oidc." ++ os:getpid() ++ "." ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    ok = file:change_mode(Dir, 8#700),
    Dir.

%%% ------------------------------------------------------------- helpers

connect(#{url := Url}, OAuth) ->
    mcp_client:start(#{url => Url, oauth => OAuth}, #{}).

shutdown(Client) ->
    _ = mcp_client:shutdown(Client, ?TIMEOUT),
    ok.

%% The `whoami' tool: the client id and audience of the token the call
%% came with, as the server's verifier read them.
whoami(Client) ->
    {ok, {call_tool_result, [{text, Text}], false, _}} =
        mcp_client:call_tool(Client, <<"whoami">>, {object, []}, ?TIMEOUT),
    Text.

add(Client, A, B) ->
    mcp_client:call_tool(Client, <<"add">>, {object, [{<<"a">>, {int, A}}, {<<"b">>, {int, B}}]}, ?TIMEOUT).

-define(SUM_42, {ok, {call_tool_result, [{text, <<"42">>}], false, _}}).

%% The provider's event log: a map per line (registration, authorization,
%% grant, grant_error), strings and nulls.
events(#{events := File}) ->
    case file:read_file(File) of
        {ok, Bytes} ->
            [begin
                 {ok, {object, Members}} = mcp_json:decode(Line),
                 maps:from_list([{K, case V of {string, S} -> S; null -> null end} || {K, V} <- Members])
             end || Line <- binary:split(Bytes, <<"\n">>, [global, trim_all])];
        {error, enoent} ->
            []
    end.

%% The events after the first `Seen'.
events_since(Fixture, Seen) ->
    lists:nthtail(Seen, events(Fixture)).

%% `{Event, GrantType}' per event of `ClientId', in order.
steps(Events, ClientId) ->
    [{E, maps:get(<<"grant_type">>, Event, none)} || #{<<"event">> := E, <<"client_id">> := Id} = Event <- Events,
                                                     Id =:= ClientId].

count(Step, Steps) -> length([S || S <- Steps, S =:= Step]).

%% bin/mcp-gen `Args' (which name `Dir', a directory of this run's). A
%% run that fails to end (a login whose consent never comes waits five
%% minutes) is sent SIGTERM, found by `Dir' on its command line, so no
%% mcp-gen outlives the test.
mcp_gen(Args, Env, Dir) ->
    true = lists:member(Dir, Args) orelse lists:member(filename:join(Dir, "tokens"), Args),
    try mcp_cli_tests:mcp_gen(Args, Env)
    catch Class:Reason:Stack ->
            Left = [Pid || Line <- string:split(os:cmd("ps -eo pid=,args="), "\n", all),
                           string:find(Line, Dir) =/= nomatch,
                           [Pid | _] <- [string:lexemes(Line, " ")]],
            _ = [os:cmd("kill -s TERM " ++ Pid) || Pid <- Left],
            erlang:raise(Class, Reason, Stack)
    end.

%% A store that hands each saved record to the test (the records hold
%% the tokens: what a harness's own store would see).
reporting_store() ->
    Self = self(),
    Tag = make_ref(),
    {Tag, {callback, fun(_Url) -> none end, fun(_Url, Record) -> Self ! {saved, Tag, Record}, ok end}}.

saved(Tag) ->
    receive {saved, Tag, Record} -> [Record | saved(Tag)] after 0 -> [] end.

%% The test's own token request (client credentials, `svc-probe').
token_for(#{issuer := Issuer}, Resource) ->
    Body = uri_string:compose_query([{"grant_type", "client_credentials"}, {"scope", ?SCOPE},
                                     {"resource", Resource}]),
    Basic = base64:encode_to_string(<<"svc-probe:", ?SECRET/binary>>),
    {ok, {{_, 200, _}, _, Answer}} =
        httpc:request(post, {binary_to_list(Issuer) ++ "/token", [{"authorization", "Basic " ++ Basic}],
                             "application/x-www-form-urlencoded", Body}, [], [{body_format, binary}]),
    {ok, {object, Members}} = mcp_json:decode(Answer),
    {_, {string, Token}} = lists:keyfind(<<"access_token">>, 1, Members),
    Token.

%% The MCP server's answer to an `initialize' carrying `Token': its status
%% and challenge.
presented(#{url := Url}, Token) ->
    {ok, {{_, Status, _}, Headers, _}} =
        httpc:request(post, {binary_to_list(Url), [{"authorization", "Bearer " ++ binary_to_list(Token)},
                                                   {"accept", "application/json, text/event-stream"}],
                             "application/json", initialize_request()}, [], [{body_format, binary}]),
    {Status, proplists:get_value("www-authenticate", Headers, none)}.

initialize_request() ->
    <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
      "\"capabilities\":{},\"clientInfo\":{\"name\":\"probe\",\"version\":\"1\"}}}">>.

%% Calls `add' every 250 ms until `Ms' have passed; every result.
calls_for(Client, Ms) ->
    calls_until(Client, erlang:monotonic_time(millisecond) + Ms, []).

calls_until(Client, Deadline, Results) ->
    Result = add(Client, 2, 40),
    case erlang:monotonic_time(millisecond) >= Deadline of
        true -> lists:reverse([Result | Results]);
        false -> timer:sleep(250), calls_until(Client, Deadline, [Result | Results])
    end.

%%% ---------------------------------------------- long-lived tokens

long_lived_test_() ->
    {timeout, 300,
     {setup, fun() -> {ok, _} = application:ensure_all_started(inets), started(600) end, fun stopped/1,
      fun(Fixture) ->
              [{"client credentials with a client secret", timed(fun() -> client_secret(Fixture) end)},
               {"mcp-gen: client credentials with a client secret", timed(fun() -> cli_client_secret(Fixture) end)},
               {"client credentials with private_key_jwt; an unknown key refused",
                timed(fun() -> private_key_jwt(Fixture) end)},
               {"mcp-gen: client credentials with private_key_jwt", timed(fun() -> cli_private_key_jwt(Fixture) end)},
               {"dynamic registration, authorization code with PKCE, scripted consent",
                timed(fun() -> authorization_code(Fixture) end)},
               %% Longer than mcp_cli_tests' guard on a run that does not end.
               {"mcp-gen login, then a run on the stored token", {timeout, 200, fun() -> cli_login(Fixture) end}},
               {"the server refuses a token for another audience", timed(fun() -> another_audience(Fixture) end)},
               {"the server refuses a signature not the provider's", timed(fun() -> forged_signature(Fixture) end)}]
      end}}.

timed(Fun) -> {timeout, 120, Fun}.

%% The provider grants `svc-secret' a token for the server's URL; the
%% server's verifier reads that client and audience from it.
client_secret(#{url := Url} = Fixture) ->
    Seen = length(events(Fixture)),
    {ok, Client, _} = connect(Fixture, #{grant => client_credentials, client_id => <<"svc-secret">>,
                                         client_secret => ?SECRET, store => none}),
    try
        ?assertEqual(<<"svc-secret ", Url/binary>>, whoami(Client)),
        ?assertMatch(?SUM_42, add(Client, 2, 40)),
        Events = events_since(Fixture, Seen),
        ?assertEqual([{<<"grant">>, <<"client_credentials">>}], steps(Events, <<"svc-secret">>)),
        ?assertEqual([Url], [R || #{<<"event">> := <<"grant">>, <<"resource">> := R} <- Events])
    after
        shutdown(Client)
    end.

cli_client_secret(#{url := Url} = Fixture) ->
    Dir = temp_dir(),
    Seen = length(events(Fixture)),
    try
        {Status, Stdout, Stderr} =
            mcp_gen(["call", "whoami", "--url", binary_to_list(Url), "--client-credentials",
                                   "--client-id", "svc-secret", "--client-secret-env", ?SECRET_ENV,
                                   "--token-dir", Dir], [{?SECRET_ENV, binary_to_list(?SECRET)}], Dir),
        ?assertEqual({0, <<"svc-secret ", Url/binary, "\n">>}, {Status, Stdout}),
        ?assertEqual([{<<"grant">>, <<"client_credentials">>}], steps(events_since(Fixture, Seen), <<"svc-secret">>)),
        ?assertEqual(nomatch, binary:match(Stderr, ?SECRET))
    after
        file:del_dir_r(Dir)
    end.

%% `svc-key' signs its assertion with the key the provider holds the public
%% half of; a key of the same kind the provider does not know is refused
%% at the token endpoint, and no call is made.
private_key_jwt(#{url := Url, key := Pem} = Fixture) ->
    Seen = length(events(Fixture)),
    {ok, Client, _} = connect(Fixture, #{grant => client_credentials, client_id => <<"svc-key">>,
                                         private_key_pem => Pem, store => none}),
    try
        ?assertEqual(<<"svc-key ", Url/binary>>, whoami(Client))
    after
        shutdown(Client)
    end,
    ?assertEqual([{<<"grant">>, <<"client_credentials">>}], steps(events_since(Fixture, Seen), <<"svc-key">>)),
    Refused = connect(Fixture, #{grant => client_credentials, client_id => <<"svc-key">>,
                                 private_key_pem => private_key_pem(), store => none}),
    ?assertEqual({error, {handshake_failed, {unavailable, {authorization_failed,
                                                           {token_refused, 401, <<"invalid_client">>}}}}},
                 Refused).

cli_private_key_jwt(#{url := Url, key := Pem}) ->
    Dir = temp_dir(),
    try
        KeyFile = filename:join(Dir, "svc-key.pem"),
        ok = file:write_file(KeyFile, Pem),
        ok = file:change_mode(KeyFile, 8#600),
        {Status, Stdout, _} =
            mcp_gen(["call", "whoami", "--url", binary_to_list(Url), "--client-credentials",
                                   "--client-id", "svc-key", "--private-key-file", KeyFile,
                                   "--token-dir", filename:join(Dir, "tokens")], [], Dir),
        ?assertEqual({0, <<"svc-key ", Url/binary, "\n">>}, {Status, Stdout})
    after
        file:del_dir_r(Dir)
    end.

%% No client id given: the client registers itself, the browser signs in
%% and consents, the code comes back to the loopback listener and is
%% exchanged with the PKCE verifier for a token the server accepts.
authorization_code(#{url := Url} = Fixture) ->
    Seen = length(events(Fixture)),
    {Tag, Store} = reporting_store(),
    {ok, Client, _} = connect(Fixture, #{browser => browser(), consent_timeout_ms => 60000, store => Store}),
    try
        [Id, Audience] = binary:split(whoami(Client), <<" ">>),
        ?assertEqual(Url, Audience),
        ?assertMatch(?SUM_42, add(Client, 2, 40)),
        ?assertEqual([{<<"registration">>, none}, {<<"authorization">>, none},
                      {<<"grant">>, <<"authorization_code">>}],
                     steps(events_since(Fixture, Seen), Id)),
        [Record] = saved(Tag),
        ?assertMatch(#{<<"client_id">> := Id, <<"refresh_token">> := _}, Record)
    after
        shutdown(Client)
    end.

cli_login(#{url := Url} = Fixture) ->
    Dir = temp_dir(),
    try
        Seen = length(events(Fixture)),
        {LoginStatus, _, _} = mcp_gen(["login", "--url", binary_to_list(Url), "--browser", browser(),
                                                     "--token-dir", Dir], [], Dir),
        ?assertEqual(0, LoginStatus),
        [{<<"registration">>, Id} | _] = [{E, C} || #{<<"event">> := E, <<"client_id">> := C} <- events_since(Fixture, Seen)],
        ?assertEqual([{<<"registration">>, none}, {<<"authorization">>, none}, {<<"grant">>, <<"authorization_code">>}],
                     steps(events_since(Fixture, Seen), Id)),
        AfterLogin = length(events(Fixture)),
        {Status, Stdout, _} = mcp_gen(["call", "whoami", "--url", binary_to_list(Url), "--token-dir", Dir], [], Dir),
        ?assertEqual({0, <<Id/binary, " ", Url/binary, "\n">>}, {Status, Stdout}),
        ?assertEqual([], events_since(Fixture, AfterLogin))
    after
        file:del_dir_r(Dir)
    end.

%% The provider issues a token for any loopback resource; the server takes
%% the one for its URL and refuses the one for another.
another_audience(#{url := Url} = Fixture) ->
    ?assertMatch({200, _}, presented(Fixture, token_for(Fixture, Url))),
    {Status, Challenge} = presented(Fixture, token_for(Fixture, <<"http://127.0.0.1:1/mcp">>)),
    ?assertEqual(401, Status),
    ?assertMatch({match, _}, re:run(Challenge, "^Bearer error=\"invalid_token\"")).

%% A token whose claims are another token's (another audience), set to
%% this server's audience, under the first one's signature is refused;
%% the first one, whole, is taken.
forged_signature(#{url := Url} = Fixture) ->
    Genuine = token_for(Fixture, Url),
    [Header, _, Signature] = binary:split(Genuine, <<".">>, [global]),
    [_, OtherClaims, _] = binary:split(token_for(Fixture, <<"http://127.0.0.1:1/mcp">>), <<".">>, [global]),
    Forged = <<Header/binary, ".", (claims_with_audience(OtherClaims, Url))/binary, ".", Signature/binary>>,
    ?assertMatch({200, _}, presented(Fixture, Genuine)),
    ?assertMatch({401, _}, presented(Fixture, Forged)).

%% The claims of a JWT (base64url), their audience made `Url'.
claims_with_audience(Encoded, Url) ->
    Padded = iolist_to_binary([Encoded, lists:duplicate((4 - byte_size(Encoded) rem 4) rem 4, $=)]),
    Plain = base64:decode(<< <<(case C of $- -> $+; $_ -> $/; _ -> C end)>> || <<C>> <= Padded >>),
    {ok, {object, Members}} = mcp_json:decode(Plain),
    Claims = lists:keystore(<<"aud">>, 1, Members, {<<"aud">>, {string, Url}}),
    mcp_oauth:base64url(mcp_json:encode({object, Claims})).

%%% ------------------------------------------------ short-lived tokens

short_lived_test_() ->
    {timeout, 300,
     {setup, fun() -> {ok, _} = application:ensure_all_started(inets), started(?SHORT_TTL) end, fun stopped/1,
      fun(Fixture) ->
              [{"a 5 s token renewed by its refresh token, no second consent",
                timed(fun() -> refreshed(Fixture) end)},
               {"5 s client credentials tokens over 11 s of calls, the first refused once expired",
                timed(fun() -> outlived(Fixture) end)},
               {"a 5 s token without a refresh token: the challenge brings a new consent",
                timed(fun() -> reconsented(Fixture) end)}]
      end}}.

%% The person consents once; the calls of more than two token lifetimes
%% all succeed, on tokens the refresh token renewed without them.
refreshed(Fixture) ->
    Seen = length(events(Fixture)),
    {_, Store} = reporting_store(),
    {ok, Client, _} = connect(Fixture, #{browser => browser(), consent_timeout_ms => 60000, store => Store}),
    try
        [Id, _] = binary:split(whoami(Client), <<" ">>),
        Results = calls_for(Client, (2 * ?SHORT_TTL + 1) * 1000),
        ?assertEqual([], [R || R <- Results, not is_sum(R)]),
        Steps = steps(events_since(Fixture, Seen), Id),
        ?assertEqual(1, count({<<"authorization">>, none}, Steps)),
        ?assertEqual(1, count({<<"grant">>, <<"authorization_code">>}, Steps)),
        ?assert(count({<<"grant">>, <<"refresh_token">>}, Steps) >= 2),
        ?assertEqual([], [S || {<<"grant_error">>, _} = S <- Steps])
    after
        shutdown(Client)
    end.

%% Client credentials tokens of 5 s over 11 s of calls: every call
%% succeeds on tokens granted anew. The first token, taken while it lives,
%% is refused once expired: the renewals were needed.
outlived(Fixture) ->
    Seen = length(events(Fixture)),
    {Tag, Store} = reporting_store(),
    {ok, Client, _} = connect(Fixture, #{grant => client_credentials, client_id => <<"svc-secret">>,
                                         client_secret => ?SECRET, store => Store}),
    try
        [#{<<"access_token">> := First}] = saved(Tag),
        ?assertMatch({200, _}, presented(Fixture, First)),
        Results = calls_for(Client, (2 * ?SHORT_TTL + 1) * 1000),
        ?assertEqual([], [R || R <- Results, not is_sum(R)]),
        Granted = count({<<"grant">>, <<"client_credentials">>}, steps(events_since(Fixture, Seen), <<"svc-secret">>)),
        ?assert(Granted >= 3),
        ?assertEqual(Granted, length(lists:usort([First | [T || #{<<"access_token">> := T} <- saved(Tag)]]))),
        ?assertMatch({401, _}, presented(Fixture, First))
    after
        shutdown(Client)
    end.

%% A provider that issues no refresh token to this client: when the token
%% is due, the renewal fails, the next message goes without a token, and
%% the server's challenge starts a new authorization (the scripted
%% browser consents again), so the calls go on.
reconsented(Fixture) ->
    Seen = length(events(Fixture)),
    {Tag, Store} = reporting_store(),
    {ok, Client, _} = connect(Fixture, #{browser => browser(), consent_timeout_ms => 60000, store => Store,
                                         client_name => ?NO_REFRESH}),
    try
        [Id, _] = binary:split(whoami(Client), <<" ">>),
        Results = calls_for(Client, (2 * ?SHORT_TTL + 1) * 1000),
        ?assertEqual([], [R || R <- Results, not is_sum(R)]),
        Steps = steps(events_since(Fixture, Seen), Id),
        ?assert(count({<<"authorization">>, none}, Steps) >= 2),
        ?assertEqual(count({<<"authorization">>, none}, Steps), count({<<"grant">>, <<"authorization_code">>}, Steps)),
        ?assertEqual(1, count({<<"registration">>, none}, Steps)),
        ?assertEqual([], [R || #{<<"refresh_token">> := _} = R <- saved(Tag)])
    after
        shutdown(Client)
    end.

is_sum(?SUM_42) -> true;
is_sum(_) -> false.

%%% --------------------------------------------------------------- DPoP

dpop_test_() ->
    {timeout, 300,
     {setup, fun() -> {ok, _} = application:ensure_all_started(inets), started(600, true) end, fun stopped/1,
      fun(Fixture) ->
              [{"DPoP: client credentials, both nonces, a bound token the server checks",
                timed(fun() -> dpop_client_credentials(Fixture) end)},
               {"DPoP: the bound token without its key is refused, with it taken",
                timed(fun() -> dpop_replay(Fixture) end)},
               {"DPoP: a client without DPoP is refused by the server", timed(fun() -> dpop_not_asked(Fixture) end)},
               {"mcp-gen --dpop: client credentials", timed(fun() -> cli_dpop(Fixture) end)}]
      end}}.

dpop_config(Store) ->
    #{grant => client_credentials, client_id => <<"svc-secret">>, client_secret => ?SECRET, store => Store, dpop => true}.

%% The provider asks for its nonce (one grant error, `use_dpop_nonce',
%% then the grant), the server for its own; the token is DPoP-bound and
%% the calls are served.
dpop_client_credentials(#{url := Url} = Fixture) ->
    Seen = length(events(Fixture)),
    {Tag, Store} = reporting_store(),
    {ok, Client, _} = connect(Fixture, dpop_config(Store)),
    try
        ?assertEqual(<<"svc-secret ", Url/binary>>, whoami(Client)),
        ?assertMatch(?SUM_42, add(Client, 2, 40)),
        [#{<<"token_type">> := <<"DPoP">>, <<"dpop_key">> := _}] = saved(Tag),
        Events = events_since(Fixture, Seen),
        ?assertEqual([{<<"grant">>, <<"client_credentials">>}],
                     [S || {<<"grant">>, _} = S <- steps(Events, <<"svc-secret">>)]),
        ?assertEqual([<<"use_dpop_nonce">>], [E || #{<<"event">> := <<"grant_error">>, <<"error">> := E} <- Events])
    after
        shutdown(Client)
    end.

%% The token our client holds, presented by someone without its key: as
%% Bearer, or with a proof of another key, the server refuses it; with a
%% proof of the key it is bound to (and the server's nonce), it is taken,
%% but not with one made for another URL.
dpop_replay(Fixture) ->
    {Tag, Store} = reporting_store(),
    {ok, Client, _} = connect(Fixture, dpop_config(Store)),
    [#{<<"access_token">> := Token, <<"dpop_key">> := Exported}] = saved(Tag),
    ?assertMatch(?SUM_42, add(Client, 2, 40)),
    shutdown(Client),
    {ok, Key} = mcp_oauth_dpop:import(Exported),
    ?assertMatch({401, "DPoP error=\"invalid_token\"" ++ _}, presented(Fixture, Token)),
    ?assertMatch({401, "DPoP error=\"invalid_token\"" ++ _}, proven(Fixture, Token, mcp_oauth_dpop:new_key())),
    ?assertMatch({401, "DPoP error=\"invalid_dpop_proof\"" ++ _},
                 proven(Fixture#{htu => <<"http://127.0.0.1:1/mcp">>}, Token, Key)),
    ?assertMatch({200, _}, proven(Fixture, Token, Key)).

%% `Token' with a proof of `Key' (for `htu', else the server's URL), after
%% the server's nonce challenge.
proven(#{url := Url} = Fixture, Token, Key) ->
    Send = fun(Nonce) ->
                   Proof = mcp_oauth_dpop:proof(Key, post, maps:get(htu, Fixture, Url), Nonce, Token),
                   {ok, {{_, Status, _}, Headers, _}} =
                       httpc:request(post, {binary_to_list(Url), [{"authorization", "DPoP " ++ binary_to_list(Token)},
                                                                  {"dpop", binary_to_list(Proof)},
                                                                  {"accept", "application/json, text/event-stream"}],
                                            "application/json", initialize_request()}, [], [{body_format, binary}]),
                   {Status, proplists:get_value("www-authenticate", Headers, none), proplists:get_value("dpop-nonce", Headers, none)}
           end,
    case Send(none) of
        {401, "DPoP error=\"use_dpop_nonce\"" ++ _, Nonce} -> {Status, Challenge, _} = Send(list_to_binary(Nonce)), {Status, Challenge};
        {Status, Challenge, _} -> {Status, Challenge}
    end.

%% Without DPoP the provider issues a Bearer token (no proof was sent),
%% which the server refuses every time: the client gives up after three
%% authorizations.
dpop_not_asked(Fixture) ->
    ?assertEqual({error, {handshake_failed, {unavailable, {authorization_failed, too_many_challenges}}}},
                 connect(Fixture, (dpop_config(none))#{dpop => false})).

cli_dpop(#{url := Url}) ->
    Dir = temp_dir(),
    try
        {Status, Stdout, Stderr} =
            mcp_gen(["call", "whoami", "--url", binary_to_list(Url), "--client-credentials", "--dpop",
                     "--client-id", "svc-secret", "--client-secret-env", ?SECRET_ENV, "--token-dir", Dir],
                    [{?SECRET_ENV, binary_to_list(?SECRET)}], Dir),
        ?assertEqual({0, <<"svc-secret ", Url/binary, "\n">>}, {Status, Stdout}),
        ?assertEqual(nomatch, binary:match(Stderr, ?SECRET))
    after
        file:del_dir_r(Dir)
    end.

%% @doc OAuth 2.1 for a remote MCP server, as MCP specifies it: from a 401
%% or 403 challenge to a token (`obtain/5'), and a token's renewal
%% (`renew/3'). Discovery is `mcp_oauth_discovery'; this module registers
%% the client (given credentials, a Client ID Metadata Document URL, or
%% dynamic registration), runs the grant (authorization code with PKCE
%% S256 through `mcp_oauth_loopback', or a grant without a person,
%% `mcp_oauth_grant') with a DPoP proof where configured (`mcp_oauth_dpop')
%% and reads the token answer. `mcp_oauth_session' calls it, one flow at a time.
%%
%% Invariants:
%% <ul>
%% <li>No request goes to an endpoint of an authorization server whose
%%     metadata did not pass discovery's checks (resource and issuer).</li>
%% <li>The authorization response is used only when its `state' equals
%%     the one sent and its `iss', when present, equals the issuer exactly;
%%     an `iss' is required when the metadata advertises
%%     `authorization_response_iss_parameter_supported'.</li>
%% <li>`resource' (the protected-resource metadata's, verbatim) is sent in
%%     the authorization and every token request.</li>
%% <li>Scopes: the challenge's, else the resource's `scopes_supported',
%%     else none; on a step-up, the union with the scopes granted before.
%%     `offline_access' is added only when the authorization server lists
%%     it, and with it `prompt=consent' (OpenID Connect issues no refresh
%%     token without it).</li>
%% <li>A client registration belongs to the issuer it was made with: a
%%     record of another issuer is never presented to this one.</li>
%% <li>Given credentials (a client secret or key, an assertion) go only to
%%     their authorization server: the configuration's `issuer' when it
%%     names one, else the issuer of the stored record when there is one
%%     (the first one met, trusted on first use); a server whose metadata
%%     names another is refused, `{issuer_not_trusted, Issuer}', before any
%%     request to it.</li>
%% <li>Errors name steps, statuses and OAuth error codes, never a token,
%%     secret, code or verifier.</li>
%% </ul>
-module(mcp_oauth).

-export([obtain/5, renew/3, base64url/1, error_code/1]).
-export_type([config/0, error_reason/0]).

-type config() :: #{grant => authorization_code | client_credentials | jwt_bearer | token_exchange,
                    dpop => boolean(),
                    %% The session's DPoP key and nonces (`mcp_oauth_session').
                    dpop_proof => {mcp_oauth_dpop:key(), mcp_oauth_dpop:nonces()},
                    assertion => mcp_oauth_grant:source(),
                    identity_assertion => mcp_oauth_grant:source(),
                    idp_token_endpoint => binary(),
                    idp_client_id => binary(),
                    idp_client_secret => binary(),
                    %% The authorization server given credentials belong to.
                    issuer => binary(),
                    client_id => binary(),
                    client_secret => binary(),
                    private_key_pem => binary(),
                    signing_algorithm => binary(),
                    client_metadata_url => binary(),
                    client_name => binary(),
                    scopes => [binary()],
                    browser => none | print | paste | string(),
                    redirect_port => 0..65535,
                    consent_timeout_ms => pos_integer(),
                    store => mcp_oauth_token_store:store()}.
-type error_reason() :: term().

-define(CONSENT_TIMEOUT_MS, 300000).
-define(MAX_ERROR_CODE_BYTES, 64).

%% @doc A fresh token record for the server at `ServerUrl' after it
%% answered `Challenge' (`mcp_oauth_discovery:challenge/1'). `Previous' is
%% the record held so far (or `none'): its registration is reused when it
%% was made with the same issuer, and its scopes join a step-up's.
-spec obtain(mcp_oauth_http:client(), binary(), mcp_oauth_discovery:challenge(), config(), mcp_oauth_token_store:record() | none) ->
          {ok, mcp_oauth_token_store:record()} | {error, error_reason()}.
obtain(Http, ServerUrl, Challenge, Config, Previous) ->
    case mcp_oauth_discovery:discover(Http, ServerUrl, Challenge) of
        {ok, Found} ->
            case trusted(Config, Previous, Found) of
                true -> granted(Http, Found, Challenge, Config, same_issuer(Previous, Found));
                false -> {error, {issuer_not_trusted, mcp_http_target:shown_url(maps:get(issuer, Found))}}
            end;
        {error, _} = Error ->
            Error
    end.

%% Whether the credentials of the configuration may go to the issuer
%% found: any issuer when none are given; else the configured one, or the
%% stored record's.
trusted(Config, Previous, #{issuer := Found}) ->
    Given = lists:any(fun(Key) -> is_map_key(Key, Config) end,
                      [client_secret, private_key_pem, assertion, identity_assertion]),
    case {Given, Config, Previous} of
        {false, _, _} -> true;
        {true, #{issuer := Issuer}, _} -> Issuer =:= Found;
        {true, _, #{<<"issuer">> := Stored}} -> Stored =:= Found;
        %% A record without its issuer (a store a harness filled) ties
        %% the credentials to nothing: refused.
        {true, _, #{}} -> false;
        {true, _, none} -> true
    end.

same_issuer(#{<<"issuer">> := Issuer} = Previous, #{issuer := Issuer}) -> Previous;
same_issuer(_, _) -> none.

granted(Http, #{metadata := Metadata} = Found, Challenge, Config, Previous) ->
    Scopes = scopes(Found, Challenge, Config, Previous),
    case maps:get(grant, Config, authorization_code) of
        authorization_code ->
            case maps:get(browser, Config, none) of
                none -> {error, consent_needed};
                Browser -> authorization_code(Http, Found, Config, Previous, with_offline(Scopes, Metadata), Browser)
            end;
        Grant ->
            %% The grants without a person: client credentials, and the
            %% JWT-bearer grant of an assertion (`mcp_oauth_grant').
            case client(Http, Found, Config, Previous, none) of
                {ok, Client} ->
                    case mcp_oauth_grant:fields(Grant, Http, Found, Config, Scopes) of
                        {ok, Fields} -> token(Http, Found, Client, Fields, Scopes, Config);
                        {error, _} = Error -> Error
                    end;
                {error, _} = Error -> Error
            end
    end.

scopes(Found, Challenge, Config, Previous) ->
    Asked = case {Challenge, maps:get(scopes_supported, Found), Config} of
                {_, _, #{scopes := Given}} -> Given;
                {#{scope := Scope}, _, _} -> Scope;
                {_, Supported, _} when is_list(Supported) -> Supported;
                _ -> []
            end,
    Before = case Previous of
                 #{<<"scope">> := Granted} -> Granted;
                 _ -> []
             end,
    %% A set, not `lists:member': both lists come from peers (a token
    %% answer, the resource's metadata) and may be long.
    {Added, _} = lists:foldl(fun(S, {Acc, Seen}) when is_map_key(S, Seen) -> {Acc, Seen};
                                (S, {Acc, Seen}) -> {[S | Acc], Seen#{S => true}}
                             end, {[], maps:from_keys(Before, true)}, Asked),
    Before ++ lists:reverse(Added).

with_offline([], _Metadata) ->
    [];
with_offline(Scopes, Metadata) ->
    case lists:member(<<"offline_access">>, strings(<<"scopes_supported">>, Metadata))
        andalso not lists:member(<<"offline_access">>, Scopes) of
        true -> Scopes ++ [<<"offline_access">>];
        false -> Scopes
    end.

%%% ------------------------------------------------------------- clients

%% The client this issuer knows us as: the previous record's, the given
%% credentials, a Client ID Metadata Document URL, or a new registration.
client(_Http, _Found, Config, #{<<"client_id">> := _} = Previous, _RedirectUri) ->
    {ok, with_key(maps:with([<<"client_id">>, <<"client_secret">>, <<"auth_method">>], Previous), Config)};
client(_Http, #{metadata := Metadata}, #{client_id := Id} = Config, none, _RedirectUri) ->
    {ok, with_key(#{<<"client_id">> => Id, <<"auth_method">> => given_method(Config, Metadata)}, Config)};
client(Http, #{metadata := Metadata}, Config, none, RedirectUri) ->
    case {Metadata, Config} of
        {#{<<"client_id_metadata_document_supported">> := {bool, true}}, #{client_metadata_url := Url}} ->
            {ok, #{<<"client_id">> => Url, <<"auth_method">> => <<"none">>}};
        {#{<<"registration_endpoint">> := {string, Endpoint}}, _} when RedirectUri =/= none ->
            register(Http, Endpoint, Metadata, Config, RedirectUri);
        _ ->
            {error, no_client_registration}
    end.

%% The private key of `private_key_jwt' and the client secret of the
%% configuration come from there on each use, for the client the
%% configuration names; neither is ever part of a stored record
%% (`kept_client/1').
with_key(#{<<"client_id">> := Id} = Client, #{client_id := Id, client_secret := Secret} = Config) ->
    with_key(Client#{<<"client_secret">> => Secret, given => true}, maps:remove(client_secret, Config));
with_key(Client, #{private_key_pem := Pem} = Config) ->
    Client#{<<"private_key_pem">> => Pem,
            <<"signing_algorithm">> => maps:get(signing_algorithm, Config, <<"ES256">>)};
with_key(Client, _Config) ->
    Client.

given_method(#{private_key_pem := _}, _Metadata) ->
    <<"private_key_jwt">>;
given_method(#{client_secret := _}, Metadata) ->
    Supported = supported_methods(Metadata),
    case lists:member(<<"client_secret_basic">>, Supported) orelse not lists:member(<<"client_secret_post">>, Supported) of
        true -> <<"client_secret_basic">>;
        false -> <<"client_secret_post">>
    end;
given_method(_Config, _Metadata) ->
    <<"none">>.

supported_methods(Metadata) ->
    case strings(<<"token_endpoint_auth_methods_supported">>, Metadata) of
        [] -> [<<"client_secret_basic">>];
        Methods -> Methods
    end.

register(Http, Endpoint, Metadata, Config, RedirectUri) ->
    Supported = supported_methods(Metadata),
    Method = hd([M || M <- [<<"client_secret_basic">>, <<"client_secret_post">>, <<"none">>],
                      lists:member(M, Supported)] ++ [<<"client_secret_basic">>]),
    Request = {object, [{<<"client_name">>, {string, maps:get(client_name, Config, <<"mcp-gen">>)}},
                        {<<"redirect_uris">>, {array, [{string, RedirectUri}]}},
                        {<<"grant_types">>, {array, [{string, <<"authorization_code">>}, {string, <<"refresh_token">>}]}},
                        {<<"response_types">>, {array, [{string, <<"code">>}]}},
                        {<<"token_endpoint_auth_method">>, {string, Method}},
                        {<<"application_type">>, {string, <<"native">>}}]},
    case mcp_oauth_http:post_json(Http, Endpoint, Request) of
        {ok, {Status, Members}} when Status >= 200, Status < 300 ->
            case lists:keyfind(<<"client_id">>, 1, Members) of
                {_, {string, Id}} ->
                    Secret = [S || {<<"client_secret">>, {string, S}} <- Members],
                    Registered = [M || {<<"token_endpoint_auth_method">>, {string, M}} <- Members],
                    Chosen = case {Registered, Secret} of
                                 {[M | _], _} -> M;
                                 {[], []} -> <<"none">>;
                                 {[], _} -> Method
                             end,
                    {ok, maps:from_list([{<<"client_id">>, Id}, {<<"auth_method">>, Chosen}
                                         | [{<<"client_secret">>, S} || S <- Secret]])};
                _ ->
                    {error, {registration_refused, Status}}
            end;
        {ok, {Status, Members}} ->
            {error, {registration_refused, Status, error_code(Members)}};
        {error, _} = Error ->
            Error
    end.

%%% -------------------------------------------------- authorization code

authorization_code(Http, #{metadata := Metadata, issuer := Issuer} = Found, Config, Previous, Scopes, Browser) ->
    case mcp_oauth_loopback:listen(maps:get(redirect_port, Config, 0)) of
        {ok, Listener} ->
            try
                RedirectUri = mcp_oauth_loopback:redirect_uri(Listener),
                case {client(Http, Found, Config, Previous, RedirectUri), endpoint(<<"authorization_endpoint">>, Metadata)} of
                    {{ok, Client}, {ok, Endpoint}} ->
                        Verifier = base64url(crypto:strong_rand_bytes(32)),
                        State = base64url(crypto:strong_rand_bytes(24)),
                        Query = [{<<"response_type">>, <<"code">>},
                                 {<<"client_id">>, maps:get(<<"client_id">>, Client)},
                                 {<<"redirect_uri">>, RedirectUri},
                                 {<<"code_challenge">>, base64url(crypto:hash(sha256, Verifier))},
                                 {<<"code_challenge_method">>, <<"S256">>},
                                 {<<"state">>, State}]
                            ++ resource(Found) ++ scope(Scopes) ++ prompt(Scopes),
                        Url = with_query(Endpoint, Query),
                        case mcp_oauth_loopback:open_browser(Browser, Url) of
                            ok ->
                                Timeout = maps:get(consent_timeout_ms, Config, ?CONSENT_TIMEOUT_MS),
                                Source = case Browser of
                                             paste -> pasted;
                                             _ -> listener
                                         end,
                                case mcp_oauth_loopback:await(Listener, Timeout, fun(Params) -> state_matches(Params, State) end,
                                                              Source) of
                                    {ok, Params} ->
                                        case response_checked(Params, State, Issuer, Metadata) of
                                            {ok, Code} ->
                                                token(Http, Found, Client,
                                                      [{<<"grant_type">>, <<"authorization_code">>}, {<<"code">>, Code},
                                                       {<<"redirect_uri">>, RedirectUri}, {<<"code_verifier">>, Verifier}],
                                                      Scopes, Config);
                                            {error, _} = Error -> Error
                                        end;
                                    {error, timeout} -> {error, consent_timeout};
                                    {error, Reason} -> {error, {redirect_listener, Reason}}
                                end;
                            {error, _} = Error -> Error
                        end;
                    {{error, _} = Error, _} -> Error;
                    {_, {error, _} = Error} -> Error
                end
            after
                mcp_oauth_loopback:close(Listener)
            end;
        {error, Reason} ->
            {error, {redirect_listener, Reason}}
    end.

%% Whether a redirect carries the `state' this flow sent (constant time).
state_matches(Params, State) ->
    case proplists:get_value(<<"state">>, Params) of
        Got when is_binary(Got), byte_size(Got) =:= byte_size(State) -> crypto:hash_equals(Got, State);
        _ -> false
    end.

%% RFC 9207 and the CSRF `state': the response is ours and from this issuer.
response_checked(Params, State, Issuer, Metadata) ->
    Get = fun(Key) -> proplists:get_value(Key, Params, none) end,
    IssRequired = maps:get(<<"authorization_response_iss_parameter_supported">>, Metadata, none) =:= {bool, true},
    case {Get(<<"state">>), Get(<<"iss">>), Get(<<"error">>), Get(<<"code">>)} of
        {Got, _, _, _} when not is_binary(Got) -> {error, state_mismatch};
        {Got, _, _, _} when byte_size(Got) =/= byte_size(State) -> {error, state_mismatch};
        {Got, Iss, Error, Code} ->
            case crypto:hash_equals(Got, State) of
                false -> {error, state_mismatch};
                true when Iss =:= none, IssRequired -> {error, iss_missing};
                true when Iss =/= none, Iss =/= Issuer -> {error, iss_mismatch};
                true when Error =/= none -> {error, {authorization_denied, bounded(Error)}};
                true when not is_binary(Code) -> {error, no_authorization_code};
                true -> {ok, Code}
            end
    end.

%%% --------------------------------------------------------------- tokens

%% @doc A renewed record for the token of `Record', from the endpoint
%% that issued it (never a new discovery): its refresh token, or, for the
%% client credentials grant, a new grant; else `{error, no_refresh_token}'.
%% A renewal reaches only the `token_endpoint' the record was obtained
%% from, which passed discovery's checks when it was obtained.
-spec renew(mcp_oauth_http:client(), mcp_oauth_token_store:record(), config()) ->
          {ok, mcp_oauth_token_store:record()} | {error, error_reason()}.
renew(Http, #{<<"refresh_token">> := Refresh} = Record, Config) when is_binary(Refresh) ->
    renewed(Http, Record, Config, [{<<"grant_type">>, <<"refresh_token">>}, {<<"refresh_token">>, Refresh}],
            maps:with([<<"refresh_token">>, <<"scope">>], Record));
renew(Http, Record, #{grant := Grant} = Config) when Grant =/= authorization_code ->
    renewed(Http, Record, Config, Grant, #{});
renew(_Http, _Record, _Config) ->
    {error, no_refresh_token}.

renewed(Http, #{<<"token_endpoint">> := Endpoint, <<"issuer">> := Issuer, <<"client_id">> := _} = Record,
        Config, Grant, Kept) when is_binary(Endpoint), is_binary(Issuer) ->
    Found = #{issuer => Issuer, resource => maps:get(<<"resource">>, Record, none),
              metadata => #{<<"token_endpoint">> => {string, Endpoint}}},
    case trusted(Config, Record, Found) of
        true -> renewed_at(Http, Found, Record, Config, Grant, Kept);
        false -> {error, {issuer_not_trusted, mcp_http_target:shown_url(Issuer)}}
    end;
renewed(_Http, _Record, _Config, _Grant, _Kept) ->
    {error, no_refresh_token}.

renewed_at(Http, Found, Record, Config, Grant, Kept) ->
    %% A grant without a person is made again, for the scopes granted.
    {Fields, Scopes} = case {Grant, Record} of
                           {[_ | _], _} -> {{ok, Grant}, []};
                           {_, #{<<"scope">> := Granted}} when is_list(Granted) ->
                               {mcp_oauth_grant:fields(Grant, Http, Found, Config, Granted), Granted};
                           _ -> {mcp_oauth_grant:fields(Grant, Http, Found, Config, []), []}
                       end,
    case Fields of
        {ok, GrantFields} ->
            case token(Http, Found, with_key(Record, Config), GrantFields, Scopes, Config) of
                %% A server may keep the refresh token: the old one stays.
                {ok, New} -> {ok, maps:merge(Kept, New)};
                {error, _} = Error -> Error
            end;
        {error, _} = Error ->
            Error
    end.

token(#{fallback := true}, #{given := true}) -> {error, {unstated_endpoint, <<"token_endpoint">>}};
token(#{fallback := true}, #{<<"private_key_pem">> := _}) -> {error, {unstated_endpoint, <<"token_endpoint">>}};
token(#{metadata := Metadata}, _Client) -> endpoint(<<"token_endpoint">>, Metadata).

token(Http, #{issuer := Issuer} = Found, Client, Grant, Scopes, Config) ->
    case token(Found, Client) of
        {ok, Endpoint} ->
            case client_authentication(Client, Issuer) of
                {ok, Headers, Fields} ->
                    Body = Grant ++ Fields ++ resource(Found) ++ scope(Scopes),
                    Proof = maps:get(dpop_proof, Config, none),
                    case proven_post(Http, Endpoint, Headers, Body, Proof, retry) of
                        {ok, {200, Members}} -> record(Members, Found, Client, Endpoint, Scopes, binding(Proof));
                        {ok, {Status, Members}} -> {error, {token_refused, Status, error_code(Members)}};
                        {error, _} = Error -> Error
                    end;
                {error, _} = Error ->
                    Error
            end;
        {error, _} = Error ->
            Error
    end.

binding(none) -> bearer;
binding({_Key, _Nonces}) -> dpop.

%% A token request, with a DPoP proof for a client that uses DPoP: the
%% nonce kept for the endpoint's origin goes in it, and a 400
%% `use_dpop_nonce' with a usable `DPoP-Nonce' is retried once with that
%% nonce (RFC 9449 §8); a second such answer is the refusal it is.
proven_post(Http, Endpoint, Headers, Body, none, _Retry) ->
    case mcp_oauth_http:post_form(Http, Endpoint, Headers, Body) of
        {ok, {Status, Members}} -> {ok, {Status, Members}};
        {error, _} = Error -> Error
    end;
proven_post(Http, Endpoint, Headers, Body, {Key, Nonces} = Proof, Retry) ->
    Dpop = mcp_oauth_dpop:proof(Key, post, Endpoint, mcp_oauth_dpop:nonce_for(Nonces, Endpoint), none),
    case mcp_oauth_http:post_form(Http, Endpoint, [{"dpop", binary_to_list(Dpop)} | Headers], Body, "dpop-nonce") of
        {ok, {Status, Members, Value}} ->
            Nonce = mcp_oauth_dpop:nonce(Value),
            case Nonce of
                {ok, Given} -> mcp_oauth_dpop:remember(Nonces, Endpoint, Given);
                none -> ok
            end,
            case {Status, error_code(Members), Nonce, Retry} of
                {400, <<"use_dpop_nonce">>, {ok, _}, retry} -> proven_post(Http, Endpoint, Headers, Body, Proof, retried);
                _ -> {ok, {Status, Members}}
            end;
        {error, _} = Error ->
            Error
    end.

client_authentication(#{<<"client_id">> := Id, <<"auth_method">> := <<"client_secret_basic">>,
                        <<"client_secret">> := Secret}, _Issuer) ->
    Pair = <<(form_encode(Id))/binary, ":", (form_encode(Secret))/binary>>,
    {ok, [{"authorization", "Basic " ++ base64:encode_to_string(Pair)}], []};
client_authentication(#{<<"client_id">> := Id, <<"auth_method">> := <<"client_secret_post">>,
                        <<"client_secret">> := Secret}, _Issuer) ->
    {ok, [], [{<<"client_id">>, Id}, {<<"client_secret">>, Secret}]};
client_authentication(#{<<"client_id">> := Id, <<"auth_method">> := <<"private_key_jwt">>,
                        <<"private_key_pem">> := Pem} = Client, Issuer) ->
    Algorithm = maps:get(<<"signing_algorithm">>, Client, <<"ES256">>),
    case mcp_oauth_assertion:sign(Id, Issuer, Pem, Algorithm) of
        {ok, Assertion} ->
            {ok, [], [{<<"client_id">>, Id},
                      {<<"client_assertion_type">>, <<"urn:ietf:params:oauth:client-assertion-type:jwt-bearer">>},
                      {<<"client_assertion">>, Assertion}]};
        {error, _} = Error ->
            Error
    end;
client_authentication(#{<<"client_id">> := Id}, _Issuer) ->
    {ok, [], [{<<"client_id">>, Id}]}.

record(Members, #{issuer := Issuer} = Found, Client, Endpoint, Scopes, Binding) ->
    case mcp_oauth_token:read(Members, erlang:system_time(second), Binding) of
        {ok, Access, Lifetime} ->
            Granted = case lists:keyfind(<<"scope">>, 1, Members) of
                          {_, {string, Scope}} -> binary:split(Scope, <<" ">>, [global, trim_all]);
                          _ -> Scopes
                      end,
            {ok, maps:merge(maps:merge(kept_client(Client), Lifetime), maps:from_list(
                                    [{<<"issuer">>, Issuer}, {<<"token_endpoint">>, Endpoint},
                                     {<<"access_token">>, Access}, {<<"scope">>, Granted}]
                                    ++ [{<<"refresh_token">>, R} || {<<"refresh_token">>, {string, R}} <- Members]
                                    ++ [{<<"token_type">>, <<"DPoP">>} || Binding =:= dpop]
                                    ++ [{<<"resource">>, R} || R <- [maps:get(resource, Found, none)], R =/= none]))};
        {error, no_access_token} ->
            {error, {token_refused, 200, no_access_token}};
        {error, _} = Error ->
            Error
    end.

%% What the record keeps of the client: its id and method, and a secret
%% only when registration issued it; a secret of the configuration is
%% taken from there on every use and never written to the token store.
kept_client(#{given := true} = Client) -> maps:with([<<"client_id">>, <<"auth_method">>], Client);
kept_client(Client) -> maps:with([<<"client_id">>, <<"client_secret">>, <<"auth_method">>], Client).

%%% -------------------------------------------------------------- helpers

endpoint(Key, Metadata) ->
    case maps:get(Key, Metadata, none) of
        {string, Url} ->
            %% Plain `http' only on the loopback: the authorization
            %% endpoint is no request of ours (the browser opens it), so
            %% `mcp_oauth_http''s refusal would not see it.
            case uri_string:parse(Url) of
                #{scheme := Scheme, host := Host} ->
                    case string:lowercase(Scheme) of
                        <<"https">> -> {ok, Url};
                        <<"http">> ->
                            case mcp_http_target:loopback(unicode:characters_to_list(Host)) of
                                true -> {ok, Url};
                                false -> {error, {plaintext_endpoint, mcp_http_target:shown_url(Url)}}
                            end;
                        _ -> {error, {bad_endpoint, Key}}
                    end;
                _ -> {error, {bad_endpoint, Key}}
            end;
        _ -> {error, {no_endpoint, Key}}
    end.

resource(#{resource := Resource}) when is_binary(Resource) -> [{<<"resource">>, Resource}];
resource(_) -> [].

%% OpenID Connect (Core 1.0 §11) grants `offline_access', and with it a
%% refresh token, only to a request that asks for consent: an OpenID
%% provider drops it from a request without `prompt=consent'.
prompt(Scopes) ->
    case lists:member(<<"offline_access">>, Scopes) of
        true -> [{<<"prompt">>, <<"consent">>}];
        false -> []
    end.

scope([]) -> [];
scope(Scopes) -> [{<<"scope">>, iolist_to_binary(lists:join(<<" ">>, Scopes))}].

with_query(Endpoint, Query) ->
    Encoded = unicode:characters_to_binary(uri_string:compose_query(Query)),
    case binary:match(Endpoint, <<"?">>) of
        nomatch -> <<Endpoint/binary, "?", Encoded/binary>>;
        _ -> <<Endpoint/binary, "&", Encoded/binary>>
    end.

form_encode(Text) ->
    <<"x=", Encoded/binary>> = unicode:characters_to_binary(uri_string:compose_query([{<<"x">>, Text}])),
    Encoded.

strings(Key, Metadata) ->
    case maps:get(Key, Metadata, none) of
        {array, Items} -> [S || {string, S} <- Items];
        _ -> []
    end.

%% @doc The OAuth `error' code of an answer, printable and bounded.
-spec error_code([{binary(), mcp_json:json()}]) -> binary() | none.
error_code(Members) ->
    case lists:keyfind(<<"error">>, 1, Members) of
        {_, {string, Code}} -> bounded(Code);
        _ -> none
    end.

bounded(Code) ->
    Short = binary:part(Code, 0, min(byte_size(Code), ?MAX_ERROR_CODE_BYTES)),
    << <<C>> || <<C>> <= Short, C >= 16#21, C =< 16#7E >>.

%% @doc Base64url without padding (RFC 4648 §5), as PKCE and JWTs use it.
-spec base64url(binary()) -> binary().
base64url(Bytes) ->
    Plain = base64:encode(Bytes),
    << <<(case C of $+ -> $-; $/ -> $_; _ -> C end)>> || <<C>> <= Plain, C =/= $= >>.

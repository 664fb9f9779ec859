%% @doc The token request's grant for the grants without a person: client
%% credentials, the JWT-bearer grant (RFC 7523 §2.1) of an assertion the
%% environment gives (workload identity), and enterprise-managed
%% authorization: an identity assertion (an ID token of the enterprise's
%% identity provider) exchanged at that provider (token exchange, RFC
%% 8693) for an identity assertion authorization grant (ID-JAG) for the
%% authorization server and the MCP server, which the JWT-bearer grant
%% then presents.
%%
%% Invariants:
%% <ul>
%% <li>An assertion is read when it is used, from the file or the
%%     environment variable the configuration names (a fun of the harness
%%     also serves), never from a command line; it must be 1 to
%%     `max_assertion_bytes()' bytes of base64url and dots once trimmed,
%%     else `{assertion_unusable, Source}'. Errors name the file or the
%%     variable, never the value.</li>
%% <li>The identity assertion goes only to the identity provider's token
%%     endpoint of the configuration (`idp_token_endpoint'), never to an
%%     endpoint a server's metadata names; the ID-JAG it answers goes only
%%     to the token endpoint of the authorization server it was asked for
%%     (its `audience', the issuer discovery checked).</li>
%% <li>The exchange's answer must say `issued_token_type'
%%     `urn:ietf:params:oauth:token-type:id-jag' and carry a usable token
%%     (`mcp_oauth_token:usable/1'), else `{token_exchange_refused, ...}'.</li>
%% </ul>
-module(mcp_oauth_grant).

-export([fields/5, assertion/1, max_assertion_bytes/0]).
-export_type([source/0]).

-define(MAX_ASSERTION_BYTES, 65536).
-define(JWT_BEARER, <<"urn:ietf:params:oauth:grant-type:jwt-bearer">>).
-define(TOKEN_EXCHANGE, <<"urn:ietf:params:oauth:grant-type:token-exchange">>).
-define(ID_TOKEN, <<"urn:ietf:params:oauth:token-type:id_token">>).
-define(ID_JAG, <<"urn:ietf:params:oauth:token-type:id-jag">>).

%% Where an assertion is read from.
-type source() :: {file, file:filename_all()} | {env, string()} | fun(() -> binary()).

%% @doc The longest assertion read, in bytes.
-spec max_assertion_bytes() -> pos_integer().
max_assertion_bytes() -> ?MAX_ASSERTION_BYTES.

%% @doc The grant's fields of a token request to the authorization server
%% `Found' (`mcp_oauth_discovery:discovered()') for `Scopes'.
-spec fields(client_credentials | jwt_bearer | token_exchange, mcp_oauth_http:client(), map(), map(), [binary()]) ->
          {ok, [{binary(), binary()}]} | {error, term()}.
fields(client_credentials, _Http, _Found, _Config, _Scopes) ->
    {ok, [{<<"grant_type">>, <<"client_credentials">>}]};
fields(jwt_bearer, _Http, _Found, Config, _Scopes) ->
    case assertion(maps:get(assertion, Config, none)) of
        {ok, Assertion} -> {ok, jwt_bearer(Assertion)};
        {error, _} = Error -> Error
    end;
fields(token_exchange, Http, Found, Config, Scopes) ->
    case {assertion(maps:get(identity_assertion, Config, none)), maps:get(idp_token_endpoint, Config, none)} of
        {{error, _} = Error, _} -> Error;
        {_, none} -> {error, {no_endpoint, <<"idp_token_endpoint">>}};
        {{ok, IdToken}, Endpoint} -> exchanged(Http, Endpoint, IdToken, Found, Config, Scopes)
    end;
fields(Other, _Http, _Found, _Config, _Scopes) ->
    {error, {unknown_grant, Other}}.

jwt_bearer(Assertion) ->
    [{<<"grant_type">>, ?JWT_BEARER}, {<<"assertion">>, Assertion}].

%% RFC 8693 at the identity provider: the ID token for an ID-JAG whose
%% audience is the authorization server and whose resource the MCP server.
exchanged(Http, Endpoint, IdToken, #{issuer := Issuer} = Found, Config, Scopes) ->
    Client = case {maps:get(idp_client_id, Config, none), maps:get(idp_client_secret, Config, none)} of
                 {none, _} -> [];
                 {Id, none} -> [{<<"client_id">>, Id}];
                 {Id, Secret} -> [{<<"client_id">>, Id}, {<<"client_secret">>, Secret}]
             end,
    Body = [{<<"grant_type">>, ?TOKEN_EXCHANGE},
            {<<"requested_token_type">>, ?ID_JAG},
            {<<"audience">>, Issuer}]
        ++ [{<<"resource">>, R} || R <- [maps:get(resource, Found, none)], is_binary(R)]
        ++ [{<<"scope">>, iolist_to_binary(lists:join(<<" ">>, Scopes))} || Scopes =/= []]
        ++ [{<<"subject_token">>, IdToken}, {<<"subject_token_type">>, ?ID_TOKEN}]
        ++ Client,
    case mcp_oauth_http:post_form(Http, Endpoint, [], Body) of
        {ok, {200, Members}} ->
            case {lists:keyfind(<<"issued_token_type">>, 1, Members), lists:keyfind(<<"access_token">>, 1, Members)} of
                {{_, {string, ?ID_JAG}}, {_, {string, Jag}}} ->
                    case mcp_oauth_token:usable(Jag) of
                        ok -> {ok, jwt_bearer(Jag)};
                        {error, _} -> {error, {token_exchange_refused, 200, unusable_token}}
                    end;
                _ ->
                    {error, {token_exchange_refused, 200, not_an_id_jag}}
            end;
        {ok, {Status, Members}} ->
            {error, {token_exchange_refused, Status, mcp_oauth:error_code(Members)}};
        {error, _} = Error ->
            Error
    end.

%% @doc The assertion of `Source', trimmed of surrounding white space:
%% `{error, {assertion_unreadable, Where}}' when it cannot be read,
%% `{error, {assertion_unusable, Where}}' when it is not one.
-spec assertion(source() | none) -> {ok, binary()} | {error, term()}.
assertion(none) ->
    {error, no_assertion};
assertion({file, Path}) ->
    Where = {file, unicode:characters_to_binary(Path)},
    %% A name no file system holds (a NUL) is unreadable, not `badarg'.
    case catch file:open(Path, [read, binary, raw]) of
        {ok, Device} ->
            %% One byte more than the limit tells a longer file.
            Read = file:read(Device, ?MAX_ASSERTION_BYTES + 1),
            ok = file:close(Device),
            case Read of
                {ok, Bytes} -> checked(Bytes, Where);
                eof -> checked(<<>>, Where);
                {error, _} -> {error, {assertion_unreadable, Where}}
            end;
        {error, _} ->
            {error, {assertion_unreadable, Where}}
    end;
assertion({env, Var}) ->
    Where = {env, unicode:characters_to_binary(Var)},
    case catch os:getenv(Var) of
        Unset when not is_list(Unset) -> {error, {assertion_unreadable, Where}};
        Value -> checked(unicode:characters_to_binary(Value), Where)
    end;
assertion(Fun) when is_function(Fun, 0) ->
    checked(Fun(), harness);
assertion(_) ->
    {error, no_assertion}.

checked(Bytes, Where) when is_binary(Bytes) ->
    Trimmed = string:trim(Bytes),
    case byte_size(Trimmed) >= 1 andalso byte_size(Trimmed) =< ?MAX_ASSERTION_BYTES andalso jwt_chars(Trimmed) of
        true -> {ok, Trimmed};
        false -> {error, {assertion_unusable, Where}}
    end;
checked(_, Where) ->
    {error, {assertion_unusable, Where}}.

jwt_chars(<<>>) -> true;
jwt_chars(<<C, Rest/binary>>) when C >= $a, C =< $z; C >= $A, C =< $Z; C >= $0, C =< $9;
                                   C =:= $-; C =:= $_; C =:= $. -> jwt_chars(Rest);
jwt_chars(_) -> false.

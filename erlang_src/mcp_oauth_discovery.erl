%% @doc Where a protected MCP server sends its clients for tokens: the
%% `WWW-Authenticate' challenge, the protected-resource metadata (RFC 9728)
%% and the authorization server's metadata (RFC 8414, OpenID discovery),
%% with the 2025-03-26 fallbacks for a server that publishes neither.
%%
%% Invariants:
%% <ul>
%% <li>The protected-resource metadata's `resource' must name the MCP
%%     server: same scheme, host and port as its URL, and a path that is a
%%     whole-segment prefix of the URL's path. Otherwise the result is
%%     `{error, {resource_mismatch, Resource}}' and no authorization server
%%     is asked anything.</li>
%% <li>The authorization server's metadata must state, in `issuer', exactly
%%     (byte for byte, no normalisation) the issuer its well-known URL was
%%     built from. Otherwise `{error, {issuer_mismatch, Issuer}}': none of
%%     its endpoints is returned, so none is ever requested.</li>
%% <li>Only the documents' own well-known locations (and the URL the
%%     challenge names) are fetched; a path-bearing issuer is never looked
%%     up at the origin's root.</li>
%% </ul>
-module(mcp_oauth_discovery).

-export([challenge/1, max_challenge_bytes/0, discover/3, resource_matches/2, origin/1]).

-define(MAX_CHALLENGE_BYTES, 16384).
-export_type([challenge/0, discovered/0]).

-type challenge() :: #{resource_metadata => binary(), scope => [binary()], error => binary()}.
-type discovered() :: #{resource := binary() | none,
                        fallback => true,
                        issuer := binary(),
                        scopes_supported := [binary()] | none,
                        metadata := #{binary() => mcp_json:json()}}.

%% @doc The parameters of a `Bearer' challenge (a `WWW-Authenticate'
%% value): `resource_metadata', `scope' (split at spaces) and `error'.
%% Read in one pass (each step consumes at least one byte: linear in the
%% value's length whatever it holds); a value longer than
%% `max_challenge_bytes()' is not read at all (`mcp_http' refuses it).
-spec challenge(string() | binary() | none) -> challenge().
challenge(none) ->
    #{};
challenge(Header) when is_list(Header) ->
    case unicode:characters_to_binary(Header) of
        Text when is_binary(Text) -> challenge(Text);
        _ -> #{}
    end;
challenge(Text) when is_binary(Text), byte_size(Text) > ?MAX_CHALLENGE_BYTES ->
    #{};
challenge(Text) when is_binary(Text) ->
    lists:foldl(fun({<<"resource_metadata">>, V}, Acc) -> Acc#{resource_metadata => V};
                   ({<<"scope">>, V}, Acc) -> Acc#{scope => scopes(V)};
                   ({<<"error">>, V}, Acc) -> Acc#{error => V};
                   (_, Acc) -> Acc
                end, #{}, lists:reverse(auth_params(Text, []))).

%% @doc The longest `WWW-Authenticate' value read (16 KiB).
-spec max_challenge_bytes() -> pos_integer().
max_challenge_bytes() -> ?MAX_CHALLENGE_BYTES.

%% `name = value' pairs, newest first: a name of token characters, then
%% `=' and a token or a quoted string (backslash escapes); anything else
%% (a scheme, a token68, stray bytes) is skipped one piece at a time.
auth_params(<<>>, Acc) ->
    Acc;
auth_params(Text, Acc) ->
    case name(Text, <<>>) of
        {<<>>, <<_, Rest/binary>>} ->
            auth_params(Rest, Acc);
        {Name, AfterName} ->
            case skip_space(AfterName) of
                <<"=", AfterEq/binary>> ->
                    {Value, Rest} = value(skip_space(AfterEq)),
                    auth_params(Rest, [{string:lowercase(Name), Value} | Acc]);
                Rest ->
                    auth_params(Rest, Acc)
            end
    end.

name(<<C, Rest/binary>>, Acc) when C >= $a, C =< $z; C >= $A, C =< $Z; C >= $0, C =< $9; C =:= $_; C =:= $-; C =:= $. ->
    name(Rest, <<Acc/binary, C>>);
name(Rest, Acc) ->
    {Acc, Rest}.

skip_space(<<C, Rest/binary>>) when C =:= $\s; C =:= $\t -> skip_space(Rest);
skip_space(Rest) -> Rest.

value(<<$", Rest/binary>>) -> quoted(Rest, <<>>);
value(Text) -> bare(Text, <<>>).

quoted(<<>>, Acc) -> {Acc, <<>>};
quoted(<<$", Rest/binary>>, Acc) -> {Acc, Rest};
quoted(<<$\\, C, Rest/binary>>, Acc) -> quoted(Rest, <<Acc/binary, C>>);
quoted(<<C, Rest/binary>>, Acc) -> quoted(Rest, <<Acc/binary, C>>).

bare(<<C, _/binary>> = Rest, Acc) when C =:= $,; C =:= $\s; C =:= $\t -> {Acc, Rest};
bare(<<C, Rest/binary>>, Acc) -> bare(Rest, <<Acc/binary, C>>);
bare(<<>>, Acc) -> {Acc, <<>>}.

scopes(Text) -> [S || S <- binary:split(Text, <<" ">>, [global, trim_all])].

%% @doc The protected-resource metadata and the authorization server's,
%% for the MCP server at `ServerUrl' that answered with `Challenge'.
-spec discover(mcp_oauth_http:client(), binary(), challenge()) -> {ok, discovered()} | {error, term()}.
discover(Http, ServerUrl, Challenge) ->
    case resource_metadata(Http, ServerUrl, Challenge) of
        {ok, Prm} ->
            Resource = string_member(<<"resource">>, Prm),
            case {Resource, string_list(<<"authorization_servers">>, Prm)} of
                {none, _} -> {error, no_resource_in_metadata};
                {_, none} -> {error, no_authorization_server};
                {_, []} -> {error, no_authorization_server};
                {_, [Issuer | _]} ->
                    case resource_matches(Resource, ServerUrl) of
                        false -> {error, {resource_mismatch, Resource}};
                        true -> authorization_server(Http, Issuer, Resource, string_list(<<"scopes_supported">>, Prm))
                    end
            end;
        none ->
            %% 2025-03-26: no protected-resource metadata; the MCP server's
            %% origin is the authorization server.
            legacy(Http, origin(ServerUrl))
    end.

resource_metadata(Http, ServerUrl, Challenge) ->
    Named = [Url || #{resource_metadata := Url} <- [Challenge]],
    #{path := Path} = uri_string:parse(ServerUrl),
    Origin = origin(ServerUrl),
    WellKnown = case string:trim(Path, trailing, "/") of
                    <<>> -> [<<Origin/binary, "/.well-known/oauth-protected-resource">>];
                    Trimmed -> [<<Origin/binary, "/.well-known/oauth-protected-resource", Trimmed/binary>>,
                                <<Origin/binary, "/.well-known/oauth-protected-resource">>]
                end,
    first_document(Http, Named ++ WellKnown).

first_document(_Http, []) ->
    none;
first_document(Http, [Url | Rest]) ->
    case mcp_oauth_http:get_json(Http, Url) of
        {ok, {200, Members}} -> {ok, Members};
        _ -> first_document(Http, Rest)
    end.

authorization_server(Http, Issuer, Resource, Scopes) ->
    case metadata(Http, Issuer) of
        {ok, Metadata} -> {ok, #{resource => Resource, issuer => Issuer, scopes_supported => Scopes,
                                 metadata => Metadata}};
        {error, _} = Error -> Error
    end.

%% RFC 8414 and OpenID discovery: the well-known suffix inserted before
%% the issuer's path, then (OpenID) appended to it.
metadata(Http, Issuer) ->
    case uri_string:parse(Issuer) of
        #{path := Path} ->
            Origin = origin(Issuer),
            Candidates = case string:trim(Path, trailing, "/") of
                             <<>> -> [<<Origin/binary, "/.well-known/oauth-authorization-server">>,
                                      <<Origin/binary, "/.well-known/openid-configuration">>];
                             P -> [<<Origin/binary, "/.well-known/oauth-authorization-server", P/binary>>,
                                   <<Origin/binary, "/.well-known/openid-configuration", P/binary>>,
                                   <<Origin/binary, P/binary, "/.well-known/openid-configuration">>]
                         end,
            case first_document(Http, Candidates) of
                {ok, Members} -> issued_by(Issuer, Members);
                none -> {error, {no_authorization_server_metadata, mcp_http_target:shown_url(Issuer)}}
            end;
        _ ->
            {error, {bad_issuer, mcp_http_target:shown_url(Issuer)}}
    end.

issued_by(Issuer, Members) ->
    case string_member(<<"issuer">>, Members) of
        Issuer -> {ok, maps:from_list(Members)};
        Other -> {error, {issuer_mismatch, shown(Other)}}
    end.

shown(none) -> none;
shown(Url) -> mcp_http_target:shown_url(Url).

%% 2025-03-26: the origin's RFC 8414 metadata, else its default endpoints.
legacy(Http, Origin) ->
    case mcp_oauth_http:get_json(Http, <<Origin/binary, "/.well-known/oauth-authorization-server">>) of
        {ok, {200, Members}} ->
            case issued_by(Origin, Members) of
                {ok, Metadata} -> {ok, #{resource => none, issuer => Origin, scopes_supported => none,
                                         metadata => Metadata}};
                {error, _} = Error -> Error
            end;
        _ ->
            %% Endpoints no metadata states: `fallback', so that no
            %% credential of the configuration is sent to them (`mcp_oauth').
            {ok, #{resource => none, issuer => Origin, scopes_supported => none, fallback => true,
                   metadata => #{<<"authorization_endpoint">> => {string, <<Origin/binary, "/authorize">>},
                                 <<"token_endpoint">> => {string, <<Origin/binary, "/token">>},
                                 <<"registration_endpoint">> => {string, <<Origin/binary, "/register">>}}}}
    end.

%% @doc Whether the protected-resource metadata's `resource' names the
%% server at `ServerUrl': same scheme, host (case-insensitive) and port,
%% and a path that is the URL's path or a whole-segment prefix of it.
-spec resource_matches(binary(), binary()) -> boolean().
resource_matches(Resource, ServerUrl) ->
    case {uri_string:parse(Resource), uri_string:parse(ServerUrl)} of
        {#{scheme := S1, host := H1} = R, #{scheme := S2, host := H2} = U} ->
            string:lowercase(S1) =:= string:lowercase(S2)
                andalso string:lowercase(H1) =:= string:lowercase(H2)
                andalso port(R) =:= port(U)
                andalso not is_map_key(fragment, R)
                andalso path_prefix(maps:get(path, R, <<>>), maps:get(path, U, <<>>));
        _ ->
            false
    end.

port(#{port := Port}) -> Port;
port(#{scheme := Scheme}) ->
    case string:lowercase(Scheme) of
        <<"https">> -> 443;
        _ -> 80
    end.

path_prefix(Prefix0, Path0) ->
    Prefix = string:trim(Prefix0, trailing, "/"),
    Path = string:trim(Path0, trailing, "/"),
    case Path of
        Prefix -> true;
        <<Prefix:(byte_size(Prefix))/binary, "/", _/binary>> -> true;
        _ -> false
    end.

%% @doc `scheme://host[:port]' of a URL.
-spec origin(binary()) -> binary().
origin(Url) ->
    Parts = uri_string:parse(Url),
    case unicode:characters_to_binary(uri_string:recompose((maps:with([scheme, host, port], Parts))#{path => <<>>})) of
        Origin when is_binary(Origin) -> Origin;
        _ -> <<>>
    end.

string_member(Key, Members) ->
    case lists:keyfind(Key, 1, Members) of
        {_, {string, Value}} -> Value;
        _ -> none
    end.

string_list(Key, Members) ->
    case lists:keyfind(Key, 1, Members) of
        {_, {array, Items}} -> [S || {string, S} <- Items];
        _ -> none
    end.

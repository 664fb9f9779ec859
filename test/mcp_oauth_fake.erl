%% @doc Test helper: a protected MCP server and its authorization server
%% on one loopback port (`mcp_http_stub'), for the authorization tests.
%%
%% `/authorize' consents at once (302 to the redirect URI with a code, the
%% state and `iss'). `/mcp' answers 401 (with a `resource_metadata' challenge) to a request
%% without `Authorization: Bearer <the current token>', else `initialize',
%% `tools/list' (no tools), `tools/call' of any name (`called NAME') and
%% notifications (202). The protected-resource
%% metadata names `resource' and this origin as issuer; the authorization
%% server's metadata states `issuer'. `/token' answers with `token'
%% (a fun of the request: `{Status, Json}' or `{Status, Json, Headers}'),
%% `/idp/token' (an identity provider's) with `idp' likewise; `mcp' (a fun
%% of the request: a reply, or `default') answers `/mcp' before the
%% `accepted' check. Options: `resource',
%% `issuer' (overrides, for the mismatch tests; `issuer' may be a fun of the origin), `token', `accepted' (the
%% bearer `/mcp' accepts), `scopes_supported' (the authorization server's,
%% absent by default). Every request is reported to the starter
%% (`{stub_request, Pid, Request}').
-module(mcp_oauth_fake).

-export([start/1, url/1, base/1, stop/1, requests/1, paths/1, token_answer/2, answer/1]).

start(Options) ->
    mcp_http_stub:start(fun(Request) -> route(Request, Options) end).

url(Stub) -> list_to_binary(mcp_http_stub:url(Stub)).

base(Stub) -> iolist_to_binary(["http://127.0.0.1:", integer_to_list(mcp_http_stub:port(Stub))]).

%% Stops the server; its reports not read yet leave the caller's mailbox
%% (eunit runs later tests in the same process).
stop(#{pid := Pid} = Stub) ->
    Stopped = mcp_http_stub:stop(Stub),
    forget(Pid),
    Stopped.

forget(Pid) ->
    receive {stub_request, Pid, _} -> forget(Pid) after 0 -> ok end.

%% Every request to `Stub' reported so far (each once).
requests(#{pid := Pid} = Stub) ->
    receive {stub_request, Pid, Request} -> [Request | requests(Stub)] after 100 -> [] end.

%% `{Method, PathWithoutQuery}' of each request.
paths(Requests) ->
    [{M, hd(binary:split(P, <<"?">>))} || #{method := M, path := P} <- Requests].

%% A token endpoint's JSON answer granting `Access' for an hour.
token_answer(Access, Extra) ->
    {200, {object, [{<<"access_token">>, {string, Access}}, {<<"token_type">>, {string, <<"Bearer">>}},
                    {<<"expires_in">>, {int, 3600}} | Extra]}}.

route(#{method := Method, path := Path} = Request, Options) ->
    Base = origin(Request),
    case {Method, hd(binary:split(Path, <<"?">>))} of
        {'GET', <<"/.well-known/oauth-protected-resource", _/binary>>} ->
            json(200, {object, [{<<"resource">>, {string, maps:get(resource, Options, <<Base/binary, "/mcp">>)}},
                                {<<"authorization_servers">>, {array, [{string, Base}]}}]});
        {'GET', <<"/.well-known/oauth-authorization-server">>} ->
            Issuer = case maps:get(issuer, Options, Base) of
                         Of when is_function(Of, 1) -> Of(Base);
                         Given -> Given
                     end,
            json(200, {object, [{<<"issuer">>, {string, Issuer}},
                                {<<"authorization_endpoint">>, {string, <<Base/binary, "/authorize">>}},
                                {<<"token_endpoint">>, {string, <<Base/binary, "/token">>}},
                                {<<"registration_endpoint">>, {string, <<Base/binary, "/register">>}},
                                {<<"token_endpoint_auth_methods_supported">>, {array, [{string, <<"client_secret_basic">>}]}},
                                {<<"grant_types_supported">>, {array, [{string, <<"client_credentials">>},
                                                                       {string, <<"refresh_token">>}]}}
                                | [{<<"scopes_supported">>, {array, [{string, S} || S <- Scopes]}}
                                   || Scopes <- [maps:get(scopes_supported, Options, none)], Scopes =/= none]]});
        {'POST', <<"/token">>} ->
            json((maps:get(token, Options))(Request));
        {'POST', <<"/idp/token">>} ->
            json((maps:get(idp, Options))(Request));
        {'GET', <<"/authorize">>} ->
            %% Consent at once: back to the redirect URI with a code.
            [_, Query] = binary:split(Path, <<"?">>),
            Params = maps:from_list(uri_string:dissect_query(Query)),
            Back = uri_string:compose_query([{<<"code">>, <<"code-1">>}, {<<"state">>, maps:get(<<"state">>, Params)},
                                             {<<"iss">>, Base}]),
            {reply, 302, [{"location", [maps:get(<<"redirect_uri">>, Params), "?", Back]}], <<>>};
        {'POST', <<"/register">>} ->
            json(201, {object, [{<<"client_id">>, {string, <<"registered">>}}]});
        {'POST', <<"/mcp">>} ->
            mcp(Request, Base, Options);
        {'DELETE', <<"/mcp">>} ->
            {reply, 200, [], <<>>};
        _ ->
            {reply, 404, [], <<>>}
    end.

mcp(Request, Base, #{mcp := Answer} = Options) ->
    case Answer(Request) of
        default -> mcp(Request, Base, maps:remove(mcp, Options));
        Reply -> Reply
    end;
mcp(#{headers := Headers, body := Body}, Base, Options) ->
    Accepted = maps:get(accepted, Options, none),
    case proplists:get_value(<<"authorization">>, Headers) of
        <<"Bearer ", Token/binary>> when Token =:= Accepted -> answer(Body);
        _ ->
            {reply, 401, [{"www-authenticate",
                           ["Bearer resource_metadata=\"", Base, "/.well-known/oauth-protected-resource/mcp\""]}], <<>>}
    end.

answer(Body) ->
    {ok, {object, Members}} = mcp_json:decode(Body),
    case {proplists:get_value(<<"id">>, Members), proplists:get_value(<<"method">>, Members)} of
        {undefined, _} ->
            {reply, 202, [], <<>>};
        {Id, {string, <<"initialize">>}} ->
            result(Id, {object, [{<<"protocolVersion">>, {string, <<"2025-11-25">>}},
                                 {<<"capabilities">>, {object, [{<<"tools">>, {object, []}}]}},
                                 {<<"serverInfo">>, {object, [{<<"name">>, {string, <<"fake">>}},
                                                              {<<"version">>, {string, <<"1">>}}]}}]});
        {Id, {string, <<"tools/list">>}} ->
            result(Id, {object, [{<<"tools">>, {array, []}}]});
        {Id, {string, <<"tools/call">>}} ->
            %% Any tool: its name back as text.
            {object, Params} = proplists:get_value(<<"params">>, Members),
            {string, Name} = proplists:get_value(<<"name">>, Params),
            result(Id, {object, [{<<"content">>, {array, [{object, [{<<"type">>, {string, <<"text">>}},
                                                                    {<<"text">>, {string, <<"called ", Name/binary>>}}]}]}}]})
    end.

result(Id, Result) ->
    json(200, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id}, {<<"result">>, Result}]}).

json({Status, Json}) -> json(Status, Json);
json({Status, Json, Headers}) -> {reply, Status, [{"content-type", "application/json"} | Headers], mcp_json:encode(Json)}.

json(Status, Json) ->
    json({Status, Json, []}).

origin(#{headers := Headers}) ->
    <<"http://", (proplists:get_value(<<"host">>, Headers))/binary>>.

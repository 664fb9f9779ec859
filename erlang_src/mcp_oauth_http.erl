%% @doc The HTTP requests of the authorization flow (metadata documents,
%% registration, token requests), made one at a time and waited for, on an
%% `httpc' manager owned by the caller (`mcp_oauth_session').
%%
%% Invariants: only `https' URLs are requested, and plain `http' on the
%% loopback (`{error, {plaintext_endpoint, Url}}' otherwise); for an MCP
%% server that is not on this machine's loopback, no URL whose host is, or
%% resolves to, this machine (loopback, unspecified) or a link-local
%% address (cloud metadata services) is requested (`{error,
%% {local_endpoint, Url}}'), nor one on a private network unless the MCP
%% server is on one too (`{error, {private_endpoint, Url}}'): a remote
%% server cannot point the flow here or into the network this machine
%% sits in. The name is resolved once; the request goes to the address
%% checked, with the name in `host' and as the TLS server name, so a
%% second answer of the DNS (rebinding) is never used; no redirect
%% is followed (a 3xx is an answer like any other); TLS verifies the peer as the MCP transport does
%% (`mcp_http_target:connection_options/2'); an answer body larger than
%% `max_body_bytes()' is `{error, {body_too_long, Bytes}}' and never
%% decoded, and `httpc', which reads a whole answer with no limit of its
%% own, is measured while it reads (`mcp_http_watch') and stopped past
%% `mcp_http_watch:allowance/2' (the same error, with what it held); a JSON answer that is not an object is `{error, not_an_object}'.
%% Request bodies and `Authorization' headers hold secrets: they are
%% arguments here and never part of a result or an error.
-module(mcp_oauth_http).

-export([start/1, stop/1, get_json/2, post_form/4, post_form/5, post_json/3, max_body_bytes/0]).
-export_type([answer/0, client/0]).

-define(MAX_BODY_BYTES, 1048576).
-define(TIMEOUT_MS, 30000).
%% Past `httpc''s own timeout, how long an answer is still waited for.
-define(DEADLINE_GRACE_MS, 1000).

-type answer() :: {Status :: non_neg_integer(), [{binary(), mcp_json:json()}]}.
%% A stand-alone `httpc' manager, its handler table, and the kinds of
%% network the flow may reach (`mcp_http_address').
-opaque client() :: {pid(), atom(), any | [mcp_http_address:kind()]}.

%% @doc The largest answer body read.
-spec max_body_bytes() -> pos_integer().
max_body_bytes() -> ?MAX_BODY_BYTES.

%% @doc A stand-alone `httpc' manager linked to the caller, for the
%% authorization of the MCP server at `ServerUrl'.
-spec start(binary() | string()) -> {ok, client()} | {error, term()}.
start(ServerUrl) ->
    _ = application:ensure_all_started(ssl),
    case mcp_httpc_profiles:start_manager() of
        {ok, Manager, Profile} -> {ok, {Manager, mcp_http_watch:handler_table(Profile), reach(ServerUrl)}};
        {error, Reason} -> {error, Reason}
    end.

%% The kinds of network the flow may reach: any, for a server on this
%% machine's loopback (`localhost', 127/8, ::1); else public addresses,
%% and the kind of the server's own address when its URL gives an address
%% (a server on a private network may have its authorization server
%% there). A server named by a host name widens nothing: what its name
%% resolves to when checked need not be what the transport connects to
%% (a name with a public A and a loopback AAAA record, or one rebound).
reach(ServerUrl) ->
    case uri_string:parse(str(ServerUrl)) of
        #{host := Host} when is_list(Host) ->
            case {mcp_http_target:loopback(Host), inet:parse_address(string:trim(Host, both, "[]"))} of
                {true, _} -> any;
                {false, {ok, Address}} -> lists:usort([public, mcp_http_address:kind(Address)]);
                {false, {error, _}} -> [public]
            end;
        _ -> [public]
    end.

-spec stop(client()) -> ok.
stop({Manager, _Table, _Reach}) ->
    unlink(Manager),
    exit(Manager, shutdown),
    ok.

%% @doc GET a JSON document: `{ok, {Status, Members}}' for a JSON object
%% answered with any status.
-spec get_json(client(), string() | binary()) -> {ok, answer()} | {error, term()}.
get_json(Client, Url) ->
    without_headers(request(Client, get, {str(Url), [{"accept", "application/json"}]}, Url)).

%% @doc POST an `application/x-www-form-urlencoded' body.
-spec post_form(client(), string() | binary(), [{string(), string()}], [{binary(), binary()}]) ->
          {ok, answer()} | {error, term()}.
post_form(Client, Url, Headers, Fields) ->
    case post_form(Client, Url, Headers, Fields, "dpop-nonce") of
        {ok, {Status, Members, _Value}} -> {ok, {Status, Members}};
        {error, _} = Error -> Error
    end.

%% @doc `post_form/4', with the value of the answer's header `Wanted' (a
%% lowercase name; `none' when absent).
-spec post_form(client(), string() | binary(), [{string(), string()}], [{binary(), binary()}], string()) ->
          {ok, {non_neg_integer(), [{binary(), mcp_json:json()}], string() | none}} | {error, term()}.
post_form(Client, Url, Headers, Fields, Wanted) ->
    Body = uri_string:compose_query([{binary_to_list(K), binary_to_list(V)} || {K, V} <- Fields]),
    case request(Client, post, {str(Url), [{"accept", "application/json"} | Headers],
                                 "application/x-www-form-urlencoded", Body}, Url) of
        {ok, {Status, Members, AnswerHeaders}} -> {ok, {Status, Members, mcp_http_headers:value(Wanted, AnswerHeaders)}};
        {error, _} = Error -> Error
    end.

%% @doc POST a JSON document.
-spec post_json(client(), string() | binary(), mcp_json:json()) -> {ok, answer()} | {error, term()}.
post_json(Client, Url, Json) ->
    without_headers(request(Client, post, {str(Url), [{"accept", "application/json"}], "application/json",
                                            mcp_json:encode(Json)}, Url)).

without_headers({ok, {Status, Members, _Headers}}) -> {ok, {Status, Members}};
without_headers({error, _} = Error) -> Error.

request(Client, Method, Request, Url) ->
    case mcp_http_target:target(str(Url)) of
        {ok, Scheme, Host} ->
            case {reachable(Host, Client), Scheme =:= https orelse mcp_http_target:loopback(Host),
                  mcp_http_proxy:options(Scheme, Host)} of
                {_, _, {error, Proxy}} ->
                    {error, Proxy};
                {{ok, Pin}, true, {ok, Proxy}} ->
                    Options = [{timeout, ?TIMEOUT_MS} | mcp_http_target:connection_options(Scheme, Host)],
                    ok = httpc:set_options(proxied(Proxy), manager(Client)),
                    %% Through a proxy, the proxy resolves the name.
                    Direct = case Proxy of [] -> Pin; _ -> none end,
                    answer(sent(Client, Method, pinned(Request, Direct), Options), Client, Url);
                {{ok, _}, false, _} ->
                    {error, {plaintext_endpoint, mcp_http_target:shown_url(Url)}};
                {{error, Refused}, _, _} ->
                    {error, {Refused, mcp_http_target:shown_url(Url)}}
            end;
        {error, _} ->
            {error, {bad_url, mcp_http_target:shown_url(Url)}}
    end.

%% A host every address of which is of a kind the flow may reach, and the
%% address the request goes to (`none': as the URL says, for a server on
%% this machine). The address checked is the one connected to: the name
%% is not looked up again.
reachable(_Host, {_Manager, _Table, any}) ->
    {ok, none};
reachable(Host, {_Manager, _Table, Kinds}) ->
    case mcp_http_address:resolve(Host) of
        {ok, [{First, _} | _] = Addresses} ->
            case [Kind || {_, Kind} <- Addresses, not lists:member(Kind, Kinds)] of
                [] -> {ok, First};
                Refused ->
                    case lists:all(fun(Kind) -> Kind =:= private end, Refused) of
                        true -> {error, private_endpoint};
                        false -> {error, local_endpoint}
                    end
            end;
        {error, unresolved} ->
            {error, unresolved_endpoint}
    end.

%% The manager's proxy options for one request: the proxy found, or, for
%% a direct one, proxies that every host bypasses (`httpc' takes no
%% "none" once one was set, and the manager serves every host of the
%% flow: `"*."' is the domain suffix every host has).
proxied([]) -> [{Kind, {{"localhost", 1}, ["*."]}} || Kind <- [proxy, https_proxy]];
proxied(Proxy) -> Proxy.

manager({Manager, _Table, _Reach}) -> Manager.

%% The request to the checked address, naming the host in `host'.
pinned(Request, none) ->
    Request;
pinned({Url, Headers}, Address) ->
    {Pinned, Host} = mcp_http_address:pinned(Url, Address),
    {Pinned, [Host | Headers]};
pinned({Url, Headers, ContentType, Body}, Address) ->
    {Pinned, Host} = mcp_http_address:pinned(Url, Address),
    {Pinned, [Host | Headers], ContentType, Body}.

sent({Manager, _Table, _Reach}, Method, Request, Options) ->
    httpc:request(Method, Request, Options, [{sync, false}, {body_format, binary}], Manager).

%% The answer, waited for while its handler is measured.
answer({ok, RequestId}, Client, Url) ->
    case awaited(RequestId, Client, erlang:monotonic_time(millisecond) + ?TIMEOUT_MS + ?DEADLINE_GRACE_MS) of
        {ok, {{_, Status, _}, Headers, Body}} ->
            case decoded(Status, Body) of
                {ok, {Status, Members}} -> {ok, {Status, Members, Headers}};
                {error, _} = Error -> Error
            end;
        {ok, {error, Reason}} -> {error, {http_failed, mcp_http_target:shown_url(Url), failure(Reason)}};
        {error, _} = Error -> Error
    end;
answer({error, Reason}, _Client, Url) ->
    {error, {http_failed, mcp_http_target:shown_url(Url), failure(Reason)}}.

%% `httpc''s own timeout answers a request it keeps; one it drops (a 503
%% with a `Retry-After' of under 100 s, which it hands to its manager by a
%% registered name that a stand-alone manager has not) ends at `Deadline'
%% (`timeout'). What its handler holds is the bound meanwhile (our request
%% bodies are small: counted as none, the slack of the allowance covers
%% them).
awaited(RequestId, {Manager, Table, _Reach} = Client, Deadline) ->
    receive
        {http, {RequestId, Result}} -> {ok, Result}
    after mcp_http_watch:interval_ms() ->
        Allowance = mcp_http_watch:allowance(0, ?MAX_BODY_BYTES),
        case {mcp_http_watch:held_bytes(Table, RequestId), erlang:monotonic_time(millisecond) >= Deadline} of
            {{ok, Held}, _} when Held > Allowance ->
                cancelled(RequestId, Manager),
                {error, {body_too_long, Held}};
            {_, true} ->
                cancelled(RequestId, Manager),
                {ok, {error, timeout}};
            _ ->
                awaited(RequestId, Client, Deadline)
        end
    end.

cancelled(RequestId, Manager) ->
    ok = httpc:cancel_request(RequestId, Manager),
    receive {http, {RequestId, _}} -> ok after 0 -> ok end.

decoded(_Status, Body) when byte_size(Body) > ?MAX_BODY_BYTES ->
    {error, {body_too_long, byte_size(Body)}};
decoded(Status, <<>>) ->
    {ok, {Status, []}};
decoded(Status, Body) ->
    case mcp_json:decode(Body) of
        {ok, {object, Members}} -> {ok, {Status, Members}};
        {ok, _} -> {error, not_an_object};
        {error, _} when Status >= 300 -> {ok, {Status, []}};
        {error, _} -> {error, not_json}
    end.

%% `httpc''s reason, without anything of the request.
failure({failed_connect, _}) -> failed_connect;
failure(timeout) -> timeout;
failure(Other) when is_atom(Other) -> Other;
failure(_) -> failed.

str(Url) when is_binary(Url) -> binary_to_list(Url);
str(Url) -> Url.

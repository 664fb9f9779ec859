%% @doc The HTTP requests of the authorization flow (metadata documents,
%% registration, token requests), made one at a time and waited for, on an
%% `httpc' manager owned by the caller (`mcp_oauth_session').
%%
%% Invariants: only `https' URLs are requested, and plain `http' on the
%% loopback (`{error, {plaintext_endpoint, Url}}' otherwise); no redirect
%% is followed (a 3xx is an answer like any other); TLS verifies the peer as the MCP transport does
%% (`mcp_http:connection_options/2'); an answer body larger than
%% `max_body_bytes()' is `{error, {body_too_long, Bytes}}' and never
%% decoded; a JSON answer that is not an object is `{error, not_an_object}'.
%% Request bodies and `Authorization' headers hold secrets: they are
%% arguments here and never part of a result or an error.
-module(mcp_oauth_http).

-export([start/0, stop/1, get_json/2, post_form/4, post_json/3, max_body_bytes/0]).
-export_type([answer/0]).

-define(MAX_BODY_BYTES, 1048576).
-define(TIMEOUT_MS, 30000).

-type answer() :: {Status :: non_neg_integer(), [{binary(), mcp_json:json()}]}.

%% @doc The largest answer body read.
-spec max_body_bytes() -> pos_integer().
max_body_bytes() -> ?MAX_BODY_BYTES.

%% @doc A stand-alone `httpc' manager linked to the caller.
-spec start() -> {ok, pid()} | {error, term()}.
start() ->
    _ = application:ensure_all_started(ssl),
    case mcp_http:start_manager("mcp_oauth_") of
        {ok, Manager, _Profile} -> {ok, Manager};
        {error, Reason} -> {error, Reason}
    end.

-spec stop(pid()) -> ok.
stop(Manager) ->
    unlink(Manager),
    exit(Manager, shutdown),
    ok.

%% @doc GET a JSON document: `{ok, {Status, Members}}' for a JSON object
%% answered with any status.
-spec get_json(pid(), string() | binary()) -> {ok, answer()} | {error, term()}.
get_json(Manager, Url) ->
    request(Manager, get, {str(Url), [{"accept", "application/json"}]}, Url).

%% @doc POST an `application/x-www-form-urlencoded' body.
-spec post_form(pid(), string() | binary(), [{string(), string()}], [{binary(), binary()}]) ->
          {ok, answer()} | {error, term()}.
post_form(Manager, Url, Headers, Fields) ->
    Body = uri_string:compose_query([{binary_to_list(K), binary_to_list(V)} || {K, V} <- Fields]),
    request(Manager, post, {str(Url), [{"accept", "application/json"} | Headers],
                            "application/x-www-form-urlencoded", Body}, Url).

%% @doc POST a JSON document.
-spec post_json(pid(), string() | binary(), mcp_json:json()) -> {ok, answer()} | {error, term()}.
post_json(Manager, Url, Json) ->
    request(Manager, post, {str(Url), [{"accept", "application/json"}], "application/json",
                            mcp_json:encode(Json)}, Url).

request(Manager, Method, Request, Url) ->
    case uri_string:parse(str(Url)) of
        #{scheme := Scheme, host := Host} when Scheme =:= "http"; Scheme =:= "https" ->
            case Scheme =:= "https" orelse mcp_http:loopback(Host) of
                true ->
                    Options = [{timeout, ?TIMEOUT_MS} | mcp_http:connection_options(list_to_atom(Scheme), Host)],
                    case httpc:request(Method, Request, Options, [{body_format, binary}], Manager) of
                        {ok, {{_, Status, _}, _Headers, Body}} -> decoded(Status, Body);
                        {error, Reason} -> {error, {http_failed, mcp_http:shown_url(Url), failure(Reason)}}
                    end;
                false ->
                    {error, {plaintext_endpoint, mcp_http:shown_url(Url)}}
            end;
        _ ->
            {error, {bad_url, mcp_http:shown_url(Url)}}
    end.

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

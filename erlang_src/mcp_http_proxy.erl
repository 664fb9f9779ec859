%% @doc The proxy a request to a URL goes through, from the environment,
%% as curl reads it: `https_proxy' / `HTTPS_PROXY' for `https' URLs,
%% `http_proxy' (lower case only: a server can set `HTTP_PROXY' through a
%% CGI header, "httpoxy") for `http' ones, `all_proxy' / `ALL_PROXY' for
%% either; `no_proxy' / `NO_PROXY' lists hosts reached directly (`*' for
%% all; an entry matches the host itself and, as a domain, every host
%% under it; a leading `.' is ignored; IP addresses match exactly). This
%% machine's loopback (`mcp_http_target:loopback/1') is never proxied,
%% unlike curl: a plain `http' request to it carries headers and tokens
%% because it never leaves the machine, which a proxy would break (the
%% proxy reads them, and reaches its own loopback).
%%
%% A proxy is `http://HOST[:PORT]' (the scheme may be left out; the port
%% defaults to 1080, as curl's does). A proxy URL with credentials or
%% another scheme (`socks5://') is refused: `{error, {unsupported_proxy,
%% Variable}}', naming the variable, never its value. Through a proxy,
%% `https' is tunnelled (CONNECT) and TLS still checks the server's name
%% end to end; the proxy resolves the name, so the address checks of the
%% authorization flow (`mcp_http_address') see the local resolver's answer,
%% not the proxy's.
-module(mcp_http_proxy).

-export([options/2]).

-define(DEFAULT_PORT, 1080).

%% @doc The `httpc' manager options for requests to `Host' over `Scheme':
%% `[]' (direct), `[{proxy, ...}]' or `[{https_proxy, ...}]'.
-spec options(http | https, string()) -> {ok, list()} | {error, {unsupported_proxy, string()}}.
options(Scheme, Host) ->
    Name = string:lowercase(string:trim(Host, both, "[]")),
    case {mcp_http_target:loopback(Host) orelse bypassed(Name), configured(Scheme)} of
        {true, _} -> {ok, []};
        {false, none} -> {ok, []};
        {false, {Variable, Value}} ->
            case proxy(Value) of
                {ok, Proxy} when Scheme =:= https -> {ok, [{https_proxy, {Proxy, []}}]};
                {ok, Proxy} -> {ok, [{proxy, {Proxy, []}}]};
                error -> {error, {unsupported_proxy, Variable}}
            end
    end.

configured(https) -> first(["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]);
configured(http) -> first(["http_proxy", "all_proxy", "ALL_PROXY"]).

first([]) -> none;
first([Variable | Rest]) ->
    case os:getenv(Variable) of
        false -> first(Rest);
        "" -> first(Rest);
        Value -> {Variable, Value}
    end.

bypassed(Host) ->
    Entries = case first(["no_proxy", "NO_PROXY"]) of
                  none -> [];
                  {_, Value} -> string:lexemes(string:lowercase(Value), ", ")
              end,
    lists:any(fun("*") -> true;
                 (Entry) ->
                      Domain = string:trim(Entry, leading, "."),
                      Host =:= Domain orelse lists:suffix("." ++ Domain, Host)
              end, Entries).

proxy(Value) ->
    Url = case string:find(Value, "://") of
              nomatch -> "http://" ++ Value;
              _ -> Value
          end,
    case uri_string:parse(Url) of
        #{userinfo := _} -> error;
        #{scheme := Scheme, host := Host} = Parts when Host =/= "" ->
            case string:lowercase(Scheme) of
                "http" -> {ok, {string:trim(Host, both, "[]"), maps:get(port, Parts, ?DEFAULT_PORT)}};
                _ -> error
            end;
        _ -> error
    end.

%% @doc Where an HTTP request goes and how it is made, for the MCP
%% transport (`mcp_http') and the authorization flow (`mcp_oauth_http')
%% alike, knowing nothing of either: a URL's scheme and host, whether the
%% host is this machine's loopback, the URL as logs may show it, and the
%% `httpc' options of a connection (no redirect followed; TLS verified
%% against the system's CA store and the host name, its alerts never an
%% OTP report).
-module(mcp_http_target).

-export([target/1, loopback/1, shown_url/1, connection_options/2, options/3]).

%% @doc The scheme and host of an absolute `http'/`https' URL without
%% userinfo (the scheme compared case-insensitively).
-spec target(string()) -> {ok, http | https, string()} | {error, {bad_url, atom()}}.
target(Url) ->
    case uri_string:parse(Url) of
        #{userinfo := _} ->
            {error, {bad_url, userinfo_not_allowed}};
        #{scheme := Scheme, host := Host} when Host =/= "" ->
            case string:lowercase(Scheme) of
                "http" -> {ok, http, Host};
                "https" -> {ok, https, Host};
                _ -> {error, {bad_url, unsupported_scheme}}
            end;
        _ ->
            {error, {bad_url, not_absolute}}
    end.


%% @doc The URL as logs show it: scheme, host, port and path, without a
%% query or fragment (which may carry a token).
-spec shown_url(binary() | string()) -> binary().
shown_url(Url) ->
    case uri_string:parse(Url) of
        #{} = Parts ->
            case unicode:characters_to_binary(uri_string:recompose(maps:with([scheme, host, port, path], Parts))) of
                Shown when is_binary(Shown) -> Shown;
                _ -> <<"(not a URL)">>
            end;
        {error, _, _} -> <<"(not a URL)">>
    end.


%% @doc Whether a URL's host is this machine's loopback.
-spec loopback(string()) -> boolean().
loopback(Host) ->
    loopback_name(string:lowercase(Host)).

loopback_name("localhost") -> true;
loopback_name(Host) ->
    case inet:parse_address(string:trim(Host, both, "[]")) of
        {ok, {127, _, _, _}} -> true;
        {ok, {0, 0, 0, 0, 0, 0, 0, 1}} -> true;
        _ -> false
    end.

%% @doc The `httpc' options of a connection to `Host' with the defaults of
%% a spec (no redirect followed; TLS verified against the system's CA store).
-spec connection_options(http | https, string()) -> list().
connection_options(Scheme, Host) ->
    options(Scheme, Host, #{}).

%% @doc The `httpc' options of a connection to `Host' with a spec's
%% `connect_timeout_ms' (default 30 s) and `cacertfile' (default the
%% system's CA store).
-spec options(http | https, string(), map()) -> list().
options(http, _Host, Spec) ->
    [{autoredirect, false}, {connect_timeout, maps:get(connect_timeout_ms, Spec, 30000)}];
options(https, Host, Spec) ->
    CaCerts = case Spec of
                  #{cacertfile := File} -> [{cacertfile, File}];
                  _ -> [{cacerts, public_key:cacerts_get()}]
              end,
    %% `log_level': a failed handshake is this connection's typed error,
    %% never an OTP report on the VM's terminal.
    Tls = [{verify, verify_peer}, {depth, 10}, {server_name_indication, Host}, {log_level, none},
           {customize_hostname_check, [{match_fun, public_key:pkix_verify_hostname_match_fun(https)}]}
           | CaCerts],
    [{ssl, Tls} | options(http, Host, Spec)].

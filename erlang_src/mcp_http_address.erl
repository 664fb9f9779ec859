%% @doc Where a URL's host leads: its addresses, resolved once, and the
%% kind of network each is on, so that a request can be checked and then
%% made to the very address that was checked (no second lookup between
%% the check and the connection, no DNS rebinding window).
%%
%% Kinds: `loopback' (127/8, ::1, the name `localhost' and `*.localhost'),
%% `unspecified' (0.0.0.0, ::, which reach this machine), `link_local'
%% (169.254/16, fe80::/10: cloud metadata services), `private' (10/8,
%% 172.16/12, 192.168/16, 100.64/10, fc00::/7) and `public' (the rest).
%% An IPv4-mapped IPv6 address is the kind of its IPv4 address.
-module(mcp_http_address).

-export([resolve/1, kind/1, pinned/2]).
-export_type([kind/0]).

-type kind() :: loopback | unspecified | link_local | private | public.

%% @doc The addresses `Host' (a URL's host: a name, an IPv4 literal or a
%% bracketed IPv6 one) stands for, each with its kind.
-spec resolve(string()) -> {ok, [{inet:ip_address(), kind()}, ...]} | {error, unresolved}.
resolve(Host) ->
    Bare = string:lowercase(string:trim(Host, both, "[]")),
    Addresses = case inet:parse_address(Bare) of
                    {ok, Address} -> [Address];
                    {error, _} -> lookup(Bare, inet) ++ lookup(Bare, inet6)
                end,
    Named = Bare =:= "localhost" orelse lists:suffix(".localhost", Bare),
    case [{Address, case Named of true -> loopback; false -> kind(Address) end} || Address <- Addresses] of
        [] when Named -> {ok, [{{127, 0, 0, 1}, loopback}]};
        [] -> {error, unresolved};
        Kinds -> {ok, Kinds}
    end.

lookup(Name, Family) ->
    case inet:getaddrs(Name, Family) of
        {ok, Addresses} -> Addresses;
        {error, _} -> []
    end.

%% @doc The kind of network `Address' is on.
-spec kind(inet:ip_address()) -> kind().
kind({127, _, _, _}) -> loopback;
kind({0, 0, 0, 0}) -> unspecified;
kind({169, 254, _, _}) -> link_local;
kind({10, _, _, _}) -> private;
kind({172, B, _, _}) when B >= 16, B =< 31 -> private;
kind({192, 168, _, _}) -> private;
kind({100, B, _, _}) when B >= 64, B =< 127 -> private;
kind({_, _, _, _}) -> public;
kind({0, 0, 0, 0, 0, 0, 0, 1}) -> loopback;
kind({0, 0, 0, 0, 0, 0, 0, 0}) -> unspecified;
kind({0, 0, 0, 0, 0, 16#ffff, High, Low}) -> kind({High bsr 8, High band 255, Low bsr 8, Low band 255});
kind({First, _, _, _, _, _, _, _}) when First band 16#ffc0 =:= 16#fe80 -> link_local;
kind({First, _, _, _, _, _, _, _}) when First band 16#fe00 =:= 16#fc00 -> private;
kind({_, _, _, _, _, _, _, _}) -> public.

%% @doc `Url' with its host replaced by `Address', and the `host' header
%% that names the original host (and port, when the URL gives one): the
%% request goes to that address, TLS still checks the original name
%% (`mcp_http_target:connection_options/2' sets it as the server name).
-spec pinned(string(), inet:ip_address()) -> {string(), {string(), string()}}.
pinned(Url, Address) ->
    #{host := Host} = Parts = uri_string:parse(Url),
    Literal = case Address of
                  {_, _, _, _} -> inet:ntoa(Address);
                  _ -> "[" ++ inet:ntoa(Address) ++ "]"
              end,
    Port = case Parts of
               #{port := P} -> ":" ++ integer_to_list(P);
               _ -> ""
           end,
    HostHeader = case Parts of
                     #{port := _} -> Host ++ Port;
                     _ -> Host
                 end,
    Query = case Parts of
                #{query := Q} -> "?" ++ Q;
                _ -> ""
            end,
    {maps:get(scheme, Parts) ++ "://" ++ Literal ++ Port ++ maps:get(path, Parts, "") ++ Query, {"host", HostHeader}}.

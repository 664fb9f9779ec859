%% @doc The signed client assertion of `private_key_jwt' (RFC 7523 §2.2):
%% a JWT whose `iss' and `sub' are the client id and whose `aud' is the
%% authorization server's issuer, signed by `erlang-jose' (Debian) with the
%% client's private key (PEM).
%%
%% Invariants: each assertion lives five minutes and carries a fresh
%% random `jti'; the key and the assertion are returned to the caller
%% only. jose is given this module as its JSON codec (`encode/1',
%% `decode/1' over `mcp_json'), so signing needs no other JSON library.
-module(mcp_oauth_assertion).
-behaviour(jose_json).

-export([sign/4]).
-export([encode/1, decode/1]).

-define(LIFETIME_S, 300).

%% @doc A compact JWS, or `{error, bad_private_key}' (the key unread,
%% never shown).
-spec sign(binary(), binary(), binary(), binary()) -> {ok, binary()} | {error, bad_private_key}.
sign(ClientId, Audience, PrivateKeyPem, Algorithm) ->
    {ok, _} = application:ensure_all_started(jose),
    ok = jose:json_module(?MODULE),
    Now = erlang:system_time(second),
    Claims = #{<<"iss">> => ClientId, <<"sub">> => ClientId, <<"aud">> => Audience,
               <<"iat">> => Now, <<"exp">> => Now + ?LIFETIME_S,
               <<"jti">> => mcp_oauth:base64url(crypto:strong_rand_bytes(16))},
    try jose_jwk:from_pem(PrivateKeyPem) of
        Jwk when element(1, Jwk) =:= jose_jwk ->
            Signed = jose_jwt:sign(Jwk, #{<<"alg">> => Algorithm, <<"typ">> => <<"JWT">>}, Claims),
            {_, Compact} = jose_jws:compact(Signed),
            {ok, Compact};
        _ ->
            {error, bad_private_key}
    catch
        _:_ -> {error, bad_private_key}
    end.

%% @private jose's JSON codec: maps, binaries and integers as JSON.
-spec encode(term()) -> binary().
encode(Term) -> mcp_json:encode(to_json(Term)).

%% @private
-spec decode(binary()) -> term().
decode(Bytes) ->
    {ok, Json} = mcp_json:decode(Bytes),
    from_json(Json).

to_json(Map) when is_map(Map) -> {object, [{key(K), to_json(V)} || {K, V} <- lists:sort(maps:to_list(Map))]};
to_json(List) when is_list(List) -> {array, [to_json(V) || V <- List]};
to_json(true) -> {bool, true};
to_json(false) -> {bool, false};
to_json(null) -> null;
to_json(Int) when is_integer(Int) -> {int, Int};
to_json(Float) when is_float(Float) -> {float, Float};
to_json(Bin) when is_binary(Bin) -> {string, Bin};
to_json(Atom) when is_atom(Atom) -> {string, atom_to_binary(Atom)}.

key(K) when is_binary(K) -> K;
key(K) when is_atom(K) -> atom_to_binary(K).

from_json({object, Members}) -> maps:from_list([{K, from_json(V)} || {K, V} <- Members]);
from_json({array, Items}) -> [from_json(V) || V <- Items];
from_json({bool, B}) -> B;
from_json(null) -> null;
from_json({int, I}) -> I;
from_json({float, F}) -> F;
from_json({string, S}) -> S.

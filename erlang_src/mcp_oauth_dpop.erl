%% @doc DPoP (RFC 9449): the key pair a client proves possession of, the
%% proof JWT that goes in the `DPoP' header of a token request and of every
%% request that carries a DPoP-bound token, and the nonces servers ask
%% proofs to carry.
%%
%% Invariants:
%% <ul>
%% <li>The key is ES256 (P-256, OTP `crypto'), made per client (per
%%     connection's session) unless a stored token bound to it is reused;
%%     the private half lives in a closure (`key()'), so printing a state,
%%     a spec or a crash report shows none of it, and only `export/1' (for
%%     the token store) gives it out.</li>
%% <li>A proof: header `typ' `dpop+jwt', `alg' `ES256', `jwk' the public
%%     key (no private member); claims `jti' (16 random bytes: unique per
%%     proof), `htm' (the method), `htu' (the URL without query and
%%     fragment), `iat', `nonce' when the server gave one, `ath'
%%     (base64url SHA-256 of the access token) when a token goes with
%%     it. A proof is made for one request and never kept.</li>
%% <li>A nonce a server sends (`DPoP-Nonce') is used only when it is
%%     1 to `max_nonce_bytes()' visible ASCII characters without `"' or
%%     `\' (RFC 9449 §8.1, NQCHAR): it cannot break the proof's JSON or a
%%     header. Anything else is no nonce.</li>
%% <li>The authorization servers' nonces (`remember/3', `nonce_for/2')
%%     are kept per origin in a table of the process that runs the flows
%%     (`mcp_oauth_session'), at most `max_origins()' of them.</li>
%% </ul>
-module(mcp_oauth_dpop).

-export([new_key/0, export/1, import/1, proof/5, htu/1, ath/1, nonce/1, public_jwk/1,
         new_nonces/0, remember/3, nonce_for/2, max_nonce_bytes/0, max_origins/0]).
-export_type([key/0, nonces/0]).

-define(MAX_NONCE_BYTES, 512).
-define(MAX_ORIGINS, 16).

%% The key pair: `{PublicPoint, PrivateScalar}' inside a closure.
-opaque key() :: fun(() -> {binary(), binary()}).
%% The table of authorization-server nonces, by origin.
-opaque nonces() :: ets:table().

%% @doc The longest nonce used, in bytes.
-spec max_nonce_bytes() -> pos_integer().
max_nonce_bytes() -> ?MAX_NONCE_BYTES.

%% @doc How many authorization-server origins' nonces are kept.
-spec max_origins() -> pos_integer().
max_origins() -> ?MAX_ORIGINS.

%% @doc A fresh P-256 key pair.
-spec new_key() -> key().
new_key() ->
    {Public, Private} = crypto:generate_key(ecdh, secp256r1),
    fun() -> {Public, Private} end.

%% @doc The private key as the token store keeps it (base64url of the
%% scalar): for a token that outlives the VM, and only there.
-spec export(key()) -> binary().
export(Key) ->
    {_Public, Private} = Key(),
    mcp_oauth:base64url(Private).

%% @doc A stored key, or `error' for anything that is not one.
-spec import(term()) -> {ok, key()} | error.
import(Stored) when is_binary(Stored), byte_size(Stored) =:= 43 ->
    try base64:decode(<<<< <<(case C of $- -> $+; $_ -> $/; _ -> C end)>> || <<C>> <= Stored >>/binary, "=">>) of
        Private when byte_size(Private) =:= 32 ->
            {Public, _} = crypto:generate_key(ecdh, secp256r1, Private),
            {ok, fun() -> {Public, Private} end};
        _ -> error
    catch
        _:_ -> error
    end;
import(_) ->
    error.

%% @doc The public key as a JWK (RFC 7517, members in lexical order, as
%% RFC 7638's thumbprint hashes them).
-spec public_jwk(key()) -> mcp_json:json().
public_jwk(Key) ->
    {<<4, X:32/binary, Y:32/binary>>, _} = Key(),
    {object, [{<<"crv">>, {string, <<"P-256">>}}, {<<"kty">>, {string, <<"EC">>}},
              {<<"x">>, {string, mcp_oauth:base64url(X)}}, {<<"y">>, {string, mcp_oauth:base64url(Y)}}]}.

%% @doc A proof for one request: `Method' (`post', `get', `delete' or the
%% method's name), `Url', the server's nonce (or `none') and the access
%% token that goes with it (or `none').
-spec proof(key(), atom() | string() | binary(), binary() | string(), binary() | none, binary() | none) -> binary().
proof(Key, Method, Url, Nonce, Token) ->
    Header = {object, [{<<"alg">>, {string, <<"ES256">>}}, {<<"jwk">>, public_jwk(Key)},
                       {<<"typ">>, {string, <<"dpop+jwt">>}}]},
    Claims = {object, [{<<"jti">>, {string, mcp_oauth:base64url(crypto:strong_rand_bytes(16))}},
                       {<<"htm">>, {string, method(Method)}},
                       {<<"htu">>, {string, htu(Url)}},
                       {<<"iat">>, {int, erlang:system_time(second)}}]
                      ++ [{<<"nonce">>, {string, Nonce}} || is_binary(Nonce)]
                      ++ [{<<"ath">>, {string, ath(Token)}} || is_binary(Token)]},
    Input = <<(mcp_oauth:base64url(mcp_json:encode(Header)))/binary, ".",
              (mcp_oauth:base64url(mcp_json:encode(Claims)))/binary>>,
    {_Public, Private} = Key(),
    Der = crypto:sign(ecdsa, sha256, Input, [Private, secp256r1]),
    {'ECDSA-Sig-Value', R, S} = public_key:der_decode('ECDSA-Sig-Value', Der),
    <<Input/binary, ".", (mcp_oauth:base64url(<<R:256, S:256>>))/binary>>.

method(Method) when is_atom(Method) -> string:uppercase(atom_to_binary(Method));
method(Method) -> string:uppercase(unicode:characters_to_binary(Method)).

%% @doc The `htu' of a request URL: the URL without its query and
%% fragment (RFC 9449 §4.2); scheme and host as given.
-spec htu(binary() | string()) -> binary().
htu(Url) ->
    Text = unicode:characters_to_binary(Url),
    hd(binary:split(hd(binary:split(Text, <<"#">>)), <<"?">>)).

%% @doc The `ath' claim: base64url SHA-256 of the access token.
-spec ath(binary()) -> binary().
ath(Token) ->
    mcp_oauth:base64url(crypto:hash(sha256, Token)).

%% @doc A server's `DPoP-Nonce' value, if it may go into a proof.
-spec nonce(string() | binary() | none) -> {ok, binary()} | none.
nonce(none) ->
    none;
nonce(Value) when is_list(Value) ->
    case unicode:characters_to_binary(Value) of
        Text when is_binary(Text) -> nonce(Text);
        _ -> none
    end;
nonce(Value) when is_binary(Value), byte_size(Value) >= 1, byte_size(Value) =< ?MAX_NONCE_BYTES ->
    case nqchars(Value) of
        true -> {ok, Value};
        false -> none
    end;
nonce(_) ->
    none.

%% NQCHAR = %x21 / %x23-5B / %x5D-7E
nqchars(<<>>) -> true;
nqchars(<<C, Rest/binary>>) when C =:= 16#21; C >= 16#23, C =< 16#5B; C >= 16#5D, C =< 16#7E -> nqchars(Rest);
nqchars(_) -> false.

%% @doc An empty table of authorization-server nonces, owned by the caller.
-spec new_nonces() -> nonces().
new_nonces() ->
    ets:new(mcp_oauth_dpop_nonces, [set, private]).

%% @doc Keeps `Nonce' for the origin of `Url' (a table at `max_origins()'
%% is emptied first).
-spec remember(nonces(), binary(), binary()) -> ok.
remember(Table, Url, Nonce) ->
    Origin = mcp_oauth_discovery:origin(Url),
    case ets:member(Table, Origin) orelse ets:info(Table, size) < ?MAX_ORIGINS of
        true -> ok;
        false -> ets:delete_all_objects(Table)
    end,
    true = ets:insert(Table, {Origin, Nonce}),
    ok.

%% @doc The nonce kept for the origin of `Url', or `none'.
-spec nonce_for(nonces(), binary()) -> binary() | none.
nonce_for(Table, Url) ->
    case ets:lookup(Table, mcp_oauth_discovery:origin(Url)) of
        [{_, Nonce}] -> Nonce;
        [] -> none
    end.

%% @doc What a token endpoint's answer may put into our requests: the
%% access token (it becomes an `Authorization' header value), its type and
%% its lifetime, checked before the token is kept or sent.
%%
%% Invariants:
%% <ul>
%% <li>An access token is an RFC 6750 `b64token' (ALPHA, DIGIT and
%%     `-._~+/', then any number of `='), 1 to `max_token_bytes()' bytes;
%%     anything else (CR, LF, NUL, a space, a quote, a longer value) is
%%     `{token_unusable, malformed | too_long}' and never reaches a header
%%     or the token store. A stored record is checked again when loaded
%%     (`usable/1').</li>
%% <li>`token_type' is the one asked for, compared case-insensitively
%%     (RFC 6749 §5.1): `Bearer' for a client without DPoP (an answer
%%     without a type is read as Bearer), `DPoP' for a client that sent a
%%     DPoP proof. Any other type is `{token_type_unsupported, Type}': a
%%     `DPoP' token for a client that did not ask for one (bound to a key
%%     it does not hold) is never sent as Bearer, and a `Bearer' (or
%%     untyped) token for a client that asked for DPoP is refused, not
%%     used as a downgrade (RFC 9449 §5 lets such a client discard it; a
%%     client configured for sender-constrained tokens sends none that
%%     is not).</li>
%% <li>`expires_in' is used when it is an integer from 1 to
%%     `max_lifetime_s()' (a year); absent or anything else (0, negative,
%%     a float, a string, 2^70) is an unknown lifetime, held for
%%     `unknown_lifetime_s()' (one hour) before it is renewed.</li>
%% <li>A token is renewed before it expires by a margin of a quarter of its
%%     lifetime, at most `expiry_margin_s()' (60 s): a token of 60 s or
%%     less is still used for three quarters of its life.</li>
%% </ul>
-module(mcp_oauth_token).

-export([read/2, read/3, usable/1, renew_at/2, renewal_time/1, due/1,
         max_token_bytes/0, max_lifetime_s/0, unknown_lifetime_s/0, expiry_margin_s/0]).
-export_type([fault/0]).

-define(MAX_TOKEN_BYTES, 16384).
-define(MAX_LIFETIME_S, 31622400).
-define(UNKNOWN_LIFETIME_S, 3600).
-define(EXPIRY_MARGIN_S, 60).
-define(MAX_TYPE_BYTES, 32).

-type fault() :: {token_unusable, malformed | too_long} | {token_type_unsupported, binary()}.

%% @doc The longest access token accepted, in bytes.
-spec max_token_bytes() -> pos_integer().
max_token_bytes() -> ?MAX_TOKEN_BYTES.

%% @doc The longest `expires_in' believed, in seconds.
-spec max_lifetime_s() -> pos_integer().
max_lifetime_s() -> ?MAX_LIFETIME_S.

%% @doc How long a token of unknown lifetime is held before its renewal.
-spec unknown_lifetime_s() -> pos_integer().
unknown_lifetime_s() -> ?UNKNOWN_LIFETIME_S.

%% @doc The largest margin before expiry at which a token is renewed.
-spec expiry_margin_s() -> pos_integer().
expiry_margin_s() -> ?EXPIRY_MARGIN_S.

%% @doc The access token of a token answer's members, with the record
%% entries its lifetime gives (`expires_at', `renew_at', in seconds of
%% `erlang:system_time/1'), read at `Now'.
-spec read([{binary(), mcp_json:json()}], integer()) ->
          {ok, binary(), #{binary() => integer()}} | {error, fault() | no_access_token}.
read(Members, Now) ->
    read(Members, Now, bearer).

%% @doc `read/2' for a token of the binding asked for: `bearer', or
%% `dpop' (the request carried a DPoP proof).
-spec read([{binary(), mcp_json:json()}], integer(), bearer | dpop) ->
          {ok, binary(), #{binary() => integer()}} | {error, fault() | no_access_token}.
read(Members, Now, Binding) ->
    case {lists:keyfind(<<"access_token">>, 1, Members), token_type(Members, Binding)} of
        {_, {error, _} = Error} ->
            Error;
        {{_, {string, Access}}, ok} ->
            case usable(Access) of
                ok ->
                    Lifetime = lifetime(lists:keyfind(<<"expires_in">>, 1, Members)),
                    {ok, Access, #{<<"expires_at">> => Now + Lifetime, <<"renew_at">> => renew_at(Now, Lifetime)}};
                {error, _} = Error ->
                    Error
            end;
        {_, ok} ->
            {error, no_access_token}
    end.

token_type(Members, Binding) ->
    case {lists:keyfind(<<"token_type">>, 1, Members), Binding} of
        {false, bearer} -> ok;
        {false, dpop} -> {error, {token_type_unsupported, <<>>}};
        {{_, {string, Type}}, _} ->
            case {string:lowercase(Type), Binding} of
                {<<"bearer">>, bearer} -> ok;
                {<<"dpop">>, dpop} -> ok;
                _ -> {error, {token_type_unsupported, printable(Type)}}
            end;
        {{_, _}, _} -> {error, {token_type_unsupported, <<>>}}
    end.

printable(Type) ->
    Short = binary:part(Type, 0, min(byte_size(Type), ?MAX_TYPE_BYTES)),
    << <<C>> || <<C>> <= Short, C >= 16#21, C =< 16#7E >>.

lifetime({_, {int, Seconds}}) when Seconds >= 1, Seconds =< ?MAX_LIFETIME_S -> Seconds;
lifetime(_) -> ?UNKNOWN_LIFETIME_S.

%% @doc Whether `Token' may be an `Authorization' header's credentials.
-spec usable(term()) -> ok | {error, fault()}.
usable(Token) when is_binary(Token), byte_size(Token) > ?MAX_TOKEN_BYTES ->
    {error, {token_unusable, too_long}};
usable(Token) when is_binary(Token), byte_size(Token) > 0 ->
    case b64token(Token) of
        true -> ok;
        false -> {error, {token_unusable, malformed}}
    end;
usable(_) ->
    {error, {token_unusable, malformed}}.

%% 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" (RFC 6750 §2.1).
b64token(<<C, Rest/binary>>) when C >= $a, C =< $z; C >= $A, C =< $Z; C >= $0, C =< $9;
                                  C =:= $-; C =:= $.; C =:= $_; C =:= $~; C =:= $+; C =:= $/ ->
    b64token_rest(Rest);
b64token(_) ->
    false.

b64token_rest(<<>>) -> true;
b64token_rest(<<$=, Rest/binary>>) -> padding(Rest);
b64token_rest(<<_, _/binary>> = Token) -> b64token(Token).

padding(<<>>) -> true;
padding(<<$=, Rest/binary>>) -> padding(Rest);
padding(_) -> false.

%% @doc When a token issued at `Now' for `Lifetime' seconds is renewed.
-spec renew_at(integer(), pos_integer()) -> integer().
renew_at(Now, Lifetime) when is_integer(Now), is_integer(Lifetime) ->
    Margin = case Lifetime div 4 of
                 Quarter when Quarter < ?EXPIRY_MARGIN_S -> Quarter;
                 _ -> ?EXPIRY_MARGIN_S
             end,
    Now + Lifetime - Margin.

%% @doc When the token of a stored record is renewed: its `renew_at', or,
%% for a record kept before `renew_at' existed, its `expires_at' less the
%% margin; `none' for a token without either (used until refused).
-spec renewal_time(#{binary() => term()}) -> integer() | none.
renewal_time(#{<<"renew_at">> := At}) when is_integer(At) -> At;
renewal_time(#{<<"expires_at">> := At}) when is_integer(At) -> At - ?EXPIRY_MARGIN_S;
renewal_time(_) -> none.

%% @doc Whether the token of a stored record is due for renewal now.
-spec due(#{binary() => term()}) -> boolean().
due(Record) ->
    case renewal_time(Record) of
        none -> false;
        At -> At =< erlang:system_time(second)
    end.

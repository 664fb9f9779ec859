%% @doc The authorization layer of the HTTP transport: what `mcp_http'
%% asks before it sends (`before_send/1', `headers/1') and tells after an
%% answer (`challenged/4', `succeeded/1'), and the token session's answers
%% it hands over (`answer/2'). The token, its expiry and the flows belong
%% to `mcp_oauth_session' (one process per connection); this value holds
%% the token as a closure, the pending question and the count of
%% authorizations in a row. It builds no HTTP request and holds no message:
%% the transport keeps the messages that wait for a token.
%%
%% Invariants:
%% <ul>
%% <li>One question to the session at a time; every message sent meanwhile
%%     waits (`before_send/1' answers `wait').</li>
%% <li>A token due for renewal (`mcp_oauth_token') is renewed before the
%%     next message goes out; a renewal that fails sends the messages
%%     without a token, so the server's challenge starts an
%%     authorization.</li>
%% <li>At most `max_authorizations()' authorizations in a row without a
%%     request answered 2xx; the next challenge is `{authorization_failed,
%%     too_many_challenges}'.</li>
%% <li>A connection over plain `http' off the loopback (`refused') never
%%     sends a token, and a challenge there is `{authorization_failed,
%%     {plaintext_headers, Host}}'.</li>
%% <li>With DPoP (`dpop => true' in `oauth'), a token goes as
%%     `Authorization: DPoP <token>' with a `DPoP' proof for the request's
%%     method and URL (`mcp_oauth_dpop'), carrying the resource server's
%%     nonce once it gave one. A 401 `use_dpop_nonce' with a usable
%%     `DPoP-Nonce' sends the requests again once with that nonce, asking
%%     the session nothing; another before a request is answered 2xx is
%%     `{authorization_failed, dpop_nonce_refused}', and one whose nonce is
%%     unusable `{authorization_failed, dpop_nonce_unusable}'.</li>
%% <li>A `WWW-Authenticate' longer than
%%     `mcp_oauth_discovery:max_challenge_bytes()' is not read:
%%     `{authorization_failed, {challenge_too_long, Bytes}}'.</li>
%% </ul>
-module(mcp_http_auth).

-export([start/3, stop/1, headers/3, before_send/1, waiting/1, challenged/4, answer/2, succeeded/1,
         max_authorizations/0]).
-export_type([auth/0]).

-define(MAX_AUTHORIZATIONS, 3).

-record(auth, {session :: pid(),
               %% The flow's HTTP client: ours (linked to the transport's
               %% process), so that stopping it ends a flow under way.
               http :: mcp_oauth_http:client(),
               bearer = none :: mcp_oauth_session:sealed() | none,
               generation = 0 :: non_neg_integer(),
               %% When the token is due for renewal (`mcp_oauth_token').
               renew_at = none :: integer() | none,
               %% The session's answer awaited (`gen_server:send_request/2'),
               %% or the resend after a nonce (`{nonce, Ref}', a message to
               %% ourselves), and what was asked: a renewal, or an answer
               %% to a challenge.
               pending = none :: none | gen_server:request_id() | {nonce, reference()},
               asked = refresh :: refresh | challenge,
               %% Authorizations in a row without a request answered 2xx.
               attempts = 0 :: non_neg_integer(),
               refused = none :: none | {plaintext_headers, binary()},
               %% The DPoP key of the session's tokens (`none': Bearer), the
               %% resource server's nonce, and whether the requests went
               %% again for a nonce since the last one answered 2xx.
               dpop = none :: none | mcp_oauth_dpop:key(),
               nonce = none :: none | binary(),
               nonce_retried = false :: boolean()}).

-opaque auth() :: #auth{}.

%% @doc Authorizations in a row, without a request answered 2xx, before
%% `{authorization_failed, too_many_challenges}'.
-spec max_authorizations() -> pos_integer().
max_authorizations() -> ?MAX_AUTHORIZATIONS.

%% @doc The layer of a spec with `oauth' (else `none'): a token session
%% linked to the caller, the stored token (if any) sent from the first
%% request on. `Refused': why no token may go to this server, or `none'.
-spec start(binary(), map(), none | {plaintext_headers, binary()}) -> {ok, auth() | none} | {error, {oauth, term()}}.
start(Url, #{oauth := OAuth}, Refused) ->
    Config = case OAuth of
                 Sealed when is_function(Sealed, 0) -> Sealed;
                 Map -> fun() -> Map end
             end,
    case mcp_oauth_http:start(Url) of
        {ok, Http} ->
            case mcp_oauth_session:start_link(Url, Config, Http) of
                {ok, Session} ->
                    {ok, granted(mcp_oauth_session:current(Session),
                                 #auth{session = Session, http = Http, refused = Refused,
                                       dpop = mcp_oauth_session:dpop_key(Session)})};
                {error, Reason} ->
                    ok = mcp_oauth_http:stop(Http),
                    {error, {oauth, Reason}}
            end;
        {error, Reason} ->
            {error, {oauth, Reason}}
    end;
start(_Url, _Spec, _Refused) ->
    {ok, none}.

granted({ok, Bearer, Generation, RenewAt}, Auth) ->
    Auth#auth{bearer = Bearer, generation = Generation, renew_at = RenewAt};
granted(none, Auth) ->
    Auth.

-spec stop(auth() | none) -> ok.
stop(none) ->
    ok;
stop(#auth{session = Session, http = Http}) ->
    %% The flow's client first (every request of a flow under way fails at
    %% once), then the session is killed, not asked: inside a flow (a
    %% consent wait of minutes) it would read a shutdown only after it,
    %% and go on sending the client's credentials for a client that is
    %% gone. Nothing it holds outlives it but its loopback listener, which
    %% closes with it.
    ok = mcp_oauth_http:stop(Http),
    unlink(Session),
    exit(Session, kill),
    ok.

%% @doc The `Authorization' header of a request (`Method', `Url'), if a
%% token may go, and with DPoP its `DPoP' proof.
-spec headers(auth() | none, atom(), string() | binary()) -> [{string(), string()}].
headers(#auth{bearer = Bearer, refused = none, dpop = none}, _Method, _Url) when is_function(Bearer, 0) ->
    [{"authorization", "Bearer " ++ binary_to_list(Bearer())}];
headers(#auth{bearer = Bearer, refused = none, dpop = Key, nonce = Nonce}, Method, Url) when is_function(Bearer, 0) ->
    Token = Bearer(),
    [{"authorization", "DPoP " ++ binary_to_list(Token)},
     {"dpop", binary_to_list(mcp_oauth_dpop:proof(Key, Method, Url, Nonce, Token))}];
headers(_, _Method, _Url) ->
    [].

%% @doc Whether a message may go now: `send', `wait' (a question is
%% pending: the message waits for its answer), or `{asked, Auth}' (the
%% token is due: a renewal was asked, and the message waits for it).
-spec before_send(auth() | none) -> send | wait | {asked, auth()}.
before_send(none) -> send;
before_send(#auth{refused = {_, _}}) -> send;
before_send(#auth{pending = Pending}) when Pending =/= none -> wait;
before_send(#auth{bearer = Bearer, renew_at = At} = Auth) when Bearer =/= none, is_integer(At) ->
    case At =< erlang:system_time(second) of
        true -> {asked, ask(refresh, Auth)};
        false -> send
    end;
before_send(_) -> send.

%% @doc Whether a question to the session is pending.
-spec waiting(auth() | none) -> boolean().
waiting(#auth{pending = Pending}) -> Pending =/= none;
waiting(none) -> false.

%% Asks the session for a token, without waiting: `Why' is a challenge or
%% `refresh'.
ask(Why, #auth{session = Session, generation = Generation, attempts = Attempts} = Auth) ->
    Request = gen_server:send_request(Session, {authorize, Why, Generation}),
    Asked = case Why of
                refresh -> refresh;
                _ -> challenge
            end,
    Auth#auth{pending = Request, asked = Asked, attempts = Attempts + 1}.

%% @doc A 401, or a 403, to a request: `{hold, Auth}' (the request waits
%% for a new token, or goes again with the server's DPoP nonce) or
%% `{fault, Reason}'. `Headers' are the answer's (its `WWW-Authenticate'
%% and `DPoP-Nonce' are read); `Resendable', whether the request can go
%% again.
-spec challenged(auth(), 401 | 403, [{string(), string()}], boolean()) -> {hold, auth()} | {fault, term()}.
challenged(#auth{refused = {_, _} = Refused}, _Status, _Headers, _Resendable) ->
    {fault, {authorization_failed, Refused}};
challenged(#auth{dpop = Key} = Auth, 401, Headers, true) when Key =/= none ->
    Value = mcp_http_headers:value("www-authenticate", Headers),
    case Value =/= none andalso length(Value) =< mcp_oauth_discovery:max_challenge_bytes()
        andalso maps:get(error, mcp_oauth_discovery:challenge(Value), none) =:= <<"use_dpop_nonce">> of
        true -> nonce_challenged(mcp_oauth_dpop:nonce(mcp_http_headers:value("dpop-nonce", Headers)), Auth);
        false -> challenged_by(Auth, 401, Value, true)
    end;
challenged(Auth, Status, Headers, Resendable) ->
    challenged_by(Auth, Status, mcp_http_headers:value("www-authenticate", Headers), Resendable).

%% `use_dpop_nonce' (RFC 9449 §9): the requests go again once with the
%% nonce given, by a message to ourselves (`answer/2').
nonce_challenged(none, _Auth) ->
    {fault, {authorization_failed, dpop_nonce_unusable}};
nonce_challenged({ok, Nonce}, #auth{pending = Pending} = Auth) when Pending =/= none ->
    {hold, Auth#auth{nonce = Nonce}};
nonce_challenged({ok, _Nonce}, #auth{nonce_retried = true}) ->
    {fault, {authorization_failed, dpop_nonce_refused}};
nonce_challenged({ok, Nonce}, Auth) ->
    Ref = make_ref(),
    self() ! {?MODULE, Ref, nonce},
    {hold, Auth#auth{nonce = Nonce, nonce_retried = true, pending = {nonce, Ref}}}.

challenged_by(Auth, Status, Value, Resendable) ->
    Length = case Value of
                 none -> 0;
                 _ -> length(Value)
             end,
    case Length > mcp_oauth_discovery:max_challenge_bytes() of
        true ->
            {fault, {authorization_failed, {challenge_too_long, Length}}};
        false ->
            Challenge = mcp_oauth_discovery:challenge(Value),
            Scope = maps:get(error, Challenge, none) =:= <<"insufficient_scope">>,
            case Auth of
                _ when Status =:= 403, not Scope -> {fault, {http_status, Status}};
                _ when not Resendable -> {fault, {http_status, Status}};
                #auth{pending = Pending} when Pending =/= none -> {hold, Auth};
                #auth{attempts = Attempts} when Attempts >= ?MAX_AUTHORIZATIONS ->
                    {fault, {authorization_failed, too_many_challenges}};
                #auth{} -> {hold, ask(Challenge, Auth)}
            end
    end.

%% @doc The session's answer, if `Info' is it: `{resend, Auth}' (the
%% messages held go out, with the new token or, after a renewal that
%% failed, without one) or `{fault, Reason, Auth}' (they are dropped).
-spec answer(auth() | none, term()) -> not_mine | {resend, auth()} | {fault, term(), auth()}.
answer(#auth{pending = {nonce, Ref}} = Auth, {?MODULE, Ref, nonce}) ->
    {resend, Auth#auth{pending = none}};
answer(#auth{pending = {nonce, _}}, _Info) ->
    not_mine;
answer(#auth{pending = Pending} = Auth, Info) when Pending =/= none ->
    case gen_server:check_response(Info, Pending) of
        {reply, Reply} -> answered(Reply, Auth#auth{pending = none});
        {error, {Reason, _}} -> answered({error, {session_down, Reason}}, Auth#auth{pending = none});
        no_reply -> not_mine
    end;
answer(_Auth, _Info) ->
    not_mine.

answered({ok, Bearer, Generation, RenewAt}, Auth) ->
    {resend, Auth#auth{bearer = Bearer, generation = Generation, renew_at = RenewAt}};
answered({error, _Reason}, #auth{asked = refresh} = Auth) ->
    {resend, Auth#auth{bearer = none}};
answered({error, Reason}, Auth) ->
    {fault, {authorization_failed, Reason}, Auth}.

%% @doc A request answered 2xx ends a run of authorizations.
-spec succeeded(auth() | none) -> auth() | none.
succeeded(#auth{} = Auth) -> Auth#auth{attempts = 0, nonce_retried = false};
succeeded(none) -> none.

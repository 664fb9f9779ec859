%% @doc The authorization of one remote MCP server for one client: the
%% token record (loaded from and saved to the token store), and the flows
%% that renew it (`mcp_oauth'), run one at a time.
%%
%% Invariants:
%% <ul>
%% <li>One flow at a time per session: refreshes and authorizations run in
%%     this process, so any number of concurrent callers cause one refresh;
%%     a caller whose token is older than the session's (`generation')
%%     gets the newer token without a new flow.</li>
%% <li>The configuration (client secret, private key) and the record
%%     (tokens) live only inside closures in the state, so `sys:get_state',
%%     crash reports and `format_status' show none of them; a token leaves
%%     this process only inside a closure (`sealed()').</li>
%% <li>A token store that cannot be read safely (`mcp_oauth_token_store')
%%     stops the session at start with that error.</li>
%% <li>A refresh token refused by the server is forgotten (and the stored
%%     record with it); the session then needs a new authorization.</li>
%% <li>A server's challenge is answered with a token: the one held when it
%%     is newer than the caller's and not due, else a renewal, else (no
%%     refresh token, or a renewal refused) a new authorization.</li>
%% <li>With `dpop => true' in the configuration, the session holds one DPoP
%%     key (`mcp_oauth_dpop'): the stored record's when it has one, else a
%%     new one, kept in the record (and so in the token store, for a
%%     token that outlives the VM) with the token bound to it. Every
%%     token request carries a proof of it; a token is held only of the
%%     binding configured (`token_type' DPoP with DPoP, Bearer without):
%%     a stored token of the other binding is never handed out.</li>
%% </ul>
-module(mcp_oauth_session).
-behaviour(gen_server).

-export([start_link/2, start_link/3, stop/1, current/1, bearer/1, authorize/3, dpop_key/1]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2, format_status/1]).
-export_type([sealed/0, grant/0]).

%% A token inside a closure: calling it gives the token.
-type sealed() :: fun(() -> binary()).
%% `RenewAt': when the token is due for renewal (`mcp_oauth_token').
-type grant() :: {ok, sealed(), Generation :: non_neg_integer(), RenewAt :: integer() | none}.

-record(session, {url :: binary(),
                  config :: fun(() -> mcp_oauth:config()),
                  http :: mcp_oauth_http:client(),
                  %% Whether `http' is this session's to stop.
                  owned :: boolean(),
                  record :: fun(() -> mcp_oauth_token_store:record() | none),
                  generation = 0 :: non_neg_integer(),
                  %% The DPoP key and the authorization servers' nonces,
                  %% for a configuration with `dpop => true'.
                  dpop = none :: none | {mcp_oauth_dpop:key(), mcp_oauth_dpop:nonces()}}).

-spec start_link(binary(), mcp_oauth:config() | fun(() -> mcp_oauth:config())) -> {ok, pid()} | {error, term()} | ignore.
start_link(ServerUrl, Config) ->
    start_link(ServerUrl, Config, own).

%% @doc `start_link/2' with the flow's HTTP client given (`own': the session
%% starts and stops its own). A client given belongs to the caller, who
%% can stop it (and so every request of a flow under way) while the
%% session is busy.
-spec start_link(binary(), mcp_oauth:config() | fun(() -> mcp_oauth:config()), own | mcp_oauth_http:client()) ->
          {ok, pid()} | {error, term()} | ignore.
start_link(ServerUrl, Config, Http) when is_map(Config) ->
    start_link(ServerUrl, fun() -> Config end, Http);
start_link(ServerUrl, Config, Http) ->
    %% The store is read here, so that a refused one is an error of the
    %% caller's, not a session that dies at start.
    Url = unicode:characters_to_binary(ServerUrl),
    case mcp_oauth_token_store:load(maps:get(store, Config(), none), Url) of
        {error, Reason} -> {error, Reason};
        {ok, Stored} -> gen_server:start_link(?MODULE, {Url, Config, Stored, Http}, []);
        none -> gen_server:start_link(?MODULE, {Url, Config, none, Http}, [])
    end.

-spec stop(pid()) -> ok.
stop(Session) ->
    gen_server:stop(Session).

%% @doc The token held, without any request: `none' when there is none.
-spec current(pid()) -> grant() | none.
current(Session) ->
    gen_server:call(Session, current, infinity).

%% @doc The DPoP key of the session's tokens, or `none' without DPoP.
-spec dpop_key(pid()) -> mcp_oauth_dpop:key() | none.
dpop_key(Session) ->
    gen_server:call(Session, dpop_key, infinity).

%% @doc A token that is not expired: the one held, or a refreshed one.
-spec bearer(pid()) -> grant() | {error, term()}.
bearer(Session) ->
    gen_server:call(Session, {authorize, refresh, -1}, infinity).

%% @doc A new token after the server refused the one of `Generation' with
%% `Challenge' (`mcp_oauth_discovery:challenge/1'), or `refresh' for an
%% expired one. Callers that cannot wait call it with
%% `gen_server:send_request/2'.
-spec authorize(pid(), mcp_oauth_discovery:challenge() | refresh, integer()) -> grant() | {error, term()}.
authorize(Session, Challenge, Generation) ->
    gen_server:call(Session, {authorize, Challenge, Generation}, infinity).

%%% ------------------------------------------------------------- server

init({Url, Config, Record, Given}) ->
    %% The `httpc' manager's start may fail on a busy profile name, as an
    %% exit of the linked process: a message here, not this session's end.
    process_flag(trap_exit, true),
    {Http, Owned} = case Given of
                        own -> {ok, Started} = mcp_oauth_http:start(Url), {Started, true};
                        _ -> {Given, false}
                    end,
    %% DPoP only when asked for by `true' (anything else is Bearer).
    Dpop = case maps:get(dpop, Config(), false) of
               true -> {stored_key(Record), mcp_oauth_dpop:new_nonces()};
               _ -> none
           end,
    {ok, #session{url = Url, config = Config, http = Http, owned = Owned, record = fun() -> Record end,
                  generation = case Record of none -> 0; _ -> 1 end, dpop = Dpop}}.

%% The key a stored record's token is bound to, else a new one.
stored_key(#{<<"dpop_key">> := Stored}) ->
    case mcp_oauth_dpop:import(Stored) of
        {ok, Key} -> Key;
        error -> mcp_oauth_dpop:new_key()
    end;
stored_key(_) ->
    mcp_oauth_dpop:new_key().

%% The configuration the flows get: the caller's, with the DPoP key.
config(#session{config = Config, dpop = none}) -> Config();
config(#session{config = Config, dpop = Dpop}) -> (Config())#{dpop_proof => Dpop}.

handle_call(current, _From, Session) ->
    {reply, grant(Session), Session};
handle_call(dpop_key, _From, #session{dpop = Dpop} = Session) ->
    {reply, case Dpop of {Key, _} -> Key; none -> none end, Session};
handle_call({authorize, Challenge, Generation}, _From, Session) ->
    %% A flow that fails on a peer's answer in a way not foreseen ends as
    %% an error naming where, never with the terms it held.
    try authorized(Challenge, Generation, Session) of
        {Reply, Next} -> {reply, Reply, Next}
    catch
        Class:_:Stack ->
            Where = [{Module, Function} || {Module, Function, _, _} <- lists:sublist(Stack, 1)],
            {reply, {error, {internal, Class, Where}}, Session}
    end.

handle_cast(_Message, Session) ->
    {noreply, Session}.

handle_info(_Message, Session) ->
    {noreply, Session}.

terminate(_Reason, #session{http = Http, owned = true}) ->
    mcp_oauth_http:stop(Http);
terminate(_Reason, #session{owned = false}) ->
    ok.

format_status(Status) ->
    Status.

%% The token held, if it may go into a header (a stored record is checked
%% again here: `mcp_oauth_token:usable/1').
grant(#session{record = Record, generation = Generation} = Session) ->
    case Record() of
        #{<<"access_token">> := Access} = Held ->
            case usable(Held, Session) of
                true -> {ok, fun() -> Access end, Generation, mcp_oauth_token:renewal_time(Held)};
                false -> none
            end;
        _ -> none
    end.

%% A held token may go into a header: well-formed, and of the binding
%% configured (a stored Bearer token is not sent with DPoP, nor a stored
%% DPoP token without its key).
usable(#{<<"access_token">> := Access} = Held, #session{dpop = Dpop}) ->
    Bound = maps:get(<<"token_type">>, Held, <<"Bearer">>) =:= <<"DPoP">>,
    mcp_oauth_token:usable(Access) =:= ok andalso Bound =:= (Dpop =/= none).

%% A caller behind the session's generation gets the newer token.
authorized(refresh, _Generation, Session) ->
    fresh_or_renewed(Session);
authorized(Challenge, Generation, #session{generation = Current} = Session)
  when Generation < Current, not is_map_key(error, Challenge) orelse map_get(error, Challenge) =/= <<"insufficient_scope">> ->
    case expired(Session) of
        false -> {grant(Session), Session};
        true -> renewed_or_obtained(Challenge, Session)
    end;
authorized(Challenge, _Generation, #session{record = Record} = Session) ->
    obtained(Challenge, Record(), Session).

%% A challenge while the token held is due or gone: a renewal, else (no
%% refresh token, or one refused) the authorization the challenge asks for.
renewed_or_obtained(Challenge, Session) ->
    case fresh_or_renewed(Session) of
        {{error, _}, #session{record = Record} = Next} -> obtained(Challenge, Record(), Next);
        Renewed -> Renewed
    end.

%% The token held while it is not due; else a renewal from the endpoint
%% that issued it (`mcp_oauth:renew/3', never a new discovery: only a
%% server's challenge starts one). A renewal refused forgets the tokens.
fresh_or_renewed(#session{record = Record} = Session) ->
    case {Record(), expired(Session)} of
        {none, _} -> {{error, no_token}, Session};
        {_, false} -> {grant(Session), Session};
        {Held, true} ->
            case mcp_oauth:renew(Session#session.http, Held, config(Session)) of
                {ok, Renewed} -> kept(Renewed, Session);
                {error, Reason} -> {{error, Reason}, forgotten(Session)}
            end
    end.

obtained(Challenge, Previous, #session{http = Http, url = Url} = Session) ->
    case mcp_oauth:obtain(Http, Url, Challenge, config(Session), Previous) of
        {ok, Record} -> kept(Record, Session);
        {error, Reason} -> {{error, Reason}, Session}
    end.

kept(Obtained, #session{url = Url, config = Config, generation = Generation, dpop = Dpop} = Session) ->
    %% A DPoP-bound token is kept with its key: a stored token is usable
    %% only by the key it is bound to.
    Record = case Dpop of
                 {Key, _} -> Obtained#{<<"dpop_key">> => mcp_oauth_dpop:export(Key)};
                 none -> Obtained
             end,
    Next = Session#session{record = fun() -> Record end, generation = Generation + 1},
    case mcp_oauth_token_store:save(maps:get(store, Config(), none), Url, Record) of
        ok -> {grant(Next), Next};
        {error, Reason} -> {{error, {token_store, Reason}}, Next}
    end.

%% The record without its tokens (the client registration stays).
forgotten(#session{record = Record, url = Url, config = Config, generation = Generation} = Session) ->
    Kept = case Record() of
               none -> none;
               Held -> maps:without([<<"access_token">>, <<"refresh_token">>, <<"expires_at">>, <<"renew_at">>,
                                     <<"token_type">>], Held)
           end,
    _ = mcp_oauth_token_store:save(maps:get(store, Config(), none), Url, case Kept of none -> #{}; _ -> Kept end),
    Session#session{record = fun() -> Kept end, generation = Generation + 1}.

expired(#session{record = Record} = Session) ->
    case Record() of
        #{<<"access_token">> := _} = Held -> mcp_oauth_token:due(Held) orelse not usable(Held, Session);
        _ -> true
    end.

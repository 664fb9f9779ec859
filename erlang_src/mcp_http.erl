%% @doc The Streamable HTTP transport (MCP 2025-06-18 and 2025-11-25): one
%% remote MCP server behind a URL, reached with OTP's `httpc'. The session
%% (what each message and each answer means) is the pure machine
%% `mcp_http_session'; this module drives it: it carries the machine's
%% commands over `httpc', feeds back the answers and timers, adds the
%% configured headers and the authorization layer's (`mcp_http_auth') to
%% every request, holds the POSTs that wait for a token and resends those
%% a challenge held, and measures what `httpc' holds of an answer.
%%
%% Spec: `#{url := URL, headers => [{Name, Value}]}' plus the options of
%% `spec()'. Each message the actor sends is one POST with `Accept:
%% application/json, text/event-stream'; the answer is a JSON body (one
%% message), an event stream (`mcp_event_stream': any number of messages,
%% the response among them) or 202 (a notification or a response of ours).
%%
%% Invariants:
%% <ul>
%% <li>Every connection belongs to an `httpc' manager of this connection's
%%     own (stand-alone, linked to the owner, no registered name), so
%%     nothing is shared between clients and stopping it closes every
%%     socket. Its profile name is the first free one of a fixed pool of
%%     atoms (`mcp_httpc_profiles', 256), never made from anything. A new
%%     request never waits behind
%%     an open stream: only idle keep-alive connections are reused.</li>
%% <li>Header values (the spec's, after `${VAR}' is replaced by the
%%     variable's value) live only inside a closure in the state, so no
%%     printing of the state (crash reports, `sys:get_state') shows them;
%%     errors name a header, never its value. They go only to the spec's
%%     origin: no redirect is followed (a 3xx is `{http_status, Code}'). A
%%     plain `http' URL to a host other than the loopback is refused when
%%     headers are given, unless `allow_plaintext_headers => true'; with
%%     `oauth', such a server is reached, no token is ever sent to it, and
%%     its challenge ends the connection with `{authorization_failed,
%%     {plaintext_headers, Host}}'. TLS
%%     verifies the peer against the system's CA store
%%     (`public_key:cacerts_get/0') and the URL's host name. The proxy of
%%     the environment (`https_proxy', `http_proxy', `no_proxy', ... as
%%     curl reads them: `mcp_http_proxy') is used.</li>
%% <li>Every body is bounded: an event (data plus the line being read) and
%%     a JSON body by `max_line_bytes' (default and at most
%%     `mcp_stdio:max_line_bytes()'). `httpc' streams only 200 answers and
%%     reads the headers, the whole body of any other status, and what its
%%     chunked decoder has not handed over, with no limit of its own: every
%%     open request's handler is measured (`mcp_http_watch'), and past
%%     twice our request plus twice `max_line_bytes' plus 1 MiB the request
%%     is cancelled and the connection fails with `{response_too_large,
%%     Bytes}' (the bound: that, plus what arrives in
%%     `mcp_http_watch:interval_ms()' before the headers, or in
%%     `?STREAM_WATCH_MS' after). The session's DELETE is measured too,
%%     against 64 KiB; past it the wait for its answer ends.</li>
%% <li>The session: `Mcp-Session-Id' from the answer to `initialize' is
%%     sent with every later request (a value that is not visible ASCII or
%%     longer than 1,024 bytes is `{bad_session_id, Bytes}'), and
%%     `MCP-Protocol-Version' once the handshake named it. A 404 to a
%%     request sent in the session starts a new session (the actor's own
%%     `initialize' and `notifications/initialized' sent again, their
%%     answers kept by the machine; later messages wait for it) and the
%%     request, taken as not processed (what a 404 means), is sent again
%%     in it, once; a request
%%     refused twice, or a session that expires before any message came
%%     in it, is `session_expired'. `terminate/1'
%%     DELETEs the session (bounded by `shutdown_timeout_ms'), then stops
%%     the manager; its exit is the `{closed, {exited, {peer_down,
%%     {http_session, Outcome}}}}' event.</li>
%% <li>A request's event stream is closed as soon as its response has
%%     arrived (the server may keep it open; a socket per call would
%%     remain). A request's stream that ends before its response, after an event
%%     with an id, is resumed by a GET with `Last-Event-ID' once the
%%     server's `retry:' delay (default `mcp_http_session:default_retry_ms()', at most
%%     `max_retry_ms()') has passed, up to `max_resumptions()' times in a
%%     row without a message; 405 to that GET means the server offers no
%%     stream, and the request is left to its deadline. A stream that ends
%%     without a way to resume is `{stream_lost, Reason}'; an event id
%%     longer than `mcp_http_session:max_event_id_bytes()' (1,024) or not printable ASCII
%%     is never echoed: the stream then has no way to resume. A cancelled
%%     request's stream is closed; in the stateless revision (its
%%     `notifications/cancelled') that is the whole cancellation, and the
%%     notice is not POSTed.</li>
%% <li>The standalone stream (a GET after `notifications/initialized') is
%%     opened only when the `initialize' declared a capability through
%%     which a server asks (elicitation, sampling, roots) or the server's
%%     answer declared `tools.listChanged', and again in every new
%%     session; later messages
%%     wait for its answer, at most 5 s. Any answer but a 200 event
%%     stream leaves it closed, without a fault; once open, a stream that
%%     ends is opened again as a request's is resumed (after `retry:',
%%     with `Last-Event-ID' when it has one, up to `max_resumptions()'
%%     times in a row without a message), and giving up is no fault.</li>
%% <li>Faults close the connection with a typed reason: `{http_status,
%%     Code}', `{content_type, Type}' (neither JSON nor an event stream),
%%     `{http_failed, Reason}' (`httpc''s error: refused, timeout, TLS),
%%     `{event_too_long, Bytes}', `{line_too_long, Bytes}',
%%     `{response_too_large, Bytes}', `{authorization_failed, Reason}'
%%     (`mcp_oauth'),
%%     `session_expired', `{bad_session_id, Bytes}', `{stream_lost,
%%     Reason}'.</li>
%% </ul>
%% A message of the stateless revision (`mcp_transport:era()') is POSTed
%% with its headers (`mcp_request_headers:headers/4'); an answer to its
%% request with a status other than 2xx is not a fault: a JSON body that
%% is the response to that request is delivered as a message (a
%% `-32022' comes so), anything else is `{rejected, Id, {http_status,
%% Code}}' and the connection stays open.
%%
%% The `{message, Offset, Line}' events count `Offset' over the messages
%% of the connection, end to end (the bytes of HTTP framing and of event
%% fields are not counted).
-module(mcp_http).
%% The behaviour is checked by rebar3 builds (MCP_BEHAVIOUR_CHECK in rebar.config); the Gleam
%% build compiles these files in no particular order, where it would only warn.
-ifdef(MCP_BEHAVIOUR_CHECK).
-behaviour(mcp_transport).
-endif.

-export([open/2, send/2, event/2, terminate/1, os_pid/1, carries_bytes/2, takes_rpc/0]).
-export([seal/1, httpc_log/2]).
-export_type([spec/0, fault/0]).

-type spec() :: #{url := binary() | string(),
                  headers => [{binary() | string(), binary() | string()}] | sealed_headers(),
                  max_line_bytes => pos_integer(),
                  allow_plaintext_headers => boolean(),
                  connect_timeout_ms => pos_integer(),
                  shutdown_timeout_ms => pos_integer(),
                  cacertfile => file:filename_all(),
                  oauth => mcp_oauth:config() | fun(() -> mcp_oauth:config())}.
%% The headers inside a closure: printing it shows no value (`seal/1').
-type sealed_headers() :: fun(() -> [{binary() | string(), binary() | string()}]).
-type fault() :: {http_status, non_neg_integer()}
               | {content_type, binary()}
               | {http_failed, term()}
               | mcp_event_stream:fault()
               | mcp_stdio:framing_fault()
               | session_expired
               | {bad_session_id, non_neg_integer()}
               | {stream_lost, term()}
               | {response_too_large, non_neg_integer()}
               | {authorization_failed, mcp_oauth:error_reason()}.

%% What one socket read may deliver: the body reaches the owner in chunks
%% of up to this size (each a message counted by the actor's flood budget).
-define(READ_BYTES, 262144).
-define(NUDGE_MS, 20).
%% How often a request whose answer streams is measured (one waiting for
%% its answer's headers: `mcp_http_watch:interval_ms()').
-define(STREAM_WATCH_MS, 100).
%% What the handler of the session's DELETE may hold of its answer, which
%% nothing reads.
-define(DELETE_ANSWER_BYTES, 65536).

%% A request `httpc' carries: the machine's name for it, its handler once
%% the answer's headers came, whether a chunk of the body arrived
%% (`nudge/2'), the bytes of our body (what the handler holds of ours:
%% `watch/1') and, for a POST, the command (sent again after a challenge).
-record(req, {sref :: mcp_http_session:sref(),
              handler = none :: pid() | none,
              fed = false :: boolean(),
              sent = 0 :: non_neg_integer(),
              post = none :: mcp_http_session:command() | none}).

-record(http, {owner :: pid(),
               ref :: reference(),
               url :: string(),
               manager :: pid(),
               %% The manager's handler table (`mcp_http_watch').
               handler_table :: atom(),
               %% A `watch' timer is armed.
               watching = false :: boolean(),
               headers :: fun(() -> [{string(), string()}]),
               http_options :: list(),
               max_bytes :: pos_integer(),
               shutdown_ms :: pos_integer(),
               session :: mcp_http_session:session(),
               %% Requests `httpc' carries, by its request id, and that id
               %% by the machine's name.
               requests = #{} :: #{reference() => #req{}},
               issued = #{} :: #{mcp_http_session:sref() => reference()},
               deleted = no_session :: term(),
               %% The authorization layer (`oauth' in the spec), and the
               %% POSTs waiting for its token, newest first.
               auth = none :: none | mcp_http_auth:auth(),
               held = [] :: [mcp_http_session:command()],
               %% Whether the last event brought a chunk of a body that was
               %% the server heard (`carries_bytes/2').
               heard = false :: boolean()}).

%%% ---------------------------------------------------------------- open

%% @doc The spec with its headers inside a closure, so that neither the
%% spec nor any state, error or report holding it prints a header value
%% (`mcp_client' seals every spec it is given; `open/2' takes either form).
-spec seal(spec()) -> spec().
seal(#{oauth := OAuth} = Spec) when is_map(OAuth) -> seal(Spec#{oauth := fun() -> OAuth end});
seal(#{headers := Headers} = Spec) when is_list(Headers) -> Spec#{headers := fun() -> Headers end};
seal(Spec) -> Spec.

-spec open(spec(), pid()) -> {ok, #http{}} | {error, term()}.
open(#{url := Url} = Spec, Owner) when Owner =:= self() ->
    case [Key || Key <- [jail, env, executable, args, cd, inherit_env, stderr], is_map_key(Key, Spec)] of
        [] -> open_checked(unicode:characters_to_list(Url), Spec, Owner);
        Keys -> {error, {not_for_http, Keys}}
    end;
open(Spec, _Owner) ->
    {error, {bad_http_spec, maps:without([headers, oauth], Spec)}}.

open_checked(Url, Spec, Owner) ->
    quiet_httpc(),
    MaxBytes = max_bytes(maps:get(max_line_bytes, Spec, mcp_stdio:max_line_bytes())),
    case {mcp_http_target:target(Url), mcp_http_headers:resolve(unsealed(maps:get(headers, Spec, [])))} of
        {{error, _} = Error, _} -> Error;
        {_, {error, _} = Error} -> Error;
        {{ok, Scheme, Host}, {ok, Headers}} ->
            case {plaintext_refused(Scheme, Host, Headers, Spec), mcp_http_proxy:options(Scheme, Host)} of
                {true, _} -> {error, {plaintext_headers, list_to_binary(Host)}};
                {false, {error, _} = Error} -> Error;
                {false, {ok, Proxy}} -> start(Url, {Scheme, Host, Proxy}, Headers, MaxBytes, Spec, Owner)
            end
    end.

start(Url, {Scheme, Host, Proxy}, Headers, MaxBytes, Spec, Owner) ->
    _ = application:ensure_all_started(ssl),
    case mcp_httpc_profiles:start_manager() of
        {ok, Manager, Profile} ->
            ok = httpc:set_options([{max_sessions, 64}, {max_keep_alive_length, 0},
                                    {keep_alive_timeout, 60000}, {cookies, disabled},
                                    {socket_opts, [{recbuf, ?READ_BYTES}, {buffer, ?READ_BYTES}]} | Proxy], Manager),
            Http = #http{owner = Owner, ref = make_ref(), url = Url, manager = Manager,
                         handler_table = mcp_http_watch:handler_table(Profile),
                         headers = fun() -> Headers end,
                         http_options = mcp_http_target:options(Scheme, Host, Spec),
                         max_bytes = MaxBytes,
                         shutdown_ms = maps:get(shutdown_timeout_ms, Spec, 5000),
                         session = mcp_http_session:new(MaxBytes)},
            case mcp_http_auth:start(list_to_binary(Url), Spec, bearer_refused(Scheme, Host, Spec)) of
                {ok, Auth} -> {ok, Http#http{auth = Auth}};
                {error, Reason} -> exit(Manager, shutdown), {error, Reason}
            end;
        {error, Reason} ->
            {error, {http_client_failed, Reason}}
    end.

unsealed(Headers) when is_function(Headers, 0) -> Headers();
unsealed(Headers) -> Headers.

max_bytes(Bytes) when is_integer(Bytes), Bytes >= 1 ->
    case Bytes =< mcp_stdio:max_line_bytes() of
        true -> Bytes;
        false -> error(badarg, [Bytes])
    end;
max_bytes(Other) -> error(badarg, [Other]).

%% Headers in plaintext off the loopback are refused at open; a bearer
%% token (`oauth') only when one would be sent (`bearer_refused/3'): a
%% server that asks for none is reached over plain `http' all the same.
plaintext_refused(http, Host, [_ | _], Spec) ->
    not maps:get(allow_plaintext_headers, Spec, false) andalso not mcp_http_target:loopback(Host);
plaintext_refused(_, _, _, _) ->
    false.

%% Why no token may be sent to this server: `none', or the refusal a
%% challenge (or a held token) meets.
bearer_refused(Scheme, Host, Spec) ->
    case plaintext_refused(Scheme, Host, [bearer], Spec) of
        true -> {plaintext_headers, list_to_binary(Host)};
        false -> none
    end.

%%% ---------------------------------------------------------------- send

%% @doc The actor's messages come typed (`mcp_transport:rpc()').
-spec takes_rpc() -> true.
takes_rpc() -> true.

%% Nothing the machine does with a message delivers one; a fault (too many
%% answers waiting, a request `httpc' refused) fails the write.
-spec send(#http{}, [mcp_transport:message(), ...]) -> {ok, #http{}} | {error, term()}.
send(Http, Messages) ->
    {Events, Next} = lists:foldl(fun(Message, {Acc, H}) ->
                                         {More, H1} = machine({send, Message}, H),
                                         {Acc ++ More, H1}
                                 end, {[], Http}, Messages),
    case [Fault || {fault, Fault} <- Events] of
        [] -> {ok, Next};
        [Fault | _] -> {error, Fault}
    end.

%%% ------------------------------------------------------------- commands

%% One event into the machine, its commands carried out: the events they
%% deliver, in order.
machine(Event, #http{session = Session} = Http) ->
    {Commands, Next} = mcp_http_session:handle(Event, Session),
    run(Commands, [], Http#http{session = Next}).

run([], Events, Http) ->
    {lists:reverse(Events), Http};
run([{deliver, Event} | Rest], Events, Http) ->
    run(Rest, [Event | Events], Http);
run([{post, _, _, _, _} = Post | Rest], Events, #http{auth = Auth, held = Held} = Http) ->
    %% A POST goes now, or waits for the authorization layer's token.
    case mcp_http_auth:before_send(Auth) of
        send -> issue(Post, Rest, Events, Http);
        wait -> run(Rest, Events, Http#http{held = [Post | Held]});
        {asked, Asked} -> run(Rest, Events, Http#http{auth = Asked, held = [Post | Held]})
    end;
run([{get, _, _} = Get | Rest], Events, Http) ->
    issue(Get, Rest, Events, Http);
run([{cancel, SRef} | Rest], Events, Http) ->
    run(Rest, Events, cancel(SRef, Http));
run([{read, SRef} | Rest], Events, #http{issued = Issued, requests = Requests} = Http) ->
    case Issued of
        #{SRef := RequestId} ->
            case Requests of
                #{RequestId := #req{handler = Handler}} when is_pid(Handler) -> ok = httpc:stream_next(Handler);
                #{} -> ok
            end;
        #{} ->
            ok
    end,
    run(Rest, Events, Http);
run([{timer, Ms, Tag} | Rest], Events, #http{owner = Owner, ref = Ref} = Http) ->
    _ = erlang:send_after(Ms, Owner, {mcp_http, Ref, {timer, Tag}}),
    run(Rest, Events, Http).

%% A request made; one `httpc' refused at once is an answer that failed.
issue(Command, Rest, Events, Http) ->
    SRef = element(2, Command),
    case request(Command, Http) of
        {ok, RequestId} ->
            Req = case Command of
                      {post, _, _, Body, _} -> #req{sref = SRef, sent = byte_size(Body), post = Command};
                      {get, _, _} -> #req{sref = SRef}
                  end,
            run(Rest, Events, watched(Http#http{requests = maps:put(RequestId, Req, Http#http.requests),
                                                issued = maps:put(SRef, RequestId, Http#http.issued)}));
        {error, Reason} ->
            {Failed, Next} = machine({failed, SRef, failure(Reason)}, Http),
            run(Rest, lists:reverse(Failed) ++ Events, Next)
    end.

request({post, _SRef, Headers, Body, #{timeout := Timeout}}, Http) ->
    httpc_request(post, {Http#http.url, Headers ++ added_headers(post, Http), "application/json", Body},
                  [{timeout, Timeout} || Timeout =/= infinity], Http);
request({get, _SRef, Headers}, Http) ->
    httpc_request(get, {Http#http.url, Headers ++ added_headers(get, Http)}, [], Http).

httpc_request(Method, Request, Extra, #http{http_options = HttpOptions, manager = Manager, owner = Owner}) ->
    %% The manager is stopped once the session's DELETE is answered; a
    %% request the machine asks for after that (an answer still arriving)
    %% fails as any refused request does.
    try
        httpc:request(Method, Request, Extra ++ HttpOptions,
                      [{sync, false}, {stream, {self, once}}, {receiver, Owner}, {body_format, binary}], Manager)
    catch
        exit:_ -> {error, http_client_down}
    end.

%% The configured headers and the authorization layer's (for this method
%% and URL: a DPoP proof names both), on every request.
added_headers(Method, #http{headers = Headers, auth = Auth, url = Url}) ->
    Headers() ++ mcp_http_auth:headers(Auth, Method, Url).

%% Stops reading an answer, or never sends a POST still held.
cancel(SRef, #http{issued = Issued, manager = Manager} = Http) ->
    case maps:take(SRef, Issued) of
        {RequestId, Rest} ->
            ok = httpc:cancel_request(RequestId, Manager),
            Http#http{issued = Rest, requests = maps:remove(RequestId, Http#http.requests)};
        error ->
            Http#http{held = [Post || Post <- Http#http.held, element(2, Post) =/= SRef]}
    end.

%% The request is over (its answer came whole, ended or failed).
finished(RequestId, #http{requests = Requests, issued = Issued} = Http) ->
    #req{sref = SRef} = maps:get(RequestId, Requests),
    Http#http{requests = maps:remove(RequestId, Requests), issued = maps:remove(SRef, Issued)}.

%%% -------------------------------------------------------- authorization

%% The layer's token came (or its renewal failed): the held POSTs go out,
%% oldest first; or it failed, and they are dropped.
authorized({resend, Auth}, #http{held = Held} = Http) ->
    {Events, Next} = run(lists:reverse(Held), [], Http#http{auth = Auth, held = []}),
    {ok, Events, Next};
authorized({fault, Reason, Auth}, Http) ->
    {ok, [{fault, Reason}], Http#http{auth = Auth, held = []}}.

%% A 401, or a 403, to a POST: it waits for a new token, or the
%% connection fails.
challenged(Status, Post, Headers, #http{auth = Auth, held = Held} = Http) ->
    case mcp_http_auth:challenged(Auth, Status, Headers, true) of
        {hold, Next} -> {ok, [], Http#http{auth = Next, held = [Post | Held]}};
        {fault, Reason} -> {ok, [{fault, Reason}], Http}
    end.

%% A request answered 2xx ends a run of authorizations (a notification's
%% 202 does not: it may be the answer to one sent before the run began).
succeeded(#req{post = {post, _, _, _, #{request := true}}}, #http{auth = Auth} = Http) ->
    Http#http{auth = mcp_http_auth:succeeded(Auth)};
succeeded(_Req, Http) ->
    Http.

%%% --------------------------------------------------------------- event

-spec event(#http{}, term()) -> {ok, [mcp_transport:event()], #http{}} | not_mine.
event(#http{auth = Auth} = Http0, Info) ->
    Http = Http0#http{heard = false},
    case mcp_http_auth:answer(Auth, Info) of
        not_mine -> event_checked(Http, Info);
        Answer -> authorized(Answer, Http)
    end.

-spec event_checked(#http{}, term()) -> {ok, [mcp_transport:event()], #http{}} | not_mine.
event_checked(#http{requests = Requests} = Http, {http, {RequestId, Answer}}) when is_map_key(RequestId, Requests) ->
    answer(maps:get(RequestId, Requests), RequestId, Answer, Http);
event_checked(#http{requests = Requests} = Http, {http, {RequestId, Part, Value}}) when is_map_key(RequestId, Requests) ->
    answer(maps:get(RequestId, Requests), RequestId, {Part, Value}, Http);
event_checked(#http{requests = Requests} = Http, {http, {RequestId, stream_start, Headers, Handler}})
  when is_map_key(RequestId, Requests) ->
    %% Body bytes that came with the headers are held by the handler until
    %% its next socket read (inets 8), which for an event stream that then
    %% waits may never come: if nothing arrived after `?NUDGE_MS', the
    %% handler is fed an empty read (`nudge/2').
    _ = erlang:send_after(?NUDGE_MS, Http#http.owner, {mcp_http, Http#http.ref, {nudge, RequestId}}),
    Started0 = maps:get(RequestId, Requests),
    Req = Started0#req{handler = Handler},
    Started = succeeded(Req, Http#http{requests = maps:put(RequestId, Req, Requests)}),
    delivered(machine({headers, Req#req.sref, Headers}, Started));
event_checked(#http{ref = Ref} = Http, {mcp_http, Ref, {timer, Tag}}) ->
    delivered(machine({timer, Tag}, Http));
event_checked(#http{ref = Ref} = Http, {mcp_http, Ref, watch}) ->
    watch(Http);
event_checked(#http{ref = Ref} = Http, {mcp_http, Ref, {measured, Over}}) ->
    measured(Over, Http#http{watching = false});
event_checked(#http{ref = Ref} = Http, {mcp_http, Ref, {nudge, RequestId}}) ->
    %% A message of the request already waiting means its handler went on
    %% (perhaps to the end of the answer, when a nudge would reach it idle
    %% and make it log a warning): that message is taken now, the earliest
    %% of its request, and no nudge is sent.
    receive
        {http, {RequestId, _}} = Pending -> event_checked(Http, Pending);
        {http, {RequestId, _, _}} = Pending -> event_checked(Http, Pending);
        {http, {RequestId, _, _, _}} = Pending -> event_checked(Http, Pending)
    after 0 ->
        nudge(RequestId, Http),
        {ok, [], Http}
    end;
event_checked(#http{ref = Ref} = Http, {mcp_http, Ref, {deleted, Reply}}) ->
    exit(Http#http.manager, shutdown),
    {ok, [], Http#http{deleted = deletion_outcome(Reply)}};
event_checked(#http{manager = Manager, deleted = Deleted} = Http, {'EXIT', Manager, Reason}) ->
    Evidence = case Reason of
                   shutdown -> {exited, {peer_down, {http_session, Deleted}}};
                   _ -> {unconfirmed, {http_client_down, Reason}}
               end,
    {ok, [{closed, Evidence}], Http};
event_checked(_Http, _Info) ->
    not_mine.

delivered({Events, Http}) -> {ok, Events, Http}.

%% One `httpc' message for a request it carries, as the machine's event.
answer(#req{sref = SRef} = Req, RequestId, {stream, Chunk}, #http{requests = Requests} = Http) ->
    {Events, Fed} = machine({chunk, SRef, Chunk}, Http#http{requests = maps:put(RequestId, Req#req{fed = true}, Requests)}),
    delivered({Events, Fed#http{heard = mcp_http_session:heard(Fed#http.session)}});
answer(#req{sref = SRef}, RequestId, {stream_end, _Headers}, Http) ->
    delivered(machine({body_end, SRef}, finished(RequestId, Http)));
answer(#req{post = Post}, RequestId, {{_Version, Status, _Phrase}, Headers, _Body}, #http{auth = Auth} = Http)
  when Auth =/= none, Post =/= none, Status =:= 401 orelse Status =:= 403 ->
    challenged(Status, Post, Headers, finished(RequestId, Http));
answer(#req{sref = SRef} = Req, RequestId, {{_Version, Status, _Phrase}, Headers, Body}, Http) ->
    Answered = case Status >= 200 andalso Status < 300 of
                   true -> succeeded(Req, Http);
                   false -> Http
               end,
    delivered(machine({status, SRef, Status, Headers, Body}, finished(RequestId, Answered)));
answer(#req{sref = SRef}, RequestId, {error, Reason}, Http) ->
    delivered(machine({failed, SRef, failure(Reason)}, finished(RequestId, Http)));
answer(_Req, _RequestId, _Other, Http) ->
    {ok, [], Http}.

%% `httpc''s reason for a failed request, without what the server sent:
%% an answer it could not parse is quoted in its reason, and so are the
%% pieces its chunked decoder refused; a death reason must not carry a
%% server's bytes (nor grow with them). An atom stays, and a tag with an
%% atom or a number; anything else keeps its tag alone.
failure({could_not_parse_as_http, Bytes}) ->
    {could_not_parse_as_http, byte_size(iolist_to_binary(Bytes))};
failure(Reason) when is_atom(Reason) ->
    Reason;
failure({failed_connect, _} = Reason) ->
    Reason;
failure({Tag, Detail} = Reason) when is_atom(Tag), is_atom(Detail) orelse is_integer(Detail) ->
    Reason;
failure({Tag, _}) when is_atom(Tag) ->
    {Tag, omitted};
failure(_Reason) ->
    omitted.

%% The handler still waits with what came with the headers: an empty read
%% makes it pass that on (its internal message for a read of its own). Only
%% while it is mid-body, which it is until its first chunk or the end
%% arrives.
%% A nudge can reach a handler that finished its answer in the meantime
%% (the race `event_checked/2' narrows but cannot close): `httpc_handler'
%% then logs a warning of its own, with the session but no request (idle),
%% about the empty read. It logs the same warning, with every byte of the
%% read, its parser's state and its request, when a server writes on a
%% connection kept alive between requests: a server's bytes, without
%% bound, in the VM's log. And a handler that stops on a socket error (a
%% TLS server that sends a record the client cannot decrypt) is logged by
%% `gen_server' with its state, whose request holds every header we sent,
%% `Authorization' included. The VM's primary logger filter
%% `mcp_http_log' (`httpc_log/2'), installed once by the first HTTP
%% transport, drops the first, cuts the second down to its size, and
%% withholds the third's state and last message, for this package's
%% managers only; any other event passes untouched.
quiet_httpc() ->
    case logger:add_primary_filter(mcp_http_log, {fun mcp_http:httpc_log/2, none}) of
        ok -> ok;
        {error, {already_exist, _}} -> ok
    end.

%% @doc The primary logger filter of `quiet_httpc/0', for what
%% `httpc_handler' logs on a connection of one of this package's managers
%% (`mcp_httpc_profiles'): of its warning about data it did not expect,
%% `stop' for an empty `dummy' read (a nudge that came late), and any
%% other logged with its protocol, socket, byte count and profile only
%% (the bytes are a server's, the parser's state holds more of them, the
%% request its headers); of a handler's termination report, the report
%% without the handler's state and last message. `ignore' (no opinion)
%% for every other event.
-spec httpc_log(logger:log_event(), term()) -> logger:filter_return().
httpc_log(#{msg := {report, #{label := {gen_server, terminate}, state := State} = Report}} = Event, _) ->
    case ours(State) of
        true -> Event#{msg := {report, Report#{state := withheld, last_message := withheld}}};
        false -> ignore
    end;
httpc_log(#{msg := {report, #{label := {error_logger, warning_msg}, format := Format, args := Args} = Report}} = Event,
          _) ->
    unexpected_data(Format, Args, fun(Short, Kept) -> Event#{msg := {report, Report#{format := Short, args := Kept}}} end);
httpc_log(#{msg := {Format, Args}} = Event, _) when is_list(Format), is_list(Args) ->
    unexpected_data(Format, Args, fun(Short, Kept) -> Event#{msg := {Short, Kept}} end);
httpc_log(_Event, _) ->
    ignore.

%% Whether a `gen_server''s state is that of a handler of one of this
%% package's managers: an `httpc_handler' state naming its profile.
ours(State) when is_tuple(State), tuple_size(State) > 0, element(1, State) =:= state ->
    lists:any(fun our_profile/1, tuple_to_list(State));
ours(_State) ->
    false.

our_profile(Profile) when is_atom(Profile) -> lists:prefix("stand_alone_mcp_httpc_", atom_to_list(Profile));
our_profile(_Other) -> false.

%% `httpc_handler''s warning about data it did not expect: `stop' for a
%% late nudge; for one of ours, the event `Cut' makes of a shorter format
%% and its arguments; `ignore' for anything else.
unexpected_data("Received unexpected ~p data on ~p" ++ _, [httpc_handler, dummy, <<>> | _], _Cut) ->
    stop;
unexpected_data("Received unexpected ~p data on ~p" ++ _, [Proto, Socket, Data, _Mfa, _Request, _Session, _Status,
                                                            _StatusLine, Profile], Cut) ->
    case our_profile(Profile) of
        true ->
            Cut("Received unexpected ~p data on ~p: ~p bytes (not shown)~n   Profile:    ~p~n",
                [Proto, Socket, iolist_size_or_unknown(Data), Profile]);
        false ->
            ignore
    end;
unexpected_data(_Format, _Args, _Cut) ->
    ignore.

iolist_size_or_unknown(Data) ->
    try iolist_size(Data) catch error:badarg -> unknown end.

nudge(RequestId, #http{requests = Requests}) ->
    case Requests of
        #{RequestId := #req{handler = Handler, fed = false}} when is_pid(Handler) ->
            Handler ! {httpc_handler, dummy, <<>>},
            ok;
        _ ->
            ok
    end.

%%% ------------------------------------------------- answers held by httpc

%% Every request is measured while it is open: every
%% `mcp_http_watch:interval_ms()' while one waits for its answer's headers,
%% else every `?STREAM_WATCH_MS'. Its `httpc' handler reads the headers,
%% the whole body of any status but 200, and for a 200 what its chunked
%% decoder has not handed over (a size line or trailers without end), with
%% no limit of its own. A request whose handler holds more than its
%% allowance is cancelled (the handler stops, its socket closes) and the
%% connection fails with `{response_too_large, Bytes}'.
watched(#http{watching = true} = Http) ->
    Http;
watched(#http{requests = Requests, owner = Owner, ref = Ref} = Http) when map_size(Requests) > 0 ->
    Interval = case awaiting_headers(Requests) of
                   [] -> ?STREAM_WATCH_MS;
                   [_ | _] -> mcp_http_watch:interval_ms()
               end,
    _ = erlang:send_after(Interval, Owner, {mcp_http, Ref, watch}),
    Http#http{watching = true};
watched(Http) ->
    Http.

%% The measuring runs in a process of its own: what it copies of a
%% handler's state (`mcp_http_watch:held_bytes/2') neither stalls the
%% actor nor stays in its heap. The next measure is armed when its answer
%% comes.
watch(#http{requests = Requests, handler_table = Table, max_bytes = Max, owner = Owner, ref = Ref} = Http) ->
    Allowances = [{RequestId, mcp_http_watch:allowance(Sent, Max)}
                  || {RequestId, #req{sent = Sent}} <- maps:to_list(Requests)],
    _ = spawn(fun() -> Owner ! {mcp_http, Ref, {measured, mcp_http_watch:over(Table, Allowances)}} end),
    {ok, [], Http}.

measured(Over, #http{requests = Requests} = Http) ->
    case [{Req, Held} || {RequestId, Held} <- Over, {ok, Req} <- [maps:find(RequestId, Requests)]] of
        [] -> {ok, [], watched(Http)};
        [{#req{sref = SRef}, Held} | _] -> {ok, [{fault, {response_too_large, Held}}], cancel(SRef, Http)}
    end.

awaiting_headers(Requests) ->
    [{RequestId, Req} || {RequestId, #req{handler = none} = Req} <- maps:to_list(Requests)].

%%% ----------------------------------------------------------- terminate

%% @doc Closes every stream, DELETEs the session when there is one
%% (bounded by `shutdown_timeout_ms'), then stops the manager; its exit is
%% the proof (`event/2').
-spec terminate(#http{}) -> ok.
terminate(#http{auth = Auth} = Http) ->
    %% The DELETE carries the token (built before the layer stops).
    Deleted = delete(Http),
    ok = mcp_http_auth:stop(Auth),
    Deleted.

delete(#http{session = Session, manager = Manager} = Http) ->
    case mcp_http_session:has_session(Session) of
        true -> delete_session(Http);
        false -> exit(Manager, shutdown), ok
    end.

delete_session(#http{ref = Ref, owner = Owner, manager = Manager, url = Url, shutdown_ms = Timeout} = Http) ->
    Receiver = fun(Reply) -> Owner ! {mcp_http, Ref, {deleted, Reply}} end,
    Headers = mcp_http_session:request_headers(Http#http.session) ++ added_headers(delete, Http),
    case httpc:request(delete, {Url, Headers}, [{timeout, max(1, Timeout div 2)} | Http#http.http_options],
                       [{sync, false}, {receiver, Receiver}, {body_format, binary}], Manager) of
        {ok, RequestId} -> bound_deletion(RequestId, Http);
        {error, _} -> exit(Manager, shutdown), ok
    end.

%% The DELETE's answer is read whole by its handler, and nothing reads it:
%% a watcher of its own measures the handler (as `watch/1' does a
%% request's) and, past `?DELETE_ANSWER_BYTES', ends the wait, so the
%% manager is stopped at once. The watcher ends with the manager.
bound_deletion(RequestId, #http{handler_table = Table, manager = Manager, owner = Owner, ref = Ref}) ->
    Allowance = mcp_http_watch:allowance(0, ?DELETE_ANSWER_BYTES),
    _ = spawn(fun() ->
                      Monitor = erlang:monitor(process, Manager),
                      deletion_watch(Monitor, Table, RequestId, Allowance, Owner, Ref)
              end),
    ok.

deletion_watch(Monitor, Table, RequestId, Allowance, Owner, Ref) ->
    receive
        {'DOWN', Monitor, process, _, _} -> ok
    after mcp_http_watch:interval_ms() ->
        case mcp_http_watch:over(Table, [{RequestId, Allowance}]) of
            [{_, Held}] ->
                Owner ! {mcp_http, Ref, {deleted, {RequestId, {error, {response_too_large, Held}}}}},
                ok;
            [] ->
                deletion_watch(Monitor, Table, RequestId, Allowance, Owner, Ref)
        end
    end.

%% What the DELETE's `httpc' reply says of the session.
deletion_outcome({_RequestId, {{_, Status, _}, _Headers, _Body}}) when Status >= 200, Status < 300 -> deleted;
deletion_outcome({_RequestId, {{_, Status, _}, _Headers, _Body}}) -> {status, Status};
deletion_outcome({_RequestId, {error, Reason}}) -> {failed, failure(Reason)};
deletion_outcome(_Other) -> {failed, unknown}.

-spec os_pid(#http{}) -> none.
os_pid(_) -> none.

%% @doc Whether the event `Info' (just handled by `event/2') brought bytes
%% of an answer to one of our requests (on its POST, or on the GET that
%% resumes its stream): any byte of a JSON body, or data of a message on an
%% event stream (`mcp_http_session:heard/1'): the server is heard while it
%% writes a long answer, before any whole message (the actor's liveness
%% probe, `mcp_transport:carries_bytes/2'). The standalone stream,
%% comments (`: ping'), other fields and events of other types
%% (`event: ping' with or without data), which many servers' HTTP layers
%% send on a timer of their own however stuck their handlers, are not the
%% server answering.
-spec carries_bytes(#http{}, term()) -> boolean().
carries_bytes(#http{heard = Heard}, _Info) -> Heard.

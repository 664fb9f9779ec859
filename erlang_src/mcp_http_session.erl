%% @doc The Streamable HTTP session as a pure machine: what the client
%% sends and what the server answers go in (`handle/2'), commands come out
%% for a driver to carry (`mcp_http', over `httpc'). It does no I/O, keeps
%% no clock and never builds an `Authorization' or a configured header:
%% the driver adds those to every request (`request_headers/1' are this
%% session's own).
%%
%% Events in (`event()'): the actor's messages (`{send, Message}',
%% `mcp_transport:message()' typed by the actor), the answers to the
%% requests it asked for, each named by the `sref()' the command gave it
%% (`{headers, SRef, Headers}' for a 200 whose body streams, `{chunk,
%% SRef, Bytes}', `{body_end, SRef}', `{status, SRef, Status, Headers,
%% Body}' for any other whole answer, `{failed, SRef, Reason}' when the
%% request could not be made or its answer broke off) and `{timer, Tag}'.
%%
%% Commands out (`command()'): `{post, SRef, Headers, Body, Options}',
%% `{get, SRef, Headers}', `{cancel, SRef}' (stop reading an answer, or
%% never send a request that still waits), `{read, SRef}' (the next chunk
%% of the body may come), `{timer, Ms, Tag}' (hand `{timer, Tag}' back
%% after `Ms') and `{deliver, mcp_transport:event()}'.
%%
%% Invariants (`test/mcp_http_session_prop_tests.erl' checks them on
%% random sessions):
%% <ul>
%% <li>Every command names a request the machine opened and has not
%%     closed; a request is closed by `cancel', by its body's end or by a
%%     whole answer, and named by no command after.</li>
%% <li>A request's stream is cancelled as soon as its response has been
%%     delivered (the server may keep it open: a socket per call would
%%     remain).</li>
%% <li>At most `max_answer_streams()' of our answers and notifications wait
%%     for their 202 at once, each for at most `answer_timeout_ms()'; at
%%     most `max_held_answers()' more wait for one of them to end (oldest
%%     first), and one past those fails the connection
%%     (`{too_many_streams, N}'), as does one that would take them past
%%     `max_answer_bytes()' together (`{too_many_answer_bytes, Bytes}'): a
%%     burst of a server's questions is answered as it acknowledges, one
%%     that never does holds no socket per question, nor more than the
%%     bytes.</li>
%% <li>When a session expires (a 404), our answers not yet posted, held
%%     or sent while the new session starts, are dropped: they answer the
%%     old session's questions (`test/mcp_http_session_tests.erl').</li>
%% <li>Delivered messages count offsets end to end: each message's offset
%%     is the previous one's plus its size.</li>
%% <li>The session id (`Mcp-Session-Id' of the answer to `initialize',
%%     visible ASCII, at most 1,024 bytes, else `{bad_session_id, Bytes}')
%%     goes with every request after it; `MCP-Protocol-Version' once the
%%     handshake named a version the client speaks. A renewal's new
%%     session speaks the version the connection spoke, or none: an answer
%%     to its `initialize' naming another (the actor negotiated the first,
%%     and reads the server by it) ends the connection `session_expired',
%%     as a refused one does.</li>
%% <li>The machine reads no message whole: which of its requests a message
%%     answers is found by the core's validating scan (a result is not
%%     built, an error only within its bound), and the answer to
%%     `initialize' as the actor reads it (malformed, unbuilt, past 256
%%     KiB).</li>
%% <li>An event id is echoed as `Last-Event-ID' only when it is at most
%%     `max_event_id_bytes()' of printable ASCII; past that the stream has
%%     no way to resume.</li>
%% </ul>
%% What each answer means (renewal after a 404, resumption, the standalone
%% stream, the stateless revision's rejections) is `mcp_http''s module doc.
-module(mcp_http_session).

-export([new/1, handle/2, request_headers/1, has_session/1, heard/1]).
-export([default_retry_ms/0, min_retry_ms/0, max_retry_ms/0, max_resumptions/0, max_event_id_bytes/0,
         max_answer_streams/0, max_held_answers/0, max_answer_bytes/0, answer_timeout_ms/0]).
-export_type([session/0, sref/0, event/0, command/0]).

-define(DEFAULT_RETRY_MS, 1000).
-define(MAX_RETRY_MS, 30000).
%% The least wait before a stream is opened again, whatever `retry:'
%% says: a server ending its stream after each event with `retry: 0'
%% cannot make the client open hundreds a second.
-define(MIN_RETRY_MS, 100).
-define(MAX_RESUMPTIONS, 3).
-define(MAX_SESSION_ID_BYTES, 1024).
-define(MAX_EVENT_ID_BYTES, 1024).
%% What a `{content_type, Type}' fault keeps of the server's media type.
-define(MAX_TYPE_BYTES, 64).
-define(MAX_ANSWER_STREAMS, 16).
-define(MAX_HELD_ANSWERS, 256).
%% The bytes of our answers and notifications waiting for their 202 or
%% held, together: an answer repeats its question's id, of the server's
%% choosing, up to a line long.
-define(MAX_ANSWER_BYTES, (16 * 1024 * 1024)).
-define(ANSWER_TIMEOUT_MS, 30000).
%% How long messages wait for the standalone stream's answer.
-define(LISTEN_OPEN_MS, 5000).
-define(ACCEPT, "application/json, text/event-stream").

-type sref() :: pos_integer().
-type tag() :: pos_integer().
-type headers() :: [{string(), string()}].
-type event() :: {send, mcp_transport:message()}
               | {headers, sref(), headers()}
               | {chunk, sref(), binary()}
               | {body_end, sref()}
               | {status, sref(), non_neg_integer(), headers(), binary() | term()}
               | {failed, sref(), term()}
               | {timer, tag()}.
-type command() :: {post, sref(), headers(), binary(), #{request := boolean(), timeout := timeout()}}
                 | {get, sref(), headers()}
                 | {cancel, sref()}
                 | {read, sref()}
                 | {timer, non_neg_integer(), tag()}
                 | {deliver, mcp_transport:event()}.

%% What the machine knows of a request it opened.
-type rpc() :: {request, Id :: integer(), Method :: binary()} | notification | response | listen.

-record(stream, {rpc :: rpc(),
                 %% The stateless revision's headers of its own; such a
                 %% request's refusal is not a fault (`refused/5').
                 extra = [] :: headers(),
                 body = undefined :: undefined | {sse, mcp_event_stream:decoder()}
                                   | {json, [binary()], non_neg_integer()} | ignored,
                 %% The id to echo as `Last-Event-ID' (`resumable/1'), and
                 %% the decoder's last event id it was read from (read again
                 %% only when it changes, not at every chunk).
                 last_event_id = none :: binary() | none,
                 read_event_id = none :: binary() | none,
                 retry_ms = ?DEFAULT_RETRY_MS :: non_neg_integer(),
                 %% Resumptions in a row that delivered no message.
                 resumptions = 0 :: non_neg_integer(),
                 %% The `initialize' that starts a new session after a 404
                 %% (`renew/3').
                 renew = false :: boolean(),
                 %% A request's body and the session it was sent in: a
                 %% request refused with 404 (never processed) is sent
                 %% again, once, in the new session (`expired/3').
                 bytes = none :: binary() | none,
                 %% An answer or a notification of ours: its body's size
                 %% (`?MAX_ANSWER_BYTES').
                 owed = 0 :: non_neg_integer(),
                 sent_in = none :: string() | none,
                 replayed = false :: boolean()}).

-record(session, {max_bytes :: pos_integer(),
                  %% The last request reference and timer tag minted.
                  minted = 0 :: non_neg_integer(),
                  id = none :: string() | none,
                  version = none :: binary() | none,
                  %% While a new session starts (`renewing'): the version the
                  %% last one spoke, which the new one must name.
                  spoken = none :: binary() | none,
                  streams = #{} :: #{sref() => #stream{}},
                  %% Streams waiting for their resumption, by timer tag.
                  waiting = #{} :: #{tag() => #stream{}},
                  offset = 0 :: non_neg_integer(),
                  %% The actor's own `initialize' and `notifications/initialized',
                  %% sent again when the session expires (`renew/3').
                  handshake = none :: {rpc(), headers(), binary()} | none,
                  initialized = none :: binary() | none,
                  %% A new session being started (messages wait in
                  %% `queued'), with the requests to send again in it,
                  %% newest first; whether a message came in the current
                  %% session on a stream of ours, not the standalone one (a
                  %% renewal needs one since the last).
                  renewing = false :: boolean(),
                  replays = [] :: [#stream{}],
                  progress = true :: boolean(),
                  %% The handshake asked for the standalone stream: it is
                  %% opened again in every new session.
                  wants_listen = false :: boolean(),
                  %% The standalone stream: not wanted (the handshake
                  %% declared no capability a server asks through), wanted,
                  %% being opened (messages wait in `queued', newest
                  %% first), or settled.
                  listen = unwanted :: unwanted | wanted | {opening, sref(), tag()} | settled,
                  queued = [] :: [mcp_transport:message()],
                  %% Our answers and notifications waiting for one of the
                  %% `?MAX_ANSWER_STREAMS' to end, newest first.
                  held = [] :: [{#stream{}, binary()}],
                  %% The last stream event handled was a chunk that was
                  %% the server heard (`heard/1').
                  heard = false :: boolean()}).

-opaque session() :: #session{}.

%% @doc The wait before resuming a stream whose server gave no `retry:'.
-spec default_retry_ms() -> pos_integer().
default_retry_ms() -> ?DEFAULT_RETRY_MS.

%% @doc The shortest wait before a stream is opened again (a shorter
%% `retry:' waits this long).
-spec min_retry_ms() -> pos_integer().
min_retry_ms() -> ?MIN_RETRY_MS.

%% @doc The longest `retry:' honoured (a longer one waits this long).
-spec max_retry_ms() -> pos_integer().
max_retry_ms() -> ?MAX_RETRY_MS.

%% @doc Resumptions in a row, without a message, before `{stream_lost, _}'.
-spec max_resumptions() -> pos_integer().
max_resumptions() -> ?MAX_RESUMPTIONS.

%% @doc The longest event id echoed as `Last-Event-ID'.
-spec max_event_id_bytes() -> pos_integer().
max_event_id_bytes() -> ?MAX_EVENT_ID_BYTES.

%% @doc Our answers and notifications that may wait for their 202 at once.
-spec max_answer_streams() -> pos_integer().
max_answer_streams() -> ?MAX_ANSWER_STREAMS.

%% @doc Our answers and notifications that may wait for a stream of those
%% (`max_answer_streams/0') to end.
-spec max_held_answers() -> pos_integer().
max_held_answers() -> ?MAX_HELD_ANSWERS.

%% @doc The bytes our answers and notifications waiting for their 202 or
%% held (`max_held_answers/0') may take together.
-spec max_answer_bytes() -> pos_integer().
max_answer_bytes() -> ?MAX_ANSWER_BYTES.

%% @doc How long one of our answers or notifications waits for its 202.
-spec answer_timeout_ms() -> pos_integer().
answer_timeout_ms() -> ?ANSWER_TIMEOUT_MS.

%% @doc Whether the server assigned a session (a DELETE ends it).
-spec has_session(session()) -> boolean().
has_session(#session{id = Id}) -> Id =/= none.

%% @doc A session whose bodies are bounded by `MaxBytes' (an event, or a
%% JSON body).
-spec new(pos_integer()) -> session().
new(MaxBytes) when is_integer(MaxBytes), MaxBytes >= 1 ->
    #session{max_bytes = MaxBytes}.

%% @doc The session's own headers on every request: `Accept', the session
%% id and the protocol version once known.
-spec request_headers(session()) -> headers().
request_headers(#session{id = Id, version = Version}) ->
    [{"accept", ?ACCEPT}]
        ++ [{"mcp-session-id", Id} || Id =/= none]
        ++ [{"mcp-protocol-version", binary_to_list(Version)} || Version =/= none].

%% @doc Whether the last stream event handled was a `{chunk, SRef, Bytes}'
%% that brought the server answering one of our requests (the actor's liveness probe,
%% `mcp_transport:carries_bytes/2'): any byte of a JSON answer, or, on a
%% request's event stream (its POST's, or the GET resuming it), a byte of
%% a message's data as the stream's own decoder reads it
%% (`mcp_event_stream:heard/1': not comments, other fields, events of
%% another type or empty data, which many servers' HTTP layers send on a
%% timer however stuck their handlers are). Nothing on the standalone
%% stream is: a server writes there on its own.
-spec heard(session()) -> boolean().
heard(#session{heard = Heard}) -> Heard.

%% @doc One event in, the commands it asks for out, in order.
-spec handle(event(), session()) -> {[command()], session()}.
handle({send, Message}, Session) ->
    outbound(Message, Session);
handle({timer, Tag}, Session) ->
    timer(Tag, Session);
handle(Event, #session{streams = Streams} = Session0) ->
    %% (`heard/1' answers for this event: a chunk of a stream no longer
    %% open, as any other, is not the server heard)
    Session = Session0#session{heard = false},
    SRef = element(2, Event),
    case Streams of
        #{SRef := Stream} -> posted_held(answer(Event, Stream, Session));
        #{} -> {[], Session}
    end.

%%% ---------------------------------------------------------------- send

outbound(Message, #session{renewing = true} = Session) ->
    %% An answer while a new session starts answers a question of the old.
    {[], queued(Message, Session)};
outbound(Message, #session{queued = Queued} = Session) when element(1, Session#session.listen) =:= opening ->
    {[], Session#session{queued = [Message | Queued]}};
outbound({rpc, {notification, <<"notifications/cancelled">>, Params, {stateless, _, _}}, _Bytes}, Session) ->
    %% The stateless revision's: over HTTP, closing the request's stream is
    %% its cancellation, and no notice is POSTed.
    close_cancelled(Params, Session);
outbound({rpc, Rpc, Bytes}, Session) ->
    outbound(Rpc, iolist_to_binary(Bytes), Session);
outbound(Bytes, Session) ->
    %% An untyped message is sent as one nothing answers.
    outbound(response, iolist_to_binary(Bytes), Session).

outbound({request, Id, <<"initialize">> = Method, Params, Era}, Bytes, Session) ->
    Rpc = {request, Id, Method},
    Extra = era_headers(Method, Params, Era),
    Listen = wanted(Params),
    post(#stream{rpc = Rpc, extra = Extra}, Bytes,
         Session#session{handshake = {Rpc, Extra, Bytes}, listen = Listen, wants_listen = Listen =:= wanted});
outbound({request, Id, Method, Params, Era}, Bytes, Session) ->
    post(#stream{rpc = {request, Id, Method}, extra = era_headers(Method, Params, Era), bytes = Bytes}, Bytes, Session);
outbound({notification, Method, Params, Era}, Bytes, Session0) ->
    {Closed, Session1} = case Method of
                             <<"notifications/cancelled">> -> close_cancelled(Params, Session0);
                             _ -> {[], Session0}
                         end,
    Session2 = case Method of
                   <<"notifications/initialized">> -> Session1#session{initialized = Bytes};
                   _ -> Session1
               end,
    {Posted, Session3} = post(#stream{rpc = notification, extra = era_headers(Method, Params, Era)}, Bytes, Session2),
    {Listened, Session4} = case Method of
                               <<"notifications/initialized">> -> listen(Session3);
                               _ -> {[], Session3}
                           end,
    {Closed ++ Posted ++ Listened, Session4};
outbound(response, Bytes, Session) ->
    post(#stream{rpc = response}, Bytes, Session).

%% The stateless revision's headers of a message (`mcp_request_headers').
era_headers(Method, Params, {stateless, Version, Mirrored}) ->
    mcp_request_headers:headers(Version, Method, Params, Mirrored);
era_headers(_Method, _Params, _Era) ->
    [].

%% Our answers and notifications wait for a 202 at most
%% `?ANSWER_TIMEOUT_MS', and at most `?MAX_ANSWER_STREAMS' at once; up to
%% `?MAX_HELD_ANSWERS' more wait for one of those to end (`posted_held/1'),
%% and one past them fails the connection: a server that asks without end
%% and never acknowledges cannot make the client hold a socket, or an
%% answer, per question.
post(#stream{rpc = {request, _, _}} = Stream, Bytes, Session) ->
    issue(Stream, Bytes, true, infinity, Session);
post(Stream0, Bytes, #session{streams = Streams, held = Held} = Session) ->
    Stream = Stream0#stream{owed = byte_size(Bytes)},
    Answering = answering(Streams),
    Owed = owed(Streams, Held) + byte_size(Bytes),
    if
        Owed > ?MAX_ANSWER_BYTES ->
            {[{deliver, {fault, {http_failed, {too_many_answer_bytes, Owed}}}}], Session};
        Answering < ?MAX_ANSWER_STREAMS ->
            issue(Stream, Bytes, false, ?ANSWER_TIMEOUT_MS, Session);
        length(Held) >= ?MAX_HELD_ANSWERS ->
            {[{deliver, {fault, {http_failed, {too_many_streams, Answering}}}}], Session};
        true ->
            {[], Session#session{held = [{Stream, Bytes} | Held]}}
    end.

issue(#stream{extra = Extra} = Stream, Bytes, Request, Timeout, #session{streams = Streams} = Session) ->
    {SRef, Minted} = mint(Session),
    {[{post, SRef, request_headers(Session) ++ Extra, Bytes, #{request => Request, timeout => Timeout}}],
     Minted#session{streams = Streams#{SRef => Stream#stream{sent_in = Session#session.id}}}}.

%% Our answers and notifications waiting for their 202.
answering(Streams) ->
    length([S || #stream{rpc = R} = S <- maps:values(Streams), R =:= response orelse R =:= notification]).

%% The bytes of our answers and notifications waiting for their 202 or
%% held.
owed(Streams, Held) ->
    lists:foldl(fun(#stream{owed = Owed}, Sum) -> Sum + Owed end, 0, maps:values(Streams))
        + lists:foldl(fun({#stream{owed = Owed}, _}, Sum) -> Sum + Owed end, 0, Held).

%% After a stream's event: the answers held for a free stream are posted,
%% oldest first, while streams are free (not while a new session starts:
%% then after it).
posted_held({_, #session{held = []}} = Outcome) ->
    Outcome;
posted_held({_, #session{renewing = true}} = Outcome) ->
    Outcome;
posted_held({Commands, #session{held = Held, streams = Streams} = Session} = Outcome) ->
    case answering(Streams) < ?MAX_ANSWER_STREAMS of
        true ->
            [{Stream, Bytes} | Newer] = lists:reverse(Held),
            {Posted, Next} = post(Stream, Bytes, Session#session{held = lists:reverse(Newer)}),
            posted_held({Commands ++ Posted, Next});
        false ->
            Outcome
    end.

%% A GET for an event stream, with `Extra' headers.
get(Stream, Extra, #session{streams = Streams} = Session) ->
    {SRef, Minted} = mint(Session),
    Headers = lists:keystore("accept", 1, Extra ++ request_headers(Session), {"accept", "text/event-stream"}),
    {SRef, [{get, SRef, Headers}], Minted#session{streams = Streams#{SRef => Stream}}}.

mint(#session{minted = N} = Session) ->
    {N + 1, Session#session{minted = N + 1}}.

%% A `notifications/cancelled' closes the cancelled request's stream; a
%% request waiting for its resumption is never resumed.
close_cancelled({some, {object, Params}}, Session) ->
    case lists:keyfind(<<"requestId">>, 1, Params) of
        {_, {int, Id}} -> closed(fun(Rpc) -> of_request(Rpc, [Id]) end, Session);
        _ -> {[], Session}
    end;
close_cancelled(_Params, Session) ->
    {[], Session}.

%%% ---------------------------------------------------- standalone stream

%% A client that declares a capability through which a server asks it
%% something (elicitation, sampling, roots) wants the standalone stream:
%% a server may send such a request there, outside any request of ours; so
%% does a server that declared `tools.listChanged' (`announcing/2').
wanted({some, {object, Params}}) ->
    case lists:keyfind(<<"capabilities">>, 1, Params) of
        {_, {object, Capabilities}} ->
            case [Name || {Name, _} <- Capabilities,
                          lists:member(Name, [<<"elicitation">>, <<"sampling">>, <<"roots">>])] of
                [] -> unwanted;
                [_ | _] -> wanted
            end;
        _ -> unwanted
    end;
wanted(_Params) ->
    unwanted.

%% After `notifications/initialized', a wanted standalone stream is opened
%% by a GET; until its answer (or `?LISTEN_OPEN_MS'), later messages wait,
%% so that a server asking on it from within a request of ours finds it
%% open. Any answer but a 200 event stream settles it unopened; once open,
%% an end is resumed (`resumable/3'). Opened again in every new session.
listen(#session{listen = wanted, id = Id} = Session) when Id =/= none ->
    {SRef, Commands, Opened} = get(#stream{rpc = listen}, [], Session),
    {Tag, Tagged} = mint(Opened),
    {Commands ++ [{timer, ?LISTEN_OPEN_MS, Tag}], Tagged#session{listen = {opening, SRef, Tag}}};
listen(Session) ->
    {[], Session}.

%% The standalone stream's answer came (or its wait ended): the messages
%% held meanwhile go out, oldest first.
settle({Commands, #session{listen = {opening, _, _}} = Session}) ->
    flush({Commands, Session#session{listen = settled}});
settle(Outcome) ->
    Outcome.

%% The messages held while the standalone stream opened or a new session
%% started go out, oldest first, once neither holds them.
flush({Commands, #session{listen = {opening, _, _}} = Session}) ->
    {Commands, Session};
flush({Commands, #session{renewing = true} = Session}) ->
    {Commands, Session};
flush({Commands, #session{queued = Queued} = Session}) ->
    lists:foldl(fun(Message, {Acc, S}) ->
                        {More, S1} = outbound(Message, S),
                        {Acc ++ More, S1}
                end, {Commands, Session#session{queued = []}}, lists:reverse(Queued)).

%%% --------------------------------------------------------------- timers

timer(Tag, #session{listen = {opening, SRef, Tag}} = Session) ->
    settle(cancel(SRef, Session));
timer(Tag, #session{waiting = Waiting} = Session) ->
    case maps:take(Tag, Waiting) of
        {Stream, Rest} -> resume(Stream, Session#session{waiting = Rest});
        error -> {[], Session}
    end.

resume(#stream{last_event_id = LastEventId} = Stream, Session) ->
    {_SRef, Commands, Next} = get(Stream, [{"last-event-id", binary_to_list(LastEventId)} || LastEventId =/= none],
                                  Session),
    {Commands, Next}.

%%% -------------------------------------------------------------- answers

answer({headers, SRef, Headers}, #stream{rpc = listen} = Stream, Session) ->
    settle(started(SRef, Stream, Headers, Session));
answer({status, SRef, 404, _, _}, #stream{rpc = listen, resumptions = N} = Stream, #session{id = Id} = Session)
  when N > 0, Id =/= none ->
    %% Reopened, and the server no longer knows the session (restarted,
    %% evicted): a new session, as a request's 404 starts one (a renewal
    %% closes the old session's standalone stream, so this one is of the
    %% current session).
    expired(Stream, Id, drop(SRef, Session));
answer({status, SRef, _, _, _}, #stream{rpc = listen}, Session) ->
    settle({[], drop(SRef, Session)});
answer({failed, SRef, Reason}, #stream{rpc = listen, body = undefined, resumptions = N} = Stream, Session)
  when N > 0 ->
    %% Reopened, and the server could not be reached: one more try, and
    %% past the last the connection is lost (a server gone while no request
    %% was in flight is noticed so, and the reconnect policy can act).
    unreachable(Stream, Reason, drop(SRef, Session));
answer({failed, SRef, _Reason}, #stream{rpc = listen, body = undefined}, Session) ->
    settle({[], drop(SRef, Session)});
answer({headers, SRef, Headers}, Stream, Session) ->
    started(SRef, Stream, Headers, Session);
answer({chunk, SRef, Chunk}, Stream, Session) ->
    read_on(SRef, chunk(SRef, Stream, Chunk, Session));
answer({body_end, SRef}, #stream{body = {json, Parts, _}} = Stream, Session) ->
    Body = iolist_to_binary(lists:reverse(Parts)),
    closing_answered([Body], delivered([Body], Stream, drop(SRef, Session)));
answer({body_end, SRef}, #stream{body = {sse, _}} = Stream, Session) ->
    ended(Stream, ended, drop(SRef, Session));
answer({body_end, SRef}, _Stream, Session) ->
    {[], drop(SRef, Session)};
answer({status, SRef, Status, Headers, Body}, #stream{extra = [_ | _], rpc = {request, Id, _}}, Session)
  when Status < 200; Status >= 300 ->
    refused(Id, Status, Headers, Body, drop(SRef, Session));
answer({status, SRef, Status, _Headers, _Body}, Stream, Session) ->
    status(Status, Stream, drop(SRef, Session));
answer({failed, SRef, Reason}, #stream{body = {sse, _}} = Stream, Session) ->
    ended(Stream, Reason, drop(SRef, Session));
answer({failed, SRef, Reason}, _Stream, Session) ->
    fault({http_failed, Reason}, drop(SRef, Session)).

%% The headers of a 200 answer (the only status whose body streams).
started(SRef, #stream{rpc = Rpc} = Stream, Headers, #session{max_bytes = Max} = Session) ->
    case session(Rpc, Headers, Session) of
        {ok, WithSession} ->
            Body = case {Rpc, mcp_http_headers:content_type(Headers)} of
                       {{request, _, _}, <<"text/event-stream">>} -> {sse, mcp_event_stream:new(Max)};
                       {{request, _, _}, <<"application/json">>} -> {json, [], 0};
                       {{request, _, _}, Other} -> {wrong_type, binary:part(Other, 0, min(byte_size(Other), ?MAX_TYPE_BYTES))};
                       {listen, <<"text/event-stream">>} -> {sse, mcp_event_stream:new(Max)};
                       {_, _} -> ignored
                   end,
            case Body of
                {wrong_type, Type} -> fault_after({content_type, Type}, cancel(SRef, WithSession));
                _ -> {[{read, SRef}], keep(SRef, Stream#stream{body = Body}, WithSession)}
            end;
        {error, Fault} ->
            fault_after(Fault, cancel(SRef, Session))
    end.

%% The session id the answer to `initialize' assigns.
session({request, _, <<"initialize">>}, Headers, Session) ->
    case mcp_http_headers:value("mcp-session-id", Headers) of
        none -> {ok, Session};
        Id ->
            case length(Id) =< ?MAX_SESSION_ID_BYTES andalso visible_ascii(list_to_binary(Id), 16#21) of
                true -> {ok, Session#session{id = Id}};
                false -> {error, {bad_session_id, length(Id)}}
            end
    end;
session(_Rpc, _Headers, Session) ->
    {ok, Session}.

chunk(SRef, #stream{body = {sse, Decoder}, rpc = Rpc} = Stream, Chunk, Session) ->
    case mcp_event_stream:push(Decoder, Chunk) of
        {ok, Items, LastEventId} ->
            Heard = answers_request(Rpc) andalso mcp_event_stream:heard(Decoder),
            events(SRef, event_id(LastEventId, Stream), Items, Session#session{heard = Heard});
        {error, Fault} ->
            fault(Fault, Session)
    end;
chunk(SRef, #stream{body = {json, Parts, Size}} = Stream, Chunk, #session{max_bytes = Max} = Session) ->
    case Size + byte_size(Chunk) of
        Total when Total > Max -> fault({line_too_long, Total}, Session);
        Total -> {[], keep(SRef, Stream#stream{body = {json, [Chunk | Parts], Total}}, Session#session{heard = Total > Size})}
    end;
chunk(_SRef, _Stream, _Chunk, Session) ->
    %% A body not read (ignored).
    {[], Session}.

%% Whether a stream is a request's (its POST's, or its resumption's), not
%% the standalone stream (`heard/1').
answers_request({request, _, _}) -> true;
answers_request(_Rpc) -> false.

%% The body is read one chunk at a time: the next is asked for once this
%% one is decoded, while the stream is still open and nothing failed.
read_on(SRef, {Commands, #session{streams = Streams} = Session}) ->
    Failed = lists:any(fun({deliver, {fault, _}}) -> true; (_) -> false end, Commands),
    case is_map_key(SRef, Streams) andalso not Failed of
        true -> {Commands ++ [{read, SRef}], Session};
        false -> {Commands, Session}
    end.

%% The stream with the decoder's last event id read (unchanged: as it was).
event_id(Id, #stream{read_event_id = Id} = Stream) -> Stream;
event_id(Id, Stream) -> Stream#stream{last_event_id = resumable(Id), read_event_id = Id}.

%% An event id is echoed as `Last-Event-ID' only when it is at most
%% `max_event_id_bytes()' of printable ASCII; any other id means the
%% stream cannot be resumed (an older id would replay what was delivered).
resumable(Id) when is_binary(Id), byte_size(Id) =< ?MAX_EVENT_ID_BYTES ->
    case visible_ascii(Id, 16#20) of
        true -> Id;
        false -> none
    end;
resumable(_) ->
    none.

%% Whether every byte is printable ASCII from `Low' (a space, or `!').
visible_ascii(Bytes, Low) ->
    lists:all(fun(C) -> C >= Low andalso C =< 16#7E end, binary_to_list(Bytes)).

%% The event stream's items: messages are delivered, `retry:' is kept.
events(SRef, Stream, Items, Session) ->
    Retry = lists:foldl(fun({retry, Ms}, _) -> min(Ms, ?MAX_RETRY_MS);
                           (_, Ms) -> Ms
                        end, Stream#stream.retry_ms, Items),
    Messages = [Data || {event, Type, Data} <- Items, Data =/= <<>>, Type =:= <<>> orelse Type =:= <<"message">>],
    Kept = Stream#stream{retry_ms = Retry},
    case Messages of
        [] ->
            {[], keep(SRef, Kept, Session)};
        _ ->
            closing_answered(Messages, delivered(Messages, Kept, keep(SRef, Kept#stream{resumptions = 0}, Session)))
    end.

closing_answered(Messages, {Commands, Session}) ->
    {Closed, Answered} = answered(Messages, Session),
    {Commands ++ Closed, Answered}.

%% A request's stream has done its work once its response came, on it or
%% on any other stream: it is closed then, whatever the server does with
%% it afterwards (a stream kept open would hold a socket per call).
answered(Messages, #session{streams = Streams, waiting = Waiting} = Session) ->
    Requests = maps:from_list([{Id, routed_result} || #stream{rpc = {request, Id, _}} <- maps:values(Streams)
                                                         ++ maps:values(Waiting)]),
    Ids = [Id || Message <- Messages, {ok, Id} <- [response_id(Message, Requests)]],
    closed(fun(Rpc) -> of_request(Rpc, Ids) end, Session).

%% The id of `Requests' that `Message' answers, read by the core's
%% validating scan: a result is not built (`routed_result'), an error only
%% up to `mcp_protocol''s bound on errors; the actor reads the message
%% again, as it reads every message.
response_id(Message, Requests) ->
    case mcp_protocol:read(Message, Requests) of
        {routed, Id} -> {ok, Id};
        {answer, Id, _} -> {ok, Id};
        _ -> none
    end.

of_request({request, Id, _}, Ids) -> lists:member(Id, Ids);
of_request(_Rpc, _Ids) -> false.

%% Every stream whose request `Of' names: the open ones cancelled, those
%% waiting for their resumption never resumed.
closed(Of, #session{streams = Streams, waiting = Waiting} = Session) ->
    Open = lists:sort([SRef || {SRef, #stream{rpc = Rpc}} <- maps:to_list(Streams), Of(Rpc)]),
    {[{cancel, SRef} || SRef <- Open],
     Session#session{streams = maps:without(Open, Streams),
                     waiting = maps:filter(fun(_, #stream{rpc = Rpc}) -> not Of(Rpc) end, Waiting)}}.

response_to(Id, Body) ->
    response_id(Body, #{Id => routed_result}) =:= {ok, Id}.

delivered(Messages, #stream{renew = true, rpc = {request, Id, _}}, Session) ->
    %% The answer to the new session's `initialize' is the transport's own;
    %% one the client refuses (an error, a version it does not speak, a
    %% malformed result) or that names another version than the connection
    %% spoke leaves no session to go on in.
    case negotiated(Id, Messages, Session) of
        {_, #session{version = Version, spoken = Version} = Renewed} when Version =/= none -> renewed(Renewed);
        {answered, Refused} -> fault(session_expired, Refused);
        {waiting, Waiting} -> {[], Waiting}
    end;
delivered(Messages, #stream{rpc = Rpc}, #session{offset = Offset0} = Session0) ->
    %% What the standalone stream brings is no progress: a server could
    %% renew sessions without end by writing there and forgetting each.
    Session = case Rpc of
                  listen -> Session0;
                  _ -> Session0#session{progress = true}
              end,
    {Commands, Offset} = lists:mapfoldl(fun(Message, At) ->
                                                {{deliver, {message, At, Message}}, At + byte_size(Message)}
                                        end, Offset0, Messages),
    Versioned = case Rpc of
                    {request, Id, <<"initialize">>} -> element(2, negotiated(Id, Messages, Session));
                    _ -> Session
                end,
    {Commands, Versioned#session{offset = Offset}}.

%% The new session is open: `notifications/initialized' goes out again,
%% then the requests that met the 404 (each once), the standalone stream
%% is opened again when the handshake wanted it, and the held messages go
%% out.
renewed(#session{initialized = Initialized, replays = Replays} = Session0) ->
    Session = Session0#session{renewing = false, replays = [], progress = false},
    {Posted, Next} = case Initialized of
                         none -> {[], Session};
                         _ -> post(#stream{rpc = notification}, Initialized, Session)
                     end,
    {Replayed, Sent} = lists:foldl(fun(#stream{bytes = Bytes} = Stream, {Acc, S}) ->
                                           {More, S1} = post(Stream#stream{replayed = true, body = undefined},
                                                             Bytes, S),
                                           {Acc ++ More, S1}
                                   end, {Posted, Next}, lists:reverse(Replays)),
    {Listened, Listening} = case Sent#session.wants_listen of
                                true -> listen(Sent#session{listen = wanted});
                                false -> {[], Sent}
                            end,
    %% The actor is told: the server may have changed with its session.
    flush({Replayed ++ Listened ++ [{deliver, session_renewed}], Listening}).

%% The protocol version the server chose, from its answer to `initialize';
%% a server that declared `tools.listChanged' says so on the standalone
%% stream, which is then wanted. The result is read as the actor reads it (`initialize': one longer than
%% the core's bound on whole results is malformed, unbuilt), and an
%% answer the actor refuses (a version it does not speak) names none;
%% only the first answer counts, as for the actor (a server answering
%% twice in one chunk had the header name the second's version while the
%% actor spoke the first's): `{answered | waiting, Session}', whether the
%% answer came among them.
negotiated(Id, Messages, Session) ->
    lists:foldl(fun(_Message, {answered, _} = Answered) ->
                        %% The first answer to `initialize' is the one the
                        %% actor reads; a second one is not read.
                        Answered;
                   (Message, {waiting, Acc}) ->
                        case mcp_protocol:read(Message, #{Id => initialize}) of
                            {answer, Id, {ok, {initialize_result, Version, Tools, _, _}}} ->
                                {answered, announcing(Tools, Acc#session{version = Version})};
                            {answer, Id, _Refused} ->
                                {answered, Acc};
                            _ ->
                                {waiting, Acc}
                        end
                end, {waiting, Session}, Messages).

announcing({some, {tools_capability, true}}, #session{listen = unwanted} = Session) ->
    Session#session{listen = wanted, wants_listen = true};
announcing(_Tools, Session) ->
    Session.

%% A request's event stream ended (`Why': `ended' or the driver's reason)
%% before its response: it is resumed when it can be; so is the standalone
%% one, and giving up on that one is no fault.
ended(#stream{rpc = Rpc} = Stream, Why, Session) when Rpc =:= listen; element(1, Rpc) =:= request ->
    resumable(Stream, Why, Session);
ended(_Stream, _Why, Session) ->
    {[], Session}.

resumable(#stream{rpc = listen, resumptions = N}, _Why, Session) when N >= ?MAX_RESUMPTIONS ->
    {[], Session};
resumable(#stream{rpc = {request, _, _}, last_event_id = none}, Why, Session) ->
    fault({stream_lost, Why}, Session);
resumable(#stream{resumptions = N}, Why, Session) when N >= ?MAX_RESUMPTIONS ->
    fault({stream_lost, Why}, Session);
resumable(#stream{retry_ms = Retry} = Stream, _Why, #session{waiting = Waiting} = Session) ->
    {Tag, Tagged} = mint(Session),
    Next = Stream#stream{resumptions = Stream#stream.resumptions + 1, body = undefined},
    {[{timer, max(Retry, ?MIN_RETRY_MS), Tag}], Tagged#session{waiting = Waiting#{Tag => Next}}}.

%% The standalone stream could not be reopened (the connection failed
%% before any answer): tried again like an end, at most `?MAX_RESUMPTIONS'
%% times in a row; then `{stream_lost, Reason}'.
unreachable(#stream{resumptions = N}, Reason, Session) when N >= ?MAX_RESUMPTIONS ->
    fault({stream_lost, Reason}, Session);
unreachable(Stream, Reason, Session) ->
    resumable(Stream, Reason, Session).

%% A whole answer: any status but a streamed 200. A 2xx (202 for a
%% notification or a response of ours) carries nothing to read.
status(Status, _Stream, Session) when Status >= 200, Status < 300 ->
    {[], Session};
status(405, #stream{resumptions = N}, Session) when N > 0 ->
    %% No stream to resume from: the request is left to its deadline.
    {[], Session};
status(404, #stream{rpc = {request, _, <<"initialize">>}}, Session) ->
    fault({http_status, 404}, Session);
status(404, #stream{sent_in = SentIn} = Stream, Session) when SentIn =/= none ->
    expired(Stream, SentIn, Session);
status(Status, _Stream, Session) ->
    fault({http_status, Status}, Session).

%% A stateless request answered with a status other than 2xx: its
%% response, when the body is one, or else its rejection.
refused(Id, Status, Headers, Body, #session{max_bytes = Max} = Session) ->
    Response = mcp_http_headers:content_type(Headers) =:= <<"application/json">> andalso is_binary(Body)
        andalso byte_size(Body) =< Max andalso response_to(Id, Body),
    case Response of
        true -> closing_answered([Body], delivered([Body], #stream{rpc = response}, Session));
        false -> {[{deliver, {rejected, Id, {http_status, Status}}}], Session}
    end.

%% The session a request was sent in is unknown to the server (404): the
%% request is taken as not processed (what a 404 means), so it is sent again, once,
%% in a new session; a notification or an answer of ours is not. The
%% first 404 of a session starts the new one with the actor's own
%% `initialize' (`renew/3'); one that comes while it starts, or after, for
%% a request sent in the old session, only adds the request. A request
%% refused again, or a session that expires before any message came in
%% it, is `session_expired'.
expired(#stream{replayed = true}, _SentIn, Session) ->
    fault(session_expired, Session);
expired(Stream, SentIn, #session{id = SentIn} = Session) ->
    renew(Stream, Session);
expired(Stream, _SentIn, #session{renewing = true, replays = Replays} = Session) ->
    {[], Session#session{replays = replayable(Stream) ++ Replays}};
expired(#stream{rpc = {request, _, _}, bytes = Bytes} = Stream, _SentIn, Session) ->
    post(Stream#stream{replayed = true, body = undefined}, Bytes, Session);
expired(_Stream, _SentIn, Session) ->
    {[], Session}.

replayable(#stream{rpc = {request, _, _}} = Stream) -> [Stream];
replayable(_Stream) -> [].

renew(_Stream, #session{progress = false} = Session) ->
    fault(session_expired, Session);
renew(_Stream, #session{handshake = none} = Session) ->
    fault(session_expired, Session);
renew(Stream, #session{handshake = {Initialize, Extra, Bytes}} = Session) ->
    %% The standalone stream of the old session is given up.
    {Closed, Cleared} = case Session#session.listen of
                            {opening, SRef, _} -> cancel(SRef, Session#session{listen = settled});
                            _ -> close_listen(Session)
                        end,
    %% Our answers not yet posted answer the old session's questions,
    %% which the new session never asked: they are dropped.
    Queued = lists:foldr(fun queued/2, Cleared#session{queued = []}, Cleared#session.queued),
    {Posted, Next} = post(#stream{rpc = Initialize, extra = Extra, renew = true}, Bytes,
                          Queued#session{id = none, version = none, spoken = Session#session.version,
                                         renewing = true,
                                         replays = replayable(Stream),
                                         held = [H || {#stream{rpc = Rpc}, _} = H <- Cleared#session.held,
                                                      Rpc =/= response]}),
    {Closed ++ Posted, Next}.

%% `Message' waits in `queued' for the new session, unless it is an answer
%% of ours (an untyped message is sent as one).
queued({rpc, {request, _, _, _, _}, _} = Message, #session{queued = Queued} = Session) ->
    Session#session{queued = [Message | Queued]};
queued({rpc, {notification, _, _, _}, _} = Message, #session{queued = Queued} = Session) ->
    Session#session{queued = [Message | Queued]};
queued(_Answer, Session) ->
    Session.

close_listen(Session) ->
    closed(fun(Rpc) -> Rpc =:= listen end, Session).

cancel(SRef, Session) ->
    {[{cancel, SRef}], drop(SRef, Session)}.

keep(SRef, Stream, #session{streams = Streams} = Session) ->
    Session#session{streams = Streams#{SRef => Stream}}.

drop(SRef, #session{streams = Streams} = Session) ->
    Session#session{streams = maps:remove(SRef, Streams)}.

fault_after(Fault, {Commands, Session}) ->
    {Commands ++ [{deliver, {fault, Fault}}], Session}.

fault(Fault, Session) ->
    {[{deliver, {fault, Fault}}], Session}.

%% @doc The Streamable HTTP transport (MCP 2025-06-18 and 2025-11-25): one
%% remote MCP server behind a URL, reached with OTP's `httpc'.
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
%%     reads the headers, and the whole body of any other status, with no
%%     limit of its own: while a request waits for its answer's headers its
%%     handler is measured (`mcp_http_watch'), and past twice our request
%%     plus twice `max_line_bytes' plus 1 MiB the request is cancelled and
%%     the connection fails with `{response_too_large, Bytes}' (the bound:
%%     that, plus what arrives in `mcp_http_watch:interval_ms()').</li>
%% <li>The session: `Mcp-Session-Id' from the answer to `initialize' is
%%     sent with every later request (a value that is not visible ASCII or
%%     longer than 1,024 bytes is `{bad_session_id, Bytes}'), and
%%     `MCP-Protocol-Version' once the handshake named it. A 404 to a
%%     request carrying the session starts a new session, once per
%%     connection (`renew/2': the actor's own `initialize' and
%%     `notifications/initialized' sent again, their answers kept here); the
%%     request is answered with the JSON-RPC error
%%     `session_renewed_code()' and never replayed. A second 404 is
%%     `session_expired'. `terminate/1'
%%     DELETEs the session (bounded by `shutdown_timeout_ms'), then stops
%%     the manager; its exit is the `{closed, {exited, {peer_down,
%%     {http_session, Outcome}}}}' event.</li>
%% <li>A request's event stream is closed as soon as its response has
%%     arrived (the server may keep it open; a socket per call would
%%     remain). A request's stream that ends before its response, after an event
%%     with an id, is resumed by a GET with `Last-Event-ID' once the
%%     server's `retry:' delay (default `default_retry_ms()', at most
%%     `max_retry_ms()') has passed, up to `max_resumptions()' times in a
%%     row without a message; 405 to that GET means the server offers no
%%     stream, and the request is left to its deadline. A stream that ends
%%     without a way to resume is `{stream_lost, Reason}'; an event id
%%     longer than `max_event_id_bytes()' (1,024) or not printable ASCII
%%     is never echoed: the stream then has no way to resume. A cancelled
%%     request's stream is closed; in the stateless revision (a headed
%%     `notifications/cancelled') that is the whole cancellation, and the
%%     notice is not POSTed.</li>
%% <li>The standalone stream (a GET after `notifications/initialized') is
%%     opened only when the `initialize' declared a capability through
%%     which a server asks (elicitation, sampling, roots); later messages
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
%% A headed message (`mcp_transport:message()', the stateless revision's)
%% is POSTed with its headers after the spec's own; an answer to its
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

-export([open/2, send/2, event/2, terminate/1, os_pid/1, takes_headers/0]).
-export([default_retry_ms/0, max_retry_ms/0, max_resumptions/0, max_event_id_bytes/0, max_answer_streams/0,
         resolve_headers/1, seal/1,
         session_renewed_code/0]).
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

-define(DEFAULT_RETRY_MS, 1000).
-define(MAX_RETRY_MS, 30000).
-define(MAX_RESUMPTIONS, 3).
-define(MAX_SESSION_ID_BYTES, 1024).
-define(MAX_EVENT_ID_BYTES, 1024).
%% Our answers and notifications POSTed and not yet acknowledged, at once,
%% and how long each waits for its 202.
-define(MAX_ANSWER_STREAMS, 16).
-define(ANSWER_TIMEOUT_MS, 30000).
%% A negotiated protocol version becomes the `MCP-Protocol-Version'
%% header only when it is at most this long and visible ASCII.
-define(MAX_VERSION_BYTES, 64).
-define(ACCEPT, "application/json, text/event-stream").
%% What one socket read may deliver: the body reaches the owner in chunks
%% of up to this size (each a message counted by the actor's flood budget).
-define(READ_BYTES, 262144).
-define(NUDGE_MS, 20).
%% How long messages wait for the standalone stream's answer (`listen/2').
-define(LISTEN_OPEN_MS, 5000).

%% What the transport knows of an outbound message.
-type rpc() :: {request, Id :: integer(), Method :: binary()} | notification | response | listen.

-record(stream, {rpc :: rpc(),
                 %% The headers of its own it was sent with (a headed
                 %% message's: the stateless revision).
                 headers = [] :: [mcp_request_headers:header()],
                 %% The `httpc' handler streaming the body, one chunk at a
                 %% time (`next_chunk/2').
                 handler = none :: pid() | none,
                 %% `undefined' until the answer's headers arrived.
                 body = undefined :: undefined | {sse, mcp_event_stream:decoder()}
                                   | {json, [binary()], non_neg_integer()} | ignored,
                 last_event_id = none :: binary() | none,
                 retry_ms = ?DEFAULT_RETRY_MS :: non_neg_integer(),
                 %% Resumptions in a row that delivered no message.
                 resumptions = 0 :: non_neg_integer(),
                 %% A chunk of the body arrived (`nudge/2').
                 fed = false :: boolean(),
                 %% The `initialize' that starts a new session after a 404
                 %% (`renew/2'), with the id of the request that met it.
                 renew = none :: none | {failed, integer() | none},
                 %% The bytes of the request's own body (what its `httpc'
                 %% handler holds of ours: `watch/1').
                 sent = 0 :: non_neg_integer(),
                 %% The POSTed message, sent again after an authorization.
                 message = none :: binary() | none}).

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
               session = none :: string() | none,
               version = none :: binary() | none,
               %% Open requests by `httpc' request id.
               streams = #{} :: #{reference() => #stream{}},
               %% Streams waiting for their resumption, by timer tag.
               waiting = #{} :: #{reference() => #stream{}},
               offset = 0 :: non_neg_integer(),
               deleted = no_session :: term(),
               %% The actor's own `initialize' and `notifications/initialized',
               %% sent again, once, when the session expires (`renew/2').
               handshake = none :: binary() | none,
               initialized = none :: binary() | none,
               renewed = false :: boolean(),
               %% The authorization layer (`oauth' in the spec), and the
               %% messages waiting for its token, newest first.
               auth = none :: none | mcp_http_auth:auth(),
               held = [] :: [#stream{}],
               %% The standalone stream (`listen/2'): not wanted (the
               %% handshake declared no capability a server asks through),
               %% wanted, being opened (messages wait in `queued', newest
               %% first), or settled (its answer came or its wait ended; an
               %% open one that ends is resumed, `resumable/3').
               listen = unwanted :: unwanted | wanted | {opening, reference()} | settled,
               queued = [] :: [{binary(), list()}]}).

%% @doc The wait before resuming a stream whose server gave no `retry:'.
-spec default_retry_ms() -> pos_integer().
default_retry_ms() -> ?DEFAULT_RETRY_MS.

%% @doc The longest `retry:' honoured (a longer one waits this long).
-spec max_retry_ms() -> pos_integer().
max_retry_ms() -> ?MAX_RETRY_MS.

%% @doc Resumptions in a row, without a message, before `{stream_lost, _}'.
-spec max_resumptions() -> pos_integer().
max_resumptions() -> ?MAX_RESUMPTIONS.

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
    MaxBytes = max_bytes(maps:get(max_line_bytes, Spec, mcp_stdio:max_line_bytes())),
    case {mcp_http_target:target(Url), resolve_headers(unsealed(maps:get(headers, Spec, [])))} of
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
                         shutdown_ms = maps:get(shutdown_timeout_ms, Spec, 5000)},
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

%% @doc The spec's headers as `httpc' sends them: each `${NAME}' in a value
%% replaced by the environment variable's value. A name that is not an
%% HTTP token, a value holding CR, LF or NUL, or an unset variable is an
%% error naming the header or the variable, never the value.
-spec resolve_headers([{binary() | string(), binary() | string()}]) ->
          {ok, [{string(), string()}]}
          | {error, {bad_header, binary()} | {header_variable_unset, binary()}}.
resolve_headers(Headers) ->
    resolve_headers(Headers, []).

resolve_headers([], Acc) ->
    {ok, lists:reverse(Acc)};
resolve_headers([{Name0, Value0} | Rest], Acc) ->
    Name = unicode:characters_to_binary(Name0),
    Value = unicode:characters_to_binary(Value0),
    case is_binary(Name) andalso is_binary(Value) andalso token(Name) of
        false ->
            {error, {bad_header, printable_name(Name)}};
        true ->
            case expand(Value) of
                {ok, Expanded} ->
                    case binary:match(Expanded, [<<"\r">>, <<"\n">>, <<0>>]) of
                        nomatch -> resolve_headers(Rest, [{binary_to_list(Name), binary_to_list(Expanded)} | Acc]);
                        _ -> {error, {bad_header, Name}}
                    end;
                {error, _} = Error ->
                    Error
            end
    end;
resolve_headers([_ | _], _Acc) ->
    {error, {bad_header, <<>>}}.

printable_name(Name) when is_binary(Name) -> Name;
printable_name(_) -> <<>>.

token(<<>>) -> false;
token(Name) -> lists:all(fun token_char/1, binary_to_list(Name)).

token_char(C) when C >= $a, C =< $z; C >= $A, C =< $Z; C >= $0, C =< $9 -> true;
token_char(C) -> lists:member(C, "!#$%&'*+-.^_`|~").

expand(Value) ->
    case re:run(Value, "\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}", [{capture, all, binary}]) of
        nomatch ->
            {ok, Value};
        {match, [Whole, Name]} ->
            case os:getenv(binary_to_list(Name)) of
                false ->
                    {error, {header_variable_unset, Name}};
                Set ->
                    [Before, After] = binary:split(Value, Whole),
                    case expand(After) of
                        {ok, Rest} -> {ok, <<Before/binary, (unicode:characters_to_binary(Set))/binary, Rest/binary>>};
                        {error, _} = Error -> Error
                    end
            end
    end.

%%% ---------------------------------------------------------------- send

%% @doc Headed messages come with their headers (`mcp_transport').
-spec takes_headers() -> true.
takes_headers() -> true.

-spec send(#http{}, [mcp_transport:message(), ...]) -> {ok, #http{}} | {error, term()}.
send(Http, Messages) ->
    lists:foldl(fun({headed, Headers, Message}, {ok, Acc}) -> outbound(iolist_to_binary(Message), Headers, Acc);
                   (Message, {ok, Acc}) -> outbound(iolist_to_binary(Message), [], Acc);
                   (_Message, Error) -> Error
                end, {ok, Http}, Messages).

outbound(Message, Extra, #http{listen = {opening, _}, queued = Queued} = Http) ->
    {ok, Http#http{queued = [{Message, Extra} | Queued]}};
outbound(<<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"", _/binary>> = Message, [_ | _], Http) ->
    %% A headed message is the stateless revision's: over HTTP, closing the
    %% request's stream is its cancellation, and no notice is POSTed.
    {ok, close_cancelled(Message, Http)};
outbound(Message, Extra, Http) ->
    Rpc = classify(Message),
    Kept = case Rpc of
               {request, _, <<"initialize">>} -> Http#http{handshake = Message, listen = wanted(Message)};
               notification -> remembered(Message, close_cancelled(Message, Http));
               _ -> Http
           end,
    case post(Message, #stream{rpc = Rpc, headers = Extra}, Kept) of
        {ok, Posted} when Rpc =:= notification -> {ok, listen(Message, Posted)};
        Outcome -> Outcome
    end.

%% A message goes now, or waits for the authorization layer's token.
post(Message, Stream, #http{auth = Auth, held = Held} = Http) ->
    case mcp_http_auth:before_send(Auth) of
        send -> posted(Message, Stream, Http);
        wait -> {ok, Http#http{held = [Stream#stream{message = Message} | Held]}};
        {asked, Asked} -> {ok, Http#http{auth = Asked, held = [Stream#stream{message = Message} | Held]}}
    end.

posted(Message, #stream{headers = Extra, rpc = Rpc} = Stream0, #http{streams = Streams} = Http) ->
    Stream = case Http#http.auth of
                 none -> Stream0;
                 _ -> Stream0#stream{message = Message}
             end,
    Request = {Http#http.url, request_headers(Http) ++ Extra, "application/json", Message},
    %% Our answers and notifications wait for a 202 at most
    %% `?ANSWER_TIMEOUT_MS', and at most `?MAX_ANSWER_STREAMS' at once: a
    %% server that asks without end and never acknowledges cannot make the
    %% client hold a socket per question.
    Answering = [S || #stream{rpc = R} = S <- maps:values(Streams), R =:= response orelse R =:= notification],
    Timeout = case Rpc of
                  {request, _, _} -> [];
                  _ -> [{timeout, ?ANSWER_TIMEOUT_MS}]
              end,
    case length(Answering) >= ?MAX_ANSWER_STREAMS andalso Timeout =/= [] of
        true ->
            {error, {http_failed, {too_many_streams, length(Answering)}}};
        false ->
            case request(post, Request, Timeout, Http) of
                {ok, RequestId} -> {ok, keep(RequestId, Stream#stream{sent = iolist_size(Message)}, Http)};
                {error, Reason} -> {error, {http_failed, Reason}}
            end
    end.

remembered(<<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"", _/binary>> = Message, Http) ->
    Http#http{initialized = Message};
remembered(_Message, Http) ->
    Http.

request(Method, Request, Http) ->
    request(Method, Request, [], Http).

request(Method, Request, Extra, #http{http_options = HttpOptions, manager = Manager, owner = Owner}) ->
    httpc:request(Method, Request, Extra ++ HttpOptions,
                  [{sync, false}, {stream, {self, once}}, {receiver, Owner}, {body_format, binary}], Manager).

request_headers(#http{headers = Headers, session = Session, version = Version, auth = Auth}) ->
    [{"accept", ?ACCEPT}]
        ++ [{"mcp-session-id", Session} || Session =/= none]
        ++ [{"mcp-protocol-version", binary_to_list(Version)} || Version =/= none]
        ++ Headers()
        ++ mcp_http_auth:headers(Auth).

%%% -------------------------------------------------------- authorization

%% A 401, or a 403, to a POST: the message waits for a new token
%% (`mcp_http_auth'), or the connection fails.
challenged(Status, #stream{message = Message} = Stream, Headers, #http{auth = Auth, held = Held} = Http) ->
    case mcp_http_auth:challenged(Auth, Status, header("www-authenticate", Headers), Message =/= none) of
        {hold, Next} -> {ok, [], Http#http{auth = Next, held = [Stream | Held]}};
        {fault, Reason} -> fault(Reason, Http)
    end.

%% The layer's token came (or its renewal failed): the held messages go
%% out, oldest first; or it failed, and they are dropped.
authorized({resend, Auth}, #http{held = Held} = Http) ->
    lists:foldl(fun(#stream{message = Message} = Stream, {ok, [], Acc}) ->
                        case posted(Message, Stream, Acc) of
                            {ok, Sent} -> {ok, [], Sent};
                            {error, Fault} -> fault(Fault, Acc)
                        end;
                   (_Stream, Outcome) -> Outcome
                end, {ok, [], Http#http{auth = Auth, held = []}}, lists:reverse(Held));
authorized({fault, Reason, Auth}, Http) ->
    fault(Reason, Http#http{auth = Auth, held = []}).

%% A request answered 2xx ends a run of authorizations (a notification's
%% 202 does not: it may be the answer to one sent before the run began).
succeeded({request, _, _}, #http{auth = Auth} = Http) -> Http#http{auth = mcp_http_auth:succeeded(Auth)};
succeeded(_Rpc, Http) -> Http.

%% The actor's own messages start with the envelope in a fixed order
%% (`mcp_jsonrpc'): a request is `{"jsonrpc":"2.0","id":N,"method":"M"',
%% a notification `{"jsonrpc":"2.0","method":', anything else a response.
classify(<<"{\"jsonrpc\":\"2.0\",\"id\":", Rest/binary>>) ->
    case string:to_integer(Rest) of
        {Id, <<",\"method\":\"", Named/binary>>} when is_integer(Id) ->
            [Method | _] = binary:split(Named, <<"\"">>),
            {request, Id, Method};
        _ ->
            response
    end;
classify(<<"{\"jsonrpc\":\"2.0\",\"method\":", _/binary>>) ->
    notification;
classify(_) ->
    response.

%% A `notifications/cancelled' closes the cancelled request's stream.
close_cancelled(<<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"", _/binary>> = Message, Http) ->
    case mcp_json:decode(Message) of
        {ok, {object, Members}} ->
            case proplists:get_value(<<"params">>, Members) of
                {object, Params} ->
                    case proplists:get_value(<<"requestId">>, Params) of
                        {int, Id} -> close_request(Id, Http);
                        _ -> Http
                    end;
                _ -> Http
            end;
        _ -> Http
    end;
close_cancelled(_Message, Http) ->
    Http.

close_request(Id, #http{streams = Streams, waiting = Waiting, manager = Manager} = Http) ->
    Of = fun(_, #stream{rpc = {request, I, _}}) -> I =:= Id;
            (_, _) -> false
         end,
    Open = maps:keys(maps:filter(Of, Streams)),
    [ok = httpc:cancel_request(RequestId, Manager) || RequestId <- Open],
    %% A request waiting for a token is never sent once cancelled.
    Http#http{streams = maps:without(Open, Streams),
              waiting = maps:filter(fun(Tag, Stream) -> not Of(Tag, Stream) end, Waiting),
              held = [Stream || Stream <- Http#http.held, not Of(held, Stream)]}.

%%% --------------------------------------------------------------- event

-spec event(#http{}, term()) -> {ok, [mcp_transport:event()], #http{}} | not_mine.
event(#http{auth = Auth} = Http, Info) ->
    case mcp_http_auth:answer(Auth, Info) of
        not_mine -> event_checked(Http, Info);
        Answer -> authorized(Answer, Http)
    end.

-spec event_checked(#http{}, term()) -> {ok, [mcp_transport:event()], #http{}} | not_mine.
event_checked(#http{streams = Streams} = Http, {http, {RequestId, stream_start, Headers, Handler}}) when is_map_key(RequestId, Streams) ->
    Stream = maps:get(RequestId, Streams),
    %% Body bytes that came with the headers are held by the handler until
    %% its next socket read (inets 8), which for an event stream that then
    %% waits may never come: if nothing arrived after `?NUDGE_MS', the
    %% handler is fed an empty read (`nudge/2').
    ok = httpc:stream_next(Handler),
    _ = erlang:send_after(?NUDGE_MS, Http#http.owner, {mcp_http, Http#http.ref, {nudge, RequestId}}),
    answer(RequestId, Stream#stream{handler = Handler}, {stream_start, Headers}, Http);
event_checked(#http{ref = Ref, listen = {opening, RequestId}} = Http, {mcp_http, Ref, {listen_timeout, RequestId}}) ->
    settle({ok, [], cancel(RequestId, Http)});
event_checked(#http{ref = Ref} = Http, {mcp_http, Ref, {listen_timeout, _}}) ->
    {ok, [], Http};
event_checked(#http{ref = Ref} = Http, {mcp_http, Ref, watch}) ->
    watch(Http#http{watching = false});
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
event_checked(#http{streams = Streams} = Http, {http, {RequestId, stream, Chunk}}) when is_map_key(RequestId, Streams) ->
    Stream = maps:get(RequestId, Streams),
    next_chunk(RequestId, answer(RequestId, Stream#stream{fed = true}, {stream, Chunk}, Http));
event_checked(#http{streams = Streams} = Http, {http, {RequestId, Part, Value}}) when is_map_key(RequestId, Streams) ->
    answer(RequestId, maps:get(RequestId, Streams), {Part, Value}, Http);
event_checked(#http{streams = Streams} = Http, {http, {RequestId, Reply}}) when is_map_key(RequestId, Streams) ->
    answer(RequestId, maps:get(RequestId, Streams), Reply, Http);
event_checked(#http{ref = Ref, waiting = Waiting} = Http, {mcp_http, Ref, {resume, Tag}}) ->
    case maps:take(Tag, Waiting) of
        {Stream, Rest} -> resume(Stream, Http#http{waiting = Rest});
        error -> {ok, [], Http}
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

%% The handler still waits with what came with the headers: an empty read
%% makes it pass that on (its internal message for a read of its own). Only
%% while it is mid-body, which it is until its first chunk or the end
%% arrives.
nudge(RequestId, #http{streams = Streams}) ->
    case Streams of
        #{RequestId := #stream{handler = Handler, fed = false}} when is_pid(Handler) ->
            Handler ! {httpc_handler, dummy, <<>>},
            ok;
        _ ->
            ok
    end.

%% The body is read one chunk at a time: the next is asked for once this
%% one is decoded, while the stream is still wanted, so at most one chunk
%% per stream waits in the owner's mailbox.
next_chunk(RequestId, {ok, Events, #http{streams = Streams}} = Outcome) ->
    case {Streams, [Fault || {fault, Fault} <- Events]} of
        {#{RequestId := #stream{handler = Handler}}, []} when is_pid(Handler) ->
            ok = httpc:stream_next(Handler),
            Outcome;
        _ ->
            Outcome
    end.

%% One `httpc' message for an open request.
answer(RequestId, #stream{rpc = listen} = Stream, {stream_start, Headers}, Http) ->
    settle(started(RequestId, Stream, Headers, Http));
answer(RequestId, #stream{rpc = listen}, {{_Version, _Status, _Phrase}, _Headers, _Body}, Http) ->
    settle({ok, [], drop(RequestId, Http)});
answer(RequestId, #stream{rpc = listen, body = undefined}, {error, _Reason}, Http) ->
    settle({ok, [], drop(RequestId, Http)});
answer(RequestId, Stream, {stream_start, Headers}, Http) ->
    started(RequestId, Stream, Headers, Http);
answer(RequestId, #stream{body = {sse, Decoder}} = Stream, {stream, Chunk}, Http) ->
    case mcp_event_stream:push(Decoder, Chunk) of
        {ok, Items, LastEventId} -> events(RequestId, Stream#stream{last_event_id = resumable(LastEventId)}, Items, Http);
        {error, Fault} -> fault(Fault, Http)
    end;
answer(RequestId, #stream{body = {json, Parts, Size}} = Stream, {stream, Chunk}, #http{max_bytes = Max} = Http) ->
    case Size + byte_size(Chunk) of
        Total when Total > Max -> fault({line_too_long, Total}, Http);
        Total -> {ok, [], keep(RequestId, Stream#stream{body = {json, [Chunk | Parts], Total}}, Http)}
    end;
answer(_RequestId, _Stream, {stream, _Chunk}, Http) ->
    %% A body not read (ignored, or refused and being cancelled).
    {ok, [], Http};
answer(RequestId, #stream{body = {json, Parts, _}} = Stream, {stream_end, _Headers}, Http) ->
    Body = iolist_to_binary(lists:reverse(Parts)),
    {Events, Next} = delivered([Body], Stream, drop(RequestId, Http)),
    {ok, Events, Next};
answer(RequestId, #stream{body = {sse, _}} = Stream, {stream_end, _Headers}, Http) ->
    ended(Stream, ended, drop(RequestId, Http));
answer(RequestId, _Stream, {stream_end, _Headers}, Http) ->
    {ok, [], drop(RequestId, Http)};
answer(RequestId, Stream, {{_Version, Status, _Phrase}, Headers, _Body}, #http{auth = Auth} = Http)
  when Auth =/= none, Status =:= 401 orelse Status =:= 403 ->
    challenged(Status, Stream, Headers, drop(RequestId, Http));
answer(RequestId, #stream{headers = [_ | _], rpc = {request, Id, _}}, {{_Version, Status, _Phrase}, Headers, Body}, Http)
  when Status < 200; Status >= 300 ->
    refused(Id, Status, Headers, Body, drop(RequestId, Http));
answer(RequestId, Stream, {{_Version, Status, _Phrase}, Headers, _Body}, Http) ->
    status(Status, Stream, Headers, drop(RequestId, Http));
answer(RequestId, #stream{body = {sse, _}} = Stream, {error, Reason}, Http) ->
    ended(Stream, Reason, drop(RequestId, Http));
answer(_RequestId, _Stream, {error, Reason}, Http) ->
    fault({http_failed, Reason}, Http).

%% The headers of a 200 answer (the only status `httpc' streams).
started(RequestId, #stream{rpc = Rpc} = Stream, Headers, Http) ->
    case session(Rpc, Headers, succeeded(Rpc, Http)) of
        {ok, WithSession} ->
            Body = case {Rpc, content_type(Headers)} of
                       {{request, _, _}, <<"text/event-stream">>} -> {sse, mcp_event_stream:new(Http#http.max_bytes)};
                       {{request, _, _}, <<"application/json">>} -> {json, [], 0};
                       {{request, _, _}, Other} -> {wrong_type, Other};
                       {listen, <<"text/event-stream">>} -> {sse, mcp_event_stream:new(Http#http.max_bytes)};
                       {_, _} -> ignored
                   end,
            case Body of
                {wrong_type, Type} -> fault({content_type, Type}, cancel(RequestId, WithSession));
                _ -> {ok, [], keep(RequestId, Stream#stream{body = Body}, WithSession)}
            end;
        {error, Fault} ->
            fault(Fault, cancel(RequestId, Http))
    end.

%% The session id the answer to `initialize' assigns.
session({request, _, <<"initialize">>}, Headers, Http) ->
    case header("mcp-session-id", Headers) of
        none -> {ok, Http};
        Id ->
            case length(Id) =< ?MAX_SESSION_ID_BYTES andalso visible_ascii(list_to_binary(Id), 16#21) of
                true -> {ok, Http#http{session = Id}};
                false -> {error, {bad_session_id, length(Id)}}
            end
    end;
session(_Rpc, _Headers, Http) ->
    {ok, Http}.

content_type(Headers) ->
    case header("content-type", Headers) of
        none -> <<>>;
        Value ->
            [Type | _] = string:split(Value, ";"),
            unicode:characters_to_binary(string:lowercase(string:trim(Type)))
    end.

header(Name, Headers) ->
    case lists:keyfind(Name, 1, [{string:lowercase(N), V} || {N, V} <- Headers]) of
        {_, Value} -> Value;
        false -> none
    end.

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

%% @doc Our answers and notifications that may wait for their 202 at once.
-spec max_answer_streams() -> pos_integer().
max_answer_streams() -> ?MAX_ANSWER_STREAMS.

%% @doc The longest event id echoed as `Last-Event-ID'.
-spec max_event_id_bytes() -> pos_integer().
max_event_id_bytes() -> ?MAX_EVENT_ID_BYTES.

%% The event stream's items: messages are delivered, `retry:' is kept.
events(RequestId, Stream, Items, Http) ->
    Retry = lists:foldl(fun({retry, Ms}, _) -> min(Ms, ?MAX_RETRY_MS);
                           (_, Ms) -> Ms
                        end, Stream#stream.retry_ms, Items),
    Messages = [Data || {event, Type, Data} <- Items, Data =/= <<>>, Type =:= <<>> orelse Type =:= <<"message">>],
    deliver(Messages, Stream#stream{retry_ms = Retry}, keep(RequestId, Stream, Http), RequestId).

deliver([], Stream, Http, RequestId) ->
    {ok, [], keep(RequestId, Stream, Http)};
deliver(Messages, Stream, Http, RequestId) ->
    {Events, Next} = delivered(Messages, Stream, Http),
    case responded(Stream, Messages) of
        true -> {ok, Events, cancel(RequestId, Next)};
        false -> {ok, Events, keep(RequestId, Stream#stream{resumptions = 0}, Next)}
    end.

%% A request's stream has done its work once its response came: it is
%% closed then, whatever the server does with it afterwards (a stream
%% kept open would hold a socket per call).
responded(#stream{rpc = {request, Id, _}}, Messages) ->
    lists:any(fun(Message) -> response_to(Id, Message) end, Messages);
responded(_Stream, _Messages) ->
    false.

delivered(Messages, #stream{renew = {failed, Failed}, rpc = {request, Id, _}}, Http) ->
    %% The answer to the new session's `initialize' is the transport's own.
    case negotiated(Id, Messages, Http) of
        #http{version = none} = Waiting -> {[], Waiting};
        Renewed -> renewed(Failed, Renewed)
    end;
delivered(Messages, #stream{rpc = Rpc}, #http{offset = Offset0} = Http) ->
    {Events, Offset} = lists:mapfoldl(fun(Message, At) -> {{message, At, Message}, At + byte_size(Message)} end,
                                      Offset0, Messages),
    Versioned = case Rpc of
                    {request, Id, <<"initialize">>} -> negotiated(Id, Messages, Http);
                    _ -> Http
                end,
    {Events, Versioned#http{offset = Offset}}.

%% The new session is open: `notifications/initialized' goes out again, and
%% the request that met the 404 is answered with an error (never replayed).
renewed(Failed, #http{initialized = Initialized} = Http) ->
    Posted = case Initialized of
                 none -> {ok, Http};
                 _ -> post(Initialized, #stream{rpc = notification}, Http)
             end,
    case {Posted, Failed} of
        {{error, Fault}, _} ->
            {[{fault, Fault}], Http};
        {{ok, Next}, none} ->
            {[], Next};
        {{ok, #http{offset = Offset} = Next}, Id} ->
            Error = mcp_json:encode(mcp_jsonrpc:error_response({id_int, Id}, session_renewed_code(),
                                                               <<"the session expired and a new one was started; "
                                                                 "the request was not replayed">>)),
            {[{message, Offset, Error}], Next#http{offset = Offset + byte_size(Error)}}
    end.

%% @doc The JSON-RPC error code a request gets when its session expired
%% and the transport started a new one (the request is not replayed).
-spec session_renewed_code() -> integer().
session_renewed_code() -> -32001.

%% The protocol version the server chose, from its answer to `initialize'.
negotiated(Id, Messages, Http) ->
    lists:foldl(fun(Message, Acc) ->
                        case mcp_jsonrpc:decode(Message) of
                            {ok, {response, {id_int, Id}, {ok, {object, Result}}}} ->
                                case proplists:get_value(<<"protocolVersion">>, Result) of
                                    {string, Version} when byte_size(Version) =< ?MAX_VERSION_BYTES ->
                                        case visible_ascii(Version, 16#21) of
                                            true -> Acc#http{version = Version};
                                            false -> Acc
                                        end;
                                    _ -> Acc
                                end;
                            _ -> Acc
                        end
                end, Http, Messages).

%% A request's event stream ended (`Why': `ended' or `httpc''s error)
%% before its response (a stream is closed when its response comes,
%% `responded/2'): it is resumed when it can be; so is the standalone one.
ended(#stream{rpc = Rpc} = Stream, Why, Http) when Rpc =:= listen; element(1, Rpc) =:= request ->
    resumable(Stream, Why, Http);
ended(_Stream, _Why, Http) ->
    {ok, [], Http}.

%% The standalone stream is opened again (from its last event id, when it
%% has one) as a request's is resumed, within the same bound; giving up on
%% it is no fault.
resumable(#stream{rpc = listen, resumptions = N}, _Why, Http) when N >= ?MAX_RESUMPTIONS ->
    {ok, [], Http};
resumable(#stream{rpc = {request, _, _}, last_event_id = none}, Why, Http) ->
    fault({stream_lost, Why}, Http);
resumable(#stream{resumptions = N}, Why, Http) when N >= ?MAX_RESUMPTIONS ->
    fault({stream_lost, Why}, Http);
resumable(#stream{retry_ms = Retry} = Stream, _Why, #http{ref = Ref, owner = Owner} = Http) ->
    Tag = make_ref(),
    _ = erlang:send_after(Retry, Owner, {mcp_http, Ref, {resume, Tag}}),
    Next = Stream#stream{resumptions = Stream#stream.resumptions + 1, body = undefined,
                        handler = none, fed = false},
    {ok, [], Http#http{waiting = maps:put(Tag, Next, Http#http.waiting)}}.

resume(#stream{last_event_id = LastEventId, rpc = Rpc} = Stream, Http) ->
    case stream_request([{"last-event-id", binary_to_list(LastEventId)} || LastEventId =/= none], Http) of
        {ok, RequestId} -> {ok, [], keep(RequestId, Stream#stream{handler = none, sent = 0}, Http)};
        {error, _} when Rpc =:= listen -> {ok, [], Http};
        {error, Reason} -> fault({http_failed, Reason}, Http)
    end.

%% A GET for an event stream, with `Extra' headers.
stream_request(Extra, #http{url = Url} = Http) ->
    Headers = Extra ++ request_headers(Http),
    request(get, {Url, lists:keystore("accept", 1, Headers, {"accept", "text/event-stream"})}, Http).

%% A whole (not streamed) answer: any status but 200. A 2xx (202 for a
%% notification or a response of ours) carries nothing to read.
status(Status, #stream{rpc = Rpc}, _Headers, Http) when Status >= 200, Status < 300 ->
    {ok, [], succeeded(Rpc, Http)};
status(405, #stream{resumptions = N}, _Headers, Http) when N > 0 ->
    %% No stream to resume from: the request is left to its deadline.
    {ok, [], Http};
status(404, #stream{rpc = Rpc}, _Headers, #http{session = Session} = Http) when Session =/= none ->
    case Rpc of
        {request, _, <<"initialize">>} -> fault({http_status, 404}, Http);
        _ -> renew(Rpc, Http)
    end;
status(Status, _Stream, _Headers, Http) ->
    fault({http_status, Status}, Http).

%% A headed request answered with a status other than 2xx: its response,
%% when the body is one, or else its rejection.
refused(Id, Status, Headers, Body, #http{max_bytes = Max} = Http) ->
    Response = content_type(Headers) =:= <<"application/json">> andalso is_binary(Body)
        andalso byte_size(Body) =< Max andalso response_to(Id, Body),
    case Response of
        true ->
            {Events, Next} = delivered([Body], #stream{rpc = response}, Http),
            {ok, Events, Next};
        false ->
            {ok, [{rejected, Id, {http_status, Status}}], Http}
    end.

response_to(Id, Body) ->
    case mcp_jsonrpc:decode(Body) of
        {ok, {response, {id_int, Id}, _}} -> true;
        _ -> false
    end.

%% The session expired (404 to a request carrying it): once per
%% connection, a new session is started with the actor's own `initialize';
%% a second expiry, or one before the handshake was seen, is
%% `session_expired'.
renew(_Rpc, #http{renewed = true} = Http) ->
    fault(session_expired, Http);
renew(_Rpc, #http{handshake = none} = Http) ->
    fault(session_expired, Http);
renew(Rpc, #http{handshake = Initialize} = Http) ->
    Failed = case Rpc of
                 {request, Id, _} -> Id;
                 _ -> none
             end,
    Fresh = Http#http{session = none, version = none, renewed = true},
    case post(Initialize, #stream{rpc = classify(Initialize), renew = {failed, Failed}}, Fresh) of
        {ok, Next} -> {ok, [], Next};
        {error, Fault} -> fault(Fault, Fresh)
    end.

%% Stops reading a request's answer.
cancel(RequestId, #http{manager = Manager} = Http) ->
    ok = httpc:cancel_request(RequestId, Manager),
    drop(RequestId, Http).

keep(RequestId, Stream, Http) ->
    watched(Http#http{streams = maps:put(RequestId, Stream, Http#http.streams)}).

drop(RequestId, Http) ->
    Http#http{streams = maps:remove(RequestId, Http#http.streams)}.

fault(Fault, Http) ->
    {ok, [{fault, Fault}], Http}.

%%% ---------------------------------------------------- standalone stream

%% A client that declares a capability through which a server asks it
%% something (elicitation, sampling, roots) wants the standalone stream:
%% a server may send such a request there, outside any request of ours.
wanted(Initialize) ->
    case mcp_json:decode(Initialize) of
        {ok, {object, Members}} ->
            case member(<<"capabilities">>, member(<<"params">>, {object, Members})) of
                {object, Capabilities} ->
                    Asking = [Name || {Name, _} <- Capabilities,
                                      lists:member(Name, [<<"elicitation">>, <<"sampling">>, <<"roots">>])],
                    case Asking of
                        [] -> unwanted;
                        [_ | _] -> wanted
                    end;
                _ -> unwanted
            end;
        _ -> unwanted
    end.

member(Name, {object, Members}) -> proplists:get_value(Name, Members, none);
member(_Name, _NotObject) -> none.

%% After `notifications/initialized', a wanted standalone stream is opened
%% by a GET; until its answer (or `?LISTEN_OPEN_MS'), later messages wait,
%% so that a server asking on it from within a request of ours finds it
%% open. Any answer but a 200 event stream settles it unopened; once open,
%% an end is resumed (`resumable/3'). Not opened after a session renewal.
listen(<<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"", _/binary>>,
       #http{listen = wanted, session = Session, ref = Ref, owner = Owner} = Http) when Session =/= none ->
    case stream_request([], Http) of
        {ok, RequestId} ->
            _ = erlang:send_after(?LISTEN_OPEN_MS, Owner, {mcp_http, Ref, {listen_timeout, RequestId}}),
            keep(RequestId, #stream{rpc = listen}, Http#http{listen = {opening, RequestId}});
        {error, _} ->
            Http#http{listen = settled}
    end;
listen(_Message, Http) ->
    Http.

%% The standalone stream's answer came (or its wait ended): the messages
%% held meanwhile go out, oldest first.
settle({ok, Events, #http{listen = {opening, _}, queued = Queued} = Http}) ->
    Settled = Http#http{listen = settled, queued = []},
    case send(Settled, [{headed, Extra, Message} || {Message, Extra} <- lists:reverse(Queued)]) of
        {ok, Next} -> {ok, Events, Next};
        {error, Fault} -> {ok, Events ++ [{fault, Fault}], Settled}
    end;
settle(Outcome) ->
    Outcome.

%%% ------------------------------------------------- answers held by httpc

%% Requests whose answer's headers have not arrived are measured every
%% `mcp_http_watch:interval_ms()' (armed by `keep/3', while there are
%% any): their `httpc' handler reads the headers, and the whole body of any
%% status but 200, with no limit of its own. A request whose handler holds
%% more than its allowance is cancelled (the handler stops, its socket
%% closes) and the connection fails with `{response_too_large, Bytes}'.
watched(#http{watching = true} = Http) ->
    Http;
watched(#http{streams = Streams, owner = Owner, ref = Ref} = Http) ->
    case awaiting_headers(Streams) of
        [] -> Http;
        [_ | _] ->
            _ = erlang:send_after(mcp_http_watch:interval_ms(), Owner, {mcp_http, Ref, watch}),
            Http#http{watching = true}
    end.

watch(#http{streams = Streams, handler_table = Table} = Http) ->
    Over = [{RequestId, Held} || {RequestId, Stream} <- awaiting_headers(Streams),
                                 {ok, Held} <- [mcp_http_watch:held_bytes(Table, RequestId)],
                                 Held > allowance(Stream, Http)],
    case Over of
        [] -> {ok, [], watched(Http)};
        [{RequestId, Held} | _] -> fault({response_too_large, Held}, cancel(RequestId, Http))
    end.

awaiting_headers(Streams) ->
    [{RequestId, Stream} || {RequestId, #stream{handler = none} = Stream} <- maps:to_list(Streams)].

%% What a handler may hold: our request and an answer of `max_line_bytes'.
allowance(#stream{sent = Sent}, #http{max_bytes = Max}) ->
    mcp_http_watch:allowance(Sent, Max).

%% What the DELETE's `httpc' reply says of the session.
deletion_outcome({_RequestId, {{_, Status, _}, _Headers, _Body}}) when Status >= 200, Status < 300 -> deleted;
deletion_outcome({_RequestId, {{_, Status, _}, _Headers, _Body}}) -> {status, Status};
deletion_outcome({_RequestId, {error, Reason}}) -> {failed, Reason};
deletion_outcome(_Other) -> {failed, unknown}.

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

delete(#http{session = none, manager = Manager}) ->
    exit(Manager, shutdown),
    ok;
delete(#http{ref = Ref, owner = Owner, manager = Manager, url = Url, shutdown_ms = Timeout} = Http) ->
    Receiver = fun(Reply) -> Owner ! {mcp_http, Ref, {deleted, Reply}} end,
    case httpc:request(delete, {Url, request_headers(Http)},
                       [{timeout, max(1, Timeout div 2)} | Http#http.http_options],
                       [{sync, false}, {receiver, Receiver}, {body_format, binary}], Manager) of
        {ok, _RequestId} -> ok;
        {error, _} -> exit(Manager, shutdown), ok
    end.

-spec os_pid(#http{}) -> none.
os_pid(_) -> none.

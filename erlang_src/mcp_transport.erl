%% @doc The transport seam the client actor is written against.
%%
%% A transport carries whole JSON-RPC messages between the client actor and
%% one MCP server: it frames what the actor sends and cuts what the server
%% writes into messages, so the actor never sees bytes or framing. Two
%% reach a server: `mcp_port' (the production one, an OS process behind an
%% Erlang port) and `mcp_channel' (a peer Erlang process exchanging byte
%% chunks by message; every client behaviour is tested on it); `mcp_wirelog'
%% wraps any transport to log its traffic. Both frame newline-delimited
%% JSON (`docs/wire-codecs.md') with the shared `framer()' below; a
%% transport with another framing implements the same callbacks and needs
%% no change to the actor.
%%
%% What a transport must do (the callback contract):
%% <ul>
%% <li>`open(Arg, Owner)' runs in the actor, which becomes the connection's
%%     owner: every event arrives in the actor's mailbox.</li>
%% <li>`send(State, Messages)': `Messages' is a non-empty list of whole
%%     messages, each iodata (compact JSON text, no raw newline, no
%%     framing); the transport frames them and writes them in order, in one
%%     write when it can. `ok', `{ok, NewState}' (a transport whose state
%%     changes with a write, such as `mcp_http''s requests in flight; the
%%     actor keeps `NewState') or `{error, Reason}'; it must never block
%%     the actor. The actor says what each message is: `{rpc, Rpc, Bytes}'
%%     (`message()': a request with its id, method and params, a
%%     notification, or a response, and the protocol era it belongs to).
%%     Only a transport exporting `takes_rpc/0' is given that form (the
%%     HTTP transport acts on it: sessions, streams, the stateless
%%     revision's headers); every other one gets the bytes alone.</li>
%% <li>`event(State, Info)' recognises a mailbox message as this
%%     connection's: `{ok, Events, NewState}' (the actor keeps `NewState',
%%     `Events' in order, possibly `[]') or `not_mine'. An event is
%%     `{message, StreamOffset, Line}' (one inbound message, without its
%%     framing; `StreamOffset' is the position of its first byte in
%%     everything the server wrote, which the actor uses to name where bytes
%%     that are not UTF-8 start), `{fault, {line_too_long, Bytes}}' (the
%%     stream cannot be framed; nothing follows but `closed'), or
%%     `{closed, Evidence}', or `{rejected, Id, Reason}' (a transport that
%%     refused to carry the request `Id' of a stateless message, such as an
%%     HTTP status without a response; the connection stays open), or
%%     `session_renewed' (a transport with sessions started a new one by
%%     itself: the server may have changed, its tools too).</li>
%% <li>`terminate(State)' only <em>requests</em> the end of the peer; it
%%     never closes the connection. The one proof that the peer is gone is
%%     the `{closed, Evidence}' event, and after it the connection is inert:
%%     the actor never calls `send/2' or `terminate/1' on it again.
%%     `{closed, {exited, Cause}}' is proof (`{status, N}' or `{signal, N}'
%%     for a port's child, `unknown' for a port's child whose exit was
%%     witnessed after its port closed without the status,
%%     `{peer_down, Reason}' for a channel peer);
%%     `{closed, {unconfirmed, Reason}}' means the connection ended without
%%     proof that the peer did.</li>
%% <li>`os_pid(State)' is `{ok, OsPid}' or `none' (diagnostics, tests).</li>
%% <li>Optional: `carries_bytes(State, Info)', whether a mailbox message
%%     `event/2' recognised brought bytes of the server's messages, a whole
%%     message or part of one (the reconnect policy's `unresponsive_ms'
%%     counts a server writing a long message as heard). Without it only
%%     events count.</li>
%% </ul>
%% UTF-8 is not the transport's concern: lines are bytes, and the decoder
%% refuses what is not UTF-8 (a character cut across chunks is simply part of
%% a line not yet complete).
%%
%% A transport spec is either a spawn spec map (shorthand for
%% `{mcp_port, Spawn}') or `{Module, Arg}' for any module implementing this
%% behaviour. A spawn spec's `jail => true | Options' runs the server in a
%% bubblewrap jail built here, at the seam (`mcp_jail', `docs/jail.md');
%% a jail that is invalid or cannot run on this host fails the open, and
%% nothing is spawned unjailed in its place. Without the NIF library every
%% open fails with `native_library_not_loaded'.
-module(mcp_transport).

-export([open/2, send/2, event/2, terminate/1, kill/1, os_pid/1, carries_bytes/2, spawns/1]).
-export([framer/0, framer/1, frame/2, message_bytes/1]).
-export_type([spec/0, spawn/0, connection/0, event/0, evidence/0, framer/0, message/0, rpc/0, era/0]).

-type spawn() :: #{executable := file:filename_all(),
                   args => [binary() | string()],
                   env => [{binary() | string(), binary() | string() | false}],
                   cd => file:filename_all(),
                   inherit_env => boolean(),
                   max_line_bytes => pos_integer(),
                   shutdown_grace_ms => non_neg_integer(),
                   jail => mcp_jail:spec(),
                   stderr => mcp_stderr:stderr()}.
-type spec() :: spawn() | mcp_http:spec() | {module(), term()}.
-opaque connection() :: {module(), term()}.
-type evidence() :: {exited, {status, non_neg_integer()} | {signal, pos_integer()}
                              | {peer_down, term()} | unknown}
                  | {unconfirmed, term()}.
-type event() :: {message, StreamOffset :: non_neg_integer(), Line :: binary()}
               | {fault, mcp_stdio:framing_fault() | mcp_http:fault()}
               | {rejected, Id :: integer(), Reason :: term()}
               | session_renewed
               | {closed, evidence()}.
-type message() :: iodata() | {rpc, rpc(), iodata()}.
%% What a message is: the actor builds each from what it sent.
-type rpc() :: {request, Id :: integer(), Method :: binary(), Params :: mcp_jsonrpc:params(), era()}
             | {notification, Method :: binary(), Params :: mcp_jsonrpc:params(), era()}
             | response.
%% `handshake': the eras with an `initialize'; `{stateless, Version,
%% HeaderMap}': the stateless revision, with a tool call's header map
%% (`mcp_request_headers:header_map()', `[]' for any other message).
-type era() :: handshake | {stateless, binary(), mcp_request_headers:header_map()}.
-opaque framer() :: mcp_stdio:buffer() | broken.

-callback open(Arg :: term(), Owner :: pid()) -> {ok, State :: term()} | {error, term()}.
-callback send(State :: term(), Messages :: [message(), ...]) -> ok | {ok, NewState :: term()} | {error, term()}.
-callback event(State :: term(), Info :: term()) -> {ok, [event()], NewState :: term()} | not_mine.
-callback terminate(State :: term()) -> ok | {ok, NewState :: term()}.
-callback os_pid(State :: term()) -> {ok, integer()} | none.
-callback carries_bytes(State :: term(), Info :: term()) -> boolean().
-callback kill(State :: term()) -> ok | {ok, NewState :: term()}.
-optional_callbacks([carries_bytes/2, kill/1]).

%% @doc Opens the transport a spec names, owned by the calling process.
-spec open(spec(), pid()) -> {ok, connection()} | {error, term()}.
open(#{executable := _} = Spawn, Owner) ->
    open({mcp_port, Spawn}, Owner);
open(#{url := _} = Remote, Owner) ->
    open({mcp_http, Remote}, Owner);
open({Module, Arg}, Owner) when is_atom(Module) ->
    case native_library_loaded() of
        true ->
            %% A malformed spec must fail the connect, not crash the actor.
            try Module:open(Arg, Owner) of
                {ok, State} -> {ok, {Module, State}};
                {error, Reason} -> {error, Reason}
            catch
                error:Reason -> {error, {bad_transport_spec, {Module, Reason}}}
            end;
        false ->
            {error, native_library_not_loaded}
    end;
open(Other, _Owner) ->
    {error, {bad_transport_spec, Other}}.

%% @doc Whether a spec names an OS process behind a port (`mcp_port'):
%% the transport whose every callback returns within a bound of its own,
%% whatever the server does (writes never suspend, reads are bounded, the
%% waits are the jail's probes and `kill'), so that an actor over it takes
%% every message in turn (`mcp_client' waits for its answer without a timer
%% of its own). A remote spec's callbacks call `httpc''s manager, and a
%% channel's or another module's run code of the caller's.
-spec spawns(spec()) -> boolean().
spawns(#{executable := _}) -> true;
spawns({mcp_port, _}) -> true;
spawns(_) -> false.

%% Every transport and the actor run on the NIF library (`mcp_nif'); when
%% it did not load (never built, or built for another system) nothing can
%% run, and the open says so instead of failing inside a transport.
native_library_loaded() ->
    code:ensure_loaded(mcp_nif) =:= {module, mcp_nif} andalso mcp_nif:loaded().

%% @doc Writes whole messages, in order (no framing: the transport adds it):
%% `ok' when the connection is unchanged, `{ok, Next}' when the caller must
%% keep `Next' in its place.
-spec send(connection(), [message(), ...]) -> ok | {ok, connection()} | {error, term()}.
send({Module, State}, Messages) ->
    Given = case erlang:function_exported(Module, takes_rpc, 0) of
                true -> Messages;
                false -> [message_bytes(Message) || Message <- Messages]
            end,
    in_connection(Module, Module:send(State, Given)).

%% @doc Recognises a mailbox message as this connection's events, or `not_mine'.
-spec event(connection(), term()) -> {ok, [event()], connection()} | not_mine.
event({Module, State}, Info) ->
    case Module:event(State, Info) of
        {ok, Events, Next} -> {ok, Events, {Module, Next}};
        not_mine -> not_mine
    end.

%% @doc Whether `Info' (a message `event/2' recognised) brought bytes of
%% the server's messages; `false' for a transport that does not say.
-spec carries_bytes(connection(), term()) -> boolean().
carries_bytes({Module, State}, Info) ->
    erlang:function_exported(Module, carries_bytes, 2) andalso Module:carries_bytes(State, Info).

%% @doc Requests the end of the peer (for a port SIGKILL, or SIGTERM then
%% SIGKILL with a `shutdown_grace_ms'). Not proof of anything. `{ok,
%% Next}' when the caller must keep `Next' in its place.
-spec terminate(connection()) -> ok | {ok, connection()}.
terminate({Module, State}) ->
    in_connection(Module, Module:terminate(State)).

%% @doc Ends the peer at once, whatever grace `terminate/1' gave it (for a
%% port SIGKILL, with `terminate/1''s guards): for an owner that stops
%% before the peer's end is proven. A transport without the optional
%% callback has nothing to end sooner than `terminate/1' did. `{ok,
%% Next}' when the caller must keep `Next' in its place.
-spec kill(connection()) -> ok | {ok, connection()}.
kill({Module, State}) ->
    case erlang:function_exported(Module, kill, 1) of
        true -> in_connection(Module, Module:kill(State));
        false -> ok
    end.

%% A callback's outcome, a new state put in the connection's place.
in_connection(Module, {ok, Next}) -> {ok, {Module, Next}};
in_connection(_Module, Outcome) -> Outcome.

%% @doc The OS pid behind the connection, when there is one (diagnostics, tests).
-spec os_pid(connection()) -> {ok, integer()} | none.
os_pid({Module, State}) -> Module:os_pid(State).

%% @doc A message's bytes, without what the actor said of it.
-spec message_bytes(message()) -> iodata().
message_bytes({rpc, _Rpc, Bytes}) -> Bytes;
message_bytes(Bytes) -> Bytes.

%% @doc A newline-delimited framer for a transport's inbound bytes
%% (`mcp_stdio' rules: the 16 MiB line cap, `\r\n', empty lines skipped).
-spec framer() -> framer().
framer() -> mcp_stdio:new().

%% @doc `framer/0' refusing lines longer than `MaxLineBytes' (1 to
%% `mcp_stdio:max_line_bytes()'; `badarg' otherwise).
-spec framer(pos_integer()) -> framer().
framer(MaxLineBytes) -> mcp_stdio:new(MaxLineBytes).

%% @doc The events one inbound chunk completes. After a framing fault the
%% framer is broken and every later chunk yields nothing.
-spec frame(framer(), binary()) -> {[event()], framer()}.
frame(broken, _Chunk) ->
    {[], broken};
frame(Framer, Chunk) ->
    case mcp_stdio:push_with_offsets(Framer, Chunk) of
        {ok, Lines, Next} -> {[{message, Offset, Line} || {Offset, Line} <- Lines], Next};
        {error, Fault} -> {[{fault, Fault}], broken}
    end.

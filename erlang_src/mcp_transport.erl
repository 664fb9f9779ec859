%% @doc The transport seam the client actor is written against, and the
%% UTF-8 holding every transport's byte stream goes through.
%%
%% A transport carries byte chunks between the client actor and one MCP
%% server. Two implement this behaviour: `mcp_port' (the production one, an
%% OS process behind an Erlang port) and `mcp_channel' (a peer Erlang process
%% exchanging chunks by message; every client behaviour is tested on it).
%%
%% Invariants every implementation keeps:
%% <ul>
%% <li>`open/2' runs in the actor, which becomes the connection's owner: every
%%     event arrives in the actor's mailbox and is recognised by `event/2'.</li>
%% <li>`terminate/1' only <em>requests</em> the end of the peer; it never
%%     closes the connection. The one proof that the peer is gone is the
%%     `{closed, Evidence}' event, and after it the connection is inert: the
%%     actor never calls `send/2' or `terminate/1' on it again.</li>
%% <li>`{closed, {exited, Cause}}' is proof (`{status, N}' or `{signal, N}'
%%     for a port's child, `{peer_down, Reason}' for a channel peer);
%%     `{closed, {unconfirmed, Reason}}' means the connection ended without
%%     proof that the peer did.</li>
%% </ul>
%%
%% A transport spec is either a spawn spec map (shorthand for
%% `{mcp_port, Spawn}') or `{Module, Arg}' for any module implementing this
%% behaviour.
-module(mcp_transport).

-export([open/2, send/2, event/2, terminate/1, os_pid/1, utf8_prefix/1]).
-export_type([spec/0, spawn/0, connection/0, event/0, evidence/0]).

-type spawn() :: #{executable := file:filename_all(),
                   args => [binary() | string()],
                   env => [{binary() | string(), binary() | string() | false}],
                   cd => file:filename_all(),
                   inherit_env => boolean()}.
-type spec() :: spawn() | {module(), term()}.
-opaque connection() :: {module(), term()}.
-type evidence() :: {exited, {status, non_neg_integer()} | {signal, pos_integer()}
                              | {peer_down, term()}}
                  | {unconfirmed, term()}.
-type event() :: {bytes, binary()} | {closed, evidence()}.

-callback open(Arg :: term(), Owner :: pid()) -> {ok, State :: term()} | {error, term()}.
-callback send(State :: term(), iodata()) -> ok | {error, term()}.
-callback event(State :: term(), Message :: term()) -> {ok, event()} | not_mine.
-callback terminate(State :: term()) -> ok.
-callback os_pid(State :: term()) -> {ok, integer()} | none.

%% @doc Opens the transport a spec names, owned by the calling process.
-spec open(spec(), pid()) -> {ok, connection()} | {error, term()}.
open(#{executable := _} = Spawn, Owner) ->
    open({mcp_port, Spawn}, Owner);
open({Module, Arg}, Owner) when is_atom(Module) ->
    %% A malformed spec must fail the connect, not crash the actor.
    try Module:open(Arg, Owner) of
        {ok, State} -> {ok, {Module, State}};
        {error, Reason} -> {error, Reason}
    catch
        error:Reason -> {error, {bad_transport_spec, {Module, Reason}}}
    end;
open(Other, _Owner) ->
    {error, {bad_transport_spec, Other}}.

-spec send(connection(), iodata()) -> ok | {error, term()}.
send({Module, State}, Bytes) -> Module:send(State, Bytes).

%% @doc Recognises a message as this connection's event, or `not_mine'.
-spec event(connection(), term()) -> {ok, event()} | not_mine.
event({Module, State}, Message) -> Module:event(State, Message).

%% @doc Requests the end of the peer (SIGKILL for a port). Not proof of anything.
-spec terminate(connection()) -> ok.
terminate({Module, State}) -> Module:terminate(State).

%% @doc The OS pid behind the connection, when there is one (diagnostics, tests).
-spec os_pid(connection()) -> {ok, integer()} | none.
os_pid({Module, State}) -> Module:os_pid(State).

%% @doc Splits a chunk into its valid UTF-8 prefix and a held tail: the pipe
%% cuts characters in half, so the tail (at most three bytes, always a proper
%% prefix of one multi-byte character) is prepended to the next chunk. Bytes
%% that can never become valid UTF-8 (stray continuation bytes, overlong
%% forms, surrogates, code points past U+10FFFF) are
%% `{error, {invalid_utf8, Offset}}', Offset being the byte where the bad
%% sequence starts.
-spec utf8_prefix(binary()) ->
          {ok, Valid :: binary(), Held :: binary()} | {error, {invalid_utf8, non_neg_integer()}}.
utf8_prefix(Chunk) when is_binary(Chunk) ->
    case unicode:characters_to_binary(Chunk) of
        Valid when is_binary(Valid) ->
            {ok, Valid, <<>>};
        {incomplete, Valid, Tail} ->
            %% `unicode' also calls some impossible sequences incomplete
            %% (`E0 80', `ED A0', `F4 90', `F5'...), so the tail is checked.
            case is_character_prefix(Tail) of
                true -> {ok, Valid, Tail};
                false -> {error, {invalid_utf8, byte_size(Valid)}}
            end;
        {error, Valid, _Rest} ->
            {error, {invalid_utf8, byte_size(Valid)}}
    end.

%% A proper, non-empty prefix of a well-formed multi-byte UTF-8 sequence
%% (Unicode table 3-7).
is_character_prefix(<<Lead>>) -> Lead >= 16#C2 andalso Lead =< 16#F4;
is_character_prefix(<<Lead, Second>>) when Lead >= 16#E0, Lead =< 16#EF ->
    second_byte_fits(Lead, Second);
is_character_prefix(<<Lead, Second>>) when Lead >= 16#F0, Lead =< 16#F4 ->
    second_byte_fits(Lead, Second);
is_character_prefix(<<Lead, Second, Third>>) when Lead >= 16#F0, Lead =< 16#F4 ->
    second_byte_fits(Lead, Second) andalso is_continuation(Third);
is_character_prefix(_) -> false.

second_byte_fits(16#E0, Byte) -> Byte >= 16#A0 andalso Byte =< 16#BF;
second_byte_fits(16#ED, Byte) -> Byte >= 16#80 andalso Byte =< 16#9F;
second_byte_fits(16#F0, Byte) -> Byte >= 16#90 andalso Byte =< 16#BF;
second_byte_fits(16#F4, Byte) -> Byte >= 16#80 andalso Byte =< 16#8F;
second_byte_fits(_, Byte) -> is_continuation(Byte).

is_continuation(Byte) -> Byte >= 16#80 andalso Byte =< 16#BF.

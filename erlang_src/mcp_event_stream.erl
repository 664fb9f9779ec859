%% @doc Event-stream framing (`text/event-stream', the body of a Streamable
%% HTTP response or of its GET stream): cuts the byte stream into events.
%%
%% The rules live in the Rust core (`event_stream::Decoder'): lines end at
%% `\r\n', `\n' or `\r', wherever the chunks were cut; `data:' lines join
%% into the event's data, `event:' names its type, `id:' sets the stream's
%% last event id (reported once its event is dispatched, for
%% `Last-Event-ID'; an id longer than the transport echoes, 1,024 bytes,
%% is not kept: the stream then has no last event id until a shorter one
%% comes), `retry:' yields `{retry, Ms}'; comments (`:') and
%% unknown fields are ignored, and an event without data is not
%% dispatched. The data held for one event plus the line being read may
%% not pass the decoder's cap (`max_event_bytes()', 16 MiB, the stdio line
%% cap, or less with `new/1'): past it the stream is
%% `{event_too_long, Bytes}', exactly the cap is accepted, and the verdict
%% does not depend on how the stream was cut. After a fault the decoder is
%% broken and every later push repeats it.
%%
%% `heard/1' says whether the last push brought data of a message (the
%% HTTP transport's liveness probe).
%%
%% A decoder is a NIF resource that `push/2' changes in place: it belongs
%% to one process, which must not push the same decoder from two places.
%% A push whose chunk and held bytes pass `dirty_threshold()' runs on a
%% dirty CPU scheduler.
-module(mcp_event_stream).

-export([new/0, new/1, push/2, heard/1, max_event_bytes/0, dirty_threshold/0]).
-export_type([decoder/0, item/0, fault/0]).

-include("mcp_scheduling.hrl").

-opaque decoder() :: reference().
-type item() :: {event, Type :: binary(), Data :: binary()} | {retry, Ms :: non_neg_integer()}.
-type fault() :: {event_too_long, Bytes :: non_neg_integer()}.

%% @doc The largest event accepted: 16 MiB, defined by the Rust core.
-spec max_event_bytes() -> pos_integer().
max_event_bytes() -> mcp_nif:event_stream_max_event_bytes().

%% @doc Bytes (chunk plus held) from which a push runs on a dirty CPU scheduler.
-spec dirty_threshold() -> pos_integer().
dirty_threshold() -> ?DIRTY_THRESHOLD.

%% @doc A decoder refusing events longer than `max_event_bytes()'.
-spec new() -> decoder().
new() -> mcp_nif:event_stream_new(max_event_bytes()).

%% @doc A decoder refusing events longer than `MaxEventBytes', an integer
%% from 1 to `max_event_bytes()' (`badarg' otherwise).
-spec new(pos_integer()) -> decoder().
new(MaxEventBytes) when is_integer(MaxEventBytes), MaxEventBytes >= 1 ->
    case MaxEventBytes =< max_event_bytes() of
        true -> mcp_nif:event_stream_new(MaxEventBytes);
        false -> error(badarg, [MaxEventBytes])
    end;
new(Other) ->
    error(badarg, [Other]).

%% @doc The items `Chunk' completes, in order, and the stream's last event
%% id (`none' before any event with an id was dispatched).
-spec push(decoder(), binary()) ->
          {ok, [item()], LastEventId :: binary() | none} | {error, fault()}.
push(Decoder, Chunk) when is_binary(Chunk) ->
    case mcp_nif:event_stream_push(Decoder, Chunk, ?DIRTY_THRESHOLD) of
        dirty -> mcp_nif:event_stream_push_dirty(Decoder, Chunk);
        Result -> Result
    end.

%% @doc Whether the last `push/2' added a byte to the value of a `data'
%% field of an event whose type so far is empty or `message', the line
%% still being read included: a long `data' line is heard while it
%% arrives; comments, other fields, lines of other names, empty values,
%% line ends and the data of an event of another type are not. (An
%% `event' line after an event's `data' lines does not take back what they
%% brought.) `false' after a fault.
-spec heard(decoder()) -> boolean().
heard(Decoder) -> mcp_nif:event_stream_heard(Decoder).

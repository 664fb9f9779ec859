%% @doc Newline-delimited stdio framing (`mcp/stdio').
%%
%% `push/2' cuts the inbound byte stream into lines: a line ends at `\n',
%% one trailing `\r' is stripped, empty lines are skipped, and a partial line
%% is held across chunks. A line whose content is longer than
%% `max_line_bytes()' (16 MiB) is `{line_too_long, Bytes}', whether it is
%% still pending or already complete; exactly `max_line_bytes()' is
%% accepted. A pending line ending in `\r' is measured without it, so the
%% verdict does not depend on how the stream was cut. After an error the
%% stream is broken: there is no buffer to continue with. `new/1' makes a
%% buffer with a lower cap (from 1 byte to `max_line_bytes()'), under the
%% same rules: it bounds what one connection may make the VM decode
%% (docs/json.md, "Memory per value shape").
%%
%% The rules, the cap included, live in the Rust core (`stdio::scan'), which
%% looks at the new chunk only, given the held length, whether the held bytes
%% end in `\r' and the buffer's cap; the held bytes are never passed to it.
%% The held partial line is a tail binary grown by appending, which the
%% runtime does in place (amortised linear for a line arriving in small
%% chunks, no rescan), and, once the tail reaches 256 KiB, a list of such
%% parts: a regrowth copies at most one part, never the whole line, and a
%% chunk of 256 KiB or more is kept as a part without being copied. A line completed across chunks is joined once, on a
%% dirty CPU scheduler from `dirty_threshold()' bytes (so a 16 MiB line costs
%% the caller's scheduler no long copy). Lines lying inside one chunk are
%% returned as sub-binaries of it, not copies. Chunks of at least
%% `dirty_threshold()' bytes are scanned on a dirty CPU scheduler, and so are
%% smaller ones holding more than 1,024 newlines.
%%
%% `push_with_offsets/2' is `push/2' with each line's stream offset; it is
%% what the newline-delimited transports frame with (`mcp_transport:frame/2').
%%
%% Words: framing cuts inbound bytes into lines (this module, the
%% transports' framer); a line becomes a message when `mcp_protocol:read/2'
%% reads it. The outbound line is `mcp_json:encode_line/1': compact JSON and
%% `\n', in one pass; the encoder escapes every control character, so the
%% newline is the last byte and the only one.
-module(mcp_stdio).

-export([new/0, new/1, push/2, push_with_offsets/2, max_line_bytes/0, dirty_threshold/0]).
-export_type([buffer/0, framing_fault/0]).

%% A chunk of at least this many bytes is scanned, and a held line of at
%% least this many joined, on a dirty CPU scheduler (dirty_threshold/0). Both
%% are one cheap pass over bytes, hence a size of its own, larger than the
%% codecs' ?DIRTY_THRESHOLD (mcp_scheduling.hrl).
-define(DIRTY_CHUNK_BYTES, 1048576).
-define(NEWLINE_BUDGET, 1024).
-define(PART_BYTES, 262144).

-record(stdio_buffer, {held = <<>> :: binary(),          % the newest held bytes
                       parts = [] :: [binary()],         % older held bytes, newest first
                       held_bytes = 0 :: non_neg_integer(),
                       held_ends_with_cr = false :: boolean(),
                       %% Bytes pushed so far: the stream offset of the next chunk.
                       offset = 0 :: non_neg_integer(),
                       %% The longest line content accepted (checked by the
                       %% Rust framer).
                       max_line_bytes :: pos_integer()}).

-opaque buffer() :: #stdio_buffer{}.
-type framing_fault() :: {line_too_long, Bytes :: non_neg_integer()}.

%% @doc The longest line content accepted: 16 MiB. Defined once, by the Rust
%% framer (`stdio::MAX_LINE_BYTES'), which enforces it.
-spec max_line_bytes() -> pos_integer().
max_line_bytes() -> maps:get(max_line_bytes, mcp_nif:wire_limits()).

%% @doc Chunk size from which `push/2' and `push_with_offsets/2' scan on a dirty CPU
%% scheduler (and held bytes from which a completed line is joined there).
-spec dirty_threshold() -> pos_integer().
dirty_threshold() -> ?DIRTY_CHUNK_BYTES.

%% @doc An empty buffer, refusing lines longer than `max_line_bytes()'.
-spec new() -> buffer().
new() -> #stdio_buffer{max_line_bytes = max_line_bytes()}.

%% @doc An empty buffer refusing lines longer than `MaxLineBytes', an
%% integer from 1 to `max_line_bytes()' (`badarg' otherwise).
-spec new(pos_integer()) -> buffer().
new(MaxLineBytes) when is_integer(MaxLineBytes), MaxLineBytes >= 1 ->
    case MaxLineBytes =< max_line_bytes() of
        true -> #stdio_buffer{max_line_bytes = MaxLineBytes};
        false -> error(badarg, [MaxLineBytes])
    end;
new(Other) ->
    error(badarg, [Other]).

%% @doc The lines `Chunk' completes, in order, and the buffer holding the rest.
-spec push(buffer(), binary()) -> {ok, [binary()], buffer()} | {error, framing_fault()}.
push(Buffer, Chunk) ->
    case push_with_offsets(Buffer, Chunk) of
        {ok, Lines, Next} -> {ok, [Line || {_, Line} <- Lines], Next};
        {error, _} = Fault -> Fault
    end.

%% @doc `push/2' with each line's stream offset: the position, in all the
%% bytes pushed into this buffer, of the line's first byte.
-spec push_with_offsets(buffer(), binary()) ->
          {ok, [{StreamOffset :: non_neg_integer(), binary()}], buffer()} | {error, framing_fault()}.
push_with_offsets(#stdio_buffer{held_bytes = HeldBytes, held_ends_with_cr = EndsWithCr, offset = Offset,
                   max_line_bytes = MaxLineBytes} = Buffer,
     Chunk) when is_binary(Chunk) ->
    Next = Offset + byte_size(Chunk),
    case scan(Chunk, {HeldBytes, EndsWithCr, Offset}, MaxLineBytes) of
        {ok, continues, [], _Rest, RestEndsWithCr} ->
            {ok, [], (hold(Chunk, Buffer))#stdio_buffer{held_ends_with_cr = RestEndsWithCr, offset = Next}};
        {ok, Completion, Lines, Rest, RestEndsWithCr} ->
            {ok, completed(Completion, Buffer, Offset - HeldBytes, Lines),
             #stdio_buffer{held = unshare(Rest), held_bytes = byte_size(Rest),
                           held_ends_with_cr = RestEndsWithCr, offset = Next, max_line_bytes = MaxLineBytes}};
        {error, _} = Fault ->
            Fault
    end.

%% Appends to the held bytes: in place into the tail; a full tail becomes a
%% part; a large chunk becomes a part of its own, uncopied.
hold(Chunk, #stdio_buffer{held = Held, parts = Parts, held_bytes = HeldBytes} = Buffer)
  when byte_size(Chunk) >= ?PART_BYTES ->
    Buffer#stdio_buffer{held = <<>>, parts = [Chunk | parts(Held, Parts)],
                        held_bytes = HeldBytes + byte_size(Chunk)};
hold(Chunk, #stdio_buffer{held = Held, parts = Parts, held_bytes = HeldBytes} = Buffer) ->
    case <<Held/binary, Chunk/binary>> of
        Full when byte_size(Full) >= ?PART_BYTES ->
            Buffer#stdio_buffer{held = <<>>, parts = [Full | Parts], held_bytes = HeldBytes + byte_size(Chunk)};
        Grown ->
            Buffer#stdio_buffer{held = Grown, held_bytes = HeldBytes + byte_size(Chunk)}
    end.

parts(<<>>, Parts) -> Parts;
parts(Held, Parts) -> [Held | Parts].

%% The held bytes and `Part' as one binary, joined on a dirty scheduler
%% when large.
joined(#stdio_buffer{held = Held, parts = Parts, held_bytes = HeldBytes}, Part) ->
    Pieces = lists:reverse(parts(Held, Parts), [Part]),
    case HeldBytes + byte_size(Part) >= ?DIRTY_CHUNK_BYTES of
        true -> mcp_nif:stdio_join_dirty(Pieces);
        false -> iolist_to_binary(Pieces)
    end.

%% Chunks from ?DIRTY_CHUNK_BYTES go to a dirty scheduler directly;
%% smaller ones too when they hold more than ?NEWLINE_BUDGET newlines (the
%% normal-scheduler NIF counts up to the budget and answers `dirty' before
%% framing anything).
scan(Chunk, Held, MaxLineBytes) when byte_size(Chunk) >= ?DIRTY_CHUNK_BYTES ->
    mcp_nif:stdio_scan_dirty(Chunk, Held, MaxLineBytes);
scan(Chunk, Held, MaxLineBytes) ->
    case mcp_nif:stdio_scan(Chunk, Held, MaxLineBytes, ?NEWLINE_BUDGET) of
        dirty -> mcp_nif:stdio_scan_dirty(Chunk, Held, MaxLineBytes);
        Framing -> Framing
    end.

%% `{line, Keep, Part}': the first Keep held bytes then Part. Keep is short
%% of the held bytes only by a stripped `\r', and only when Part is empty.
completed(empty, _Buffer, _Start, Lines) -> Lines;
completed({line, 0, Part}, _Buffer, Start, Lines) -> [{Start, Part} | Lines];
completed({line, Keep, Part}, Buffer, Start, Lines) ->
    [{Start, binary_part(joined(Buffer, Part), 0, Keep + byte_size(Part))} | Lines].

%% An empty rest must not keep the whole chunk alive.
unshare(<<>>) -> <<>>;
unshare(Rest) -> Rest.

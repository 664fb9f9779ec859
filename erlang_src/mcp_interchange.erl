%% @doc The bridge between the capability wire (MessagePack, `msgpack()')
%% and the MCP wire (JSON, `mcp_json:json()'), and the MessagePack byte codec.
%% All of it runs in the Rust core (`mcp_core::interchange'); one rule source
%% serves the term functions and the byte fast paths.
%%
%% Invariants:
%% <ul>
%% <li>`to_json/1' (an argument going to a server): `nil_value' is `null';
%%   integers in msgpack's range always fit; strings and map keys must be
%%   UTF-8 `string_value's; a `binary_value', an `ext_value', a non-string
%%   map key, a string that is not UTF-8, an integer outside
%%   [`min_msgpack_int()', `max_msgpack_int()'] or more than
%%   `mcp_json:max_depth()' nested containers fails the whole
%%   conversion.</li>
%% <li>`to_msgpack/1' (a result going to a program) fails the whole
%%   conversion only for an integer outside [`min_msgpack_int()',
%%   `max_msgpack_int()'] (never wrapped, clamped or turned into floats) or
%%   more than `mcp_json:max_depth()' nested containers; a string or key
%%   that is not UTF-8 raises `badarg', as any term outside `json()'.</li>
%% <li>A fault is `{interchange_fault, Path, Reason}': `Path' a binary such as
%%   `<<"$.args[2].name">>' (keys that are not identifiers in brackets, JSON
%%   quoted: `$["two words"]'), `Reason' a short lowercase binary; it names
%%   the first fault in document order. A map-key fault names the map.</li>
%% <li>`msgpack_decode/1' is total: truncated input, trailing bytes, a
%%   declared length larger than the input, nesting deeper than
%%   `mcp_json:max_depth()', the reserved byte 16#c1 and NaN/infinity (the
%%   BEAM has no such floats) are `{corruption_report, Offset, Reason}' (the
%%   JSON decoder's shape); nothing is allocated by a declared length and the
%%   decoder never recurses. `msgpack_encode/1' picks the smallest encoding
%%   for every value (float 32 when exact) and raises `badarg' outside
%%   `msgpack()' (an integer outside msgpack's range, an ext type outside
%%   -128..127, more than `mcp_json:max_depth()' nested containers).</li>
%% <li>`msgpack_to_json_line/1' and `json_to_msgpack_bytes/1' go byte to byte
%%   without building terms and answer exactly as decoding, translating and
%%   encoding would, faults included (corruption anywhere outranks a
%%   translation fault).</li>
%% </ul>
%% Byte inputs of at least `dirty_threshold()' bytes run on a dirty CPU
%% scheduler; term inputs start on the caller's scheduler with a work budget
%% of `work_budget()' units (one per value, one per list cell as a
%% container's length is counted, one per payload byte before its UTF-8 is
%% checked) and are redone on a dirty scheduler when it runs out;
%% `to_json/1' measures within the budget before it builds anything, so a
%% value past it is converted once, on the dirty scheduler. An
%% integer beyond i128 is placed by comparison, never copied. No atom is
%% made from input.
-module(mcp_interchange).

-export([to_json/1, to_msgpack/1, max_msgpack_int/0, min_msgpack_int/0, describe/1,
         msgpack_decode/1, msgpack_encode/1, msgpack_to_json_line/1,
         json_to_msgpack_bytes/1, dirty_threshold/0, work_budget/0]).
-export_type([msgpack/0, interchange_fault/0, line_fault/0]).

%% Measured (docs/interchange.md): decoding 96 KiB of small msgpack values
%% into terms takes 6-10 ms on the loaded build machine, the fast paths 2-9 ms
%% for 96-181 KiB, and translating a term about 1 ms per 3,500-5,000 work
%% units; so 16 KiB of bytes and 4,096 units keep a normal-scheduler call
%% near 1 ms.
-include("mcp_scheduling.hrl").
-define(WORK_BUDGET, 4096).

%% The cap package's value (the capability wire).
-type msgpack() :: nil_value | {bool_value, boolean()} | {int_value, integer()}
                 | {float_value, float()} | {string_value, binary()}
                 | {binary_value, binary()} | {array_value, [msgpack()]}
                 | {map_value, [{msgpack(), msgpack()}]}
                 | {ext_value, Type :: integer(), binary()}.
%% Reason is typed term(); this module always gives a binary.
-type interchange_fault() :: {interchange_fault, Path :: binary(), Reason :: term()}.
%% What a fast path can answer: the input bytes are corrupt, or the value
%% they hold cannot cross.
-type line_fault() :: mcp_json:corruption_report() | interchange_fault().

%% @doc The largest integer MessagePack carries, 2^64 - 1 (defined once, in
%% the Rust core: `interchange::MAX_MSGPACK_INT').
-spec max_msgpack_int() -> pos_integer().
max_msgpack_int() -> element(2, mcp_nif:interchange_limits()).

%% @doc The smallest integer MessagePack carries, -2^63
%% (`interchange::MIN_MSGPACK_INT').
-spec min_msgpack_int() -> neg_integer().
min_msgpack_int() -> element(1, mcp_nif:interchange_limits()).

%% @doc Byte size from which byte inputs run on a dirty CPU scheduler.
-spec dirty_threshold() -> pos_integer().
dirty_threshold() -> ?DIRTY_THRESHOLD.

%% @doc Work units a term input may take on the caller's scheduler.
-spec work_budget() -> pos_integer().
work_budget() -> ?WORK_BUDGET.

%% @doc A msgpack value as JSON, or the first fault; raises `badarg' for a
%% term outside `msgpack()'.
-spec to_json(msgpack()) -> {ok, mcp_json:json()} | {error, interchange_fault()}.
to_json(Value) ->
    case mcp_nif:interchange_to_json(Value, ?WORK_BUDGET) of
        dirty -> mcp_nif:interchange_to_json_dirty(Value);
        Result -> Result
    end.

%% @doc A JSON value as msgpack, or the first fault (an integer outside
%% msgpack's range, nesting too deep); raises `badarg' for a term outside
%% `mcp_json:json()', a string that is not UTF-8 included.
-spec to_msgpack(mcp_json:json()) -> {ok, msgpack()} | {error, interchange_fault()}.
to_msgpack(Value) ->
    case mcp_nif:interchange_to_msgpack(Value, ?WORK_BUDGET) of
        dirty -> mcp_nif:interchange_to_msgpack_dirty(Value);
        Result -> Result
    end.

%% @doc One line of English: `<<"binary has no json form at $.args[2]">>'.
-spec describe(interchange_fault()) -> binary().
describe({interchange_fault, Path, Reason}) when is_binary(Reason) ->
    <<Reason/binary, " at ", Path/binary>>;
describe({interchange_fault, Path, Reason}) ->
    iolist_to_binary([io_lib:format("~tp", [Reason]), " at ", Path]).

-spec msgpack_decode(binary()) -> {ok, msgpack()} | {error, mcp_json:corruption_report()}.
msgpack_decode(Bytes) when byte_size(Bytes) >= ?DIRTY_THRESHOLD -> mcp_nif:msgpack_decode_dirty(Bytes);
msgpack_decode(Bytes) when is_binary(Bytes) -> mcp_nif:msgpack_decode(Bytes).

-spec msgpack_encode(msgpack()) -> binary().
msgpack_encode(Value) ->
    case mcp_nif:msgpack_encode(Value, ?WORK_BUDGET) of
        dirty -> mcp_nif:msgpack_encode_dirty(Value);
        Bytes -> Bytes
    end.

%% @doc Compact JSON text (no trailing newline; it never holds one).
-spec msgpack_to_json_line(binary()) -> {ok, binary()} | {error, line_fault()}.
msgpack_to_json_line(Bytes) when byte_size(Bytes) >= ?DIRTY_THRESHOLD ->
    mcp_nif:msgpack_to_json_line_dirty(Bytes);
msgpack_to_json_line(Bytes) when is_binary(Bytes) -> mcp_nif:msgpack_to_json_line(Bytes).

-spec json_to_msgpack_bytes(binary()) -> {ok, binary()} | {error, line_fault()}.
json_to_msgpack_bytes(Line) when byte_size(Line) >= ?DIRTY_THRESHOLD ->
    mcp_nif:json_to_msgpack_bytes_dirty(Line);
json_to_msgpack_bytes(Line) when is_binary(Line) -> mcp_nif:json_to_msgpack_bytes(Line).

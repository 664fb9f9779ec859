%% @doc JSON values (`core/json.JsonValue'): a total decoder and a compact
%% encoder, both in the Rust core.
%%
%% `decode/1' returns a value or a corruption report for every byte string;
%% it never raises. Integers are exact (bignums); literals of more than 4300
%% digits are refused as a CPU bomb. A number that overflows a double is a
%% fault. Objects keep every member in wire order, duplicates included.
%% Nesting deeper than `max_depth()' is a fault. No atom is made from input.
%%
%% `encode/1' is compact, escapes every control character (so the output
%% never holds a raw newline) and prints floats in shortest round-trip form;
%% it raises `badarg' for a term outside `json()', a string or key that is
%% not UTF-8, more than `max_depth()' nested containers, and an integer of
%% more than `max_integer_digits()' digits: the decoder's own limits, so what
%% the client writes it could read back (and decimal conversion is
%% quadratic: `1 bsl 16000000' took 3.6 s on the caller's scheduler).
%%
%% `max_depth()' and `max_integer_digits()' are the Rust core's constants,
%% read through the NIF: one definition for decoder, encoder and
%% `mcp_interchange'.
%%
%% Both run on the caller's scheduler in steps of at most 64 KiB (input
%% read or output written) and 4096 values, yielding between steps
%% (`enif_schedule_nif'; no step holds a scheduler near 1 ms). Only one
%% string, key, number or whitespace run longer than a step moves the rest
%% of that call to a dirty CPU scheduler (docs/json.md, "Scheduling").
-module(mcp_json).

-export([decode/1, encode/1, encode_line/1, max_depth/0, max_integer_digits/0, dirty_threshold/0]).
-export_type([json/0, corruption_report/0]).

-include("mcp_scheduling.hrl").

-type json() :: null | {bool, boolean()} | {int, integer()} | {float, float()}
              | {string, binary()} | {array, [json()]}
              | {object, [{binary(), json()}]}.
-type corruption_report() :: {corruption_report, ByteOffset :: non_neg_integer(),
                              Reason :: binary()}.

%% @doc Deepest container nesting the decoders and encoders accept (128).
-spec max_depth() -> pos_integer().
max_depth() -> mcp_nif:json_max_depth().

%% @doc Longest integer, in decimal digits (sign excluded), that decode and
%% encode accept (4300).
-spec max_integer_digits() -> pos_integer().
max_integer_digits() -> mcp_nif:json_max_integer_digits().

%% @doc Byte size from which the wire codecs built on JSON (`mcp_jsonrpc',
%% `mcp_protocol') run on a dirty CPU scheduler; `decode/1' and `encode/1'
%% themselves yield in steps instead.
-spec dirty_threshold() -> pos_integer().
dirty_threshold() -> ?DIRTY_THRESHOLD.

%% A line of at least this many bytes is decoded with repeated short keys
%% and strings made once per step and shared (two 10 KiB tables; docs/json.md,
%% "Shared repeats"): the same value, with less heap.
-define(REPEATS_FROM_BYTES, 2048).

-spec decode(binary()) -> {ok, json()} | {error, corruption_report()}.
decode(Line) when is_binary(Line) ->
    mcp_nif:json_decode(Line, ?JSON_STEP_BYTES, ?JSON_STEP_VALUES, byte_size(Line) >= ?REPEATS_FROM_BYTES).

%% @doc Compact JSON text, written in steps: every string and key is
%% measured (at its raw size) and every integer charged against the step's
%% budget before it is read (UTF-8 checked, copied, converted to decimal),
%% so each step does bounded work whatever the term.
-spec encode(json()) -> binary().
encode(Value) -> encode(Value, false).

%% @doc `encode/1' plus a trailing `\n', written in the same pass (appending
%% to the NIF's binary afterwards would copy a whole 16 MiB line on the
%% caller's scheduler). This is the outbound wire line of the stdio
%% transports: the escaping of every control character makes the newline
%% its last byte and only one.
-spec encode_line(json()) -> binary().
encode_line(Value) -> encode(Value, true).

encode(Value, Newline) -> mcp_nif:json_encode(Value, Newline, ?JSON_STEP_BYTES, ?JSON_STEP_VALUES).

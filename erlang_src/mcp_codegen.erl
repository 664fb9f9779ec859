%% @doc The generator (`mcp/codegen'): a server's tool listing into the Gleam
%% module `cap/mcp/<mangle(Server)>' and its surface (per tool, the doc
%% comment lines and a `name: fn(label: Type, ...) -> Outcome' line)
%% (docs/design.md; `docs/codegen.md' documents the `cap' seam it targets
%% and the doc comment it writes).
%%
%% Invariants:
%% - Deterministic: the same server name and tools give the same bytes.
%% - Wire names travel verbatim: every body closes over the original server,
%%   tool and parameter names as `escape/1'd string literals.
%% - The sanitizer cage: server text bound for a doc comment loses every
%%   control and direction-changing codepoint and is capped
%%   (`description_chars()' for a description, `note_chars()' for a note,
%%   `fact_chars()' for each allowed-values / default / shape fact); every
%%   comment line starts `/// ' and every line break is the generator's own
%%   (it re-wraps each paragraph and list item). `scan_for_at/1' then
%%   proves no `@' reached code, or generation fails (`sanitizer_breach').
%% - The source is byte-identical to `gleam format' of itself.
%% - The limits are defined once, in the Rust core: the functions below
%%   return what the NIF reports.
%% - Refusals, in this order: more than `max_tools()' tools; two tool names
%%   that mangle alike (naming both originals); a surface over
%%   `max_surface_bytes()'; an `@' in code.
%%
%% `generate/2' always runs on a dirty CPU scheduler (its work grows with
%% the listing); the text functions do from `dirty_threshold()' bytes. A
%% term outside the documented types raises `badarg'.
-module(mcp_codegen).

-export([generate/2, requires_tasks/1, describe/1, sanitize/2, truncate/2, escape/1, scan_for_at/1,
         max_tools/0, max_surface_bytes/0, description_chars/0, note_chars/0,
         fact_chars/0, shape_depth/0, dirty_threshold/0]).
-export_type([generated/0, generate_error/0, tool_descriptor/0]).

-include("mcp_scheduling.hrl").

-type generated() :: {generated, ModuleName :: binary(), Source :: binary(),
                      Surface :: binary()}.
-type generate_error() :: {too_many_tools, Count :: integer(), Max :: integer()}
    | {tool_name_collision, A :: binary(), B :: binary()}
    | {surface_too_large, Bytes :: integer(), Max :: integer()}
    | {sanitizer_breach, ByteOffset :: integer()}.
%% The wire codecs' `mcp_protocol:tool_descriptor()' (docs/design.md).
-type tool_descriptor() :: {tool_descriptor, Name :: binary(),
        Title :: {some, binary()} | none, Description :: {some, binary()} | none,
        InputSchema :: mcp_json:json(), OutputSchema :: {some, mcp_json:json()} | none,
        Annotations :: {some, mcp_json:json()} | none,
        Execution :: {some, mcp_json:json()} | none}.

%% @doc Most tools one module is generated for.
-spec max_tools() -> pos_integer().
max_tools() -> element(1, mcp_nif:codegen_limits()).

%% @doc Largest surface, in bytes, after truncation.
-spec max_surface_bytes() -> pos_integer().
max_surface_bytes() -> element(2, mcp_nif:codegen_limits()).

%% @doc Cap, in characters, of a sanitized tool description (over its
%% paragraphs and list items).
-spec description_chars() -> pos_integer().
description_chars() -> element(3, mcp_nif:codegen_limits()).

%% @doc Cap, in characters, of a sanitized note (a parameter's description
%% or title, or a planner reason).
-spec note_chars() -> pos_integer().
note_chars() -> element(4, mcp_nif:codegen_limits()).

%% @doc Cap, in characters, of one schema fact in a doc comment: allowed
%% values, a default, a shape, the hints or the returned shape.
-spec fact_chars() -> pos_integer().
fact_chars() -> element(5, mcp_nif:codegen_limits()).

%% @doc Containers a shape in a doc comment shows before `…'.
-spec shape_depth() -> pos_integer().
shape_depth() -> element(6, mcp_nif:codegen_limits()).

%% @doc Byte size from which the text functions run on a dirty CPU scheduler.
-spec dirty_threshold() -> pos_integer().
dirty_threshold() -> ?DIRTY_THRESHOLD.

-spec generate(binary(), [tool_descriptor()]) -> {ok, generated()} | {error, generate_error()}.
generate(Server, Tools) -> mcp_nif:codegen_generate_dirty(Server, Tools).

%% @doc Whether `generate/2' leaves `Tool' out of the module: it declares
%% `execution.taskSupport' `"required"', so it may only run as a task, which
%% this client does not speak (the surface names it). The generator's own
%% rule, read on a dirty CPU scheduler.
-spec requires_tasks(tool_descriptor()) -> boolean().
requires_tasks(Tool) -> mcp_nif:codegen_requires_tasks_dirty(Tool).

%% @doc One sentence for a person. A name collision whose two names hold
%% `dirty_threshold()' bytes or more between them (a hostile server can send
%% two identical 8 MiB names) is described on a dirty CPU scheduler.
-spec describe(generate_error()) -> binary().
describe({tool_name_collision, A, B} = Error)
  when is_binary(A), is_binary(B), byte_size(A) + byte_size(B) >= ?DIRTY_THRESHOLD ->
    mcp_nif:codegen_describe_dirty(Error);
describe(Error) -> mcp_nif:codegen_describe(Error).

%% @doc Text fit for a doc comment: whitespace (line breaks included) folds
%% to one space, other controls and direction marks are removed, the ends
%% are trimmed, and the result is capped at `MaxChars' by `truncate/2'.
-spec sanitize(binary(), non_neg_integer()) -> binary().
sanitize(Text, MaxChars) when byte_size(Text) >= ?DIRTY_THRESHOLD -> mcp_nif:codegen_sanitize_dirty(Text, MaxChars);
sanitize(Text, MaxChars) -> mcp_nif:codegen_sanitize(Text, MaxChars).

%% @doc At most `MaxChars' characters; a cut text ends in `…' (counted in
%% the cap) and is cut after a sentence, else at a space, in the second half
%% of what fits, else mid-word.
-spec truncate(binary(), non_neg_integer()) -> binary().
truncate(Text, MaxChars) when byte_size(Text) >= ?DIRTY_THRESHOLD -> mcp_nif:codegen_truncate_dirty(Text, MaxChars);
truncate(Text, MaxChars) -> mcp_nif:codegen_truncate(Text, MaxChars).

%% @doc The Gleam string literal, quotes included, holding exactly `Text':
%% `\' and `"' escaped, printable ASCII kept, every other codepoint `\u{x}'.
-spec escape(binary()) -> binary().
escape(Text) when byte_size(Text) >= ?DIRTY_THRESHOLD -> mcp_nif:codegen_escape_dirty(Text);
escape(Text) -> mcp_nif:codegen_escape(Text).

%% @doc `ok' when every `@' is inside a `//' comment or a string literal,
%% else the byte offset of the first one outside.
-spec scan_for_at(binary()) -> ok | {error, non_neg_integer()}.
scan_for_at(Source) when byte_size(Source) >= ?DIRTY_THRESHOLD -> mcp_nif:codegen_scan_for_at_dirty(Source);
scan_for_at(Source) -> mcp_nif:codegen_scan_for_at(Source).

%% @doc The name mangler (`mcp/name'): a server-chosen string into a valid
%% Gleam lowercase identifier (`[a-z][a-z0-9_]*', never a keyword).
%%
%% Invariants: camelCase, kebab-case and dotted names become snake_case;
%% every other character becomes `_' (runs folded, ends trimmed); a name
%% with no usable character becomes `unnamed', one starting with a digit
%% gets `n_' in front. The generated module's import aliases (`internal',
%% `list', `mcp', and `report' kept reserved) count as reserved like
%% keywords, since a function or parameter of that name would shadow them.
%%
%% `mangle/1' (tool and server names, one module scope): whenever mangling
%% changed anything, or the name ran past `max_name_chars()' characters
%% (then it is truncated), the result ends in `_' and the first eight
%% lowercase hex characters of SHA-256 of the original, so `createIssue'
%% and `create_issue' stay distinct whatever their neighbours.
%%
%% `mangle_label/1' (parameters, one function scope): plain snake_case with
%% no digest and no truncation (`dryRun' -> `dry_run'), a trailing `_' on a
%% reserved word (`type' -> `type_'), and `unnamed_<digest>' only for a
%% label with no ASCII letter or digit. Two labels of one tool that come out
%% equal degrade that tool to its whole-value form (`mcp_schema').
%%
%% Mangled names are display only: wire names travel verbatim. A name that
%% is not a UTF-8 binary raises `badarg'.
%%
%% Inputs of at least `dirty_threshold()' bytes (and `first_collision/1' on
%% more than 64 names) run on a dirty CPU scheduler.
-module(mcp_name).

-export([mangle/1, mangle_label/1, digest/1, first_collision/1, max_name_chars/0, dirty_threshold/0]).

-include("mcp_scheduling.hrl").
%% A changed name costs a SHA-256 (a few microseconds with its mangling), so
%% a list of many short names goes dirty by count: 64 names stay well under
%% a millisecond.
-define(DIRTY_NAME_COUNT, 64).

%% @doc Characters of a mangled name kept before the digest suffix (as the
%% Rust core defines it).
-spec max_name_chars() -> pos_integer().
max_name_chars() -> element(7, mcp_nif:codegen_limits()).

%% @doc Byte size from which the functions run on a dirty CPU scheduler.
-spec dirty_threshold() -> pos_integer().
dirty_threshold() -> ?DIRTY_THRESHOLD.

-spec mangle(binary()) -> binary().
mangle(Name) when byte_size(Name) >= ?DIRTY_THRESHOLD -> mcp_nif:name_mangle_dirty(Name);
mangle(Name) -> mcp_nif:name_mangle(Name).

-spec mangle_label(binary()) -> binary().
mangle_label(Name) when byte_size(Name) >= ?DIRTY_THRESHOLD -> mcp_nif:name_mangle_label_dirty(Name);
mangle_label(Name) -> mcp_nif:name_mangle_label(Name).

%% @doc The eight characters a changed name carries after its `_': the
%% first lowercase hex characters of the SHA-256 of `Name' (`mangle/1' of
%% `<<"echo">>' is `<<"echo_", (digest(<<"echo">>))/binary>>').
-spec digest(binary()) -> binary().
digest(Name) when byte_size(Name) >= ?DIRTY_THRESHOLD -> mcp_nif:name_digest_dirty(Name);
digest(Name) -> mcp_nif:name_digest(Name).

%% @doc The first pair of originals (the earlier one first) that `mangle/1'
%% maps to one identifier; byte-identical names count.
-spec first_collision([binary()]) -> {some, {binary(), binary()}} | none.
first_collision(Names) ->
    case length(Names) > ?DIRTY_NAME_COUNT orelse iolist_size(Names) >= ?DIRTY_THRESHOLD of
        true -> mcp_nif:name_first_collision_dirty(Names);
        false -> mcp_nif:name_first_collision(Names)
    end.

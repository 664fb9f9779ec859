%% The one definition of when a NIF call leaves the normal schedulers: an
%% input of at least this many bytes runs on a dirty CPU scheduler, below
%% it the call stays well under a millisecond (measured by
%% bench/sched_bench.erl; docs/performance.md). `mcp_json', `mcp_name',
%% `mcp_codegen' and `mcp_interchange' pick their NIF variant by it and
%% export it as `dirty_threshold/0'; `mcp_jsonrpc' and `mcp_protocol' pick
%% by it too. A byte input picks in a guard, `f(X) when byte_size(X) >=
%% ?DIRTY_THRESHOLD -> mcp_nif:f_dirty(X)', then `f(X) -> mcp_nif:f(X)'
%% (dirty twins, native/mcp_nif/src/lib.rs). (`mcp_stdio' scans, a cheaper
%% pass, with a chunk size of its own.)
-define(DIRTY_THRESHOLD, 16384).

%% `mcp_json' does not move to a dirty scheduler by size: its NIFs work in
%% steps of at most this many input bytes (decode) or output bytes (encode)
%% and this many values, and continue through `enif_schedule_nif' after
%% each (docs/json.md, "Scheduling").
-define(JSON_STEP_BYTES, 65536).
-define(JSON_STEP_VALUES, 4096).

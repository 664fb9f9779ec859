%% The one definition of when a NIF call leaves the normal schedulers: an
%% input of at least this many bytes runs on a dirty CPU scheduler, below
%% it the call stays well under a millisecond (measured by
%% bench/sched_bench.erl; docs/performance.md). `mcp_json', `mcp_name',
%% `mcp_codegen' and `mcp_interchange' pick their NIF variant by it, and
%% export it as `dirty_threshold/0'. (`mcp_stdio' scans, a cheaper pass,
%% with a threshold of its own.)
-define(DIRTY_THRESHOLD, 16384).

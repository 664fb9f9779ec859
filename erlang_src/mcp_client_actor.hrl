%% The client actor's state (`mcp_client_actor'), shared with the modules
%% that do part of its work: `mcp_client_listing' (the listing and its
%% re-listing) and `mcp_client_inputs' (the input handler's runs). Only
%% those three include it.

%% The longest `nextCursor' echoed back (the `tools/list' fault beyond it).
-define(MAX_CURSOR_BYTES, 65536).
%% The `input_required' rounds one tool call may take: the retries it
%% sends with answers; one more `input_required' is `too_many_input_rounds'.
-define(MAX_INPUT_ROUNDS, 8).
%% A burst of `notifications/tools/list_changed' costs at most one listing
%% per this interval (and one running at a time).
-define(RELIST_INTERVAL_MS, 1000).
%% A server's questions (`elicitation/create') whose input handler runs at
%% once.
-define(MAX_SERVER_INPUTS, 4).
%% The longest line the actor decodes whole to read it itself: a server's
%% `elicitation/create' for the input handler, and the answer to a probe
%% (`server/discover', routed to it). A longer line is not built (the bound of an
%% `input_required' result, `protocol::read::MAX_WHOLE_RESULT_BYTES').
-define(MAX_WHOLE_LINE_BYTES, 262144).

-record(data, {spec :: mcp_transport:spec(),
               options :: map(),
               builder :: reference() | gone,
               custodian :: reference() | gone,
               conn :: mcp_transport:connection() | undefined,
               %% The requests in flight (`mcp_request_table'), and the one
               %% timer for their deadlines, armed at the least of them (or
               %% earlier: it then finds nothing due and is armed again).
               requests = mcp_request_table:new() :: mcp_request_table:table(),
               deadline_timer = none :: none | {reference(), integer()},
               %% Calls made during the handshake, newest first, with the
               %% deadline each got when it arrived: run once connected,
               %% answered `call_timed_out' (never sent) when it passes
               %% first.
               held = [] :: [{gen_statem:from(), tuple(), integer()}],
               %% The mailbox length at the flood budget's last weighing, and
               %% the transport events handled since (`flooded/1').
               weighed = {0, 0} :: {non_neg_integer(), non_neg_integer()},
               %% Messages waiting for the next `flush_outbox', newest first.
               outbox = [] :: [mcp_transport:message()],
               reason :: term(),
               %% The wire in use: `handshake', or `modern' from the probe on.
               era = handshake :: handshake | modern,
               %% Modern era: each listed tool's header map, once listed.
               tool_headers = unlisted :: unlisted | #{binary() => mcp_request_headers:header_map()},
               %% Modern era: tools the last listing left out, with why.
               left_out = [] :: [{binary(), binary()}],
               %% The input handler's runs in flight, by the monitor of the
               %% process running it (`mcp_input').
               inputs = #{} :: #{reference() => input_run()},
               %% The tools as last listed, with the listing's generation
               %% (0 until a listing completed; one more whenever a
               %% listing differs from the last), and who hears of a new
               %% generation (`mcp_client:subscribe/1'), by monitor.
               listing = none :: none | [mcp_protocol:tool_descriptor()],
               generation = 0 :: non_neg_integer(),
               subscribers = #{} :: #{reference() => pid()},
               %% The server declared `tools.listChanged': its
               %% `notifications/tools/list_changed' starts a re-listing
               %% (`mcp_client_listing:relist/1'): idle, running (a
               %% process of ours listing as any caller would, by its
               %% monitor), or waiting for `?RELIST_INTERVAL_MS' after one
               %% (its timer); `again' when a notice came while it ran.
               list_changed = false :: boolean(),
               relist = idle :: idle | {running, reference()} | {waiting, reference()},
               relist_again = false :: boolean(),
               %% When the last re-listing started: the next starts no
               %% sooner than `?RELIST_INTERVAL_MS' after it.
               relist_at :: integer() | undefined,
               evidence :: term(),
               %% The reconnect policy's bookkeeping (`mcp_reconnect'):
               %% whether a connection was ever up (only such a client
               %% reconnects), when the current one came up, the attempts
               %% made in a row, and the timer of the wait before the next.
               ever_connected = false :: boolean(),
               %% When the server was last heard (an event, or bytes of a
               %% message not yet complete: `heard_at/4'), and whether the
               %% ping to a server that fell silent is out (`reconnect''s
               %% `unresponsive_ms').
               heard_at = 0 :: integer(),
               probing = false :: boolean(),
               connected_at :: integer() | undefined,
               reconnects = 0 :: non_neg_integer(),
               backoff :: reference() | undefined,
               retirees = [] :: [gen_statem:from()],
               stop_when_closed = false :: boolean(),
               %% The heap, raised while many requests are in flight
               %% (`mcp_client_heap').
               heap = lowered :: mcp_client_heap:heap()}).

%% One run of the input handler: the process, its timer, and what its
%% answers are for (a server's `elicitation/create', or a tool call's
%% next round).
-type input_run() :: #{pid := pid(), timer := reference(), count := non_neg_integer(),
                       for := {server_request, mcp_jsonrpc:id()}
                            | {tool_call, gen_statem:from(), term(), {binary(), term()}, pos_integer(),
                               integer(), [binary()], {some, term()} | none}}.

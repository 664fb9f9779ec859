%% @doc The client actor's in-flight requests, as a pure value: ids,
%% callers, deadlines, what each response decodes as, caller monitors, and
%% the pagination state a listing carries from page to page.
%%
%% The table performs no effect. The actor mints the timer and the monitor
%% (effects) and hands their references in; whatever leaves the table
%% (settled, expired, cancelled by its caller's death, drained) comes back
%% as the entry, so the actor can cancel the timer, drop the monitor and
%% answer the caller.
%%
%% Invariants (asserted by `mcp_request_table_tests'):
%% <ul>
%% <li>Every pending id has exactly one entry and one expectation; the
%%     expectation map (`expected/1') has exactly the pending ids but the
%%     probes the actor reads itself (`raw/2'), which is
%%     what `mcp_protocol:read/2' decodes responses against.</li>
%% <li>Every caller monitor names exactly one pending id, and every entry
%%     with a monitor is found by it; the handshake has none.</li>
%% <li>Ids are minted in increasing order from 1 and never reused, so a late
%%     response to a settled id finds nothing.</li>
%% <li>An entry leaves the table once: `settle/2', `expire/3' (only with
%%     the timer it was added with), `caller_gone/2' and `drain/1' all
%%     remove it, after which the others find nothing.</li>
%% </ul>
-module(mcp_request_table).

-export([new/0, next_id/1, add/2, expected/1, raw/2, settle/2, expire/3, caller_gone/2,
         drain/1, size/1, monitors/1, routed_as/1]).
-export_type([table/0, entry/0, kind/0]).

%% What a request is: the handshake's `initialize', a `tools/call' (`call',
%% or `call_msgpack' when its `structuredContent' is wanted as a msgpack
%% value; the actor sends it as `tool_call', with the call and the
%% `input_required' rounds it took), a `ping', a page of `tools/list' with the pages so far
%% (newest first) and the digests of the cursors already followed (then
%% answered, or, `list_then_call', followed by the call it was listed for),
%% or a `server/discover' probe (`mcp_modern'), at connect or, `reprobe',
%% for a request a server refused with `-32022' (sent again after it).
-type kind() :: handshake | call | call_msgpack | ping
              | {tool_call, call | call_msgpack, Call :: {binary(), term()}, InputRound :: non_neg_integer()}
              | {list, Pages :: non_neg_integer(), Acc :: [[term()]], Seen :: [binary()]}
              | {list_then_call, Call :: term(), Pages :: non_neg_integer(), Acc :: [[term()]], Seen :: [binary()]}
              | {discover, Mode :: modern | auto, Reprobed :: boolean(), HandshakeDeadline :: integer()}
              | {reprobe, kind(), Resend :: {binary(), term()}, Refusal :: term()}.

-type entry() :: #{id := pos_integer(),
                   from := gen_statem:from(),
                   kind := kind(),
                   deadline := integer(),
                   timer := reference(),
                   monitor := reference() | none,
                   %% Modern era: the request as sent, for one re-probe.
                   resend => {binary(), term()}}.

-record(table, {next_id = 1 :: pos_integer(),
                entries = #{} :: #{pos_integer() => entry()},
                expected = #{} :: #{pos_integer() => mcp_protocol:expectation()},
                %% Ids whose response the actor reads itself (`raw/2').
                raw = #{} :: #{pos_integer() => true},
                callers = #{} :: #{reference() => pos_integer()}}).
-opaque table() :: #table{}.

-spec new() -> table().
new() -> #table{}.

%% @doc The id the next `add/2' takes.
-spec next_id(table()) -> pos_integer().
next_id(#table{next_id = Id}) -> Id.

%% @doc Adds a request under `next_id/1' (which then moves on); the entry's
%% `id' is set here.
-spec add(table(), #{from := gen_statem:from(), kind := kind(), deadline := integer(),
                     timer := reference(), monitor := reference() | none,
                     resend => {binary(), term()}}) -> table().
add(#table{next_id = Id, entries = Entries, expected = Expected, raw = Raw, callers = Callers} = Table,
    #{kind := Kind, monitor := Monitor} = Request) ->
    {NextExpected, NextRaw} = case expectation(Kind) of
                                  raw -> {Expected, Raw#{Id => true}};
                                  Expectation -> {Expected#{Id => Expectation}, Raw}
                              end,
    Table#table{next_id = Id + 1,
                entries = Entries#{Id => Request#{id => Id}},
                expected = NextExpected,
                raw = NextRaw,
                callers = case Monitor of
                              none -> Callers;
                              _ -> Callers#{Monitor => Id}
                          end}.

%% @doc What each pending id's result is decoded as.
-spec expected(table()) -> #{pos_integer() => mcp_protocol:expectation()}.
expected(#table{expected = Expected}) -> Expected.

%% @doc Whether `Id' is pending with a result the actor reads itself (a
%% `server/discover' probe: its result is not one the core decodes, so it is
%% not in `expected/1'); `any' asks whether any such id is pending.
-spec raw(table(), pos_integer() | any) -> boolean().
raw(#table{raw = Raw}, any) -> map_size(Raw) > 0;
raw(#table{raw = Raw}, Id) -> is_map_key(Id, Raw).

%% @doc Takes the entry of a response's id out, or `none' (unknown or
%% already gone).
-spec settle(table(), pos_integer()) -> {entry(), table()} | none.
settle(#table{entries = Entries} = Table, Id) ->
    case maps:take(Id, Entries) of
        {Entry, Rest} -> {Entry, forget(Entry, Table#table{entries = Rest})};
        error -> none
    end.

%% @doc Takes an entry out when its deadline timer fired: only if `Timer'
%% is the one it was added with (a timer that raced its settlement finds
%% nothing).
-spec expire(table(), pos_integer(), reference()) -> {entry(), table()} | none.
expire(#table{entries = Entries} = Table, Id, Timer) ->
    case Entries of
        #{Id := #{timer := Timer}} -> settle(Table, Id);
        _ -> none
    end.

%% @doc Takes out the entry of a caller whose monitor fired, or `none'.
-spec caller_gone(table(), reference()) -> {entry(), table()} | none.
caller_gone(#table{callers = Callers} = Table, Monitor) ->
    case Callers of
        #{Monitor := Id} -> settle(Table, Id);
        _ -> none
    end.

%% @doc Every entry, the table left empty (ids keep increasing).
-spec drain(table()) -> {[entry()], table()}.
drain(#table{entries = Entries, next_id = Id}) ->
    {[Entry || {_, Entry} <- lists:keysort(1, maps:to_list(Entries))], #table{next_id = Id}}.

%% @doc The caller monitors the table holds: each names one pending request.
-spec monitors(table()) -> [reference()].
monitors(#table{callers = Callers}) -> maps:keys(Callers).

-spec size(table()) -> non_neg_integer().
size(#table{entries = Entries}) -> map_size(Entries).

forget(#{id := Id, monitor := Monitor}, #table{expected = Expected, raw = Raw, callers = Callers} = Table) ->
    Table#table{expected = maps:remove(Id, Expected), raw = maps:remove(Id, Raw),
                callers = maps:remove(Monitor, Callers)}.

%% @doc What the caller of a routed tool call (`routed_call_tool') reads
%% its result's line as: `call_tool' or `call_tool_msgpack'.
-spec routed_as(kind()) -> call_tool | call_tool_msgpack.
routed_as({tool_call, Kind, _, _}) -> call_result(Kind).

call_result(call) -> call_tool;
call_result(call_msgpack) -> call_tool_msgpack.

%% What `mcp_protocol:read/2' decodes a response to each kind as.
expectation(handshake) -> initialize;
expectation({list, _, _, _}) -> tools_page;
expectation({list_then_call, _, _, _, _}) -> tools_page;
expectation({discover, _, _, _}) -> raw;
expectation({reprobe, _, _, _}) -> raw;
%% A tool call's complete result is handed to its caller to decode
%% (`routed_call_tool'); the caller's own read names the term it wants.
expectation({tool_call, _Kind, _, _}) -> routed_call_tool;
expectation(Call) when Call =:= call; Call =:= call_msgpack -> call_result(Call);
expectation(ping) -> ping.

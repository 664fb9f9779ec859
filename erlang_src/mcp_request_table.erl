%% @doc The client actor's in-flight requests, as a pure value: ids,
%% callers, deadlines, what each response decodes as, caller monitors, and
%% the pagination state a listing carries from page to page.
%%
%% The table performs no effect. The actor mints monitors (effects) and
%% hands them in; it keeps one timer, armed at `earliest/1'. Whatever
%% leaves the table (settled, expired, cancelled by its caller's death,
%% drained) comes back as the entry, with the monitor the actor is to drop
%% (`release'), so the actor can answer the caller and release what is
%% no longer needed.
%%
%% Callers are monitored per process, not per request: a caller's monitor
%% is minted at its first request and kept while it has requests pending
%% and, once it has none, for its next ones, for at most
%% `max_idle_callers/0' callers (past that, the monitor of a caller whose
%% last request settles is released). A caller calling again so costs no
%% monitor, and no signal to its process; a caller's death cancels all its
%% requests. The actor keeps one timer for all the deadlines, not one per
%% request: it arms it at a new request's deadline when that is earlier
%% than the timer's, and when it fires asks for what is `due/2' and for
%% the `earliest/1' left (both a pass over the pending requests, which
%% costs nothing per request in the common case: the timer fires once per
%% timeout, not once per call).
%%
%% Invariants (asserted by `mcp_request_table_tests'):
%% <ul>
%% <li>Every pending id has exactly one entry and one expectation; the
%%     expectation map (`expected/1') has exactly the pending ids (the
%%     probes the actor reads itself, `raw/2', routed to it), which is
%%     what `mcp_protocol:read/2' decodes responses against.</li>
%% <li>Every entry with a caller has that caller monitored; each monitored
%%     caller has exactly one monitor (`monitors/1'); callers monitored with
%%     nothing pending are at most `max_idle_callers/0'; every monitor handed
%%     in is either held or handed back once (`release', `caller_gone/2',
%%     `drain/1'); the handshake has no caller.</li>
%% <li>`earliest/1' is the least deadline pending; `due/2' names the
%%     pending ids whose deadline has passed, least deadline first.</li>
%% <li>Ids are minted in increasing order from 1 and never reused, so a late
%%     response to a settled id finds nothing.</li>
%% <li>An entry leaves the table once: `settle/2' (an answer, or a
%%     deadline `due/2' names), `caller_gone/2' and `drain/1' all remove
%%     it, after which the others find nothing.</li>
%% </ul>
-module(mcp_request_table).

-export([new/0, next_id/1, monitored/2, add/2, expected/1, raw/2, settle/2, earliest/1, due/2,
         caller_gone/2, drain/1, size/1, kinds/1, monitors/1, routed_as/1, max_idle_callers/0]).
-export_type([table/0, entry/0, kind/0]).

%% Callers kept monitored with nothing pending.
-define(MAX_IDLE_CALLERS, 64).

%% What a request is: the handshake's `initialize', a `tools/call' (`call',
%% or `call_msgpack' when its `structuredContent' is wanted as a msgpack
%% value; the actor sends it as `tool_call', with the call and the
%% `input_required' rounds it took), a `ping', a page of `tools/list' with
%% the listing so far (`mcp_client_listing:listing()'; then answered, or,
%% `list_then_call', followed by the call it was listed for),
%% or a `server/discover' probe (`mcp_modern'), at connect or, `reprobe',
%% for a request a server refused with `-32022' (sent again after it), or
%% the ping the actor sends a server that fell silent (`liveness', with
%% when it was sent).
-type kind() :: handshake | call | call_msgpack | ping
              | {tool_call, call | call_msgpack, Call :: {binary(), term()}, InputRound :: non_neg_integer()}
              | {list, mcp_client_listing:listing()}
              | {list_then_call, Call :: term(), mcp_client_listing:listing()}
              | {discover, Mode :: modern | auto, Reprobed :: boolean(), HandshakeDeadline :: integer()}
              | {reprobe, kind(), Resend :: {binary(), term()}, Refusal :: term()}
              | {liveness, SentAt :: integer()}.

%% An entry as it leaves the table carries `release': the caller monitor
%% the actor is to drop (`none' when it is kept, or already gone).
-type entry() :: #{id := pos_integer(),
                   from := gen_statem:from(),
                   kind := kind(),
                   deadline := integer(),
                   caller := pid() | none,
                   release => reference() | none,
                   %% Modern era: the request as sent, for one re-probe.
                   resend => {binary(), term()}}.

-record(table, {next_id = 1 :: pos_integer(),
                entries = #{} :: #{pos_integer() => entry()},
                expected = #{} :: #{pos_integer() => mcp_protocol:expectation()},
                %% Ids whose response the actor reads itself (`raw/2').
                raw = #{} :: #{pos_integer() => true},
                %% Monitored callers: the monitor and how many requests
                %% each has pending; `idle' counts those with none.
                callers = #{} :: #{pid() => {reference(), non_neg_integer()}},
                monitors = #{} :: #{reference() => pid()},
                idle = 0 :: non_neg_integer()}).
-opaque table() :: #table{}.

-spec new() -> table().
new() -> #table{}.

%% @doc Callers monitored with nothing pending past which a caller's
%% monitor is released when its last request leaves.
-spec max_idle_callers() -> pos_integer().
max_idle_callers() -> ?MAX_IDLE_CALLERS.

%% @doc The id the next `add/2' takes.
-spec next_id(table()) -> pos_integer().
next_id(#table{next_id = Id}) -> Id.

%% @doc Whether `Caller' is monitored already (`add/2' then needs no
%% monitor for it).
-spec monitored(table(), pid()) -> boolean().
monitored(#table{callers = Callers}, Caller) -> is_map_key(Caller, Callers).

%% @doc Adds a request under `next_id/1' (which then moves on); the entry's
%% `id' is set here. A request with a caller not yet `monitored/2' comes
%% with the monitor the actor minted for it.
-spec add(table(), #{from := gen_statem:from(), kind := kind(), deadline := integer(),
                     caller := pid() | none, monitor => reference(),
                     resend => {binary(), term()}}) -> table().
add(#table{next_id = Id, entries = Entries, expected = Expected, raw = Raw, callers = Callers0,
           monitors = Monitors0, idle = Idle0} = Table,
    #{kind := Kind, caller := Caller} = Request) ->
    {Entry, Monitor} = case maps:take(monitor, Request) of
                           {Minted, Rest} -> {Rest#{id => Id}, Minted};
                           error -> {Request#{id => Id}, none}
                       end,
    {Callers, Monitors, Idle} = watch(Caller, Monitor, Callers0, Monitors0, Idle0),
    %% (one copy of the table per request: every field set at once)
    case expectation(Kind) of
        raw ->
            Table#table{next_id = Id + 1, entries = Entries#{Id => Entry}, expected = Expected#{Id => routed_result},
                        raw = Raw#{Id => true}, callers = Callers, monitors = Monitors, idle = Idle};
        Expectation ->
            Table#table{next_id = Id + 1, entries = Entries#{Id => Entry}, expected = Expected#{Id => Expectation},
                        callers = Callers, monitors = Monitors, idle = Idle}
    end.

%% One more request pending for `Caller': its callers, monitors and idle
%% count.
watch(none, none, Callers, Monitors, Idle) ->
    {Callers, Monitors, Idle};
watch(Caller, Monitor, Callers, Monitors, Idle) ->
    case Callers of
        #{Caller := {Held, 0}} -> {Callers#{Caller := {Held, 1}}, Monitors, Idle - 1};
        #{Caller := {Held, Pending}} -> {Callers#{Caller := {Held, Pending + 1}}, Monitors, Idle};
        #{} when is_reference(Monitor) -> {Callers#{Caller => {Monitor, 1}}, Monitors#{Monitor => Caller}, Idle}
    end.

%% @doc What each pending id's result is decoded as.
-spec expected(table()) -> #{pos_integer() => mcp_protocol:expectation()}.
expected(#table{expected = Expected}) -> Expected.

%% @doc Whether `Id' is pending with a result the actor reads itself (a
%% `server/discover' probe: its result is not one the core decodes, so
%% `expected/1' has it routed, `routed_result').
-spec raw(table(), pos_integer()) -> boolean().
raw(#table{raw = Raw}, Id) -> is_map_key(Id, Raw).

%% @doc Takes the entry of a response's id out, or `none' (unknown or
%% already gone).
-spec settle(table(), pos_integer()) -> {entry(), table()} | none.
settle(#table{entries = Entries, expected = Expected, raw = Raw, callers = Callers0, monitors = Monitors0,
              idle = Idle0} = Table, Id) ->
    case maps:take(Id, Entries) of
        {#{caller := Caller} = Entry, Rest} ->
            {Release, Callers, Monitors, Idle} = unwatch(Caller, Callers0, Monitors0, Idle0),
            {LeftExpected, LeftRaw} = forget(Id, Expected, Raw),
            {Entry#{release => Release},
             Table#table{entries = Rest, expected = LeftExpected, raw = LeftRaw,
                         callers = Callers, monitors = Monitors, idle = Idle}};
        error ->
            none
    end.

%% One request fewer pending for `Caller': the monitor to release (`none'
%% while it is kept), and the callers, monitors and idle count. The
%% monitor is released when the caller has none left and the idle callers
%% are at their bound.
unwatch(none, Callers, Monitors, Idle) ->
    {none, Callers, Monitors, Idle};
unwatch(Caller, Callers, Monitors, Idle) ->
    case Callers of
        #{Caller := {Held, 1}} when Idle >= ?MAX_IDLE_CALLERS ->
            {Held, maps:remove(Caller, Callers), maps:remove(Held, Monitors), Idle};
        #{Caller := {Held, 1}} ->
            {none, Callers#{Caller := {Held, 0}}, Monitors, Idle + 1};
        #{Caller := {Held, Pending}} ->
            {none, Callers#{Caller := {Held, Pending - 1}}, Monitors, Idle}
    end.

%% @doc The least deadline pending, or `none'.
-spec earliest(table()) -> integer() | none.
earliest(#table{entries = Entries}) ->
    maps:fold(fun(_, #{deadline := Deadline}, none) -> Deadline;
                 (_, #{deadline := Deadline}, Least) -> min(Deadline, Least)
              end, none, Entries).

%% @doc The pending ids whose deadline is at or before `Now', least
%% deadline first (then by id).
-spec due(table(), integer()) -> [pos_integer()].
due(#table{entries = Entries}, Now) ->
    [Id || {_, Id} <- lists:sort([{Deadline, Id} || {Id, #{deadline := Deadline}} <- maps:to_list(Entries),
                                                     Deadline =< Now])].

%% @doc Takes out every entry of a caller whose monitor fired (the caller
%% is forgotten, its monitor is spent), or `none' when `Monitor' is not a
%% caller's.
-spec caller_gone(table(), reference()) -> {[entry()], table()} | none.
caller_gone(#table{monitors = Monitors, callers = Callers, idle = Idle} = Table, Monitor) ->
    case Monitors of
        #{Monitor := Caller} ->
            Idle1 = case Callers of
                        #{Caller := {_, 0}} -> Idle - 1;
                        _ -> Idle
                    end,
            Gone = Table#table{callers = maps:remove(Caller, Callers), monitors = maps:remove(Monitor, Monitors),
                               idle = Idle1},
            Ids = lists:sort([Id || {Id, #{caller := C}} <- maps:to_list(Table#table.entries), C =:= Caller]),
            lists:mapfoldl(fun(Id, T) -> settle_gone(T, Id) end, Gone, Ids);
        _ ->
            none
    end.

%% An entry of a forgotten caller taken out.
settle_gone(#table{entries = Entries} = Table, Id) ->
    {Entry, Rest} = maps:take(Id, Entries),
    {LeftExpected, LeftRaw} = forget(Id, Table#table.expected, Table#table.raw),
    {Entry#{release => none}, Table#table{entries = Rest, expected = LeftExpected, raw = LeftRaw}}.

%% @doc Every entry, oldest first, and every caller monitor to drop; the
%% table left empty (ids keep increasing).
-spec drain(table()) -> {[entry()], [reference()], table()}.
drain(#table{entries = Entries, next_id = Id, monitors = Monitors}) ->
    {[Entry#{release => none} || {_, Entry} <- lists:keysort(1, maps:to_list(Entries))], maps:keys(Monitors),
     #table{next_id = Id}}.

%% @doc The caller monitors the table holds: one per monitored caller,
%% with requests pending or idle.
-spec monitors(table()) -> [reference()].
monitors(#table{monitors = Monitors}) -> maps:keys(Monitors).

%% @doc The kinds of the requests pending (any order).
-spec kinds(table()) -> [kind()].
kinds(#table{entries = Entries}) -> [Kind || #{kind := Kind} <- maps:values(Entries)].

-spec size(table()) -> non_neg_integer().
size(#table{entries = Entries}) -> map_size(Entries).

%% The expectation maps without `Id'.
forget(Id, Expected, Raw) ->
    {maps:remove(Id, Expected), maps:remove(Id, Raw)}.

%% @doc What the caller of a routed tool call (`routed_call_tool') reads
%% its result's line as: `call_tool' or `call_tool_msgpack'.
-spec routed_as(kind()) -> call_tool | call_tool_msgpack.
routed_as({tool_call, Kind, _, _}) -> call_result(Kind).

call_result(call) -> call_tool;
call_result(call_msgpack) -> call_tool_msgpack.

%% What `mcp_protocol:read/2' decodes a response to each kind as.
expectation(handshake) -> initialize;
%% A page's line comes back to the actor validated (`routed_result'),
%% to be read within its listing's byte budget (`mcp_client_listing').
expectation({list, _}) -> routed_result;
expectation({list_then_call, _, _}) -> routed_result;
%% A probe's answer is read by the actor (`raw/2'), routed to it.
expectation({discover, _, _, _}) -> raw;
expectation({reprobe, _, _, _}) -> raw;
%% A tool call's complete result is handed to its caller to decode
%% (`routed_call_tool'), unless its line is short (`mcp_protocol:read/2');
%% the caller's own read, or the actor's of a short line, builds the term
%% the call wants.
expectation({tool_call, call, _, _}) -> routed_call_tool;
expectation({tool_call, call_msgpack, _, _}) -> routed_call_tool_msgpack;
expectation(Call) when Call =:= call; Call =:= call_msgpack -> call_result(Call);
expectation(ping) -> ping;
expectation({liveness, _}) -> ping.

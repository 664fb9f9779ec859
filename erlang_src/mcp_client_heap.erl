%% @doc The client actor's heap under load (`mcp_client_actor'). Each
%% request in flight leaves a few hundred words of garbage in the actor
%% (its table entry and the maps around it, the caller's message, the
%% state record), so with the VM's default heap many callers at once cost
%% the actor a minor collection every few calls. Once `busy_pending/0'
%% requests are in flight, the actor's minimum heap is `busy_heap_words/0'
%% (256 KiB on a 64-bit VM), so collections come dozens of calls apart; a
%% check every `idle_ms/0' gives the heap back (the VM's minimum, and the
%% actor hibernates) once a whole period passed with no request made and
%% none left in flight.
%%
%% Invariants: an actor that never has `busy_pending/0' requests in flight
%% (sequential callers, an idle client) never changes its heap and runs no
%% check; while raised, exactly one check timer is armed; only that
%% timer's message (its reference) is a check, any other is a stray; a new
%% request table (a reconnection numbers its requests from 1 again) counts
%% as requests made (`renewed/1'), so ids of two tables never compare.
-module(mcp_client_heap).

-export([pending/3, checked/4, renewed/1, busy_pending/0, busy_heap_words/0, idle_ms/0]).
-export_type([heap/0]).

-define(BUSY_PENDING, 8).
-define(BUSY_HEAP_WORDS, 32768).
-define(IDLE_MS, 1000).

%% `lowered', or raised with the check timer and the table's next id when
%% it was armed (`mcp_request_table:next_id/1': requests made since), or
%% `renewed' when the table was replaced since.
-type heap() :: lowered | {raised, reference(), pos_integer() | renewed}.

%% @doc Requests in flight from which the actor's heap is raised.
-spec busy_pending() -> pos_integer().
busy_pending() -> ?BUSY_PENDING.

%% @doc The actor's minimum heap, in words, while raised.
-spec busy_heap_words() -> pos_integer().
busy_heap_words() -> ?BUSY_HEAP_WORDS.

%% @doc How often a raised heap is checked for idleness.
-spec idle_ms() -> pos_integer().
idle_ms() -> ?IDLE_MS.

%% @doc After a request was added, with `InFlight' requests in flight and
%% `NextId' the table's next id: the heap raised (on the calling process,
%% the check timer armed) when they reach `busy_pending/0'.
-spec pending(non_neg_integer(), pos_integer(), heap()) -> heap().
pending(InFlight, NextId, lowered) when InFlight >= ?BUSY_PENDING ->
    _ = process_flag(min_heap_size, ?BUSY_HEAP_WORDS),
    {raised, erlang:start_timer(?IDLE_MS, self(), heap_check), NextId};
pending(_InFlight, _NextId, Heap) ->
    Heap.

%% @doc The actor replaced its request table (a new connection): requests
%% were made, whatever the new table's next id.
-spec renewed(heap()) -> heap().
renewed({raised, Timer, _Seen}) -> {raised, Timer, renewed};
renewed(lowered) -> lowered.

%% @doc The check timer `Timer' fired: the heap given back (`hibernate':
%% the actor is to hibernate) when no request was made since the last
%% check and none is in flight, else checked again later (`keep');
%% `stray' for a message that is not the armed timer's.
-spec checked(reference(), non_neg_integer(), pos_integer(), heap()) -> {heap(), hibernate | keep | stray}.
checked(Timer, 0, NextId, {raised, Timer, NextId}) ->
    {min_heap_size, Default} = erlang:system_info(min_heap_size),
    _ = process_flag(min_heap_size, Default),
    {lowered, hibernate};
checked(Timer, _InFlight, NextId, {raised, Timer, _Seen}) ->
    {{raised, erlang:start_timer(?IDLE_MS, self(), heap_check), NextId}, keep};
checked(_Timer, _InFlight, _NextId, Heap) ->
    {Heap, stray}.

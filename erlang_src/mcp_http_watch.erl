%% @doc What an `httpc' handler holds of an answer it has not handed over.
%%
%% `httpc' streams only 200 (and 206) answers; the headers of any answer,
%% and the whole body of any other status, are read by the connection's
%% handler process before anything reaches the owner, with no limit
%% (inets 8 sets none: a server sending an endless 500 body or endless
%% headers grows the handler by what the network delivers), and so is
%% what its chunked decoder has not handed over of a 200 (a size line or
%% trailers without end). `mcp_http' therefore measures what each open
%% request's handler holds (every `interval_ms()' while one waits for its
%% answer's headers, less often while answers stream; the session's
%% DELETE too) and ends the handler when that passes the request's
%% allowance.
%%
%% Invariants:
%% <ul>
%% <li>The handler of a request is found in its manager's handler table
%%     (a stand-alone `httpc_manager''s `stand_alone_PROFILE__handler_db',
%%     entries `{RequestId, Handler, From}'); the table's atom exists while
%%     the manager lives, and is looked up, never made.</li>
%% <li>Held bytes are the handler's heap plus the size of every binary in
%%     its state (`sys:get_state/2'; the body being read is a binary there
%%     that `process_info(_, binary)' does not list): an over-count (our own
%%     request body is in the state too), never an under-count. A handler
%%     that does not answer within `?STATE_TIMEOUT_MS' counts its heap
%%     alone, once.</li>
%% <li>Between two measurements a handler grows by at most what arrives in
%%     `interval_ms()'; that, plus the allowance, is the bound.</li>
%% </ul>
-module(mcp_http_watch).

-export([handler_table/1, held_bytes/2, over/2, interval_ms/0, allowance/2]).

-define(INTERVAL_MS, 20).
-define(STATE_TIMEOUT_MS, 100).
%% What a handler holds beyond the bodies: the process itself, its socket
%% buffers and the headers.
-define(HANDLER_SLACK_BYTES, 1048576).

%% @doc How often a request waiting for its answer's headers is measured.
-spec interval_ms() -> pos_integer().
interval_ms() -> ?INTERVAL_MS.

%% @doc What a handler may hold before its answer is handed over, for a
%% request of `SentBytes' whose answer may be `MaxBytes': each twice (a
%% binary being appended to may be allocated at up to twice its size),
%% plus 1 MiB.
-spec allowance(non_neg_integer(), non_neg_integer()) -> pos_integer().
allowance(SentBytes, MaxBytes) when is_integer(SentBytes), is_integer(MaxBytes) ->
    2 * (SentBytes + MaxBytes) + ?HANDLER_SLACK_BYTES.

%% @doc The handler table of the stand-alone `httpc' manager of `Profile'
%% (which must be running, so the atom exists).
-spec handler_table(atom()) -> atom().
handler_table(Profile) ->
    list_to_existing_atom("stand_alone_" ++ atom_to_list(Profile) ++ "__handler_db").

%% @doc The requests whose handler holds more than its allowance, each
%% with what it holds.
-spec over(atom(), [{reference(), pos_integer()}]) -> [{reference(), non_neg_integer()}].
over(Table, Allowances) ->
    [{RequestId, Held} || {RequestId, Allowance} <- Allowances,
                          {ok, Held} <- [held_bytes(Table, RequestId)],
                          Held > Allowance].

%% @doc The bytes the handler of `RequestId' holds; `gone' when it has no
%% handler (not yet started, or done).
-spec held_bytes(atom(), reference()) -> {ok, non_neg_integer()} | gone.
held_bytes(Table, RequestId) ->
    case handler(Table, RequestId) of
        {ok, Handler} ->
            case erlang:process_info(Handler, total_heap_size) of
                {total_heap_size, Words} ->
                    {ok, Words * erlang:system_info(wordsize) + state_binary_bytes(Handler)};
                undefined ->
                    gone
            end;
        gone ->
            gone
    end.

state_binary_bytes(Handler) ->
    try sys:get_state(Handler, ?STATE_TIMEOUT_MS) of
        State -> binary_bytes([State], 0)
    catch
        exit:_ -> 0
    end.

%% The sizes of the binaries in a term, walked with an explicit stack.
binary_bytes([], Bytes) -> Bytes;
binary_bytes([Term | Rest], Bytes) when is_binary(Term) -> binary_bytes(Rest, Bytes + byte_size(Term));
binary_bytes([Term | Rest], Bytes) when is_tuple(Term) -> binary_bytes(tuple_to_list(Term) ++ Rest, Bytes);
binary_bytes([Term | Rest], Bytes) when is_map(Term) -> binary_bytes(maps:keys(Term) ++ maps:values(Term) ++ Rest, Bytes);
binary_bytes([[Head | Tail] | Rest], Bytes) -> binary_bytes([Head, Tail | Rest], Bytes);
binary_bytes([_ | Rest], Bytes) -> binary_bytes(Rest, Bytes).

handler(Table, RequestId) ->
    try ets:lookup(Table, RequestId) of
        [{RequestId, Handler, _From}] when is_pid(Handler) -> {ok, Handler};
        _ -> gone
    catch
        error:badarg -> gone
    end.

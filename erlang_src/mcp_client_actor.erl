%% @doc The actor behind `mcp_client': one `gen_statem' per MCP server,
%% owning its transport. Only `mcp_client' starts it and talks to it; the
%% promises it keeps are that module's invariants.
%%
%% States: `parked' (prepared, no transport, no OS process), `handshaking'
%% (transport open, `initialize' or the `server/discover' probe in flight;
%% other requests wait for its end), `active' (connected), `closing' (dead: the
%% peer was told to terminate and the actor awaits the transport's own proof
%% that it ended), `waiting' (with a reconnect policy, `mcp_reconnect': the
%% peer's end is proven and the next connection starts when the backoff
%% has passed; every call answers `{unavailable, {reconnecting, Reason}}'),
%% `dead' (the reason and the evidence are latched; every call answers
%% `{unavailable, Reason}' at once).
%%
%% The transport delivers whole lines; each is read in one NIF call
%% (`mcp_protocol:read/2') against the map of what every pending id expects,
%% so a response becomes its caller's answer in one pass and what the actor
%% drops is never built (`docs/client.md'). A tool call's complete result
%% on a line of 1,024 bytes or more is only validated here and routed: its
%% caller decodes the line itself (`mcp_client'), so large results are
%% built in the callers' processes, in parallel, and the actor's work per
%% answer does not grow with them; a shorter line is read whole here (one
%% read costs less than two).
%%
%% The requests in flight live in `mcp_request_table' (a value); this module
%% keeps the states and performs the effects: transport writes, timers,
%% monitors and replies.
%%
%% Eras (the `era' option, `docs/client.md'): `handshake' connects with
%% `initialize' as ever; `modern' probes `server/discover' and speaks the
%% stateless revision (`mcp_modern': `_meta' on every request, no
%% `notifications/initialized', a `ping' is a `server/discover', HTTP
%% request headers by `mcp_request_headers'); `auto' probes and falls back
%% to `initialize' on the same connection on anything that is not a
%% discover result naming the revision. A `-32022' naming the revision is
%% re-probed once. In the modern era the tools' `x-mcp-header' maps come
%% from the connection's last listing: a call before any listing lists
%% first (same deadline), a tool left out for invalid annotations is
%% refused without a request (`{tool_left_out, Reason}').
-module(mcp_client_actor).
-behaviour(gen_statem).

-export([callback_mode/0, init/1, terminate/3, format_status/1,
         parked/3, handshaking/3, active/3, closing/3, waiting/3, dead/3]).
-export([relist_interval_ms/0, relisting/1, max_server_inputs/0, max_backlog/0, max_outbox/0, max_whole_line_bytes/0, max_cursor_bytes/0, max_input_rounds/0]).
%% The actor's effects, for the modules that do part of its work
%% (`mcp_client_handshake', `mcp_client_listing', `mcp_client_inputs');
%% nothing else calls them.
-export([reply/2, send_request/6, notify/3, respond/3, transmit/2, tell/2]).

-include("mcp_client_actor.hrl").

%% How long a terminating actor awaits its child's exit after the SIGKILL
%% that cuts a grace short (`terminate/3'); the child spec leaves the
%% supervisor a second past `shutdown_timeout_ms'.
-define(KILLED_PROOF_MS, 500).

%% Pending requests per millisecond a re-armed deadline timer waits at
%% least (`rearm/2').
-define(DEADLINE_SCAN, 256).

%% The mailbox length past which the actor weighs the server's backlog
%% against the flood budget (`flooded/1').
-define(MAX_BACKLOG, 512).

%% The flood budget (`flooded/1'): server output waiting in the actor's
%% mailbox past which the connection ends with `{flooded, Bytes}' (a port
%% delivers at most 64 KiB per message: 512 full messages), and the most
%% server messages, however small, that may wait.
-define(MAX_BACKLOG_BYTES, (32 * 1024 * 1024)).
-define(MAX_BACKLOG_MESSAGES, 65536).

%% The most messages the outbox holds (`transmit/2'): the one that would
%% pass it is written with them at once.
-define(MAX_OUTBOX, 256).

%% @doc The mailbox length past which the actor reads its mailbox to weigh
%% the server's backlog against the flood budget.
-spec max_backlog() -> pos_integer().
max_backlog() -> ?MAX_BACKLOG.

%% @doc The most messages the actor holds back to write in one go.
-spec max_outbox() -> pos_integer().
max_outbox() -> ?MAX_OUTBOX.

%% @doc The longest line the actor decodes whole to read it itself (a
%% server's question for the input handler, a probe's answer).
-spec max_whole_line_bytes() -> pos_integer().
max_whole_line_bytes() -> ?MAX_WHOLE_LINE_BYTES.

%% @doc The longest `nextCursor', in bytes, the actor echoes back.
-spec max_cursor_bytes() -> pos_integer().
max_cursor_bytes() -> ?MAX_CURSOR_BYTES.

%% @doc The `input_required' rounds a tool call may answer: the retries
%% it sends; one more `input_required' fails the call with
%% `{too_many_input_rounds, Max}'.
-spec max_input_rounds() -> pos_integer().
max_input_rounds() -> ?MAX_INPUT_ROUNDS.

now_ms() -> erlang:monotonic_time(millisecond).

%% @doc A server's questions answered by the input handler at once; one
%% past them is answered `cancel' without running it.
-spec max_server_inputs() -> pos_integer().
max_server_inputs() -> ?MAX_SERVER_INPUTS.

%% @doc The least time between two re-listings a server's
%% `notifications/tools/list_changed' starts.
-spec relist_interval_ms() -> pos_integer().
relist_interval_ms() -> ?RELIST_INTERVAL_MS.

%% @doc Whether a re-listing runs, waits or was asked for, from the actor's
%% state (`sys:get_state/1'; diagnostics and tests): `idle' or `busy'.
-spec relisting(#data{}) -> idle | busy.
relisting(#data{relist = idle, relist_again = false}) -> idle;
relisting(#data{}) -> busy.

%%% ------------------------------------------------------------- the actor
%%
%% Layout: one function per state (`parked/3', `handshaking/3', `active/3',
%% `closing/3', `dead/3'), each handling what is particular to it and
%% passing the rest to `live/4' (handshaking, active) or `latched/4'
%% (closing, dead), and from there to `common/4'. Every state change is an
%% explicit `next_state' in `open_transport/2' (parked -> handshaking, or
%% dead when the transport does not open), `custodian_gone/2' (parked ->
%% dead), `close_with/2' (live -> closing), `transport_ended/2' (closing or
%% live -> dead, or stop) and `after_inbound/2' (handshaking -> active);
%% elsewhere the actor only keeps its state or stops.

callback_mode() -> state_functions.

%% What a crash report or `sys:get_status' shows of the actor: its spec
%% without secrets. An HTTP spec's URL without its query or fragment
%% (either may carry a token) and no headers (sealed already,
%% `mcp_client'), and no connection (its state holds the URL); a local
%% server's `env' names without their values.
format_status(Status) ->
    maps:map(fun(data, #data{} = Data) -> shown(Data);
                (_Key, Value) -> Value
             end, Status).

shown(#data{spec = #{url := Url}} = Data) ->
    Data#data{spec = #{url => mcp_http_target:shown_url(Url)}, conn = undefined};
shown(#data{spec = #{env := Env} = Spec} = Data) when is_list(Env) ->
    Data#data{spec = Spec#{env := [case Pair of
                                       {Name, false} -> {Name, false};
                                       {Name, _} -> {Name, not_shown}
                                   end || Pair <- Env]}};
shown(Data) ->
    Data.

init({Spec, Options, Builder, Custodian}) ->
    process_flag(trap_exit, true),
    CustodianMonitor = erlang:monitor(process, Custodian),
    BuilderMonitor = case Builder of
                         Custodian -> CustodianMonitor;
                         _ -> erlang:monitor(process, Builder)
                     end,
    {ok, parked, #data{spec = Spec, options = Options,
                       builder = BuilderMonitor, custodian = CustodianMonitor}}.

%% ---- parked: no transport, no OS process
parked({call, From}, connect, Data) ->
    open_transport(From, Data);
parked({call, From}, subscribe, Data) ->
    subscribe(From, Data);
parked({call, From}, retire, _Data) ->
    {stop_and_reply, normal, [{reply, From, {ok, no_resource}}]};
parked({call, From}, Request, _Data) when Request =/= os_pid, Request =/= handle ->
    unavailable(From, not_connected);
parked(cast, stop, _Data) ->
    {stop, normal};
parked(Type, Content, Data) ->
    common(Type, Content, parked, Data).

%% ---- handshaking: `initialize' in flight; other requests wait for its end
%% (held with the deadline they got on arrival: `held/4')
handshaking({call, From}, Request, Data) ->
    case timeout_of(Request) of
        none -> live({call, From}, Request, handshaking, Data);
        Timeout -> held(From, Request, deadline(Timeout), Data)
    end;
handshaking(Type, Content, Data) ->
    live(Type, Content, handshaking, Data).

%% ---- active: connected
active({call, From}, Request, Data) ->
    case timeout_of(Request) of
        none -> live({call, From}, Request, active, Data);
        Timeout -> after_request(run(From, Request, deadline(Timeout), Data))
    end;
active(internal, {held, {Caller, _} = From, Request, Deadline}, Data) ->
    %% A call held during the handshake, run now with its own deadline,
    %% unless that passed (the handshake's end was read before the timer)
    %% or its caller is gone: then nothing is sent.
    case {Deadline =< now_ms(), node(Caller) =/= node() orelse is_process_alive(Caller)} of
        {false, true} -> after_request(run(From, Request, Deadline, Data));
        {true, _} -> {keep_state_and_data, [{reply, From, {error, call_timed_out}}]};
        {false, false} -> keep_state_and_data
    end;
active(info, {timeout, Timer, relist}, #data{relist = {waiting, Timer}} = Data) ->
    {keep_state, mcp_client_listing:start_relist(Data#data{relist = idle})};
active(Type, Content, Data) ->
    live(Type, Content, active, Data).

%% The timeout of a request that goes to the server (`run/4'), or `none'.
timeout_of({list_tools, Timeout}) -> Timeout;
timeout_of({call_tool, _, _, Timeout, _, _}) -> Timeout;
timeout_of({ping, Timeout}) -> Timeout;
timeout_of(_Request) -> none.

%% A request's run once connected, against its deadline.
run(From, {list_tools, _}, Deadline, Data) ->
    send_request(From, {list, mcp_client_listing:started()}, Deadline, <<"tools/list">>, {some, mcp_protocol:tools_list_params(none)}, Data);
run(From, {call_tool, Name, Arguments, _, Kind, _Text}, Deadline, #data{era = modern, tool_headers = unlisted} = Data) ->
    send_request(From, {list_then_call, {Name, Arguments, Kind, none}, mcp_client_listing:started()}, Deadline,
                 <<"tools/list">>, {some, mcp_protocol:tools_list_params(none)}, Data);
run(From, {call_tool, Name, Arguments, _, Kind, Text}, Deadline, Data) ->
    call(From, {Name, Arguments, Kind, Text}, Deadline, Data);
run(From, {ping, _}, Deadline, #data{era = modern} = Data) ->
    send_request(From, ping, Deadline, <<"server/discover">>, none, Data);
run(From, {ping, _}, Deadline, Data) ->
    send_request(From, ping, Deadline, <<"ping">>, none, Data).

%% A call made during the handshake waits for its end with the deadline
%% it got now: the deadline timer answers it `call_timed_out' if that
%% passes first (it was never sent: nothing to cancel), else it runs once
%% connected (`connected_state/1').
held(From, Request, Deadline, #data{held = Held} = Data) ->
    {keep_state, arm(Deadline, Data#data{held = [{From, Request, Deadline} | Held]})}.

%% Handshaking becomes active: the held calls run, oldest first.
connected_state(#data{held = Held} = Data) ->
    {next_state, active, connected(Data#data{held = []}),
     [{next_event, internal, {held, From, Request, Deadline}} || {From, Request, Deadline} <- lists:reverse(Held)]}.

%% What handshaking and active share: the transport is open. What was
%% listed is answered during a handshake too (a reconnection's).
live({call, From}, left_out_tools, _State, #data{left_out = LeftOut}) ->
    {keep_state_and_data, [{reply, From, {ok, LeftOut}}]};
live({call, From}, tools, _State, #data{listing = none}) ->
    {keep_state_and_data, [{reply, From, unlisted}]};
live({call, From}, tools, _State, #data{listing = Tools, generation = Generation}) ->
    {keep_state_and_data, [{reply, From, {ok, Generation, Tools}}]};
live({call, From}, subscribe, _State, Data) ->
    subscribe(From, Data);
live({call, From}, connect, _State, _Data) ->
    {keep_state_and_data, [{reply, From, {error, {transport_failed, already_connected}}}]};
live({call, From}, retire, _State, Data) ->
    close_with(retired, Data#data{retirees = [From]});
live(cast, stop, _State, Data) ->
    close_with(stopped, Data#data{stop_when_closed = true});
live(info, flush_outbox, _State, Data) ->
    after_request(flush_outbox(Data));
live(info, {timeout, Timer, deadline}, _State, #data{deadline_timer = {Timer, _}} = Data) ->
    after_request(expired(Data#data{deadline_timer = none}));
live(info, {'DOWN', Monitor, process, _, Outcome}, _State, #data{inputs = Inputs} = Data)
  when is_map_key(Monitor, Inputs) ->
    after_request(mcp_client_inputs:input_done(Monitor, Outcome, Data));
live(info, {timeout, _Timer, {input_expired, Monitor}}, _State, Data) ->
    after_request(mcp_client_inputs:input_expired(Monitor, Data));
live(info, {'DOWN', Monitor, process, _, _} = Down, State, #data{requests = Requests} = Data) ->
    case mcp_request_table:caller_gone(Requests, Monitor) of
        {Entries, Rest} -> after_request(caller_gone(Entries, {ok, Data#data{requests = Rest}}));
        none -> transport_event(Down, State, Data)
    end;
live(info, Info, State, Data) ->
    transport_event(Info, State, Data);
live(Type, Content, State, Data) ->
    common(Type, Content, State, Data).

%% A message for the open transport, or else for the ownership rules.
transport_event(Info, State, #data{conn = Conn} = Data) ->
    case mcp_transport:event(Conn, Info) of
        {ok, Events, Next} ->
            case flooded(Data#data{conn = Next, heard_at = heard_at(Events, Info, Next, Data#data.heard_at)}) of
                {false, Weighed} -> after_inbound(State, inbound(Events, {ok, Weighed}));
                {Flooded, Weighed} -> close_with(Flooded, Weighed)
            end;
        not_mine ->
            owner_event(Info, State, Data)
    end.

%% ---- closing: the peer was told to end; awaiting the transport's proof
closing({call, From}, retire, Data) ->
    {keep_state, Data#data{retirees = [From | Data#data.retirees]}};
closing(cast, stop, Data) ->
    {keep_state, Data#data{stop_when_closed = true}};
closing(info, Info, #data{conn = Conn} = Data) ->
    case mcp_transport:event(Conn, Info) of
        {ok, Events, Next} ->
            %% Inbound messages are not read while closing; only the proof
            %% matters.
            case [Evidence || {closed, Evidence} <- Events] of
                [Evidence | _] -> transport_ended(Evidence, Data#data{conn = Next});
                [] -> {keep_state, Data#data{conn = cut_short_if_flooded(Next)}}
            end;
        not_mine ->
            owner_event(Info, closing, Data)
    end;
closing(Type, Content, Data) ->
    latched(Type, Content, closing, Data).

%% ---- waiting: the peer's end proven, the next connection after a backoff
waiting(info, {timeout, Timer, reconnect}, #data{backoff = Timer} = Data) ->
    %% A new connection numbers its requests from 1 again: nothing of the
    %% old one can answer in it (nor be taken for its ids by the heap's check).
    open_transport(none, Data#data{backoff = undefined, reason = undefined, evidence = undefined,
                                   requests = mcp_request_table:new(),
                                   heap = mcp_client_heap:renewed(Data#data.heap)});
waiting({call, From}, retire, Data) ->
    {stop_and_reply, normal, [{reply, From, retirement_reply(Data#data.evidence)}]};
waiting(cast, stop, _Data) ->
    {stop, normal};
waiting({call, From}, subscribe, Data) ->
    subscribe(From, Data);
waiting({call, From}, connect, #data{reason = Reason}) ->
    {keep_state_and_data, [{reply, From, {error, {transport_failed, {not_parked, {reconnecting, Reason}}}}}]};
waiting({call, From}, Request, #data{reason = Reason}) when Request =/= os_pid, Request =/= handle ->
    unavailable(From, {reconnecting, Reason});
waiting(Type, Content, Data) ->
    common(Type, Content, waiting, Data).

%% ---- dead: reason and evidence latched, the connection dropped
dead({call, From}, retire, Data) ->
    {stop_and_reply, normal, [{reply, From, retirement_reply(Data#data.evidence)}]};
dead(cast, stop, _Data) ->
    {stop, normal};
dead(info, Info, Data) ->
    owner_event(Info, dead, Data);
dead(Type, Content, Data) ->
    latched(Type, Content, dead, Data).

%% What closing and dead share: every request answers the latched reason.
latched({call, From}, connect, _State, #data{reason = Reason}) ->
    {keep_state_and_data, [{reply, From, {error, {transport_failed, {not_parked, Reason}}}}]};
latched({call, From}, Request, _State, #data{reason = Reason}) when Request =/= os_pid, Request =/= handle ->
    unavailable(From, Reason);
latched(Type, Content, State, Data) ->
    common(Type, Content, State, Data).

%% What every state shares.
common({call, From}, handle, _State, #data{options = Options, spec = Spec}) ->
    {keep_state_and_data, [{reply, From, {Options, mcp_transport:spawns(Spec)}}]};
common({call, From}, os_pid, _State, #data{conn = Conn}) ->
    Reply = case Conn of
                undefined -> none;
                _ -> mcp_transport:os_pid(Conn)
            end,
    {keep_state_and_data, [{reply, From, Reply}]};
common({call, From}, _Unknown, _State, _Data) ->
    %% Not a request `mcp_client' sends: answered, so no caller waits for it.
    {keep_state_and_data, [{reply, From, {error, unknown_request}}]};
common(cast, _Unknown, _State, _Data) ->
    keep_state_and_data;
common(info, Info, State, Data) ->
    owner_event(Info, State, Data).

unavailable(From, Reason) ->
    {keep_state_and_data, [{reply, From, {error, {unavailable, Reason}}}]}.

%% Answers a caller; `none' is the actor itself (a reconnection's
%% handshake, which nobody called for).
reply(none, _Reply) -> ok;
reply(From, Reply) -> gen_statem:reply(From, Reply).

subscribe({Caller, _} = From, #data{subscribers = Subscribers} = Data) ->
    {keep_state, Data#data{subscribers = Subscribers#{erlang:monitor(process, Caller) => Caller}},
     [{reply, From, ok}]}.

%% What subscribers hear: a new listing generation, a reconnection and
%% the end of the attempts.
tell(Message, #data{subscribers = Subscribers}) ->
    maps:foreach(fun(_, Pid) -> Pid ! Message end, Subscribers).

terminate(Reason, State, #data{conn = Conn, options = Options} = Data) when Conn =/= undefined, State =/= dead ->
    %% Reached when the actor ends before its transport's proof of exit: its
    %% parent (a supervisor) shut it down, or a crash. The child is not left
    %% behind: it is killed (unless already asked to end) and its exit
    %% awaited, up to the shutdown timeout; a SIGTERM grace longer than that
    %% is cut short there (SIGKILL), and the exit awaited `?KILLED_PROOF_MS'
    %% more. Its callers are answered first, as the actor's end would answer
    %% them, and so is every call that comes meanwhile: none waits for the
    %% child.
    Down = {client_down, Reason},
    _ = (catch answer_pending(Down, Data)),
    Asked = case State of
                closing -> Conn;
                _ -> terminated(Conn)
            end,
    case await_closed(Asked, Down, now_ms() + maps:get(shutdown_timeout_ms, Options)) of
        closed ->
            ok;
        {waiting, Last} ->
            _ = await_closed(killed(Last), Down, now_ms() + ?KILLED_PROOF_MS),
            ok
    end;
terminate(_Reason, _State, _Data) ->
    ok.

%% Feeds the mailbox to the transport until it reports the peer's end (a
%% grace's SIGKILL timer is one of those messages), `closed', or the
%% deadline passes, `{waiting, Conn}' (checked before each message, so
%% output that keeps coming does not hold it off); a call is answered
%% `{unavailable, Down}' (a retirement or a `handle' is answered by the
%% actor's end, as its caller expects).
await_closed(Conn, Down, Deadline) ->
    case now_ms() >= Deadline of
        true -> {waiting, Conn};
        false -> await_message(Conn, Down, Deadline)
    end.

await_message(Conn0, Down, Deadline) ->
    Conn = cut_short_if_flooded(Conn0),
    receive
        {'$gen_call', From, Request} when Request =/= retire, Request =/= handle ->
            gen_statem:reply(From, {error, {unavailable, Down}}),
            await_closed(Conn, Down, Deadline);
        Info ->
            case mcp_transport:event(Conn, Info) of
                {ok, Events, Next} ->
                    case lists:keymember(closed, 1, Events) of
                        true -> closed;
                        false -> await_closed(Next, Down, Deadline)
                    end;
                not_mine ->
                    await_closed(Conn, Down, Deadline)
            end
    after max(0, Deadline - now_ms()) ->
            {waiting, Conn}
    end.

%%% ----------------------------------------------------------- ownership

owner_event({timeout, Timer, heap_check}, _State, #data{requests = Requests, heap = Heap} = Data) ->
    case mcp_client_heap:checked(Timer, mcp_request_table:size(Requests), mcp_request_table:next_id(Requests), Heap) of
        {Lowered, hibernate} -> {keep_state, Data#data{heap = Lowered}, [hibernate]};
        {Checked, keep} -> {keep_state, Data#data{heap = Checked}};
        {_, stray} -> keep_state_and_data
    end;
owner_event({'DOWN', Monitor, process, _, _}, State, #data{builder = Monitor, custodian = Monitor} = Data) ->
    custodian_gone(State, Data#data{builder = gone, custodian = gone});
owner_event({'DOWN', Monitor, process, _, _}, State, #data{custodian = Monitor} = Data) ->
    custodian_gone(State, Data#data{custodian = gone});
owner_event({'DOWN', Monitor, process, _, _}, State, #data{builder = Monitor, custodian = gone})
  when State =:= parked; State =:= dead ->
    {stop, normal};
owner_event({'DOWN', Monitor, process, _, _}, _State, #data{builder = Monitor} = Data) ->
    {keep_state, Data#data{builder = gone}};
owner_event({'DOWN', Monitor, process, _, _}, _State, #data{relist = {running, Monitor}} = Data) ->
    {keep_state, mcp_client_listing:relisted(Data)};
owner_event({timeout, Timer, relist}, _State, #data{relist = {waiting, Timer}} = Data) ->
    %% Not connected: the listing that follows the next connection is the
    %% one this would have been.
    {keep_state, Data#data{relist = idle}};
owner_event({'DOWN', Monitor, process, _, _}, _State, #data{subscribers = Subscribers} = Data)
  when is_map_key(Monitor, Subscribers) ->
    {keep_state, Data#data{subscribers = maps:remove(Monitor, Subscribers)}};
owner_event(_Stray, _State, _Data) ->
    %% Anyone may send the actor a message; one it does not know changes nothing.
    keep_state_and_data.

custodian_gone(parked, #data{builder = gone}) -> {stop, normal};
custodian_gone(parked, Data) ->
    %% The builder may still call `connect': it must not start a server that
    %% nobody would own once the builder goes too.
    {next_state, dead, Data#data{reason = custodian_down, evidence = no_resource}};
custodian_gone(closing, Data) -> {keep_state, Data#data{stop_when_closed = true}};
custodian_gone(dead, _Data) -> {stop, normal};
custodian_gone(waiting, _Data) -> {stop, normal};
custodian_gone(_Live, Data) -> close_with(custodian_down, Data#data{stop_when_closed = true}).

%%% ------------------------------------------------- servers that come back
%%
%% A connection that was up and died (its transport's proof in hand) is
%% followed by another when the `reconnect' policy says so
%% (`mcp_reconnect'): subscribers hear `{mcp_reconnecting, Actor, Attempt,
%% Reason}', the actor waits in `waiting', then opens the transport and
%% shakes hands as at the first connect, with nobody's call waiting for it.
%% Once connected they hear `{mcp_reconnected, Actor, Attempt}' and what was
%% listed is listed again. Without a policy, or once it gives up, they hear
%% `{mcp_gave_up, Actor, Reason}' and the client is dead. A connection that
%% never came up (the first connect's failure) is the connect caller's.

connected(#data{reconnects = Made} = Data0) ->
    Now = now_ms(),
    Data = Data0#data{ever_connected = true, connected_at = Now, heard_at = Now},
    case Made of
        0 -> Data;
        _ ->
            tell({mcp_reconnected, self(), Made}, Data),
            mcp_client_listing:renewed_listing(Data#data{tool_headers = unlisted, left_out = []})
    end.

after_death(#data{ever_connected = false} = Data) ->
    {next_state, dead, Data};
after_death(#data{options = Options, reason = Reason, evidence = Evidence, reconnects = Made,
                  connected_at = At} = Data0) ->
    Data = Data0#data{connected_at = undefined},
    UpMs = case At of
               undefined -> 0;
               _ -> now_ms() - At
           end,
    Decision = case maps:find(reconnect, Options) of
                   {ok, Policy} -> mcp_reconnect:next(Policy, {Reason, Evidence}, Made, UpMs);
                   error -> give_up
               end,
    case Decision of
        {retry, Attempt, WaitMs} ->
            tell({mcp_reconnecting, self(), Attempt, Reason}, Data),
            {next_state, waiting, Data#data{reconnects = Attempt,
                                            backoff = erlang:start_timer(WaitMs, self(), reconnect)}};
        give_up ->
            tell({mcp_gave_up, self(), Reason}, Data),
            {next_state, dead, Data}
    end.

%%% ----------------------------------- opening (the handshake: mcp_client_handshake)

open_transport(From, #data{spec = Spec, options = Options} = Data) ->
    case mcp_transport:open(Spec, self()) of
        {ok, Conn} ->
            Deadline = deadline(maps:get(handshake_timeout_ms, Options)),
            Opened = Data#data{conn = Conn},
            Sent = case maps:get(era, Options, handshake) of
                       handshake -> mcp_client_handshake:initialize(From, Deadline, Opened);
                       Mode -> mcp_client_handshake:probe(From, Mode, false, Deadline, Opened)
                   end,
            case Sent of
                {ok, Sending} -> {next_state, handshaking, Sending};
                {close, Reason, Failed} -> close_with(Reason, Failed)
            end;
        {error, Reason} when From =:= none ->
            %% A reconnection that could not open: one more death.
            after_death(Data#data{reason = {transport_failed, Reason}, evidence = no_resource});
        {error, Reason} ->
            Failure = {transport_failed, Reason},
            {next_state, dead, Data#data{reason = Failure, evidence = no_resource},
             [{reply, From, {error, Failure}}]}
    end.

%%% ------------------------------------------------------------ requests

deadline(Timeout) -> now_ms() + Timeout.

%% The one path of a request: mints its id, writes it, and records it with
%% its deadline and its caller (monitored from its first request on, the
%% deadline timer armed when this deadline is the least); a failed write
%% answers the caller and closes. Arguments that are not JSON are raised in
%% the caller.
send_request(From, Kind, Deadline, Method, Params0, Data) ->
    send_request(From, Kind, Deadline, Method, Params0, resendable(Kind, Data), Data).

%% `Resend': in the modern era a request is kept as sent (`{Method,
%% Params}') so that a `-32022' naming the revision can re-probe and send
%% it again, once (`outcome/3'); `false' for the probes and the second send.
send_request(From, Kind, Deadline, Method, Given, Resend, #data{requests = Requests} = Data) ->
    Id = mcp_request_table:next_id(Requests),
    {Params0, Encoding} = case Given of
                              {text, Term, Text} -> {Term, Text};
                              Term -> {Term, none}
                          end,
    Params = with_meta(Params0, Data),
    case request_bytes(Id, Method, Params, Encoding, Data) of
        {error, Reason} ->
            reply(From, {caller_error, Reason}),
            {ok, Data};
        {ok, Bytes} ->
            case transmit({rpc, {request, Id, Method, Params, era(Method, Params, Data)}, Bytes}, Data) of
                {ok, Sent} ->
                    Request = monitored(#{from => From, kind => Kind, deadline => Deadline,
                                          caller => caller(Kind, From)}, Requests),
                    Kept = case Resend of
                               true -> Request#{resend => {Method, Params0}};
                               false -> Request
                           end,
                    Added = mcp_request_table:add(Requests, Kept),
                    Heap = mcp_client_heap:pending(mcp_request_table:size(Added), mcp_request_table:next_id(Added),
                                                   Sent#data.heap),
                    {ok, arm(Deadline, Sent#data{requests = Added, heap = Heap})};
                {close, Reason, Failed} ->
                    reply(From, unavailable_reply(Kind, Reason)),
                    {close, Reason, Failed}
            end
    end.

%% The modern era's `_meta', on every request.
with_meta(Params, #data{era = modern, options = Options}) ->
    Meta = mcp_modern:meta(maps:get(client_info, Options), mcp_client_handshake:capabilities(Options)),
    mcp_modern:with_meta(Params, Meta);
with_meta(Params, _Data) ->
    Params.

%% What a transport may need to know of a message beside its bytes
%% (`mcp_transport:rpc()'): in the modern era the revision and, for a tool
%% call, the tool's header map (the HTTP transport builds the headers).
era(Method, Params, #data{era = modern, tool_headers = Maps}) ->
    Mirrored = case {Method, Params} of
                   {<<"tools/call">>, {some, {object, [{<<"name">>, {string, Name}} | _]}}}
                     when is_map(Maps), is_map_key(Name, Maps) ->
                       maps:get(Name, Maps);
                   _ ->
                       []
               end,
    {stateless, mcp_modern:version(), Mirrored};
era(_Method, _Params, _Data) ->
    handshake.

%% A tool call; in the modern era a tool the listing left out is refused
%% here, without a request. `Text' is its params as JSON text when the
%% caller encoded them (`mcp_client', handshake era): the request's bytes
%% are then spliced around them (`mcp_protocol:tools_call_request/2') and
%% the actor encodes nothing.
call(From, {Name, Arguments, Kind, _Text}, Deadline, #data{era = modern, left_out = LeftOut} = Data) ->
    case lists:keyfind(Name, 1, LeftOut) of
        {_, Why} ->
            reply(From, {error, {tool_left_out, Why}}),
            {ok, Data};
        false ->
            send_request(From, {tool_call, Kind, {Name, Arguments}, 0}, Deadline, <<"tools/call">>,
                         {some, mcp_protocol:tools_call_params(Name, Arguments)}, Data)
    end;
call(From, {Name, Arguments, Kind, Text}, Deadline, Data) ->
    Params = {some, mcp_protocol:tools_call_params(Name, Arguments)},
    send_request(From, {tool_call, Kind, {Name, Arguments}, 0}, Deadline, <<"tools/call">>,
                 case Text of
                     none -> Params;
                     _ -> {text, Params, Text}
                 end, Data).

%% A request's bytes: its params' text spliced in when the caller encoded
%% them (handshake era: no `_meta' to add), else encoded here.
request_bytes(Id, <<"tools/call">>, _Params, Text, #data{era = handshake}) when is_binary(Text) ->
    {ok, mcp_protocol:tools_call_request(Id, Text)};
request_bytes(Id, Method, Params, _Text, _Data) ->
    encoded(mcp_jsonrpc:request({id_int, Id}, Method, Params)).

encoded(Message) ->
    try
        {ok, mcp_json:encode(Message)}
    catch
        error:Reason -> {error, Reason}
    end.

%% Callers are monitored so that a caller's death cancels its requests at
%% once (an entry would otherwise wait for its deadline, up to a day); one
%% monitor per caller process (`mcp_request_table'). The handshake's caller
%% is not: the handshake decides the connection, whoever asked for it.
caller(handshake, _From) -> none;
caller(_Kind, none) -> none;
caller(_Kind, {Caller, _Tag}) -> Caller.

monitored(#{caller := Caller} = Request, Requests) when is_pid(Caller) ->
    case mcp_request_table:monitored(Requests, Caller) of
        true -> Request;
        false -> Request#{monitor => erlang:monitor(process, Caller)}
    end;
monitored(Request, _Requests) ->
    Request.

%% What an entry leaving the table hands back: the caller monitor to drop.
release(#{release := none}) -> ok;
release(#{release := Monitor}) -> true = erlang:demonitor(Monitor, [flush]), ok.

%% The deadline timer armed for a new request's deadline, unless it is
%% armed for that moment or earlier already. It is not cancelled when
%% requests settle: it then fires early, expires nothing and is armed again
%% (`expired/1').
arm(Deadline, #data{deadline_timer = {_, ArmedAt}} = Data) when ArmedAt =< Deadline ->
    Data;
arm(Deadline, #data{deadline_timer = Armed} = Data) ->
    disarm(Armed),
    Data#data{deadline_timer = {erlang:start_timer(Deadline, self(), deadline, [{abs, true}]), Deadline}}.

%% After the timer fired: armed again at the least deadline pending (or
%% held), or, with many requests pending or held, no sooner than one
%% millisecond per `?DEADLINE_SCAN' of them from now: each firing is a pass
%% over the pending requests, and requests whose deadlines are all
%% different must not cost a pass each (a deadline may so pass up to that
%% late, never early: 40 ms with 10,000 requests pending).
rearm(Now, #data{requests = Requests, held = Held} = Data) ->
    case [D || D <- [mcp_request_table:earliest(Requests)], is_integer(D)] ++ [D || {_, _, D} <- Held] of
        [] -> Data;
        Deadlines ->
            Pending = mcp_request_table:size(Requests) + length(Held),
            arm(max(lists:min(Deadlines), Now + Pending div ?DEADLINE_SCAN), Data)
    end.

disarm(none) -> ok;
disarm({Timer, _At}) -> _ = erlang:cancel_timer(Timer, [{async, true}, {info, false}]), ok.

%% A caller died before its answers: its requests are cancelled now.
caller_gone([], Progress) ->
    Progress;
caller_gone([#{id := Id} | Rest], {_, Data}) ->
    case cancel(Id, <<"caller gone">>, Data) of
        {ok, Next} -> caller_gone(Rest, {ok, Next});
        {close, _, _} = Close -> Close
    end.

%% `notifications/cancelled' for a request the client gave up.
cancel(Id, Reason, Data) ->
    notify(<<"notifications/cancelled">>, {some, {object, [{<<"requestId">>, {int, Id}}, {<<"reason">>, {string, Reason}}]}},
           Data).

%% The deadline timer fired: every request whose deadline has passed
%% expires, least deadline first, until one closes the connection (the
%% rest, still pending, are then answered as the close answers them); the
%% timer is armed again for what is left.
expired(#data{requests = Requests} = Data) ->
    Now = now_ms(),
    expired(mcp_request_table:due(Requests, Now), Now, {ok, expire_held(Now, Data)}).

%% Held calls whose deadline passed during the handshake: answered, never
%% sent.
expire_held(Now, #data{held = Held} = Data) ->
    {Due, Kept} = lists:partition(fun({_, _, Deadline}) -> Deadline =< Now end, Held),
    lists:foreach(fun({From, _, _}) -> reply(From, {error, call_timed_out}) end, Due),
    Data#data{held = Kept}.

expired([], Now, {Progress, Data}) ->
    {Progress, rearm(Now, Data)};
expired([Id | Due], Now, {Progress, #data{requests = Requests} = Data}) ->
    case mcp_request_table:settle(Requests, Id) of
        {Entry, Rest} ->
            release(Entry),
            case expire(Entry, Data#data{requests = Rest}) of
                {ok, Next} -> expired(Due, Now, {Progress, Next});
                {connected, Next} -> expired(Due, Now, {connected, Next});
                {close, _, _} = Close -> Close
            end;
        none ->
            expired(Due, Now, {Progress, Data})
    end.

expire(#{kind := handshake, from := From}, Data) ->
    mcp_client_handshake:handshake_failed({handshake_failed, call_timed_out}, From, Data);
expire(#{kind := {discover, _, _, _} = Kind, from := From}, Data) ->
    mcp_client_handshake:probe_settled(timed_out, Kind, From, Data);
expire(#{kind := {liveness, SentAt}}, #data{heard_at = HeardAt} = Data) when HeardAt >= SentAt ->
    {ok, Data#data{probing = false}};
expire(#{kind := {liveness, _}}, #data{heard_at = HeardAt} = Data) ->
    {close, {unresponsive, now_ms() - HeardAt}, Data#data{probing = false}};
expire(#{id := Id, from := From}, Data) ->
    reply(From, {error, call_timed_out}),
    case cancel(Id, <<"deadline expired">>, Data) of
        {ok, Cancelled} -> liveness(Cancelled);
        Closed -> Closed
    end.

%%% ------------------------------------------------- servers that stop answering
%%
%% With a reconnect policy, a server that stops answering is a death
%% (`mcp_reconnect', `unresponsive_ms'): when a request's deadline passes
%% and the transport has delivered nothing for `unresponsive_ms', the
%% actor pings the server (`ping', or `server/discover' in the modern era)
%% with a deadline `unresponsive_ms' away; anything heard meanwhile
%% (`heard_at/4') keeps the connection, and the ping's
%% deadline passing with nothing heard since it was sent ends it with
%% `{unresponsive, SilentMs}', so that the policy starts another. Without a
%% policy a silent server only costs its callers their deadlines.

%% The server is heard in what the transport says carries its bytes
%% (`mcp_transport:carries_bytes/2': any byte of a port's or a channel's
%% output; over HTTP the data of an answer to one of our POSTs, not the
%% standalone stream, which a server's HTTP layer may feed on a timer of
%% its own, `ping' requests included, however stuck its handlers), in an
%% event other than a message (a refusal, a fault, its end), and in a
%% response that settles one of our requests (`settled/2', on whatever
%% stream it came): when it was last heard.
heard_at(Events, Info, Conn, HeardAt) ->
    case mcp_transport:carries_bytes(Conn, Info)
         orelse lists:any(fun({message, _, _}) -> false; (_) -> true end, Events) of
        true -> now_ms();
        false -> HeardAt
    end.

%% A pending request settled by the server's response: the server is heard.
settled(Requests, Id) ->
    case mcp_request_table:settle(Requests, Id) of
        {_, _} = Settled -> {Settled, now_ms()};
        none -> none
    end.

liveness(#data{options = #{reconnect := #{unresponsive_ms := Silence}}, probing = false, heard_at = HeardAt} = Data) ->
    Now = now_ms(),
    case Now - HeardAt >= Silence of
        true ->
            Method = case Data#data.era of
                         modern -> <<"server/discover">>;
                         handshake -> <<"ping">>
                     end,
            send_request(none, {liveness, Now}, Now + Silence, Method, none, Data#data{probing = true});
        false ->
            {ok, Data}
    end;
liveness(Data) ->
    {ok, Data}.

%% A response for a pending id, already decoded as its kind expects.
answered(Id, Reply, #data{requests = Requests} = Data) ->
    case settled(Requests, Id) of
        {{Entry, Rest}, Now} ->
            release(Entry),
            outcome(Entry, Reply, Data#data{requests = Rest, heard_at = Now});
        none ->
            {ok, Data}
    end.

%% A server that answers `-32022' naming the revision we sent after the
%% connect (a redeploy behind the same address, a balancer's other
%% instance) is probed again with `server/discover'; when the probe names
%% the revision the request is sent again, once, within its deadline;
%% otherwise, and for a second `-32022', the caller gets the error.
resendable({discover, _, _, _}, _Data) -> false;
resendable({reprobe, _, _, _}, _Data) -> false;
resendable({liveness, _}, _Data) -> false;
resendable(_Kind, #data{era = Era}) -> Era =:= modern.

outcome(#{resend := Resend, from := From, kind := Kind, deadline := Deadline},
        {error, {server_error, RpcError}} = Reply, Data) ->
    case mcp_modern:mutual_version(RpcError) of
        true -> send_request(From, {reprobe, Kind, Resend, Reply}, Deadline, <<"server/discover">>, none, Data);
        false -> settled(Kind, Reply, From, Deadline, Data)
    end;
outcome(#{from := From, kind := Kind, deadline := Deadline}, Reply, Data) ->
    settled(Kind, Reply, From, Deadline, Data).

settled(handshake, Reply, From, _Deadline, Data) ->
    mcp_client_handshake:handshake_settled(Reply, From, Data);
settled({liveness, _}, _Reply, _From, _Deadline, Data) ->
    %% Answered, whatever the answer: the server is there.
    {ok, Data#data{probing = false}};
settled({reprobe, Kind, {Method, Params}, Refusal}, Reply, From, Deadline, Data) ->
    case Reply of
        {ok, Result} ->
            case mcp_modern:decode_discover(Result) of
                {ok, {initialize_result, _, {some, _}, _, _}} ->
                    send_request(From, Kind, Deadline, Method, Params, false, Data);
                _ ->
                    settled(Kind, Refusal, From, Deadline, Data)
            end;
        _ ->
            settled(Kind, Refusal, From, Deadline, Data)
    end;
settled({discover, _, _, _} = Kind, Reply, From, _Deadline, Data) ->
    mcp_client_handshake:probe_settled(Reply, Kind, From, Data);
settled({list_then_call, Call, Listing}, {ok, {tools_page, Tools, none}}, From, Deadline, Data) ->
    {_Kept, Listed} = mcp_client_listing:listed(mcp_client_listing:tools(Tools, Listing), Data),
    call(From, Call, Deadline, Listed);
settled({list_then_call, Call, Listing}, {ok, {tools_page, _, {some, _}}} = Page, From, Deadline, Data) ->
    mcp_client_listing:next_page(fun(Next) -> {list_then_call, Call, Next} end, Listing, Page, From, Deadline, Data);
settled({list, Listing}, {ok, {tools_page, _, {some, _}}} = Page, From, Deadline, Data) ->
    mcp_client_listing:next_page(fun(Next) -> {list, Next} end, Listing, Page, From, Deadline, Data);
settled({list, Listing}, {ok, {tools_page, Tools, none}}, From, _Deadline, Data) ->
    {Kept, Listed} = mcp_client_listing:listed(mcp_client_listing:tools(Tools, Listing), Data),
    reply(From, {ok, Kept}),
    {ok, Listed};
settled({tool_call, _, _, _} = Kind, {ok, {input_required, Result}}, From, Deadline, Data) ->
    mcp_client_inputs:input_required(Kind, Result, From, Deadline, Data);
settled(_Kind, Reply, From, _Deadline, Data) ->
    %% A call's `{ok, Result}', a ping's `ok', or a server error or
    %% malformed result, already in the caller's shape.
    reply(From, Reply),
    {ok, Data}.

%%% ------------------------------------------------------------- inbound

%% The transport's events, in order, while live. `{Progress, Data}' where
%% Progress becomes `connected' once the handshake succeeded; a death or
%% the transport's end stops the walk.
inbound([], Progress) ->
    Progress;
inbound([{message, Offset, Line} | Rest], {Progress, Data}) ->
    case message(Offset, Line, Data) of
        {ok, Next} -> inbound(Rest, {Progress, Next});
        {connected, Next} -> inbound(Rest, {connected, Next});
        {close, _, _} = Close -> Close
    end;
inbound([{rejected, Id, Reason} | Rest], {Progress, Data}) ->
    case rejected(Id, Reason, Data) of
        {ok, Next} -> inbound(Rest, {Progress, Next});
        {connected, Next} -> inbound(Rest, {connected, Next});
        {close, _, _} = Close -> Close
    end;
inbound([session_renewed | Rest], {Progress, Data}) ->
    %% A new session may be a new server: what was listed is listed again.
    inbound(Rest, {Progress, mcp_client_listing:renewed_listing(Data)});
inbound([{fault, Fault} | _], {_, Data}) ->
    {close, Fault, Data};
inbound([{closed, Evidence} | _], {_, Data}) ->
    {closed, Evidence, Data}.

message(Offset, Line, #data{requests = Requests} = Data) ->
    case mcp_protocol:read(Line, mcp_request_table:expected(Requests)) of
        {answer, Id, Reply} -> answered(Id, probe_reply(mcp_request_table:raw(Requests, Id), Reply), Data);
        {routed, Id} -> routed(Id, Line, Data);
        {reply, Response} -> transmit({rpc, response, Response}, Data);
        {question, Response} -> mcp_client_inputs:question(Line, Response, Data);
        ignored -> {ok, mcp_client_listing:noticed(Line, Data)};
        {error, {invalid_utf8, At}} -> {close, {invalid_utf8, Offset + At}, Data};
        {error, Fault} -> {close, Fault, Data}
    end.

%% A complete result, on a valid line. A tool call's caller reads its own
%% answer from it (`mcp_client'), so the actor builds none of it; a probe's
%% answer is read here (`probe_answer/2'); a page of a listing is read here
%% if the listing's byte budget has room for it
%% (`mcp_client_listing:page/4').
routed(Id, Line, #data{requests = Requests} = Data) ->
    Probe = mcp_request_table:raw(Requests, Id),
    case settled(Requests, Id) of
        {{#{from := From, kind := {tool_call, _, _, _} = Kind} = Entry, Rest}, Now} ->
            release(Entry),
            reply(From, {routed, Line, Id, mcp_request_table:routed_as(Kind)}),
            {ok, Data#data{requests = Rest, heard_at = Now}};
        {{Entry, Rest}, Now} when Probe ->
            release(Entry),
            outcome(Entry, probe_answer(Id, Line), Data#data{requests = Rest, heard_at = Now});
        {{#{kind := Kind} = Entry, Rest}, Now} ->
            release(Entry),
            Elsewhere = mcp_client_listing:in_progress(mcp_request_table:kinds(Rest)),
            {Read, Page} = mcp_client_listing:page(Id, Line, Kind, Elsewhere),
            outcome(Entry#{kind := Read}, Page, Data#data{requests = Rest, heard_at = Now});
        none ->
            {ok, Data}
    end.

%% A probe's result, its line validated: `{ok, Result}' as the actor's
%% probes read it, decoded only on a line of at most
%% `?MAX_WHOLE_LINE_BYTES' (a probe's answer is short); a longer one is
%% unbuilt and taken as no answer (`timed_out', as the probe's deadline
%% would have it).
probe_answer(Id, Line) when byte_size(Line) =< ?MAX_WHOLE_LINE_BYTES ->
    case mcp_jsonrpc:decode(Line) of
        {ok, {response, {id_int, Id}, {ok, Result}}} -> {ok, Result};
        _ -> timed_out
    end;
probe_answer(_Id, _Line) ->
    timed_out.

%% What a probe's error is to the actor's probes: the server's error
%% itself (`mcp_modern'); every other reading as it is.
probe_reply(true, {error, {server_error, RpcError}}) -> {error, RpcError};
probe_reply(_Probe, Reply) -> Reply.

%% A request the transport refused to carry (`mcp_transport'): its caller
%% gets `{request_refused, Reason}', a probe moves on.
rejected(Id, Reason, #data{requests = Requests} = Data) ->
    case mcp_request_table:raw(Requests, Id) of
        true -> answered(Id, {rejected, Reason}, Data);
        false -> answered(Id, {error, {request_refused, Reason}}, Data)
    end.

%% The flood budget, checked at every transport event: past
%% `?MAX_BACKLOG_BYTES' of messages waiting that are not callers' requests
%% (their external term size: each queued chunk and a few bytes of
%% envelope), or past `?MAX_BACKLOG_MESSAGES' of them, the actor is not
%% keeping up with the server, and the connection ends with `{flooded,
%% Bytes}', Bytes being the size of that backlog. The mailbox length is read
%% at every event (O(1)); the mailbox itself when that length passes
%% `?MAX_BACKLOG', and again once `?MAX_BACKLOG' more are queued than at
%% the last weighing or `?MAX_BACKLOG' transport events were handled since
%% (so fewer than twice `?MAX_BACKLOG' server messages, 64 MiB over a port,
%% arrive unweighed, and a weighing costs at most one mailbox copy per
%% `?MAX_BACKLOG' events or arrivals), from nothing again once the mailbox
%% is short. Callers' requests and deaths (each caller has one request at a
%% time) are not the server's output: many callers at once are not a flood.
flooded(#data{weighed = {WeighedAt, Since}} = Data) ->
    case erlang:process_info(self(), message_queue_len) of
        {message_queue_len, Queued} when Queued =< ?MAX_BACKLOG, WeighedAt =:= 0 ->
            {false, Data};
        {message_queue_len, Queued} when Queued =< ?MAX_BACKLOG ->
            {false, Data#data{weighed = {0, 0}}};
        {message_queue_len, Queued} when Queued < WeighedAt + ?MAX_BACKLOG, Since < ?MAX_BACKLOG ->
            {false, Data#data{weighed = {WeighedAt, Since + 1}}};
        {message_queue_len, Queued} ->
            {messages, Queue} = erlang:process_info(self(), messages),
            Backlog = [Message || Message <- Queue, not callers(Message)],
            Bytes = lists:sum([erlang:external_size(Message) || Message <- Backlog]),
            case Bytes > ?MAX_BACKLOG_BYTES orelse length(Backlog) > ?MAX_BACKLOG_MESSAGES of
                true -> {{flooded, Bytes}, Data};
                false -> {false, Data#data{weighed = {Queued, 0}}}
            end
    end.

%% Messages of callers, not of the server: their requests, and the news
%% of their deaths (each caller has one request at a time, one monitor).
callers({'$gen_call', _, _}) -> true;
callers({'$gen_cast', _}) -> true;
callers({'DOWN', _, process, _, _}) -> true;
callers(_) -> false.

%% The state after the transport's events: `handshaking' becomes `active'
%% once the handshake succeeded (held calls then run).
after_inbound(handshaking, {connected, Data}) -> connected_state(Data);
after_inbound(_State, {closed, Evidence, Data}) -> transport_ended(Evidence, Data);
after_inbound(_State, Outcome) -> after_request(Outcome).

%% The state after a request, expiry or write: unchanged, or closing.
after_request({close, Reason, Data}) -> close_with(Reason, Data);
after_request({_Progress, Data}) -> {keep_state, Data}.

%%% ------------------------------------------------- writes and death

%% Encodes and transmits a notification or a response of the client's
%% own (never fails to encode). Every write of the actor goes through
%% `transmit/2' and has its result shape: `{ok, Data}' or `{close,
%% {write_failed, Reason}, Data}'.
notify(Method, Params, Data) ->
    {ok, Bytes} = encoded(mcp_jsonrpc:notification(Method, Params)),
    transmit({rpc, {notification, Method, Params, era(Method, Params, Data)}, Bytes}, Data).

respond(Id, Result, Data) ->
    {ok, Bytes} = encoded(mcp_jsonrpc:result_response(Id, Result)),
    transmit({rpc, response, Bytes}, Data).

%% Writes at once when nothing else waits in the mailbox (a lone call pays
%% no latency); otherwise the message joins the outbox, which is written in
%% one go when the `flush_outbox' sent to self comes up, after what was
%% already queued. Concurrent callers' requests so reach the server
%% together, in one write, and the order of messages is kept. The outbox
%% holds at most `?MAX_OUTBOX' messages: the one past them is written with
%% them at once, so what a burst of server requests is owed (a reply each,
%% while their backlog keeps `flush_outbox' waiting) goes to the
%% transport's bounded write queue (`mcp_port': `write_failed' past it), not
%% into the actor's heap.
transmit(Message, #data{outbox = [], conn = Conn} = Data) ->
    case erlang:process_info(self(), message_queue_len) of
        {message_queue_len, 0} ->
            write_outcome(mcp_transport:send(Conn, [Message]), Data);
        _ ->
            self() ! flush_outbox,
            {ok, Data#data{outbox = [Message]}}
    end;
transmit(Message, #data{outbox = Outbox} = Data) when length(Outbox) < ?MAX_OUTBOX - 1 ->
    {ok, Data#data{outbox = [Message | Outbox]}};
transmit(Message, #data{outbox = Outbox} = Data) ->
    flush_outbox(Data#data{outbox = [Message | Outbox]}).

flush_outbox(#data{outbox = []} = Data) ->
    %% Emptied since (a death drops the outbox; its `flush_outbox' may come
    %% in the next connection).
    {ok, Data};
flush_outbox(#data{outbox = Outbox, conn = Conn} = Data) ->
    write_outcome(mcp_transport:send(Conn, lists:reverse(Outbox)), Data#data{outbox = []}).

write_outcome(ok, Data) -> {ok, Data};
write_outcome({ok, Conn}, Data) -> {ok, Data#data{conn = Conn}};
write_outcome({error, Reason}, Data) -> {close, {write_failed, Reason}, Data}.

%% Answers every waiting caller with `Reason', latches it, requests the
%% peer's termination and enters `closing' to await the transport's proof.
close_with(Reason, #data{conn = Conn} = Data) ->
    Answered = answer_pending(Reason, Data),
    {next_state, closing, Answered#data{conn = terminated(Conn), outbox = [], reason = Reason}}.

%% The connection after its peer was asked to end (`mcp_transport:terminate/1').
terminated(Conn) ->
    kept(mcp_transport:terminate(Conn), Conn).

%% A flood while the peer is asked to end (more than `?MAX_BACKLOG'
%% messages waiting: its output is only framed then, and may come faster)
%% ends it at once, whatever grace it was given (`mcp_transport:kill/1',
%% which signals once); the connection after.
cut_short_if_flooded(Conn) ->
    case erlang:process_info(self(), message_queue_len) of
        {message_queue_len, Queued} when Queued > ?MAX_BACKLOG -> killed(Conn);
        _ -> Conn
    end.

killed(Conn) ->
    kept(mcp_transport:kill(Conn), Conn).

kept({ok, Next}, _Conn) -> Next;
kept(ok, Conn) -> Conn.

%% Every request in flight answered with `Reason'; the table left empty.
answer_pending(Reason, #data{requests = Requests, inputs = Inputs, deadline_timer = Armed} = Data) ->
    {Entries, Monitors, Empty} = mcp_request_table:drain(Requests),
    disarm(Armed),
    lists:foreach(fun(Monitor) -> erlang:demonitor(Monitor, [flush]) end, Monitors),
    lists:foreach(fun(#{from := From, kind := Kind}) -> reply(From, unavailable_reply(Kind, Reason)) end, Entries),
    lists:foreach(fun({From, _, _}) -> reply(From, {error, {unavailable, Reason}}) end, lists:reverse(Data#data.held)),
    maps:foreach(fun(Monitor, Run) ->
                         case mcp_client_inputs:stop_input(Monitor, Run) of
                             {tool_call, From, _, _, _, _, _, _} -> reply(From, {error, {unavailable, Reason}});
                             {server_request, _} -> ok
                         end
                 end, Inputs),
    Data#data{requests = Empty, held = [], inputs = #{}, deadline_timer = none, probing = false}.

unavailable_reply(handshake, Reason) -> {error, {handshake_failed, {unavailable, Reason}}};
unavailable_reply(_Kind, Reason) -> {error, {unavailable, Reason}}.

%% The transport's own proof that the peer ended. The connection is inert
%% from here on: it is dropped, so nothing can signal the peer again.
transport_ended(Evidence, #data{reason = Latched} = Data) ->
    Reason = case Latched of
                 undefined -> {transport_ended, Evidence};
                 _ -> Latched
             end,
    %% What waited to be written was for the peer that ended: dropped, so
    %% that a next connection starts with nothing queued.
    Closed = (answer_pending(Reason, Data))#data{conn = undefined, reason = Reason,
                                                 evidence = Evidence, outbox = []},
    Replies = [{reply, From, retirement_reply(Evidence)} || From <- Data#data.retirees],
    case Replies =/= [] orelse Data#data.stop_when_closed orelse Data#data.custodian =:= gone of
        true -> {stop_and_reply, normal, Replies, Closed#data{retirees = []}};
        false -> after_death(Closed)
    end.

%% The one place transport evidence becomes retirement evidence.
retirement_reply(no_resource) -> {ok, no_resource};
retirement_reply({exited, Cause}) -> {ok, {exited, Cause}};
retirement_reply({unconfirmed, Reason}) -> {error, {retirement_unconfirmed, Reason}}.

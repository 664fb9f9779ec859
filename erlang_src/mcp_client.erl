%% @doc The MCP client: one actor per MCP server (`mcp_client_actor', a
%% `gen_statem'), owning the server's transport (an OS process through
%% `mcp_port', or an `mcp_channel' peer). This module is the caller's side:
%% it validates arguments, talks to the actor, and keeps the promises below.
%%
%% Invariants:
%% <ul>
%% <li>`prepare' never starts an OS process; a parked actor's cleanup needs no
%%     OS action (`shutdown' answers `{ok, no_resource}').</li>
%% <li>Ids are minted by the actor (`mcp_request_table'), increasing within
%%     a connection (a reconnection starts again from 1); every request has
%%     a monotonic deadline enforced by the actor's own timer, which answers
%%     `call_timed_out' and sends `notifications/cancelled' for that id (the
%%     handshake's expiry fails the connect instead). A late response is
%%     dropped.</li>
%% <li>Every death path (failed write, transport closed, non-UTF-8 bytes, a
%%     framing fault, a line that is not JSON-RPC, a flood, a failed
%%     handshake, stop, retirement, custodian loss) answers every waiting
%%     caller and latches the reason; all but the transport's own end also
%%     request the peer's termination. The transport is never closed by us:
%%     the actor leaves `closing' only on the transport's `closed' event (for
%%     a port, its exit status), and never touches the connection after
%%     it.</li>
%% <li>Every timeout (the `*_timeout_ms' options and every `TimeoutMs'
%%     argument) is an integer from 0 to 86,400,000 (a day); anything else
%%     raises in the caller before a message is sent (`badarg' from
%%     `prepare'/`start', `function_clause' from the calls), so the actor
%%     never arms a timer the runtime refuses.</li>
%% <li>Callers never crash and never keep a stale reply: every public call is
%%     a `gen_statem:send_request' / `receive_response' pair (a monitored
%%     request on a process alias), which also works from another node.
%%     The caller of a spawned server's client waits for the actor's answer
%%     or its end; any other's gives up 5 s past the deadline
%%     (`reply_grace/1').</li>
%% <li>A server `ping' is answered with an empty result, every other server
%%     request with `-32601'; notifications and unknown ids are dropped after
%%     a validating scan (nothing is built for them).</li>
%% <li>What the actor echoes to the server is bounded: a server request's id
%%     is echoed inside the read of its line (on the scheduler the line's
%%     size picked), a `nextCursor' longer than 65,536 bytes fails the
%%     listing with `{result_malformed, {protocol_fault, <<"$.nextCursor">>,
%%     ...}}' instead of being echoed.</li>
%% <li>Bounded backlog: past 512 queued messages (at most 32 MiB from a port)
%%     the connection ends with `{flooded, Bytes}'.</li>
%% <li>Ownership: a client never opens a transport once its custodian is
%%     gone. A parked client whose custodian dies is dead at once
%%     (`custodian_down', nothing to clean up): `connect' answers
%%     `{transport_failed, {not_parked, custodian_down}}' and the actor stops
%%     when its builder goes too; a live client whose custodian dies
%%     retires. So no actor and no OS process outlives both owners.</li>
%% <li>The actor stops only after its transport's proof of exit: when both
%%     builder and custodian are gone (parked or dead), when the custodian is
%%     gone (otherwise), on `stop/1', or when `shutdown/2' has been
%%     answered. The exception is a shutdown by its supervisor (`start_link/2')
%%     or a crash: it then awaits the proof for at most
%%     `shutdown_timeout_ms'.</li>
%% </ul>
-module(mcp_client).

-export([prepare/2, prepare_owned/3, connect/1, start/2, start_link/2, child_spec/3, handle/1, pid/1,
         list_tools/1, list_tools/2, tools/1, subscribe/1, left_out_tools/1, call_tool/4, call_tool_msgpack/4, ping/2,
         stop/1, shutdown/2, os_pid/1,
         max_tool_pages/0, max_listing_bytes/0, max_timeout_ms/0, default_options/0]).
-export_type([client/0, options/0, client_error/0, death_reason/0, start_error/0,
              retirement_error/0, retirement_evidence/0]).

-record(client, {pid :: pid(),
                 %% Whether the caller encodes a tool call's params itself
                 %% (the handshake era: nothing is added to them).
                 encodes :: boolean(),
                 %% How long past a call's deadline its caller waits for
                 %% the actor's answer (`reply_grace/1').
                 grace :: non_neg_integer() | infinity,
                 handshake_ms :: non_neg_integer(),
                 list_ms :: non_neg_integer(),
                 shutdown_ms :: non_neg_integer()}).
-opaque client() :: #client{}.

%% `era': `handshake' (the default: `initialize', revisions 2025-11-25
%% down to 2024-11-05), `modern' (the stateless revision 2026-07-28 only:
%% `server/discover', `_meta' on every request) or `auto' (probe
%% `server/discover', fall back to `initialize'); `mcp_client_actor'.
%% `input_handler': answers the server's elicitation requests (a
%% handshake-era `elicitation/create', a modern-era `input_required' tool
%% result), run in a process of its own for at most `input_timeout_ms'
%% per round (`mcp_input'); without one the client declares no
%% elicitation capability and refuses them. `reconnect': a server that
%% goes away after a connection was up is started (or reached) again, at
%% most `attempts' times in a row, waiting `backoff_ms' (500) doubled per
%% attempt up to `max_backoff_ms' (30,000) before each; the count starts
%% again after a connection stayed up `reset_after_ms' (60,000; at least
%% 1,000); a server silent for `unresponsive_ms' (10,000; at least 100)
%% when a request's deadline passes, and as long again after a ping, has
%% gone away (`{unresponsive, SilentMs}') (`mcp_reconnect', docs/client.md
%% "Servers that come back").
-type options() :: #{client_info => {Name :: binary(), Version :: binary()},
                     era => handshake | modern | auto,
                     input_handler => mcp_input:handler(),
                     input_timeout_ms => non_neg_integer(),
                     reconnect => #{attempts := pos_integer(), backoff_ms => non_neg_integer(),
                                    max_backoff_ms => non_neg_integer(), reset_after_ms => non_neg_integer(),
                                    unresponsive_ms => pos_integer()},
                     handshake_timeout_ms => non_neg_integer(),
                     list_timeout_ms => non_neg_integer(),
                     shutdown_timeout_ms => non_neg_integer()}.
%% Why a client stopped serving requests: what `{unavailable, Reason}'
%% carries (docs/client.md, "Death reasons"). Latched by the actor: every
%% reason but `not_connected' (a parked client) and `{client_down, Why}'
%% (the actor itself is gone, seen by the caller).
-type death_reason() :: {transport_ended, mcp_transport:evidence()}
                      | {invalid_utf8, StreamOffset :: non_neg_integer()}
                      | mcp_stdio:framing_fault()
                      | mcp_jsonrpc:message_fault()
                      | {flooded, Bytes :: non_neg_integer()}
                      | {unresponsive, SilentMs :: non_neg_integer()}
                      | mcp_http:fault()
                      | {write_failed, busy | closed | term()}
                      | stopped | retired | custodian_down
                      | {transport_failed, term()}
                      | tools_not_declared
                      | {version_unsupported, Requested :: binary(), Offered :: binary()}
                      | {handshake_failed, client_error()}
                      | not_connected
                      | {reconnecting, death_reason()}
                      | {client_down, Why :: term()}.
-type client_error() :: {unavailable, death_reason()}
                      | call_timed_out
                      | {server_error, mcp_jsonrpc:rpc_error()}
                      | {result_malformed, mcp_protocol:protocol_fault()}
                      | too_many_pages
                      | {listing_too_large, MaxBytes :: pos_integer()}
                      | {request_refused, Reason :: term()}
                      | {tool_left_out, Why :: binary()}
                      | no_input_handler
                      | {input_unsupported, Method :: binary()}
                      | {too_many_input_rounds, Max :: pos_integer()}.
-type start_error() :: {transport_failed, Reason :: term()}
                     | {handshake_failed, client_error()}
                     | {version_unsupported, Requested :: binary(), Offered :: binary()}
                     | tools_not_declared
                     | {cleanup_unconfirmed, Cause :: start_error(), retirement_error(), client()}.
-type retirement_evidence() :: no_resource
                             | {exited, {status, non_neg_integer()} | {signal, pos_integer()}
                                        | {peer_down, term()} | unknown}.
-type retirement_error() :: retirement_timed_out | {retirement_unconfirmed, Reason :: term()}.

-define(MAX_TOOL_PAGES, 64).
%% The page lines one listing reads, together (`mcp_client_listing').
-define(MAX_LISTING_BYTES, (4 * 1024 * 1024)).
%% How long a caller waits past the actor's own deadline before giving up on
%% an actor that does not answer (it normally answers at its deadline).
-define(REPLY_GRACE_MS, 5000).
%% Every timeout, option or argument, is an integer from 0 to a day, checked
%% in the caller before anything is sent: the runtime's timers refuse
%% 2^32 ms in `receive ... after' and far less than 2^63 in `start_timer'.
-define(MAX_TIMEOUT_MS, 86400000).
-define(IS_TIMEOUT(T), (is_integer(T) andalso T >= 0 andalso T =< ?MAX_TIMEOUT_MS)).


%%% ------------------------------------------------------------------ API

%% @doc `list_tools' follows `nextCursor' for at most this many pages.
-spec max_tool_pages() -> pos_integer().
max_tool_pages() -> ?MAX_TOOL_PAGES.

%% @doc `list_tools' reads pages whose lines take at most this many bytes
%% together; the page past them is not read (`{listing_too_large, Max}').
-spec max_listing_bytes() -> pos_integer().
max_listing_bytes() -> ?MAX_LISTING_BYTES.

%% @doc The largest timeout, option or argument, in milliseconds (a day).
-spec max_timeout_ms() -> pos_integer().
max_timeout_ms() -> ?MAX_TIMEOUT_MS.

%% @doc The options every key of which `prepare' falls back to.
-spec default_options() -> #{client_info := {binary(), binary()},
                             handshake_timeout_ms := non_neg_integer(),
                             list_timeout_ms := non_neg_integer(),
                             shutdown_timeout_ms := non_neg_integer(),
                             input_timeout_ms := non_neg_integer()}.
default_options() ->
    #{client_info => {<<"mcp-erlang">>, <<"0.1.0">>},
      handshake_timeout_ms => 30000,
      list_timeout_ms => 30000,
      shutdown_timeout_ms => 5000,
      input_timeout_ms => 300000}.

%% @doc A parked client: an actor holding the spec, no transport, no OS
%% process. The caller is both its builder and its custodian.
-spec prepare(mcp_transport:spec(), options()) -> {ok, client()}.
prepare(Spec, Options) ->
    prepare_owned(Spec, Options, self()).

%% @doc Like `prepare/2', with a separate custodian (options of the wrong
%% type raise `badarg' here, never later in the actor): a parked actor whose
%% custodian is gone can no longer connect and stops when the caller
%% (builder) is gone too; a connected one retires (kills its child, awaits
%% its exit) when the custodian is gone.
-spec prepare_owned(mcp_transport:spec(), options(), pid()) -> {ok, client()}.
prepare_owned(Spec0, Options, Custodian) when is_pid(Custodian) ->
    Spec = sealed(Spec0),
    Merged = merged_options(Options, [Spec, Options, Custodian]),
    {ok, Pid} = gen_statem:start(mcp_client_actor, {Spec, Merged, self(), Custodian}, []),
    {ok, handle(Pid, Merged, mcp_transport:spawns(Spec))};
prepare_owned(Spec, Options, Custodian) ->
    error(badarg, [sealed(Spec), Options, Custodian]).

%% An HTTP spec's headers never travel in the clear past this point
%% (`mcp_http:seal/1').
sealed(#{url := _} = Spec) -> mcp_http:seal(Spec);
sealed(Spec) -> Spec.

%% The options with every default filled in; `badarg' (naming `Args') for
%% options of the wrong type.
merged_options(Options, Args) when is_map(Options) ->
    Merged = maps:merge(default_options(), Options),
    valid_options(Merged) orelse error(badarg, Args),
    case Merged of
        #{reconnect := Policy} -> Merged#{reconnect := mcp_reconnect:with_defaults(Policy)};
        _ -> Merged
    end;
merged_options(_Options, Args) ->
    error(badarg, Args).

handle(Pid, Options, Spawns) ->
    #client{pid = Pid,
            encodes = maps:get(era, Options, handshake) =:= handshake,
            grace = reply_grace(Spawns),
            handshake_ms = maps:get(handshake_timeout_ms, Options),
            list_ms = maps:get(list_timeout_ms, Options),
            shutdown_ms = maps:get(shutdown_timeout_ms, Options)}.

valid_options(#{client_info := {Name, Version}, handshake_timeout_ms := Handshake,
                list_timeout_ms := List, shutdown_timeout_ms := Shutdown, input_timeout_ms := Input} = Options) ->
    is_binary(Name) andalso is_binary(Version)
        andalso lists:member(maps:get(era, Options, handshake), [handshake, modern, auto])
        andalso is_function(maps:get(input_handler, Options, fun(_) -> decline end), 1)
        andalso mcp_reconnect:valid(maps:get(reconnect, Options, #{attempts => 1}))
        andalso lists:all(fun(T) -> ?IS_TIMEOUT(T) end, [Handshake, List, Shutdown, Input]);
valid_options(_) ->
    false.

%% @doc Opens the transport and performs the handshake: `initialize' with
%% empty capabilities, version and tools-capability checks, then
%% `notifications/initialized'. On failure the client is dead (its child
%% killed) but still holds its evidence for `shutdown/2'.
-spec connect(client()) -> {ok, mcp_protocol:initialize_result()} | {error, start_error()}.
connect(#client{handshake_ms = Timeout} = Client) ->
    case request(Client, connect, Timeout) of
        {error, call_timed_out} -> {error, {handshake_failed, call_timed_out}};
        {error, {unavailable, _} = Unavailable} -> {error, {handshake_failed, Unavailable}};
        Reply -> Reply
    end.

%% @doc `prepare' then `connect'; on failure the client is retired, and if
%% that cannot be proven the error is `{cleanup_unconfirmed, Cause,
%% RetirementError, Client}': why the connection failed, why its retirement
%% is unproven, and the handle to retry `shutdown/2' with.
-spec start(mcp_transport:spec(), options()) ->
          {ok, client(), mcp_protocol:initialize_result()} | {error, start_error()}.
start(Spec, Options) ->
    {ok, Client} = prepare(Spec, Options),
    case connect(Client) of
        {ok, Initialized} -> {ok, Client, Initialized};
        {error, Reason} -> {error, retired_after(Reason, Client)}
    end.

%% A failed start's error once its client is retired: the cause itself when
%% the retirement is proven, `cleanup_unconfirmed' with the cause otherwise.
retired_after(Reason, Client) ->
    case shutdown(Client, Client#client.shutdown_ms) of
        {ok, _Evidence} -> Reason;
        {error, Retirement} -> {cleanup_unconfirmed, Reason, Retirement, Client}
    end.

%% @doc `start/2' for an OTP supervisor: the client is linked to the calling
%% process (the supervisor), which is its builder and its custodian, and
%% connected before this returns. `{ok, Pid}' (`handle/1' makes the
%% `client()' of it) or `{error, StartError}' with the client retired, as
%% `start/2'. When the supervisor shuts the client down (an `EXIT' from its
%% parent), the actor kills its child and awaits the exit, up to
%% `shutdown_timeout_ms', before it ends; `child_spec/3' leaves the
%% supervisor more than that.
-spec start_link(mcp_transport:spec(), options()) -> {ok, pid()} | {error, start_error()}.
start_link(Spec0, Options) ->
    Spec = sealed(Spec0),
    Merged = merged_options(Options, [Spec, Options]),
    {ok, Pid} = gen_statem:start_link(mcp_client_actor, {Spec, Merged, self(), self()}, []),
    Client = handle(Pid, Merged, mcp_transport:spawns(Spec)),
    case connect(Client) of
        {ok, _Initialized} ->
            {ok, Pid};
        {error, Reason} ->
            %% Its normal stop after the retirement is not the parent's concern.
            unlink(Pid),
            {error, retired_after(Reason, Client)}
    end.

%% @doc A supervisor child spec running `start_link(Spec, Options)':
%% restarted only after an abnormal exit (`transient'), and given the
%% client's shutdown timeout plus a second to retire its server with proof.
%% A client whose server dies stays alive (answering `{unavailable,
%% Reason}') until it is shut down: restarting it is the harness's choice,
%% or the client's own with the `reconnect' option.
-spec child_spec(term(), mcp_transport:spec(), options()) -> supervisor:child_spec().
child_spec(Id, Spec0, Options) ->
    Spec = sealed(Spec0),
    Merged = merged_options(Options, [Id, Spec, Options]),
    #{id => Id,
      start => {?MODULE, start_link, [Spec, Options]},
      restart => transient,
      shutdown => maps:get(shutdown_timeout_ms, Merged) + 1000,
      type => worker,
      modules => [?MODULE]}.

%% @doc The `client()' of a client actor's pid (e.g. one a supervisor
%% started), with the timeouts it was prepared with.
-spec handle(pid()) -> {ok, client()} | {error, {client_down, term()}}.
handle(Pid) when is_pid(Pid) ->
    try gen_statem:call(Pid, handle) of
        {Options, Spawns} -> {ok, handle(Pid, Options, Spawns)}
    catch
        exit:{Reason, _} -> {error, {client_down, Reason}}
    end.

%% @doc The pid of a client's actor, to monitor or link it (the inverse of
%% `handle/1'; the handle itself is opaque).
-spec pid(client()) -> pid().
pid(#client{pid = Pid}) -> Pid.

%% @doc Every tool, following `nextCursor' (at most `max_tool_pages()' pages,
%% a repeated cursor is `too_many_pages') under one deadline
%% (`list_timeout_ms').
-spec list_tools(client()) -> {ok, [mcp_protocol:tool_descriptor()]} | {error, client_error()}.
list_tools(#client{list_ms = Timeout} = Client) ->
    list_tools(Client, Timeout).

-spec list_tools(client(), non_neg_integer()) ->
          {ok, [mcp_protocol:tool_descriptor()]} | {error, client_error()}.
list_tools(Client, Timeout) when ?IS_TIMEOUT(Timeout) ->
    request(Client, {list_tools, Timeout}, Timeout).

%% @doc The current listing and its generation: the tools as last listed
%% (by any `list_tools', or by the re-listing a server's
%% `notifications/tools/list_changed' starts when it declared
%% `tools.listChanged'), and a number that grows by one whenever a listing
%% differs from the one before. Lists first when nothing was listed yet.
-spec tools(client()) ->
          {ok, {Generation :: pos_integer(), [mcp_protocol:tool_descriptor()]}} | {error, client_error()}.
tools(#client{list_ms = Timeout} = Client) ->
    case request(Client, tools, 0) of
        unlisted ->
            case list_tools(Client, Timeout) of
                {ok, _} -> tools(Client);
                {error, _} = Error -> Error
            end;
        {ok, Generation, Tools} ->
            {ok, {Generation, Tools}};
        {error, _} = Error ->
            Error
    end.

%% @doc Subscribes the caller to what changes in a connected client, until
%% the caller exits (`Pid' the client's, `pid/1'): each listing that differs
%% from the last (`tools/1') sends `{mcp_tools_changed, Pid, Generation}';
%% a connection that was up and died sends `{mcp_reconnecting, Pid,
%% Attempt, Reason}' when the `reconnect' policy starts another (then
%% `{mcp_reconnected, Pid, Attempt}' once it is up), or `{mcp_gave_up, Pid,
%% Reason}' when the client is dead for good.
-spec subscribe(client()) -> ok | {error, client_error()}.
subscribe(Client) ->
    request(Client, subscribe, 0).

%% @doc The tools the last listing left out, each with why: in the modern
%% era, those whose `x-mcp-header' annotations are invalid
%% (`mcp_request_headers'); always `[]' in the handshake era.
-spec left_out_tools(client()) -> {ok, [{Name :: binary(), Why :: binary()}]} | {error, client_error()}.
left_out_tools(Client) ->
    case request(Client, left_out_tools, 0) of
        {error, unknown_request} -> {ok, []};
        Reply -> Reply
    end.

%% @doc One `tools/call'. Arguments that are not a `json()' term raise
%% `badarg' in the caller (the actor and its other callers are unaffected).
-spec call_tool(client(), binary(), mcp_json:json(), non_neg_integer()) ->
          {ok, mcp_protocol:call_tool_result()} | {error, client_error()}.
call_tool(Client, Name, Arguments, Timeout) when is_binary(Name), ?IS_TIMEOUT(Timeout) ->
    request(Client, {call_tool, Name, Arguments, Timeout, call, params_text(Client, Name, Arguments)}, Timeout).

%% @doc `call_tool/4' for a caller that wants the result's
%% `structuredContent' as a msgpack value (a code-mode program's): it is
%% built once, straight from the server's line, as `{ok, Value}' (what
%% `mcp_interchange:to_msgpack/1' of `call_tool/4''s `json()' gives) or
%% `{error, interchange_fault()}' when it has no msgpack form, without the
%% `json()' in between.
-spec call_tool_msgpack(client(), binary(), mcp_json:json(), non_neg_integer()) ->
          {ok, mcp_protocol:msgpack_call_tool_result()} | {error, client_error()}.
call_tool_msgpack(Client, Name, Arguments, Timeout) when is_binary(Name), ?IS_TIMEOUT(Timeout) ->
    request(Client, {call_tool, Name, Arguments, Timeout, call_msgpack, params_text(Client, Name, Arguments)}, Timeout).

%% A tool call's params encoded by its caller, so that the actor encodes
%% nothing (the handshake era; in the others the actor adds `_meta' and
%% encodes): arguments that are not JSON raise here.
params_text(#client{encodes = true}, Name, Arguments) -> mcp_protocol:tools_call_params_text(Name, Arguments);
params_text(#client{encodes = false}, _Name, _Arguments) -> none.

-spec ping(client(), non_neg_integer()) -> ok | {error, client_error()}.
ping(Client, Timeout) when ?IS_TIMEOUT(Timeout) ->
    request(Client, {ping, Timeout}, Timeout).

%% @doc Requests retirement and returns at once (a cast): a connected client
%% kills its child and stops once the exit is proven. Proves nothing.
-spec stop(client()) -> ok.
stop(#client{pid = Pid}) ->
    gen_statem:cast(Pid, stop).

%% @doc Retires the client and reports the evidence: `no_resource' for a
%% client that never opened a transport, `{exited, Status}' once the child's
%% exit was witnessed, and only after the actor's normal `DOWN'. Both waits
%% share one deadline; a timeout or an unexpected actor death is uncertainty,
%% never success.
-spec shutdown(client(), non_neg_integer()) ->
          {ok, retirement_evidence()} | {error, retirement_error()}.
shutdown(#client{pid = Pid}, Timeout) when ?IS_TIMEOUT(Timeout) ->
    Deadline = now_ms() + Timeout,
    Monitor = erlang:monitor(process, Pid),
    RequestId = gen_statem:send_request(Pid, retire),
    case gen_statem:receive_response(RequestId, Timeout) of
        {reply, {ok, Evidence}} ->
            receive
                {'DOWN', Monitor, process, Pid, normal} -> {ok, Evidence};
                {'DOWN', Monitor, process, Pid, Reason} ->
                    {error, {retirement_unconfirmed, {actor_down, Reason}}}
            after max(0, Deadline - now_ms()) ->
                    erlang:demonitor(Monitor, [flush]),
                    {error, retirement_timed_out}
            end;
        {reply, {error, Reason}} ->
            erlang:demonitor(Monitor, [flush]),
            {error, Reason};
        {error, {Reason, _}} ->
            erlang:demonitor(Monitor, [flush]),
            {error, {retirement_unconfirmed, {actor_down, Reason}}};
        timeout ->
            erlang:demonitor(Monitor, [flush]),
            {error, retirement_timed_out}
    end.

%% @doc The OS pid of the client's child while its transport is open
%% (diagnostics and tests); `none' for a channel or once the exit is proven.
-spec os_pid(client()) -> {ok, integer()} | none.
os_pid(Client) ->
    case request(Client, os_pid, 0) of
        {ok, OsPid} -> {ok, OsPid};
        _ -> none
    end.

%% A tool call's result, routed by the actor (`mcp_client_actor'): the line
%% was validated there, so reading it again for its id gives the answer
%% the actor would have given; the caller builds it, on its own scheduler.
routed(Line, Id, Expectation) ->
    case mcp_protocol:read(Line, #{Id => Expectation}) of
        {answer, Id, Answer} -> Answer;
        {error, Fault} -> {error, {unavailable, Fault}}
    end.

%% How long past a call's deadline its caller waits for the actor: the
%% actor of a spawned server takes every message in turn (no callback of
%% its transport waits on anything the server controls,
%% `mcp_transport:spawns/1') and answers each call by its own deadline, or
%% dies, which the request's monitor reports; so its callers arm no timer
%% of their own (one per call cost a tenth of the calls a second at 16
%% callers, docs/performance.md). A remote, channel or other transport runs
%% code that may wait (`httpc''s manager, the caller's start function), and
%% its callers give up `?REPLY_GRACE_MS' past the deadline.
reply_grace(true) -> infinity;
reply_grace(false) -> ?REPLY_GRACE_MS.

%% (The wait without a timer is written `infinity' at the call: passed in
%% a variable, the same atom measured a tenth slower with 16 callers.)
request(#client{pid = Pid, grace = infinity}, Request, _Timeout) ->
    answer(gen_statem:receive_response(gen_statem:send_request(Pid, Request), infinity));
request(#client{pid = Pid, grace = Grace}, Request, Timeout) ->
    answer(gen_statem:receive_response(gen_statem:send_request(Pid, Request), Timeout + Grace)).

answer(Response) ->
    case Response of
        {reply, {caller_error, Reason}} -> error(Reason);
        {reply, {routed, Line, Id, Expectation}} -> routed(Line, Id, Expectation);
        {reply, Reply} -> Reply;
        {error, {Reason, _}} -> {error, {unavailable, {client_down, Reason}}};
        timeout -> {error, call_timed_out}
    end.

now_ms() -> erlang:monotonic_time(millisecond).

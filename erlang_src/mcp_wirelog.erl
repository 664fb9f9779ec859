%% @doc A wire log: a transport that wraps another and reports what passes
%% through it to a log process, which prints one line per message on
%% stderr (`bin/mcp-gen --verbose').
%%
%% `spec(Inner, Log)' is a transport spec for `mcp_client': every callback
%% delegates to the `Inner' transport (opened with `mcp_transport:open/2',
%% so any spec works) and tells the log what happened, so the client actor
%% needs no change. Invariants:
%% <ul>
%% <li>The wrapper never changes what passes: each callback returns exactly
%%     what the inner transport returned.</li>
%% <li>The actor only sends messages to the log (never waits on it), with the
%%     monotonic time of the event; the log turns times into seconds since
%%     it started and prints each message (the inner transport delivers whole
%%     lines, see `mcp_transport') truncated to its width, with its size in
%%     bytes. Only the shown prefix of a message is sent to the log, so a
%%     16 MiB line costs the log no more than a short one.</li>
%% <li>When the log falls more than 1,000 messages behind (a server flooding
%%     its stdout faster than stderr takes the lines), received messages are
%%     reported by size only (`< N B not shown'), so the log's memory stays
%%     bounded whatever the server sends.</li>
%% <li>An event the log does not know is printed in words, never dropped.</li>
%% </ul>
%% Lines: `> 86 B {"jsonrpc":...}' sent, `< 120 B {...}' received,
%% `framing fault: ...' when the stream cannot be cut into lines,
%% `closed: ...' with the exit evidence, `spawn' and `terminate requested'
%% for the process.
-module(mcp_wirelog).
%% The behaviour is checked by rebar3 builds (MCP_BEHAVIOUR_CHECK in rebar.config); the Gleam
%% build compiles these files in no particular order, where it would only warn.
-ifdef(MCP_BEHAVIOUR_CHECK).
-behaviour(mcp_transport).
-endif.

-export([spec/2, start_log/1, stop_log/1, max_log_queue/0, max_shown_bytes/0]).
-export([open/2, send/2, event/2, terminate/1, kill/1, os_pid/1, takes_rpc/0, carries_bytes/2]).
-export_type([log/0, log_options/0]).

-opaque log() :: pid().
-type log_options() :: #{label => iodata(),                       % after the prefix, e.g. a server name
                         width => pos_integer(),                  % characters shown of each line (100)
                         render_evidence => fun((term()) -> iodata()),
                         device => io:device()}.                  % standard_error

-record(wire, {inner :: mcp_transport:connection(), log :: pid()}).

-define(DEFAULT_WIDTH, 100).
%% The log's message queue length past which a received line is reported by
%% its size only (not the client actor's flood budget: that bounds the
%% actor's own mailbox).
-define(MAX_LOG_QUEUE, 1000).
%% Four bytes per character for the widest log anyone asks for.
-define(MAX_SHOWN_BYTES, 4096).

%% @doc The log's queue length past which received lines are reported by
%% size only.
-spec max_log_queue() -> pos_integer().
max_log_queue() -> ?MAX_LOG_QUEUE.

%% @doc The most bytes of one line sent to the log.
-spec max_shown_bytes() -> pos_integer().
max_shown_bytes() -> ?MAX_SHOWN_BYTES.

%% @doc A transport spec that opens `Inner' and logs its traffic to `Log'.
-spec spec(mcp_transport:spec(), log()) -> mcp_transport:spec().
spec(Inner, Log) -> {?MODULE, {Inner, Log}}.

%%% ------------------------------------------------------------ transport

-spec open({mcp_transport:spec(), log()}, pid()) -> {ok, #wire{}} | {error, term()}.
open({Inner, Log}, Owner) ->
    note(Log, {spawn, command(Inner)}),
    case mcp_transport:open(Inner, Owner) of
        {ok, Connection} ->
            note(Log, {opened, mcp_transport:os_pid(Connection)}),
            {ok, #wire{inner = Connection, log = Log}};
        {error, Reason} = Error ->
            note(Log, {open_failed, Reason}),
            Error
    end.

%% @doc Typed messages (`mcp_transport:rpc()') pass to the wrapped transport as they are.
-spec takes_rpc() -> true.
takes_rpc() -> true.

-spec send(#wire{}, [mcp_transport:message(), ...]) -> ok | {ok, #wire{}} | {error, term()}.
send(#wire{inner = Inner, log = Log} = Wire, Messages) ->
    [note(Log, {sent, shown_part(Bytes), iolist_size(Bytes)})
     || Message <- Messages, Bytes <- [mcp_transport:message_bytes(Message)]],
    case mcp_transport:send(Inner, Messages) of
        ok -> ok;
        {ok, Next} -> {ok, Wire#wire{inner = Next}};
        {error, Reason} = Error -> note(Log, {send_failed, Reason}), Error
    end.

-spec event(#wire{}, term()) -> {ok, [mcp_transport:event()], #wire{}} | not_mine.
event(#wire{inner = Inner, log = Log} = Wire, Info) ->
    case mcp_transport:event(Inner, Info) of
        {ok, Events, Next} ->
            [note(Log, received(Log, Event)) || Event <- Events],
            {ok, Events, Wire#wire{inner = Next}};
        not_mine ->
            not_mine
    end.

%% Whether the wrapped transport says `Info' brought the server's bytes.
-spec carries_bytes(#wire{}, term()) -> boolean().
carries_bytes(#wire{inner = Inner}, Info) -> mcp_transport:carries_bytes(Inner, Info).

%% A log that has fallen behind (a server flooding its stdout faster than
%% stderr takes the lines) gets the size of what arrived, not the bytes, so
%% the log never holds more than ?MAX_LOG_QUEUE messages' worth of text.
received(Log, {message, _Offset, Line}) ->
    case erlang:process_info(Log, message_queue_len) of
        {message_queue_len, Queued} when Queued > ?MAX_LOG_QUEUE -> {dropped, byte_size(Line)};
        _ -> {received, shown_part(Line), byte_size(Line)}
    end;
received(_Log, Event) ->
    {event, Event}.

%% The bytes of a message worth sending to the log: enough for any width
%% the log may show (`keep/2' in the log trims to its own width).
shown_part(Message) ->
    Bytes = iolist_to_binary(Message),
    binary:part(Bytes, 0, min(byte_size(Bytes), ?MAX_SHOWN_BYTES)).

-spec terminate(#wire{}) -> ok | {ok, #wire{}}.
terminate(#wire{inner = Inner, log = Log} = Wire) ->
    note(Log, terminate),
    around(Wire, mcp_transport:terminate(Inner)).

-spec kill(#wire{}) -> ok | {ok, #wire{}}.
kill(#wire{inner = Inner} = Wire) ->
    around(Wire, mcp_transport:kill(Inner)).

%% The inner connection's outcome, a new inner connection put in place.
around(Wire, {ok, Next}) -> {ok, Wire#wire{inner = Next}};
around(_Wire, Outcome) -> Outcome.

-spec os_pid(#wire{}) -> {ok, integer()} | none.
os_pid(#wire{inner = Inner}) -> mcp_transport:os_pid(Inner).

note(Log, What) ->
    Log ! {?MODULE, erlang:monotonic_time(microsecond), What},
    ok.

command(#{executable := Executable} = Spawn) -> {argv, [Executable | maps:get(args, Spawn, [])]};
command({mcp_port, Spawn}) -> command(Spawn);
command(#{url := Url}) -> {url, mcp_http_target:shown_url(Url)};   % never a header, query or fragment
command({mcp_http, Remote}) -> command(Remote);
command({Module, _Arg}) when is_atom(Module) -> {module, Module};
command(_Other) -> unknown.

%%% ------------------------------------------------------------ the log

%% @doc Starts a log process; its times count from now.
-spec start_log(log_options()) -> log().
start_log(Options) ->
    Start = erlang:monotonic_time(microsecond),
    spawn_link(fun() ->
                       loop(#{start => Start,
                              label => maps:get(label, Options, []),
                              width => maps:get(width, Options, ?DEFAULT_WIDTH),
                              render_evidence => maps:get(render_evidence, Options, fun words/1),
                              device => maps:get(device, Options, standard_error),
                              dropped => 0})
               end).

%% @doc Prints what the log holds and stops it.
-spec stop_log(log()) -> ok.
stop_log(Log) ->
    Monitor = erlang:monitor(process, Log),
    Log ! {?MODULE, stop, self(), Monitor},
    receive
        {'DOWN', Monitor, process, Log, _} -> ok
    end.

loop(State) ->
    receive
        {?MODULE, stop, _From, _Monitor} ->
            Now = erlang:monotonic_time(microsecond),
            _ = report_dropped(Now, State),
            ok;
        {?MODULE, _At, {dropped, Bytes}} ->
            loop(State#{dropped => maps:get(dropped, State) + Bytes});
        {?MODULE, At, What} ->
            loop(record(What, At, report_dropped(At, State)))
    end.

report_dropped(_At, #{dropped := 0} = State) ->
    State;
report_dropped(At, #{dropped := Bytes} = State) ->
    print(At, ["< ", integer_to_list(Bytes), " B not shown: the log fell behind the server"], State#{dropped => 0}).

record({spawn, {argv, Argv}}, At, State) ->
    print(At, ["spawn ", lists:join(" ", [shown(Arg, State) || Arg <- Argv])], State);
record({spawn, {url, Url}}, At, State) ->
    print(At, ["connect ", shown(Url, State)], State);
record({spawn, {module, Module}}, At, State) ->
    print(At, ["open ", atom_to_list(Module)], State);
record({spawn, unknown}, At, State) ->
    print(At, "open", State);
record({opened, {ok, OsPid}}, At, State) ->
    print(At, ["running as pid ", integer_to_list(OsPid)], State);
record({opened, none}, _At, State) ->
    State;
record({open_failed, Reason}, At, State) ->
    print(At, ["open failed: ", words(Reason)], State);
record({sent, Shown, Size}, At, State) ->
    print(At, ["> ", line(Shown, Size, State)], State);
record({send_failed, Reason}, At, State) ->
    print(At, ["send failed: ", words(Reason)], State);
record({received, Shown, Size}, At, State) ->
    print(At, ["< ", line(Shown, Size, State)], State);
record({event, {fault, Fault}}, At, State) ->
    print(At, ["framing fault: ", words(Fault)], State);
record({event, {closed, Evidence}}, At, #{render_evidence := Render} = State) ->
    print(At, ["closed: ", Render(Evidence)], State);
record({event, Other}, At, State) ->
    print(At, ["event: ", words(Other)], State);
record(terminate, At, State) ->
    print(At, "terminate requested", State).

line(Bytes, Size, #{width := Width}) ->
    [integer_to_list(Size), " B ", mcp_printable:printable(Bytes, line, Width)].

shown(Arg, #{width := Width}) ->
    mcp_printable:printable(unicode:characters_to_binary(Arg), line, Width).

print(At, Text, #{start := Start, label := Label, device := Device} = State) ->
    Seconds = max(0, At - Start) / 1000000,
    ok = io:put_chars(Device, ["mcp-gen: wire ", Label, io_lib:format("+~.3fs ", [Seconds]), Text, $\n]),
    State.

words(Term) -> mcp_describe:words(Term).

%% @doc The in-process transport: the "server" is a peer Erlang process that
%% exchanges byte chunks with the client actor by message (newline-delimited,
%% framed here as in `mcp_port'). Every client
%% behaviour is testable on it without an OS process.
%%
%% Transport spec: `{mcp_channel, Start}' where `Start' is a
%% `fun((channel()) -> {ok, pid()} | {error, term()})' run in the actor when
%% the client connects; it starts the peer and hands it the channel.
%%
%% The peer's side of the protocol:
%% <ul>
%% <li>It receives `{mcp_channel, Channel, {bytes, Bytes :: binary()}}' for
%%     each write of the client (Bytes is what the client would write to a
%%     child's stdin: one or more messages, each followed by `\n').</li>
%% <li>It writes with `write(Channel, Bytes)' (a chunk of the child's
%%     stdout; chunk boundaries are the peer's choice). The transport frames
%%     the chunks like `mcp_port' (`mcp_transport:frame/2').</li>
%% <li>The peer's death is the transport closing: the actor monitors it, and
%%     its `DOWN' is `{closed, {exited, {peer_down, Reason}}}' (the analogue of an exit
%%     status). Termination is `exit(Peer, kill)', the analogue of SIGKILL;
%%     nothing but the `DOWN' proves the peer is gone.</li>
%% <li>The peer should monitor `client(Channel)' and stop when it dies.</li>
%% </ul>
-module(mcp_channel).
%% The behaviour is checked by rebar3 builds (MCP_BEHAVIOUR_CHECK in rebar.config); the Gleam
%% build compiles these files in no particular order, where it would only warn.
-ifdef(MCP_BEHAVIOUR_CHECK).
-behaviour(mcp_transport).
-endif.

-export([open/2, send/2, event/2, terminate/1, os_pid/1, carries_bytes/2]).
-export([write/2, client/1]).
-export_type([channel/0, start/0]).

-record(channel, {client :: pid(), ref :: reference()}).
-opaque channel() :: #channel{}.
-type start() :: fun((channel()) -> {ok, pid()} | {error, term()}).

-record(conn, {channel :: channel(), peer :: pid(), monitor :: reference(),
               framer = mcp_transport:framer() :: mcp_transport:framer()}).

-spec open(start(), pid()) -> {ok, #conn{}} | {error, term()}.
open(Start, Owner) when is_function(Start, 1) ->
    Channel = #channel{client = Owner, ref = make_ref()},
    try Start(Channel) of
        {ok, Peer} when is_pid(Peer) ->
            {ok, #conn{channel = Channel, peer = Peer, monitor = erlang:monitor(process, Peer)}};
        {error, Reason} ->
            {error, Reason};
        Other ->
            {error, {bad_start_result, Other}}
    catch
        Class:Reason -> {error, {start_crashed, Class, Reason}}
    end.

%% @doc The peer writes a chunk of "stdout" to the client.
-spec write(channel(), iodata()) -> ok.
write(#channel{client = Client} = Channel, Bytes) ->
    Client ! {mcp_channel, Channel, {bytes, iolist_to_binary(Bytes)}},
    ok.

%% @doc The client actor's pid, for the peer to monitor.
-spec client(channel()) -> pid().
client(#channel{client = Client}) -> Client.

-spec send(#conn{}, [iodata()]) -> ok.
send(#conn{channel = Channel, peer = Peer}, Messages) ->
    Peer ! {mcp_channel, Channel, {bytes, iolist_to_binary([[Message, $\n] || Message <- Messages])}},
    ok.

-spec event(#conn{}, term()) -> {ok, [mcp_transport:event()], #conn{}} | not_mine.
event(#conn{channel = Channel, framer = Framer} = Conn, {mcp_channel, Channel, {bytes, Bytes}}) ->
    {Events, Next} = mcp_transport:frame(Framer, Bytes),
    {ok, Events, Conn#conn{framer = Next}};
event(#conn{monitor = Monitor} = Conn, {'DOWN', Monitor, process, _, Reason}) ->
    {ok, [{closed, {exited, {peer_down, Reason}}}], Conn};
event(_, _) ->
    not_mine.

%% Whether `Info' is bytes the peer wrote.
-spec carries_bytes(#conn{}, term()) -> boolean().
carries_bytes(#conn{channel = Channel}, {mcp_channel, Channel, {bytes, _}}) -> true;
carries_bytes(_, _) -> false.

-spec terminate(#conn{}) -> ok.
terminate(#conn{peer = Peer}) ->
    exit(Peer, kill),
    ok.

-spec os_pid(#conn{}) -> none.
os_pid(_) -> none.

%% mcp_wirelog: the wrapper delegates unchanged (on an mcp_channel peer) and
%% the log prints one line per message (the inner transport delivers whole
%% lines), truncated to its width with the real size, framing faults, and
%% events it does not know in words.
-module(mcp_wirelog_tests).

-include_lib("eunit/include/eunit.hrl").

%% The fake inner transport at the end of this module.
-export([open/2, send/2, event/2, terminate/1, os_pid/1]).

%% A log writing to a capture process instead of stderr.
with_log(Width, Fun) ->
    Capture = spawn_link(fun() -> capture([]) end),
    Log = mcp_wirelog:start_log(#{width => Width, device => Capture, label => "t ",
                                  render_evidence => fun mcp_describe:evidence/1}),
    _ = Fun(Log),
    ok = mcp_wirelog:stop_log(Log),
    Capture ! {lines, self()},
    receive {lines, Lines} -> Lines end.

%% An io server good enough for io:put_chars/2.
capture(Acc) ->
    receive
        {io_request, From, ReplyAs, {put_chars, Encoding, Chars}} ->
            From ! {io_reply, ReplyAs, ok},
            capture([unicode:characters_to_binary(Chars, Encoding) | Acc]);
        {io_request, From, ReplyAs, {put_chars, Encoding, M, F, A}} ->
            From ! {io_reply, ReplyAs, ok},
            capture([unicode:characters_to_binary(apply(M, F, A), Encoding) | Acc]);
        {lines, To} ->
            Text = iolist_to_binary(lists:reverse(Acc)),
            To ! {lines, [strip_time(L) || L <- binary:split(Text, <<"\n">>, [global, trim])]}
    end.

strip_time(Line) ->
    {match, [Rest]} = re:run(Line, "^mcp-gen: wire t \\+\\d+\\.\\d{3}s (.*)$", [{capture, all_but_first, binary}, unicode]),
    Rest.

feed(Log, Event) ->
    Log ! {mcp_wirelog, erlang:monotonic_time(microsecond), {event, Event}},
    ok.

received(Line) -> {mcp_wirelog, erlang:monotonic_time(microsecond), {received, Line, byte_size(Line)}}.

one_line_per_message_test() ->
    ?assertEqual([<<"< 7 B {\"a\":1}">>, <<"< 10 B {\"b\":\"é\"}"/utf8>>, <<"closed: with exit status 0">>],
                 with_log(100, fun(Log) ->
                                       Log ! received(<<"{\"a\":1}">>),
                                       Log ! received(<<"{\"b\":\"é\"}"/utf8>>),
                                       feed(Log, {closed, {exited, {status, 0}}})
                               end)).

long_lines_are_truncated_with_their_size_test() ->
    Line = binary:copy(<<"x">>, 16 * 1024 * 1024),
    Lines = with_log(10, fun(Log) ->
                                 Log ! {mcp_wirelog, erlang:monotonic_time(microsecond), {received, binary:part(Line, 0, mcp_wirelog:max_shown_bytes()), byte_size(Line)}},
                                 Log ! {mcp_wirelog, erlang:monotonic_time(microsecond), {sent, <<"0123456789AB">>, 12}}
                         end),
    ?assertEqual([<<"< 16777216 B xxxxxxxxxx…"/utf8>>, <<"> 12 B 0123456789…"/utf8>>], Lines).

framing_faults_are_shown_test() ->
    [Fault, Closed] = with_log(100, fun(Log) ->
                                            feed(Log, {fault, {line_too_long, 16777217}}),
                                            feed(Log, {closed, {exited, {status, 3}}})
                                    end),
    ?assertMatch(<<"framing fault: ", _/binary>>, Fault),
    ?assertEqual(<<"closed: with exit status 3">>, Closed).

unknown_events_are_printed_in_words_test() ->
    ?assertEqual([<<"event: something new (1)">>],
                 with_log(100, fun(Log) -> feed(Log, {something_new, 1}) end)).

%% Through a real client on an mcp_channel peer that answers the
%% initialize request with a banner in two chunks: the wrapper passes
%% everything through unchanged (the client sees the banner and dies with
%% the usual reason) and the log shows the exchange and the peer's end.
%% Its peer process waits forever, until the client kills it.
-dialyzer({no_return, the_wrapper_delegates_test/0}).
the_wrapper_delegates_test() ->
    Start = fun(Channel) ->
                    {ok, spawn(fun() ->
                                       receive {mcp_channel, _, {bytes, _}} -> ok end,
                                       ok = mcp_channel:write(Channel, <<"hello ">>),
                                       ok = mcp_channel:write(Channel, <<"banner\n">>),
                                       receive after infinity -> ok end
                               end)}
            end,
    Lines = with_log(40, fun(Log) ->
                                 {ok, Client} = mcp_client:prepare(mcp_wirelog:spec({mcp_channel, Start}, Log), #{}),
                                 ?assertMatch({error, {handshake_failed, {unavailable, {malformed_message, _}}}},
                                              mcp_client:connect(Client)),
                                 ?assertMatch({ok, {exited, _}}, mcp_client:shutdown(Client, 5000))
                         end),
    ?assertMatch([<<"open mcp_channel">>, <<"> ", _/binary>>, <<"< 12 B hello banner">>, <<"terminate requested">>,
                  <<"closed: ", _/binary>>], Lines),
    ?assertMatch({match, _}, re:run(lists:last(Lines), "killed")).

%% A log far behind gets sizes, not bytes: of 5,000 lines of 1 MiB that
%% arrive while the log is suspended, at most ~1,000 shown prefixes are
%% queued (mcp_wirelog's ?MAX_LOG_QUEUE and ?MAX_SHOWN_BYTES, not exported)
%% and never a whole line.
%% It suspends the log's process: the test knows a log() is a pid.
-dialyzer({[no_opaque, no_return], a_log_that_falls_behind_holds_sizes_only_test/0}).
a_log_that_falls_behind_holds_sizes_only_test() ->
    Capture = spawn_link(fun() -> capture([]) end),
    Log = mcp_wirelog:start_log(#{width => 20, device => Capture, label => "t "}),
    {ok, Wire} = mcp_wirelog:open({{?MODULE, no_arg}, Log}, self()),
    Chunk = binary:copy(<<"x">>, 1024 * 1024),
    erlang:suspend_process(Log),
    lists:foldl(fun(_, W) ->
                        {ok, [{message, 0, Chunk}], Next} = mcp_wirelog:event(W, {fake_chunk, Chunk}),
                        Next
                end, Wire, lists:seq(1, 5000)),
    {messages, Queued} = erlang:process_info(Log, messages),
    erlang:resume_process(Log),
    ok = mcp_wirelog:stop_log(Log),
    Holding = [M || {mcp_wirelog, _, {received, _, _}} = M <- Queued],
    %% The queue check happens per line, so up to two more get in after it.
    ?assert(length(Holding) =< mcp_wirelog:max_log_queue() + 2),
    ShownMax = mcp_wirelog:max_shown_bytes(),
    ?assert(lists:all(fun({_, _, {received, Shown, _}}) -> byte_size(Shown) =< ShownMax end, Holding)),
    ?assert(length(Queued) >= 5000),
    Capture ! {lines, self()},
    Lines = receive {lines, L} -> L end,
    ?assertMatch({match, _}, re:run(lists:last(Lines), "^< \\d+ B not shown: the log fell behind the server$")).

%% This module as the inner transport of the test above: every
%% `{fake_chunk, Bytes}' message is one received line.
open(no_arg, _Owner) -> {ok, fake}.
send(fake, _Messages) -> ok.
event(fake, {fake_chunk, Bytes}) -> {ok, [{message, 0, Bytes}], fake};
event(fake, _) -> not_mine.
terminate(fake) -> ok.
os_pid(fake) -> none.

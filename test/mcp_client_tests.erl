%% The client actor over `mcp_channel' with a scriptable fake server: the
%% handshake, every request kind, the hostile-server cases, ownership and
%% retirement. Each case ends in its named result with every caller answered.
-module(mcp_client_tests).

-include_lib("eunit/include/eunit.hrl").

-import(mcp_fake_server, [field/2, tool/1, tools_page/2, text_result/1]).

-define(TIMEOUT, 5000).

%%% ------------------------------------------------------------ helpers

%% A fake server spec, after dropping what earlier tests' servers reported.
fresh_spec(Handler) ->
    fresh_spec(Handler, self()).

fresh_spec(Handler, Observer) ->
    _ = Observer =:= self() andalso flush_observed(),
    mcp_fake_server:spec(Handler, Observer).

flush_observed() ->
    receive {fake_server, _, _} -> flush_observed() after 0 -> true end.

%% Starts a client on a fake server with `Handler' (falls back to default).
started(Handler) ->
    {ok, Client, _} = mcp_client:start(fresh_spec(Handler), #{}),
    Client.

%% The next message the fake server received that matches `Pred'.
received(Pred) ->
    receive
        {fake_server, _, Message} ->
            case Pred(Message) of
                true -> Message;
                false -> received(Pred)
            end
    after ?TIMEOUT ->
            error(nothing_received)
    end.

request_of(Method) ->
    fun({request, _, M, _}) -> M =:= Method; (_) -> false end.

call(Client) ->
    mcp_client:call_tool(Client, <<"echo">>, {object, []}, ?TIMEOUT).

%% Runs `Fun' in `N' processes at once; their results, in order.
concurrently(N, Fun) ->
    Self = self(),
    Pids = [spawn(fun() -> Self ! {self(), Fun()} end) || _ <- lists:seq(1, N)],
    [receive {Pid, Result} -> Result end || Pid <- Pids].

retired_with(Client) ->
    mcp_client:shutdown(Client, ?TIMEOUT).

%% The caller's mailbox holds nothing left over by the client.
assert_clean_mailbox() ->
    {messages, Messages} = process_info(self(), messages),
    ?assertEqual([], [M || M <- Messages, element(1, M) =/= fake_server]).

echo_text(Arguments) ->
    {ok, {call_tool_result, [{text, mcp_json:encode(Arguments)}], false, none}}.

%%% --------------------------------------------------------- the happy path

handshake_and_tools_test() ->
    {ok, Client, Initialized} = mcp_client:start(fresh_spec(fun(_) -> default end), #{}),
    ?assertMatch({initialize_result, <<"2025-06-18">>, {some, {tools_capability, false}},
                  {server_info, <<"fake">>, <<"1.0">>}, none}, Initialized),
    {request, {int, 1}, <<"initialize">>, Params} = received(request_of(<<"initialize">>)),
    %% The declared client capabilities are exactly the empty object.
    ?assertEqual({object, []}, field(<<"capabilities">>, Params)),
    ?assertEqual({string, <<"2025-11-25">>}, field(<<"protocolVersion">>, Params)),
    ?assertEqual({notification, <<"notifications/initialized">>, none},
                 received(fun({notification, _, _}) -> true; (_) -> false end)),
    ?assertMatch({ok, [{tool_descriptor, <<"echo">>, _, _, _, _, _, _}]}, mcp_client:list_tools(Client)),
    Arguments = {object, [{<<"x">>, {int, 1}}]},
    ?assertEqual(echo_text(Arguments), mcp_client:call_tool(Client, <<"echo">>, Arguments, ?TIMEOUT)),
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertEqual({ok, {exited, {peer_down, killed}}}, retired_with(Client)),
    assert_clean_mailbox().

empty_options_and_client_info_test() ->
    {ok, Client, _} = mcp_client:start(fresh_spec(fun(_) -> default end),
                                       #{client_info => {<<"harness">>, <<"9.9">>}}),
    {request, _, _, Params} = received(request_of(<<"initialize">>)),
    ?assertEqual({object, [{<<"name">>, {string, <<"harness">>}},
                           {<<"version">>, {string, <<"9.9">>}}]},
                 field(<<"clientInfo">>, Params)),
    {ok, _} = retired_with(Client).

ids_are_minted_by_the_actor_and_increase_test() ->
    Client = started(fun(_) -> default end),
    [ok, ok, ok] = [mcp_client:ping(Client, ?TIMEOUT) || _ <- lists:seq(1, 3)],
    Ids = [Id || {request, {int, Id}, _, _} <- [received(request_of(<<"ping">>)) || _ <- lists:seq(1, 3)]],
    ?assertMatch([A, B, C] when A < B andalso B < C, Ids),
    {ok, _} = retired_with(Client).

concurrent_callers_are_each_answered_test() ->
    Client = started(fun(_) -> default end),
    Results = concurrently(20, fun() -> mcp_client:ping(Client, ?TIMEOUT) end),
    ?assertEqual(lists:duplicate(20, ok), Results),
    {ok, _} = retired_with(Client).

server_error_is_returned_test() ->
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             [{send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id},
                                               {<<"error">>, {object, [{<<"code">>, {int, -32000}},
                                                                       {<<"message">>, {string, <<"no">>}}]}}]}}];
                        (_) -> default end),
    ?assertEqual({error, {server_error, {rpc_error, -32000, <<"no">>, none}}}, call(Client)),
    %% The connection survives a server error.
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = retired_with(Client).

malformed_call_result_test() ->
    Client = started(fun({request, Id, <<"tools/call">>, _}) -> [{reply, Id, {object, []}}];
                        (_) -> default end),
    ?assertMatch({error, {result_malformed, {protocol_fault, _, _}}}, call(Client)),
    {ok, _} = retired_with(Client).

%%% ---------------------------------------------------- the hostile server

garbage_line_kills_and_latches_test() ->
    Client = started(fun({request, _, <<"tools/call">>, _}) -> [{raw, <<"this is not json\n">>}];
                        (_) -> default end),
    ?assertMatch({error, {unavailable, {malformed_message, {corruption_report, _, _}}}}, call(Client)),
    %% Latched: later calls answer at once with the same reason.
    ?assertMatch({error, {unavailable, {malformed_message, _}}}, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertEqual({ok, {exited, {peer_down, killed}}}, retired_with(Client)),
    assert_clean_mailbox().

non_json_rpc_line_kills_test() ->
    Client = started(fun({request, _, <<"tools/call">>, _}) -> [{raw, <<"{\"jsonrpc\":\"1.0\"}\n">>}];
                        (_) -> default end),
    ?assertMatch({error, {unavailable, {bad_message, _}}}, call(Client)),
    {ok, _} = retired_with(Client).

non_utf8_kills_with_the_stream_offset_test() ->
    %% The very first bytes the client receives: the offset is exact.
    Bad = <<"{\"a\":\"", 16#FF, "\"}\n">>,
    Spec = fresh_spec(fun({request, _, <<"initialize">>, _}) -> [{raw, Bad}];
                                   (_) -> default end),
    {ok, Client} = mcp_client:prepare(Spec, #{}),
    ?assertEqual({error, {handshake_failed, {unavailable, {invalid_utf8, 6}}}},
                 mcp_client:connect(Client)),
    ?assertEqual({error, {unavailable, {invalid_utf8, 6}}}, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertEqual({ok, {exited, {peer_down, killed}}}, retired_with(Client)).

non_utf8_after_a_held_tail_test() ->
    %% `C3' alone is held (it may start `é'); `C3 28' never becomes UTF-8.
    Client = started(fun({request, _, <<"tools/call">>, _}) -> [{chunks, [<<"{\"a\":\"", 16#C3>>, <<"(\"}\n">>]}];
                        (_) -> default end),
    ?assertMatch({error, {unavailable, {invalid_utf8, _}}}, call(Client)),
    {ok, _} = retired_with(Client).

max_line_bytes() -> mcp_stdio:max_line_bytes().

%% A response line of exactly `Size' bytes (newline excluded), padded with
%% JSON whitespace.
response_line_of(Id, Size) ->
    Line = mcp_fake_server:response_line(Id, text_result(<<"big">>)),
    Body = binary:part(Line, 0, byte_size(Line) - 1),
    Padding = binary:copy(<<" ">>, Size - byte_size(Body)),
    <<Body/binary, Padding/binary, "\n">>.

line_of_max_bytes_is_accepted_test_() ->
    {timeout, 60, fun() ->
        Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                                 Line = response_line_of(Id, max_line_bytes()),
                                 [{chunks, chunked(Line, 1048576)}];
                            (_) -> default end),
        ?assertEqual({ok, {call_tool_result, [{text, <<"big">>}], false, none}}, call(Client)),
        {ok, _} = retired_with(Client)
    end}.

%% Both framing cases: a pending line that grows past the limit (1 MiB
%% chunks), and a completed line past it arriving in one chunk.
line_one_byte_too_long_kills_test_() ->
    {timeout, 60,
     [fun() -> line_too_long_kills(fun(Line) -> [{chunks, chunked(Line, 1048576)}] end) end,
      fun() -> line_too_long_kills(fun(Line) -> [{raw, Line}] end) end]}.

line_too_long_kills(Sending) ->
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             Sending(response_line_of(Id, max_line_bytes() + 1));
                        (_) -> default end),
    {error, {unavailable, {line_too_long, N}}} = call(Client),
    ?assert(N > max_line_bytes()),
    {ok, _} = retired_with(Client).

chunked(Bytes, Size) when byte_size(Bytes) =< Size -> [Bytes];
chunked(Bytes, Size) ->
    <<Chunk:Size/binary, Rest/binary>> = Bytes,
    [Chunk | chunked(Rest, Size)].

utf8_split_across_chunks_works_test() ->
    Text = <<"é€😀 ok"/utf8>>,
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             [{chunks, chunked(mcp_fake_server:response_line(Id, text_result(Text)), 1)}];
                        (_) -> default end),
    ?assertEqual({ok, {call_tool_result, [{text, Text}], false, none}}, call(Client)),
    {ok, _} = retired_with(Client).

result_and_error_both_present_kills_test() ->
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             [{send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id},
                                               {<<"result">>, text_result(<<"a">>)},
                                               {<<"error">>, {object, [{<<"code">>, {int, 1}},
                                                                       {<<"message">>, {string, <<"b">>}}]}}]}}];
                        (_) -> default end),
    ?assertMatch({error, {unavailable, {bad_message, _}}}, call(Client)),
    {ok, _} = retired_with(Client).

unknown_id_is_dropped_test() ->
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             [{reply, {int, 999999}, text_result(<<"stray">>)},
                              {reply, Id, text_result(<<"real">>)}];
                        (_) -> default end),
    ?assertEqual({ok, {call_tool_result, [{text, <<"real">>}], false, none}}, call(Client)),
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = retired_with(Client).

string_id_is_dropped_test() ->
    Client = started(fun({request, {int, N} = Id, <<"tools/call">>, _}) ->
                             [{reply, {string, integer_to_binary(N)}, text_result(<<"stray">>)},
                              {reply, Id, text_result(<<"real">>)}];
                        (_) -> default end),
    ?assertEqual({ok, {call_tool_result, [{text, <<"real">>}], false, none}}, call(Client)),
    {ok, _} = retired_with(Client).

server_request_gets_method_not_found_test() ->
    Sampling = {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {string, <<"s1">>}},
                         {<<"method">>, {string, <<"sampling/createMessage">>}},
                         {<<"params">>, {object, []}}]},
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             [{send, Sampling}, {reply, Id, text_result(<<"done">>)}];
                        (_) -> default end),
    ?assertMatch({ok, _}, call(Client)),
    {response, {string, <<"s1">>}, Body} = received(fun({response, _, _}) -> true; (_) -> false end),
    ?assertEqual({int, mcp_jsonrpc:method_not_found()}, field(<<"code">>, field(<<"error">>, Body))),
    ?assertEqual(none, field(<<"result">>, Body)),
    {ok, _} = retired_with(Client).

server_ping_is_answered_with_empty_result_test() ->
    Ping = {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, {int, 77}},
                     {<<"method">>, {string, <<"ping">>}}]},
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             [{send, Ping}, {reply, Id, text_result(<<"done">>)}];
                        (_) -> default end),
    ?assertMatch({ok, _}, call(Client)),
    {response, {int, 77}, Body} = received(fun({response, _, _}) -> true; (_) -> false end),
    ?assertEqual({object, []}, field(<<"result">>, Body)),
    ?assertEqual(none, field(<<"error">>, Body)),
    {ok, _} = retired_with(Client).

notification_flood_is_dropped_test() ->
    Note = mcp_json:encode({object, [{<<"jsonrpc">>, {string, <<"2.0">>}},
                                     {<<"method">>, {string, <<"notifications/message">>}},
                                     {<<"params">>, {object, [{<<"level">>, {string, <<"info">>}}]}}]}),
    Flood = binary:copy(<<Note/binary, "\n">>, 20000),
    Client = started(fun({request, Id, <<"tools/call">>, _}) ->
                             [{raw, Flood}, {chunks, chunked(Flood, 4096)},
                              {reply, Id, text_result(<<"after the flood">>)}];
                        (_) -> default end),
    ?assertEqual({ok, {call_tool_result, [{text, <<"after the flood">>}], false, none}}, call(Client)),
    {ok, _} = retired_with(Client).

never_answering_times_out_and_cancels_test() ->
    Self = self(),
    Client = started(fun({request, _, <<"tools/call">>, _}) -> [];
                        ({notification, <<"notifications/cancelled">>, Params}) ->
                             %% A late answer to the expired id, then nothing.
                             Self ! {cancelled, Params},
                             [{reply, field(<<"requestId">>, Params), text_result(<<"late">>)}];
                        (_) -> default end),
    ?assertEqual({error, call_timed_out},
                 mcp_client:call_tool(Client, <<"slow">>, {object, []}, 50)),
    {request, CallId, <<"tools/call">>, _} = received(request_of(<<"tools/call">>)),
    Params = receive {cancelled, P} -> P after ?TIMEOUT -> error(no_cancel) end,
    ?assertEqual(CallId, field(<<"requestId">>, Params)),
    %% The late response was dropped; the client still works.
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    assert_clean_mailbox(),
    {ok, _} = retired_with(Client).

%% A client whose server never answers a tool call: this process hears
%% `call_arrived' for each call and `{cancelled, Params}' for each
%% cancellation.
never_answering_client() ->
    Self = self(),
    started(fun({request, _, <<"tools/call">>, _}) -> Self ! call_arrived, [];
               ({notification, <<"notifications/cancelled">>, Params}) ->
                    Self ! {cancelled, Params}, [];
               (_) -> default end).

callers_that_die_have_their_requests_cancelled_test() ->
    Client = never_answering_client(),
    Actor = mcp_client:pid(Client),
    Monitors = fun() -> {monitors, M} = process_info(Actor, monitors), lists:sort(M) end,
    Before = Monitors(),
    Callers = [spawn(fun() -> mcp_client:call_tool(Client, <<"slow">>, {object, []}, 3600000) end)
               || _ <- lists:seq(1, 50)],
    [receive call_arrived -> ok after ?TIMEOUT -> error(no_call) end || _ <- Callers],
    [exit(Caller, kill) || Caller <- Callers],
    Cancelled = [receive {cancelled, Params} -> Params after ?TIMEOUT -> error(no_cancel) end
                 || _ <- Callers],
    ?assertEqual(lists:duplicate(50, {string, <<"caller gone">>}),
                 [field(<<"reason">>, Params) || Params <- Cancelled]),
    %% Nothing is left of them in the actor: no monitor, and the client
    %% works. This process, a caller that lives on, stays monitored (one
    %% monitor per caller, kept for its next call: `mcp_request_table').
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertEqual([], [P || {process, P} <- Monitors(), lists:member(P, Callers)]),
    ?assertEqual(lists:sort([{process, self()} | Before]), Monitors()),
    {ok, _} = retired_with(Client).

%% The actor keeps one timer for every deadline: a call with a short
%% deadline made while one with a long deadline is pending still expires
%% at its own (the actor cancels it with the server: the caller's own
%% fallback wait would not), and the long one is untouched by it.
a_short_deadline_behind_a_long_one_expires_first_test() ->
    Client = never_answering_client(),
    Long = spawn_caller(fun() -> mcp_client:call_tool(Client, <<"slow">>, {object, []}, 3600000) end),
    receive call_arrived -> ok after ?TIMEOUT -> error(no_call) end,
    {request, LongId, <<"tools/call">>, _} = received(request_of(<<"tools/call">>)),
    ?assertEqual({error, call_timed_out}, mcp_client:call_tool(Client, <<"slow">>, {object, []}, 50)),
    receive call_arrived -> ok after ?TIMEOUT -> error(no_call) end,
    {request, ShortId, <<"tools/call">>, _} = received(request_of(<<"tools/call">>)),
    Params = receive {cancelled, P} -> P after ?TIMEOUT -> error(no_cancel) end,
    ?assertEqual({ShortId, {string, <<"deadline expired">>}}, {field(<<"requestId">>, Params), field(<<"reason">>, Params)}),
    ?assertNotEqual(LongId, ShortId),
    %% The long call is still pending: retiring answers it.
    {ok, _} = retired_with(Client),
    ?assertMatch({error, {unavailable, _}}, collect(Long)),
    flush_observed().

%% A caller calling again and again is monitored once.
a_caller_calling_again_is_monitored_once_test() ->
    Client = started(fun(_) -> default end),
    Actor = mcp_client:pid(Client),
    Mine = fun() -> {monitors, M} = process_info(Actor, monitors), [P || {process, P} <- M, P =:= self()] end,
    %% This process started the client: the actor monitors it as its
    %% custodian already.
    Custodian = Mine(),
    lists:foreach(fun(_) -> {ok, _} = call(Client) end, lists:seq(1, 20)),
    ?assertEqual([self() | Custodian], Mine()),
    {ok, _} = retired_with(Client),
    flush_observed().

dying_mid_call_answers_every_caller_test() ->
    Self = self(),
    Client = started(fun({request, _, <<"tools/call">>, _}) ->
                             Self ! call_arrived,
                             [];
                        ({request, _, <<"ping">>, _}) ->
                             [{exit, crashed}];
                        (_) -> default end),
    Callers = [spawn_caller(fun() -> call(Client) end) || _ <- lists:seq(1, 3)],
    [receive call_arrived -> ok after ?TIMEOUT -> error(no_call) end || _ <- Callers],
    Reason = {transport_ended, {exited, {peer_down, crashed}}},
    ?assertEqual({error, {unavailable, Reason}}, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertEqual(lists:duplicate(3, {error, {unavailable, Reason}}), [collect(C) || C <- Callers]),
    ?assertEqual({error, {unavailable, Reason}}, call(Client)),
    ?assertEqual({ok, {exited, {peer_down, crashed}}}, retired_with(Client)).

spawn_caller(Fun) ->
    Self = self(),
    spawn(fun() -> Self ! {self(), Fun()} end).

collect(Pid) ->
    receive {Pid, Result} -> Result after ?TIMEOUT -> error(caller_not_answered) end.

%% A server whose `initialize' result offers `Version' and `Capabilities'.
initializing_with(Version, Capabilities) ->
    fresh_spec(fun({request, Id, <<"initialize">>, _}) ->
                       [{reply, Id, mcp_fake_server:initialize_result(Version, Capabilities)}];
                  (_) -> default
               end).

version_refusal_test() ->
    Spec = initializing_with(<<"1999-01-01">>, [{<<"tools">>, {object, []}}]),
    ?assertEqual({error, {version_unsupported, <<"2025-11-25">>, <<"1999-01-01">>}},
                 mcp_client:start(Spec, #{})).

%% A version the server names is kept to 256 bytes in the refusal (a
%% 200 KB version with terminal controls was the death reason whole).
a_long_version_is_cut_in_the_refusal_test() ->
    Long = <<27, "]0;pwned", (binary:copy(<<"9">>, 200000))/binary>>,
    Spec = initializing_with(Long, [{<<"tools">>, {object, []}}]),
    {error, {version_unsupported, <<"2025-11-25">>, Offered}} = mcp_client:start(Spec, #{}),
    ?assertEqual(binary:part(Long, 0, 256), Offered).

older_supported_version_is_accepted_test() ->
    Spec = initializing_with(<<"2024-11-05">>, [{<<"tools">>, {object, []}}]),
    {ok, Client, {initialize_result, <<"2024-11-05">>, _, _, _}} = mcp_client:start(Spec, #{}),
    {ok, _} = retired_with(Client).

no_tools_capability_test() ->
    Spec = initializing_with(<<"2025-06-18">>, []),
    {ok, Client} = mcp_client:prepare(Spec, #{}),
    ?assertEqual({error, tools_not_declared}, mcp_client:connect(Client)),
    %% No `notifications/initialized' after a refused handshake.
    ?assertEqual({error, {unavailable, tools_not_declared}}, mcp_client:list_tools(Client)),
    ?assertEqual({ok, {exited, {peer_down, killed}}}, retired_with(Client)),
    ?assertEqual([], [N || {fake_server, _, {notification, _, _} = N} <- flush()]).

flush() ->
    receive M -> [M | flush()] after 0 -> [] end.

handshake_server_error_test() ->
    Spec = fresh_spec(
             fun({request, Id, <<"initialize">>, _}) ->
                     [{send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id},
                                       {<<"error">>, {object, [{<<"code">>, {int, -32602}},
                                                               {<<"message">>, {string, <<"bad">>}}]}}]}}];
                (_) -> default end),
    ?assertEqual({error, {handshake_failed, {server_error, {rpc_error, -32602, <<"bad">>, none}}}},
                 mcp_client:start(Spec, #{})).

%% A refused handshake's start error (latched, and told to subscribers)
%% keeps 256 bytes of the server's message, whole characters (a message of
%% 256 bytes is kept, one of 100,000 two-byte characters is cut to 256),
%% and its `data' only while that takes at most 256 bytes (external size).
handshake_error_message_is_cut_test() ->
    Refusal = fun(Message, Data) ->
                      Spec = fresh_spec(
                               fun({request, Id, <<"initialize">>, _}) ->
                                       [{send, {object, [{<<"jsonrpc">>, {string, <<"2.0">>}}, {<<"id">>, Id},
                                                         {<<"error">>, {object, [{<<"code">>, {int, -32602}},
                                                                                 {<<"message">>, {string, Message}}
                                                                                 | [{<<"data">>, Data} || Data =/= none]]}}]}}];
                                  (_) -> default end),
                      {error, {handshake_failed, {server_error, {rpc_error, -32602, Kept, KeptData}}}} = mcp_client:start(Spec, #{}),
                      {Kept, KeptData}
              end,
    Refused = fun(Message) -> {Kept, none} = Refusal(Message, none), Kept end,
    At = binary:copy(<<"m">>, 256),
    ?assertEqual(At, Refused(At)),
    %% Data kept as `{some, {string, Text}}' of external size 256 and 257.
    DataOf = fun(Size) -> {string, binary:copy(<<"d">>, Size - erlang:external_size({some, {string, <<>>}}))} end,
    ?assertEqual({<<"m">>, {some, DataOf(256)}}, Refusal(<<"m">>, DataOf(256))),
    ?assertEqual({<<"m">>, none}, Refusal(<<"m">>, DataOf(257))),
    ?assertEqual(binary:copy(<<"é"/utf8>>, 128), Refused(binary:copy(<<"é"/utf8>>, 50000))),
    ?assertEqual(<<"x", (binary:copy(<<"é"/utf8>>, 127))/binary>>, Refused(<<"x", (binary:copy(<<"é"/utf8>>, 50000))/binary>>)).

handshake_timeout_test() ->
    Spec = fresh_spec(fun({request, _, <<"initialize">>, _}) -> []; (_) -> default end),
    ?assertEqual({error, {handshake_failed, call_timed_out}},
                 mcp_client:start(Spec, #{handshake_timeout_ms => 50})).

%% A server answering every tools/list page with one tool and a fresh cursor
%% until page `Pages'.
paging(Pages) ->
    fun({request, Id, <<"tools/list">>, Params}) ->
            Page = case field(<<"cursor">>, Params) of
                       none -> 1;
                       {string, Cursor} -> binary_to_integer(Cursor)
                   end,
            Next = case Page < Pages of
                       true -> {some, integer_to_binary(Page + 1)};
                       false -> none
                   end,
            [{reply, Id, tools_page([tool(<<"t", (integer_to_binary(Page))/binary>>)], Next)}];
       (_) -> default
    end.

count_requests(Method) ->
    length([M || {fake_server, _, {request, _, M, _}} <- flush(), M =:= Method]).

sixty_four_pages_are_followed_test() ->
    Client = started(paging(64)),
    {ok, Tools} = mcp_client:list_tools(Client),
    ?assertEqual([<<"t", (integer_to_binary(N))/binary>> || N <- lists:seq(1, 64)],
                 [Name || {tool_descriptor, Name, _, _, _, _, _, _} <- Tools]),
    ?assertEqual(64, count_requests(<<"tools/list">>)),
    {ok, _} = retired_with(Client).

endless_pagination_is_too_many_pages_test() ->
    Client = started(paging(65)),
    ?assertEqual({error, too_many_pages}, mcp_client:list_tools(Client)),
    ?assertEqual(mcp_client:max_tool_pages(), count_requests(<<"tools/list">>)),
    %% Not a death: the client still answers.
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = retired_with(Client).

%% Two pages whose lines (without their newlines) take `Total' bytes
%% together: the first `Total - 1000' bytes, the second 1,000.
sized_pages(Total) ->
    fun({request, Id, <<"tools/list">>, Params}) ->
            case field(<<"cursor">>, Params) of
                none -> [{reply, Id, sized_page(Id, Total - 1000, {some, <<"2">>})}];
                {string, <<"2">>} -> [{reply, Id, sized_page(Id, 1000, none)}]
            end;
       (_) -> default
    end.

sized_page(Id, Length, Next) -> mcp_fake_server:sized_tools_page(Id, Length, Next).

%% A listing reads at most `max_listing_bytes()' of page lines together: at
%% the budget it is read; one byte past it, the last page is not read and
%% the listing answers `listing_too_large' (not a death).
a_listing_reads_pages_up_to_its_byte_budget_test_() ->
    Max = mcp_client:max_listing_bytes(),
    {timeout, 30,
     fun() ->
             Within = started(sized_pages(Max)),
             ?assertMatch({ok, [_, _]}, mcp_client:list_tools(Within)),
             {ok, _} = retired_with(Within),
             Past = started(sized_pages(Max + 1)),
             ?assertEqual({error, {listing_too_large, Max}}, mcp_client:list_tools(Past)),
             ?assertEqual(ok, mcp_client:ping(Past, ?TIMEOUT)),
             {ok, _} = retired_with(Past)
     end}.

%% Listings in progress share the budget: while a first listing holds a
%% page of `Max - 1500' bytes and waits for its second, a second listing's
%% page of 1,500 bytes is read and one of 1,501 is not; the first listing
%% then ends.
listings_in_progress_share_the_byte_budget_test_() ->
    Max = mcp_client:max_listing_bytes(),
    {timeout, 30,
     fun() ->
             [begin
                  Lists = counters:new(1, []),
                  Client = started(fun({request, Id, <<"tools/list">>, Params}) ->
                                           case field(<<"cursor">>, Params) of
                                               {string, <<"held">>} -> [];
                                               none ->
                                                   counters:add(Lists, 1, 1),
                                                   case counters:get(Lists, 1) of
                                                       1 -> [{reply, Id, sized_page(Id, Max - 1500, {some, <<"held">>})}];
                                                       _ -> [{reply, Id, sized_page(Id, Second, none)}]
                                                   end
                                           end;
                                      (_) -> default
                                   end),
                  Self = self(),
                  First = spawn_link(fun() -> Self ! {first, self(), mcp_client:list_tools(Client)} end),
                  {Server, HeldId} = held_page_request(),
                  ?assertEqual(Expected, case mcp_client:list_tools(Client) of
                                             {ok, [_]} -> read;
                                             Other -> Other
                                         end),
                  Server ! {perform, [{reply, HeldId, tools_page([tool(<<"u">>)], none)}]},
                  ?assertMatch({ok, [_, _]}, receive {first, First, Listed} -> Listed end),
                  {ok, _} = retired_with(Client)
              end
              || {Second, Expected} <- [{1500, read}, {1501, {error, {listing_too_large, Max}}}]]
     end}.

%% The fake server and the id of the request for the page at cursor `held'.
held_page_request() ->
    receive
        {fake_server, Server, {request, Id, <<"tools/list">>, Params}} ->
            case field(<<"cursor">>, Params) of
                {string, <<"held">>} -> {Server, Id};
                _ -> held_page_request()
            end
    after 5000 -> error(no_held_request)
    end.

repeated_cursor_is_too_many_pages_test() ->
    Client = started(fun({request, Id, <<"tools/list">>, Params}) ->
                             Next = case field(<<"cursor">>, Params) of
                                        none -> <<"a">>;
                                        {string, <<"a">>} -> <<"b">>;
                                        {string, <<"b">>} -> <<"a">>
                                    end,
                             [{reply, Id, tools_page([tool(<<"t">>)], {some, Next})}];
                        (_) -> default end),
    ?assertEqual({error, too_many_pages}, mcp_client:list_tools(Client)),
    ?assertEqual(3, count_requests(<<"tools/list">>)),
    {ok, _} = retired_with(Client).

%% The client echoes cursors back: one of max_cursor_bytes() (65,536) is
%% followed, one byte more fails the listing (a bounded echo), and the
%% client still works.
cursor_length_limit_test_() ->
    Max = mcp_client_actor:max_cursor_bytes(),
    Refusal = iolist_to_binary(["longer than ", integer_to_list(Max), " bytes"]),
    [fun() -> cursor_of(Max, fun(Answer) -> ?assertMatch({ok, [_, _]}, Answer) end) end,
     fun() -> cursor_of(Max + 1, fun(Answer) ->
                                         ?assertEqual({error, {result_malformed,
                                                               {protocol_fault, <<"$.nextCursor">>, Refusal}}},
                                                      Answer)
                                 end) end].

cursor_of(Bytes, Check) ->
    Cursor = binary:copy(<<"c">>, Bytes),
    Client = started(fun({request, Id, <<"tools/list">>, Params}) ->
                             Next = case field(<<"cursor">>, Params) of
                                        none -> {some, Cursor};
                                        {string, Cursor} -> none
                                    end,
                             [{reply, Id, tools_page([tool(<<"t">>)], Next)}];
                        (_) -> default end),
    Check(mcp_client:list_tools(Client)),
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = retired_with(Client).

one_lying_tool_fails_the_listing_test() ->
    Liar = {object, [{<<"name">>, {string, <<"liar">>}}]},
    Client = started(fun({request, Id, <<"tools/list">>, _}) ->
                             [{reply, Id, tools_page([tool(<<"good">>), Liar], none)}];
                        (_) -> default end),
    ?assertMatch({error, {result_malformed, {protocol_fault, <<"$.tools[1]", _/binary>>, _}}},
                 mcp_client:list_tools(Client)),
    {ok, _} = retired_with(Client).

list_timeout_covers_all_pages_test() ->
    %% Page 2 never comes: one deadline for the whole listing.
    Client = started(fun({request, Id, <<"tools/list">>, Params}) ->
                             case field(<<"cursor">>, Params) of
                                 none -> [{reply, Id, tools_page([tool(<<"t">>)], {some, <<"2">>})}];
                                 _ -> []
                             end;
                        (_) -> default end),
    ?assertEqual({error, call_timed_out}, mcp_client:list_tools(Client, 100)),
    {ok, _} = retired_with(Client).

%%% ------------------------------------------- lifecycle and ownership

parked_client_needs_no_os_action_test() ->
    Self = self(),
    Spec = {mcp_channel, fun(_) -> Self ! opened, {ok, spawn(fun() -> ok end)} end},
    {ok, Client} = mcp_client:prepare(Spec, #{}),
    ?assertEqual({error, {unavailable, not_connected}}, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertEqual(none, mcp_client:os_pid(Client)),
    ?assertEqual({ok, no_resource}, retired_with(Client)),
    receive opened -> error(transport_opened) after 0 -> ok end.

%% The actor's status (what `sys:get_status' and a crash report show)
%% names a local server's `env' variables without their values; the raw
%% state (`sys:get_state') holds them.
env_values_are_never_shown_test() ->
    {ok, Client} = mcp_client:prepare(#{executable => "/bin/true",
                                        env => [{"MCP_TOKEN", "zz-env-secret"}, {"UNSET_ME", false}]}, #{}),
    Pid = mcp_client:pid(Client),
    Shown = lists:flatten(io_lib:format("~p", [sys:get_status(Pid)])),
    ?assertNotEqual(nomatch, string:find(io_lib:format("~p", [sys:get_state(Pid)]), "zz-env-secret")),
    ?assertEqual(nomatch, string:find(Shown, "zz-env-secret")),
    ?assertNotEqual(nomatch, string:find(Shown, "MCP_TOKEN")),
    ?assertEqual({ok, no_resource}, retired_with(Client)).

missing_executable_is_transport_failed_test() ->
    Spawn = #{executable => <<"no-such-mcp-server-executable">>},
    ?assertEqual({error, {transport_failed, {executable_not_found, <<"no-such-mcp-server-executable">>}}},
                 mcp_client:start(Spawn, #{})).

transport_failure_leaves_no_resource_test() ->
    {ok, Client} = mcp_client:prepare({mcp_channel, fun(_) -> {error, refused} end}, #{}),
    ?assertEqual({error, {transport_failed, refused}}, mcp_client:connect(Client)),
    ?assertEqual({error, {unavailable, {transport_failed, refused}}}, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertEqual({ok, no_resource}, retired_with(Client)).

connect_twice_is_refused_test() ->
    Client = started(fun(_) -> default end),
    ?assertEqual({error, {transport_failed, already_connected}}, mcp_client:connect(Client)),
    {ok, _} = retired_with(Client).

stop_kills_the_peer_and_stops_the_actor_test() ->
    Client = started(fun(_) -> default end),
    Pid = mcp_client:pid(Client),
    Peer = peer_of(Client),
    Monitors = [erlang:monitor(process, P) || P <- [Peer, Pid]],
    ?assertEqual(ok, mcp_client:stop(Client)),
    [receive {'DOWN', M, process, _, Reason} -> ?assert(lists:member(Reason, [killed, normal])) end
     || M <- Monitors],
    ?assertMatch({error, {unavailable, {client_down, _}}}, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertMatch({error, {retirement_unconfirmed, _}}, retired_with(Client)),
    assert_clean_mailbox().

%% The fake server's pid, learnt from the handshake the observer saw.
peer_of(_Client) ->
    receive {fake_server, Peer, {request, _, <<"initialize">>, _}} -> Peer
    after ?TIMEOUT -> error(no_peer) end.

custodian_death_retires_an_active_client_test() ->
    Self = self(),
    Custodian = spawn(fun() -> receive go -> ok end end),
    {ok, Client} = mcp_client:prepare_owned(fresh_spec(fun(_) -> default end, Self),
                                            #{}, Custodian),
    {ok, _} = mcp_client:connect(Client),
    Peer = peer_of(Client),
    PeerMonitor = erlang:monitor(process, Peer),
    ActorMonitor = erlang:monitor(process, mcp_client:pid(Client)),
    Custodian ! go,
    receive {'DOWN', PeerMonitor, process, Peer, killed} -> ok end,
    receive {'DOWN', ActorMonitor, process, _, normal} -> ok end.

%% A parked client prepared by a process that has since exited.
prepared_by_a_dead_builder(Custodian) ->
    Self = self(),
    {Builder, BuilderMonitor} =
        spawn_monitor(fun() ->
                              {ok, Client} = mcp_client:prepare_owned(
                                               fresh_spec(fun(_) -> default end, Self), #{}, Custodian),
                              Self ! {built, Client}
                      end),
    receive {'DOWN', BuilderMonitor, process, Builder, _} -> ok end,
    receive {built, Client} -> Client end.

builder_death_leaves_a_parked_client_to_its_custodian_test() ->
    Client = prepared_by_a_dead_builder(self()),
    %% Still there for the custodian, which gets its no-resource proof.
    ?assertEqual({ok, no_resource}, retired_with(Client)).

both_owners_gone_stops_a_parked_client_test() ->
    Custodian = spawn(fun() -> receive go -> ok end end),
    Client = prepared_by_a_dead_builder(Custodian),
    ActorMonitor = erlang:monitor(process, mcp_client:pid(Client)),
    %% The builder alone going does not stop it.
    ?assertEqual({error, {unavailable, not_connected}}, mcp_client:ping(Client, ?TIMEOUT)),
    Custodian ! go,
    receive {'DOWN', ActorMonitor, process, _, normal} -> ok end.

shutdown_of_a_dead_actor_is_uncertain_test() ->
    {ok, Client} = mcp_client:prepare(fresh_spec(fun(_) -> default end), #{}),
    {ok, no_resource} = retired_with(Client),
    ?assertMatch({error, {retirement_unconfirmed, {actor_down, noproc}}}, retired_with(Client)).

shutdown_without_exit_proof_times_out_test() ->
    %% A peer that ignores termination: no proof arrives before the deadline.
    {ok, Client} = mcp_client:prepare({mcp_stubborn_transport, #{}}, #{handshake_timeout_ms => 20}),
    ?assertEqual({error, {handshake_failed, call_timed_out}}, mcp_client:connect(Client)),
    ActorMonitor = erlang:monitor(process, mcp_client:pid(Client)),
    ?assertEqual({error, retirement_timed_out}, mcp_client:shutdown(Client, 50)),
    %% The retirement request stands: the actor stops once the proof comes.
    mcp_stubborn_transport:close(mcp_client:pid(Client), {exited, {status, 0}}),
    receive {'DOWN', ActorMonitor, process, _, normal} -> ok end,
    assert_clean_mailbox().

closing_without_proof_is_unconfirmed_test() ->
    {ok, Client} = mcp_client:prepare({mcp_stubborn_transport, #{}}, #{handshake_timeout_ms => 20}),
    ?assertEqual({error, {handshake_failed, call_timed_out}}, mcp_client:connect(Client)),
    mcp_stubborn_transport:close(mcp_client:pid(Client), {unconfirmed, {port_exited, einval}}),
    ?assertEqual({error, {retirement_unconfirmed, {port_exited, einval}}}, retired_with(Client)).

start_reports_cleanup_unconfirmed_test() ->
    Options = #{handshake_timeout_ms => 20, shutdown_timeout_ms => 20},
    {error, {cleanup_unconfirmed, Cause, Retirement, Client}} =
        mcp_client:start({mcp_stubborn_transport, #{}}, Options),
    ?assertEqual({handshake_failed, call_timed_out}, Cause),
    ?assertEqual(retirement_timed_out, Retirement),
    ActorMonitor = erlang:monitor(process, mcp_client:pid(Client)),
    mcp_stubborn_transport:close(mcp_client:pid(Client), {exited, {status, 0}}),
    receive {'DOWN', ActorMonitor, process, _, normal} -> ok end.

calls_on_a_vanished_actor_do_not_crash_the_caller_test() ->
    {ok, Client} = mcp_client:prepare(fresh_spec(fun(_) -> default end), #{}),
    exit(mcp_client:pid(Client), kill),
    ?assertMatch({error, {unavailable, {client_down, _}}}, mcp_client:ping(Client, ?TIMEOUT)),
    ?assertMatch({error, {unavailable, {client_down, _}}}, call(Client)),
    ?assertMatch({error, {handshake_failed, {unavailable, {client_down, _}}}}, mcp_client:connect(Client)),
    ?assertEqual(ok, mcp_client:stop(Client)),
    assert_clean_mailbox().

%% Calls with arguments outside the contract, on purpose.
-dialyzer({[no_fail_call, no_return], arguments_that_are_not_json_raise_in_the_caller_only_test/0}).
arguments_that_are_not_json_raise_in_the_caller_only_test() ->
    Client = started(fun(_) -> default end),
    ?assertError(badarg, mcp_client:call_tool(Client, <<"echo">>, {object, [{<<"k">>, not_json}]}, ?TIMEOUT)),
    ?assertError(badarg, mcp_client:call_tool(Client, <<255>>, {object, []}, ?TIMEOUT)),
    ?assertError(function_clause, mcp_client:call_tool(Client, "echo", {object, []}, ?TIMEOUT)),
    ?assertError(function_clause, mcp_client:ping(Client, infinity)),
    %% The actor and its connection are unaffected.
    ?assertEqual(echo_text({object, []}), call(Client)),
    ?assertEqual({ok, {exited, {peer_down, killed}}}, retired_with(Client)).

%% Options outside the options() type, on purpose.
-dialyzer({[no_fail_call, no_return], options_of_the_wrong_type_raise_at_prepare_test/0}).
options_of_the_wrong_type_raise_at_prepare_test() ->
    Spec = fresh_spec(fun(_) -> default end),
    ?assertError(badarg, mcp_client:prepare(Spec, #{client_info => {"name", <<"1">>}})),
    ?assertError(badarg, mcp_client:prepare(Spec, #{handshake_timeout_ms => -1})),
    ?assertError(badarg, mcp_client:prepare(Spec, #{list_timeout_ms => infinity})),
    ?assertError(badarg, mcp_client:prepare(Spec, not_a_map)),
    ?assertError(badarg, mcp_client:start(Spec, [])),
    ?assertError(badarg, mcp_client:prepare_owned(Spec, #{}, not_a_pid)),
    {ok, Client} = mcp_client:prepare(Spec, #{unknown_key => ignored}),
    ?assertEqual({ok, no_resource}, retired_with(Client)).

%% A client connecting to a server that has not answered `initialize' yet:
%% the client, the connecting caller, and what answers the handshake.
handshake_pending() ->
    {ok, Client} = mcp_client:prepare(fresh_spec(fun({request, _, <<"initialize">>, _}) -> [];
                                                    (_) -> default end), #{}),
    Connector = spawn_caller(fun() -> mcp_client:connect(Client) end),
    {fake_server, Peer, {request, InitId, <<"initialize">>, _}} =
        receive {fake_server, _, {request, _, <<"initialize">>, _}} = M -> M end,
    {Client, Connector, fun() -> Peer ! {perform, [{reply, InitId, mcp_fake_server:initialize_result()}]}, ok end}.

requests_wait_for_the_handshake_test() ->
    {Client, Connector, Answer} = handshake_pending(),
    Pinger = spawn_caller(fun() -> mcp_client:ping(Client, ?TIMEOUT) end),
    wait_until_blocked(Pinger),
    _ = sys:get_state(mcp_client:pid(Client)),     % the ping request is in the actor
    ok = Answer(),
    ?assertMatch({ok, _}, collect(Connector)),
    ?assertEqual(ok, collect(Pinger)),
    %% Nothing but the handshake went out before `notifications/initialized'.
    ?assertMatch({notification, <<"notifications/initialized">>, none},
                 received(fun({request, _, <<"ping">>, _}) -> true; ({notification, _, _}) -> true;
                             (_) -> false end)),
    {ok, _} = retired_with(Client).

%% A call made during the handshake keeps the deadline it was made with:
%% it is answered `call_timed_out' while `initialize' is still unanswered,
%% and it is never sent once the handshake ends (the server sees only the
%% ping made after it).
a_call_held_by_the_handshake_keeps_its_deadline_test() ->
    {Client, Connector, Answer} = handshake_pending(),
    ?assertEqual({error, call_timed_out}, mcp_client:ping(Client, 100)),
    ok = Answer(),
    ?assertMatch({ok, _}, collect(Connector)),
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = retired_with(Client),
    ?assertEqual(1, length([P || {request, _, <<"ping">>, _} = P <- observed()])).

%% A held call whose deadline passes while the actor is busy (suspended
%% here), with the handshake's answer ahead of the deadline timer in its
%% mailbox: answered `call_timed_out', and not sent once connected.
a_held_call_past_its_deadline_is_not_sent_test() ->
    {Client, Connector, Answer} = handshake_pending(),
    Caller = spawn_caller(fun() -> mcp_client:call_tool(Client, <<"echo">>, {object, []}, 200) end),
    wait_until_blocked(Caller),
    Actor = mcp_client:pid(Client),
    _ = sys:get_state(Actor),                      % the call is held
    ok = sys:suspend(Actor),
    ok = Answer(),
    timer:sleep(400),
    ok = sys:resume(Actor),
    ?assertMatch({ok, _}, collect(Connector)),
    ?assertEqual({error, call_timed_out}, collect(Caller)),
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = retired_with(Client),
    ?assertEqual([], [C || {request, _, <<"tools/call">>, _} = C <- observed()]).

%% A held call whose caller died during the handshake is not sent once
%% connected.
a_held_call_of_a_dead_caller_is_not_sent_test() ->
    {Client, Connector, Answer} = handshake_pending(),
    Caller = spawn(fun() -> mcp_client:call_tool(Client, <<"echo">>, {object, []}, ?TIMEOUT) end),
    wait_until_blocked(Caller),
    _ = sys:get_state(mcp_client:pid(Client)),     % the call is held
    exit(Caller, kill),
    ok = Answer(),
    ?assertMatch({ok, _}, collect(Connector)),
    ?assertEqual(ok, mcp_client:ping(Client, ?TIMEOUT)),
    {ok, _} = retired_with(Client),
    ?assertEqual([], [C || {request, _, <<"tools/call">>, _} = C <- observed()]).

%% `tools/1' during the handshake is not an unknown request: nothing is
%% listed yet, so it lists once connected, and answers that listing.
tools_during_the_handshake_test() ->
    {Client, Connector, Answer} = handshake_pending(),
    Lister = spawn_caller(fun() -> mcp_client:tools(Client) end),
    wait_until_blocked(Lister),
    _ = sys:get_state(mcp_client:pid(Client)),
    ok = Answer(),
    ?assertMatch({ok, _}, collect(Connector)),
    ?assertMatch({ok, {1, [_]}}, collect(Lister)),
    {ok, _} = retired_with(Client),
    flush_observed().

%% Everything the fake server reported so far, in order.
observed() ->
    receive {fake_server, _, Message} -> [Message | observed()] after 200 -> [] end.

wait_until_blocked(Pid) ->
    case process_info(Pid, status) of
        {status, waiting} -> ok;
        _ -> erlang:yield(), wait_until_blocked(Pid)
    end.

%%% ------------------------------------------- messages mcp_client never sends

%% A call the actor does not know is answered in every state (no caller
%% waits forever): `unknown_request' while connected, the reason it cannot
%% serve requests otherwise; an unknown cast or a stray message changes
%% nothing.
unknown_requests_are_answered_and_strays_ignored_test() ->
    {ok, Parked} = mcp_client:prepare(fresh_spec(fun(_) -> default end), #{}),
    Active = started(fun(_) -> default end),
    Dead = started(fun({request, _, <<"ping">>, _}) -> [{exit, crashed}]; (_) -> default end),
    ?assertMatch({error, {unavailable, {transport_ended, _}}}, mcp_client:ping(Dead, ?TIMEOUT)),
    lists:foreach(
      fun({Client, Answer}) ->
              Pid = mcp_client:pid(Client),
              ?assertEqual(Answer, gen_statem:call(Pid, not_a_request, ?TIMEOUT)),
              gen_statem:cast(Pid, not_a_request),
              Pid ! not_a_message,
              ?assertEqual(Answer, gen_statem:call(Pid, not_a_request, ?TIMEOUT)),
              ?assert(is_process_alive(Pid))
      end, [{Parked, {error, {unavailable, not_connected}}},
            {Active, {error, unknown_request}},
            {Dead, {error, {unavailable, {transport_ended, {exited, {peer_down, crashed}}}}}}]),
    ?assertEqual(ok, mcp_client:ping(Active, ?TIMEOUT)),
    ?assertMatch({ok, _}, retired_with(Active)),
    ?assertEqual({ok, no_resource}, retired_with(Parked)),
    ?assertEqual({ok, {exited, {peer_down, crashed}}}, retired_with(Dead)),
    flush_observed().

%% `handle/1' gives the `client()' of an actor in any state: parked, and
%% dead (its server gone), each then answering as its state does.
handle_of_a_parked_and_a_dead_actor_test() ->
    {ok, Parked} = mcp_client:prepare(fresh_spec(fun(_) -> default end), #{}),
    {ok, OfParked} = mcp_client:handle(mcp_client:pid(Parked)),
    ?assertEqual({error, {unavailable, not_connected}}, mcp_client:ping(OfParked, ?TIMEOUT)),
    ?assertEqual({ok, no_resource}, retired_with(OfParked)),
    Dead = started(fun({request, _, <<"ping">>, _}) -> [{exit, crashed}]; (_) -> default end),
    Reason = {transport_ended, {exited, {peer_down, crashed}}},
    ?assertEqual({error, {unavailable, Reason}}, mcp_client:ping(Dead, ?TIMEOUT)),
    {ok, OfDead} = mcp_client:handle(mcp_client:pid(Dead)),
    ?assertEqual({error, {unavailable, Reason}}, mcp_client:ping(OfDead, ?TIMEOUT)),
    ?assertEqual({ok, {exited, {peer_down, crashed}}}, retired_with(OfDead)),
    flush_observed().

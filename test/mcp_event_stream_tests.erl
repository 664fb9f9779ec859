-module(mcp_event_stream_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

%% A server-everything response: a priming event (an id, empty data), a
%% notification and the JSON-RPC response, with a retry and a comment.
stream() ->
    <<"retry: 1000\r\nid: s1-0\ndata: \n\n"
      ": keep-alive\n"
      "event: message\nid: s1-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\r\n\r\n"
      "id: s1-2\ndata: {\"jsonrpc\":\"2.0\",\n"
      "data: \"id\":1,\"result\":{}}\r\r"
      "data: held">>.

stream_items() ->
    [{retry, 1000},
     {event, <<>>, <<>>},
     {event, <<"message">>, <<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}">>},
     {event, <<>>, <<"{\"jsonrpc\":\"2.0\",\n\"id\":1,\"result\":{}}">>}].

%% Pushes every chunk into a fresh decoder: the items and last id, or the fault.
push_all(Chunks) -> push_all(Chunks, mcp_event_stream:new()).

push_all(Chunks, Decoder) -> push_all(Chunks, Decoder, [], none).

push_all([], _Decoder, Items, Id) ->
    {ok, lists:append(lists:reverse(Items)), Id};
push_all([Chunk | Rest], Decoder, Items, _Id) ->
    case mcp_event_stream:push(Decoder, Chunk) of
        {ok, New, Id} -> push_all(Rest, Decoder, [New | Items], Id);
        {error, _} = Fault -> Fault
    end.

bytes(Binary) -> [<<Byte>> || <<Byte>> <= Binary].

whole_and_one_byte_at_a_time_test() ->
    Expected = {ok, stream_items(), <<"s1-2">>},
    ?assertEqual(Expected, push_all([stream()])),
    ?assertEqual(Expected, push_all(bytes(stream()))).

no_id_is_none_test() ->
    ?assertEqual({ok, [{event, <<>>, <<"x">>}], none}, push_all([<<"data: x\n\n">>])).

%% An id is kept up to the transport's echo cap (the session's
%% `max_event_id_bytes()'), not past it: the stream then has no last event
%% id, not the older one.
an_id_is_kept_up_to_the_echo_cap_test() ->
    Cap = mcp_http_session:max_event_id_bytes(),
    Id = fun(Bytes) -> <<"id: ", (binary:copy(<<"i">>, Bytes))/binary, "\n\n">> end,
    ?assertEqual({ok, [], binary:copy(<<"i">>, Cap)}, push_all([Id(Cap)])),
    ?assertEqual({ok, [], none}, push_all([<<"id: 1\n\n">>, Id(Cap + 1)])).

%% A push runs on a normal scheduler only while what it may hand back is
%% within the budget: after a 16 MiB `event:' line, an 8-byte chunk that
%% dispatches the event (handing the type back) is answered `dirty' (it had
%% run there, 2-14 ms for a red team, returning the 16 MiB type).
a_held_event_type_counts_in_the_budget_test() ->
    Budget = mcp_event_stream:dirty_threshold(),
    Kind = binary:copy(<<"k">>, mcp_event_stream:max_event_bytes() - 16),
    Decoder = mcp_event_stream:new(),
    ?assertEqual({ok, [], none}, mcp_event_stream:push(Decoder, <<"event:", Kind/binary, "\n">>)),
    ?assertEqual(dirty, mcp_nif:event_stream_push(Decoder, <<"data:x\n\n">>, Budget)),
    ?assertEqual({ok, [{event, Kind, <<"x">>}], none}, mcp_event_stream:push(Decoder, <<"data:x\n\n">>)).

cap_both_sides_test() ->
    %% `data: abcd' is a 10-byte line.
    ?assertMatch({ok, [{event, <<>>, <<"abcd">>}], none}, push_all([<<"data: abcd\n\n">>], mcp_event_stream:new(10))),
    ?assertEqual({error, {event_too_long, 10}}, push_all([<<"data: abcd\n\n">>], mcp_event_stream:new(9))).

a_broken_decoder_stays_broken_test() ->
    Decoder = mcp_event_stream:new(4),
    ?assertEqual({error, {event_too_long, 9}}, mcp_event_stream:push(Decoder, <<": endless">>)),
    ?assertEqual({error, {event_too_long, 9}}, mcp_event_stream:push(Decoder, <<"\n\ndata: x\n\n">>)).

the_largest_event_is_accepted_test_() ->
    {timeout, 60, fun() ->
        Max = mcp_event_stream:max_event_bytes(),
        Data = binary:copy(<<"x">>, Max - 6),
        Line = <<"data: ", Data/binary>>,
        ?assertEqual(Max, byte_size(Line)),
        ?assertMatch({ok, [{event, <<>>, Data}], none}, push_all([Line, <<"\n\n">>])),
        ?assertEqual({error, {event_too_long, Max + 1}}, push_all([<<Line/binary, "x">>]))
    end}.

new_refuses_bad_caps_test() ->
    [?assertError(badarg, mcp_event_stream:new(Bad)) || Bad <- [0, -1, mcp_event_stream:max_event_bytes() + 1, 1.5, one]].

%% The verdict (items and last id, or refused) does not depend on the
%% chunking, under a small cap too.
any_chunking_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_any_chunking(), [{numtests, 500}, {to_file, user}]))}.

prop_any_chunking() ->
    ?FORALL({Pieces, Cuts, Cap},
            {list(oneof([<<"data: x">>, <<"data:">>, <<"id: 7">>, <<"event: e">>, <<"retry: 5">>,
                         <<": c">>, <<"\n">>, <<"\r">>, <<"\r\n">>, binary()])),
             list(non_neg_integer()), integer(1, 40)},
            begin
                Stream = iolist_to_binary(Pieces),
                Chunks = cut(Stream, Cuts),
                Whole = push_all([Stream]),
                CappedWhole = push_all([Stream], mcp_event_stream:new(Cap)),
                Whole =:= push_all(Chunks) andalso Whole =:= push_all(bytes(Stream))
                    andalso verdict(CappedWhole) =:= verdict(push_all(Chunks, mcp_event_stream:new(Cap)))
                    andalso verdict(CappedWhole) =:= verdict(push_all(bytes(Stream), mcp_event_stream:new(Cap)))
            end).

verdict({error, {event_too_long, _}}) -> refused;
verdict(Decoded) -> Decoded.

cut(Stream, []) -> [Stream];
cut(Stream, [Cut | Cuts]) ->
    At = Cut rem (byte_size(Stream) + 1),
    <<Chunk:At/binary, Rest/binary>> = Stream,
    [Chunk | cut(Rest, Cuts)].

-module(mcp_stdio_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

-define(MAX, mcp_stdio:max_line_bytes()).

%% A hand-written multi-message stream in the shape a server writes: an initialize
%% result, a log notification (CRLF), blank lines, a tools/list page, a
%% tools/call result with an escaped newline, and a partial last line.
stream() ->
    <<"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
      "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n"
      "\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"caf", 16#e9/utf8, "\"}}\r\n"
      "\r\n"
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,">>.

%% The lines of stream(), reviewed by hand.
stream_lines() ->
    [<<"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
       "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}">>,
     <<"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"caf", 16#e9/utf8, "\"}}">>,
     <<"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}}">>,
     <<"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}]}}">>].

%% Pushes every chunk; the lines in order, or the first error.
push_all(Chunks) -> push_all(Chunks, mcp_stdio:new(), []).

push_all(Chunks, Cap) -> push_all(Chunks, mcp_stdio:new(Cap), []).

push_all([], _Buffer, Lines) -> {ok, lists:append(lists:reverse(Lines))};
push_all([Chunk | Rest], Buffer, Lines) ->
    case mcp_stdio:push(Buffer, Chunk) of
        {ok, New, Next} -> push_all(Rest, Next, [New | Lines]);
        {error, _} = Error -> Error
    end.

bytes(Binary) -> [<<Byte>> || <<Byte>> <= Binary].

stream_fed_whole_test() ->
    ?assertEqual({ok, stream_lines()}, push_all([stream()])).

stream_fed_one_byte_at_a_time_test() ->
    ?assertEqual({ok, stream_lines()}, push_all(bytes(stream()))).

stream_lines_decode_test() ->
    [?assertMatch({ok, _}, mcp_jsonrpc:decode(Line)) || Line <- stream_lines()].

stream_in_random_chunkings_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_any_chunking(), [{numtests, 500}, {to_file, user}]))}.

prop_any_chunking() ->
    Stream = stream(),
    ?FORALL(Cuts, list(range(0, byte_size(Stream))),
            push_all(mcp_jsonrpc_tests:chunks(Stream, Cuts)) =:= {ok, stream_lines()}).

%% ---- a stream recorded from a real server (test/fixtures/stdio/SOURCE) ----

recorded() ->
    Path = filename:join([filename:dirname(?FILE), "fixtures", "stdio", "server_everything_session.jsonl"]),
    {ok, Stream} = file:read_file(Path),
    Stream.

%% The oracle is binary:split, independent of the framer.
recorded_lines() -> binary:split(recorded(), <<"\n">>, [global, trim_all]).

recorded_stream_whole_one_byte_and_random_test_() ->
    Stream = recorded(),
    Lines = recorded_lines(),
    [?_assertEqual(7, length(Lines)),
     ?_assertEqual({ok, Lines}, push_all([Stream])),
     ?_assertEqual({ok, Lines}, push_all(bytes(Stream))),
     ?_assertEqual({ok, Lines}, push_all([binary:replace(Stream, <<"\n">>, <<"\r\n">>, [global])])),
     {timeout, 120, ?_assert(proper:quickcheck(
                               ?FORALL(Cuts, list(range(0, byte_size(Stream))),
                                       push_all(mcp_jsonrpc_tests:chunks(Stream, Cuts)) =:= {ok, Lines}),
                               [{numtests, 200}, {to_file, user}]))}].

recorded_stream_decodes_test() ->
    {ok, Lines} = push_all([recorded()]),
    Messages = [begin {ok, Message} = mcp_jsonrpc:decode(Line), Message end || Line <- Lines],
    ?assertEqual([{response, {id_int, 0}}, {notification, <<"notifications/tools/list_changed">>},
                  {response, {id_int, 1}}, {response, {id_int, 4}}, {response, {id_int, 5}},
                  {response, {id_int, 2}}, {response, {id_int, 3}}],
                 [kind(Message) || Message <- Messages]),
    Result = fun(Id) -> {response, {id_int, Id}, Outcome} = lists:keyfind({id_int, Id}, 2, Messages), Outcome end,
    {ok, Initialize} = Result(0),
    ?assertMatch({ok, {initialize_result, <<"2025-06-18">>, {some, {tools_capability, true}},
                       {server_info, <<"mcp-servers/everything">>, <<"2.0.0">>}, {some, _}}},
                 mcp_protocol:decode_initialize_result(Initialize)),
    {ok, Page} = Result(1),
    {ok, {tools_page, Tools, none}} = mcp_protocol:decode_tools_page(Page),
    ?assertEqual(13, length(Tools)),
    ?assertMatch({tool_descriptor, <<"echo">>, {some, <<"Echo Tool">>}, {some, <<"Echoes back the input string">>},
                  {object, _}, _, _, _}, hd(Tools)),
    {ok, Echo} = Result(2),
    ?assertEqual({ok, {call_tool_result, [{text, <<"Echo: caf", 16#e9/utf8, " \"quoted\"\nline">>}], false, none}},
                 mcp_protocol:decode_call_tool_result(Echo)),
    {ok, Sum} = Result(3),
    ?assertEqual({ok, {call_tool_result, [{text, <<"The sum of 2 and 40 is 42.">>}], false, none}},
                 mcp_protocol:decode_call_tool_result(Sum)),
    ?assertEqual({error, {rpc_error, -32601, <<"Method not found">>, none}}, Result(4)),
    ?assertEqual({ok, {object, []}}, Result(5)).

kind({response, Id, _}) -> {response, Id};
kind({notification, Method, _}) -> {notification, Method}.

crlf_test_() ->
    [?_assertEqual({ok, [<<"a">>, <<"b">>]}, push_all([<<"a\r\nb\n">>])),
     ?_assertEqual({ok, [<<"a\r">>, <<"\rb">>]}, push_all([<<"a\r\r\n\rb\n">>])),
     ?_assertEqual({ok, [<<"ab">>, <<"cd\rx">>]}, push_all([<<"ab\r">>, <<"\ncd\r">>, <<"x\n">>])),
     ?_assertEqual({ok, []}, push_all([<<"\r">>, <<"\n">>, <<"\r\n">>, <<"\n">>]))].

empty_lines_and_chunks_are_skipped_test() ->
    ?assertEqual({ok, [<<"x">>]}, push_all([<<>>, <<"\n\n">>, <<>>, <<"x">>, <<>>, <<"\n">>])).

partial_line_is_carried_test() ->
    {ok, [], B1} = mcp_stdio:push(mcp_stdio:new(), <<"{\"a\":">>),
    {ok, [<<"{\"a\":1}">>], B2} = mcp_stdio:push(B1, <<"1}\n{\"b\"">>),
    ?assertMatch({ok, [<<"{\"b\":2}">>], _}, mcp_stdio:push(B2, <<":2}\n">>)).

lines_inside_a_chunk_are_not_copied_test() ->
    %% Large enough to be a reference-counted binary, as port data is; each
    %% line too (the garbage collector may turn a sub-binary of at most 64
    %% bytes into a copy of its own).
    Long = binary:copy(<<"y">>, 200),
    Chunk = binary:copy(<<"first", Long/binary, "\nsecond", Long/binary, "\r\nthird", Long/binary, "\n">>),
    {ok, Lines, _} = mcp_stdio:push(mcp_stdio:new(), Chunk),
    ?assertEqual([<<"first", Long/binary>>, <<"second", Long/binary>>, <<"third", Long/binary>>], Lines),
    [?assertEqual(byte_size(Chunk), binary:referenced_byte_size(Line)) || Line <- Lines].

%% More newlines than the normal-scheduler budget: the dirty path frames it.
many_lines_in_one_chunk_test() ->
    Lines = [integer_to_binary(N) || N <- lists:seq(1, 3000)],
    Chunk = iolist_to_binary([[Line, "\r\n\n"] || Line <- Lines]),
    ?assertMatch({ok, Lines, _}, mcp_stdio:push(mcp_stdio:new(), Chunk)).

max_line_bytes_test() ->
    ?assertEqual(16 * 1024 * 1024, mcp_stdio:max_line_bytes()).

%% ---- 16 MiB: completed lines ----

completed_line_of_exactly_max_is_accepted_test() ->
    Body = binary:copy(<<"x">>, ?MAX),
    {ok, [Line], _} = mcp_stdio:push(mcp_stdio:new(), <<Body/binary, "\n">>),
    ?assertEqual(?MAX, byte_size(Line)),
    {ok, [Line2], _} = mcp_stdio:push(mcp_stdio:new(), <<Body/binary, "\r\n">>),
    ?assertEqual(?MAX, byte_size(Line2)).

completed_line_of_max_plus_one_is_refused_test() ->
    Body = binary:copy(<<"x">>, ?MAX + 1),
    ?assertEqual({error, {line_too_long, ?MAX + 1}}, mcp_stdio:push(mcp_stdio:new(), <<"ok\n", Body/binary, "\n">>)).

completed_line_across_chunks_test() ->
    Body = binary:copy(<<"x">>, ?MAX),
    {ok, [], Held} = mcp_stdio:push(mcp_stdio:new(), Body),
    ?assertMatch({ok, [_], _}, mcp_stdio:push(Held, <<"\n">>)),
    ?assertEqual({error, {line_too_long, ?MAX + 1}}, mcp_stdio:push(Held, <<"y\n">>)).

%% ---- 16 MiB: pending lines ----

pending_line_of_exactly_max_is_held_test() ->
    Block = binary:copy(<<"x">>, 4096),
    Held = lists:foldl(fun(_, Buffer) -> {ok, [], Next} = mcp_stdio:push(Buffer, Block), Next end,
                       mcp_stdio:new(), lists:seq(1, ?MAX div 4096)),
    %% A held CR is not counted: the line could still end in CRLF.
    {ok, [], WithCr} = mcp_stdio:push(Held, <<"\r">>),
    {ok, [Line], _} = mcp_stdio:push(WithCr, <<"\n">>),
    ?assertEqual(Line, binary:copy(<<"x">>, ?MAX)),
    ?assertEqual({error, {line_too_long, ?MAX + 1}}, mcp_stdio:push(Held, <<"z">>)),
    ?assertEqual({error, {line_too_long, ?MAX + 2}}, mcp_stdio:push(WithCr, <<"z">>)).

pending_tail_after_a_newline_is_limited_test() ->
    Tail = binary:copy(<<"x">>, ?MAX),
    ?assertMatch({ok, [<<"a">>], _}, mcp_stdio:push(mcp_stdio:new(), <<"a\n", Tail/binary>>)),
    ?assertEqual({error, {line_too_long, ?MAX + 1}}, mcp_stdio:push(mcp_stdio:new(), <<"a\n", Tail/binary, "x">>)).

%% ---- frame ----

frame_test() ->
    Value = {object, [{<<"a">>, {string, <<"line\nbreak\r">>}}]},
    ?assertEqual(<<"{\"a\":\"line\\nbreak\\r\"}\n">>, mcp_json:encode_line(Value)).

frame_has_one_newline_at_the_end_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(
              ?FORALL(Value, mcp_jsonrpc_tests:json(),
                      begin
                          Framed = mcp_json:encode_line(Value),
                          binary:matches(Framed, <<"\n">>) =:= [{byte_size(Framed) - 1, 1}]
                      end),
              [{numtests, 300}, {to_file, user}]))}.

%% Held lines longer than a held part (256 KiB): chunks of every size,
%% one as large as a part, a `\r' ending a chunk and `\n' starting the next;
%% the line comes back whole, once, with its stream offset.
long_held_lines_across_parts_test_() ->
    Line = << <<(N rem 10 + $0)>> || N <- lists:seq(1, 700000) >>,
    Cases = [{"small chunks", chunks_of(<<Line/binary, "\r">>, 4096) ++ [<<"\nnext">>]},
             {"a chunk as large as a part",
              [binary:part(Line, 0, 1000), binary:part(Line, 1000, 300000),
               binary:part(Line, 301000, byte_size(Line) - 301000), <<"\r">>, <<"\nnext">>]},
             {"crossing a part in one append",
              [binary:part(Line, 0, 262143), binary:part(Line, 262143, byte_size(Line) - 262143),
               <<"\r\nnext">>]}],
    [{Name, fun() ->
                 {Lines, Buffer} = lists:foldl(fun(Chunk, {Acc, B}) ->
                                                      {ok, New, Next} = mcp_stdio:push_with_offsets(B, Chunk),
                                                      {Acc ++ New, Next}
                                              end, {[], mcp_stdio:new()}, Chunks),
                 ?assertEqual([{0, Line}], Lines),
                 {ok, Rest, _} = mcp_stdio:push_with_offsets(Buffer, <<"\n">>),
                 ?assertEqual([{byte_size(Line) + 2, <<"next">>}], Rest)
             end} || {Name, Chunks} <- Cases].

chunks_of(Bytes, Size) when byte_size(Bytes) =< Size -> [Bytes];
chunks_of(Bytes, Size) ->
    <<Chunk:Size/binary, Rest/binary>> = Bytes,
    [Chunk | chunks_of(Rest, Size)].

%% ---- a lower cap (new/1) ----

-define(CAP, 100).

capped_line_of_exactly_the_cap_is_accepted_and_one_more_refused_test() ->
    Exact = binary:copy(<<"x">>, ?CAP),
    Over = binary:copy(<<"x">>, ?CAP + 1),
    Capped = mcp_stdio:new(?CAP),
    ?assertMatch({ok, [Exact], _}, mcp_stdio:push(Capped, <<Exact/binary, "\n">>)),
    ?assertMatch({ok, [Exact], _}, mcp_stdio:push(Capped, <<Exact/binary, "\r\n">>)),
    %% Completed inside the chunk, completing a held line, and pending.
    ?assertEqual({error, {line_too_long, ?CAP + 1}}, mcp_stdio:push(Capped, <<"a\n", Over/binary, "\nb\n">>)),
    {ok, [], Held} = mcp_stdio:push(Capped, Exact),
    ?assertEqual({error, {line_too_long, ?CAP + 1}}, mcp_stdio:push(Held, <<"y\n">>)),
    ?assertEqual({error, {line_too_long, ?CAP + 1}}, mcp_stdio:push(Held, <<"y">>)),
    ?assertEqual({error, {line_too_long, ?CAP + 1}}, mcp_stdio:push(Capped, <<"a\n", Over/binary>>)),
    %% A held CR is not counted: the line could still end in CRLF.
    {ok, [], WithCr} = mcp_stdio:push(Held, <<"\r">>),
    ?assertMatch({ok, [Exact], _}, mcp_stdio:push(WithCr, <<"\n">>)),
    ?assertEqual({error, {line_too_long, ?CAP + 2}}, mcp_stdio:push(WithCr, <<"z">>)).

%% The cap holds for every later line, fed one byte at a time: the first
%% line at the cap comes out, the next one is refused at its cap + 1st byte.
capped_stream_fed_one_byte_at_a_time_test() ->
    Exact = binary:copy(<<"x">>, ?CAP),
    Stream = <<"{}\n", Exact/binary, "\r\n", Exact/binary, "y\n">>,
    {Lines, Verdict} = lists:foldl(
                         fun(_, {Lines, {error, _} = Fault}) -> {Lines, Fault};
                            (Byte, {Lines, Buffer}) ->
                                 case mcp_stdio:push(Buffer, <<Byte>>) of
                                     {ok, New, Next} -> {Lines ++ New, Next};
                                     {error, _} = Fault -> {Lines, Fault}
                                 end
                         end, {[], mcp_stdio:new(?CAP)}, binary_to_list(Stream)),
    ?assertEqual([<<"{}">>, Exact], Lines),
    ?assertEqual({error, {line_too_long, ?CAP + 1}}, Verdict).

%% The cap travels with every scan, the dirty ones included: a chunk of
%% dirty_threshold() bytes, and a small chunk with more newlines than a
%% normal-scheduler scan counts.
cap_holds_on_the_dirty_scans_test() ->
    Exact = binary:copy(<<"x">>, ?CAP),
    Line = <<Exact/binary, "\n">>,
    Big = binary:copy(Line, mcp_stdio:dirty_threshold() div byte_size(Line) + 1),
    ?assert(byte_size(Big) >= mcp_stdio:dirty_threshold()),
    {ok, Lines, _} = mcp_stdio:push(mcp_stdio:new(?CAP), Big),
    ?assertEqual(byte_size(Big) div byte_size(Line), length(Lines)),
    ?assertEqual({error, {line_too_long, ?CAP + 1}},
                 mcp_stdio:push(mcp_stdio:new(?CAP), <<Big/binary, "y", Exact/binary, "\n">>)),
    Many = binary:copy(<<"a\n">>, 2000),
    ?assert(byte_size(Many) < mcp_stdio:dirty_threshold()),
    ?assertMatch({ok, [_ | _], _}, mcp_stdio:push(mcp_stdio:new(?CAP), <<Many/binary, Exact/binary, "\n">>)),
    ?assertEqual({error, {line_too_long, ?CAP + 1}},
                 mcp_stdio:push(mcp_stdio:new(?CAP), <<Many/binary, Exact/binary, "y\n">>)).

cap_bounds_test() ->
    ?assertMatch({ok, [<<"a">>], _}, mcp_stdio:push(mcp_stdio:new(1), <<"a\n">>)),
    ?assertEqual({error, {line_too_long, 2}}, mcp_stdio:push(mcp_stdio:new(1), <<"ab\n">>)),
    ?assertEqual(mcp_stdio:new(), mcp_stdio:new(?MAX)),
    [?assertError(badarg, mcp_stdio:new(Bad)) || Bad <- [0, -1, ?MAX + 1, 1.5, ten]].

%% Any stream of lines around a random cap, cut anywhere: the capped framer
%% returns every line when none is longer than the cap; otherwise it
%% refuses with a length past the cap and at most the first overlong
%% line's (where it notices depends on the cuts, what it notices does not).
capped_framing_in_random_chunkings_test_() ->
    {timeout, 120, ?_assert(proper:quickcheck(prop_capped_any_chunking(), [{numtests, 1000}, {to_file, user}]))}.

prop_capped_any_chunking() ->
    ?FORALL({Cap, Lines, Cuts}, {range(1, 24), list({range(0, 26), oneof([<<"\n">>, <<"\r\n">>])}), list(nat())},
            begin
                Stream = << <<(binary:copy(<<"x">>, Length))/binary, Ending/binary>> || {Length, Ending} <- Lines >>,
                Chunks = case Stream of
                             <<>> -> [];
                             _ -> mcp_jsonrpc_tests:chunks(Stream, Cuts)
                         end,
                Lengths = [Length || {Length, _} <- Lines, Length > 0],
                case [Length || Length <- Lengths, Length > Cap] of
                    [] ->
                        push_all(Chunks, Cap) =:= {ok, [binary:copy(<<"x">>, Length) || Length <- Lengths]};
                    [First | _] ->
                        case push_all(Chunks, Cap) of
                            {error, {line_too_long, Bytes}} -> Bytes > Cap andalso Bytes =< First;
                            _ -> false
                        end
                end
            end).

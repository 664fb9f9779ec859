%% The transport seam's framer (`mcp_transport:frame/2'): whole lines with
%% their stream offsets however the stream is cut, characters cut across
%% chunks held inside the pending line, and where bytes that are not UTF-8
%% are named once a line is read (`mcp_protocol:read/2').
-module(mcp_transport_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

%% Every event the chunks yield, in order.
frame_all(Chunks) ->
    {Events, _} = lists:foldl(fun(Chunk, {Acc, Framer}) ->
                                      {Events, Next} = mcp_transport:frame(Framer, Chunk),
                                      {Acc ++ Events, Next}
                              end, {[], mcp_transport:framer()}, Chunks),
    Events.

bytes(Binary) -> [<<Byte>> || <<Byte>> <= Binary].

stream() -> <<"{\"a\":\"é\"}\r\n\n  \n{\"b\":1}\n{\"c\":"/utf8>>.

lines_carry_their_stream_offsets_test() ->
    Expected = [{message, 0, <<"{\"a\":\"é\"}"/utf8>>}, {message, 13, <<"  ">>},
                {message, 16, <<"{\"b\":1}">>}],
    ?assertEqual(Expected, frame_all([stream()])),
    ?assertEqual(Expected, frame_all(bytes(stream()))).

prop_any_chunking_frames_the_same() ->
    Stream = stream(),
    ?FORALL(Cuts, list(range(0, byte_size(Stream))),
            frame_all(mcp_jsonrpc_tests:chunks(Stream, Cuts)) =:= frame_all([Stream])).

any_chunking_test_() ->
    {timeout, 60, ?_assert(proper:quickcheck(prop_any_chunking_frames_the_same(),
                                             [{numtests, 300}, {to_file, user}]))}.

a_character_cut_across_chunks_is_held_test() ->
    Line = <<"{\"t\":\"😀\"}"/utf8>>,
    <<First:7/binary, Rest/binary>> = Line,
    ?assertEqual([{message, 0, Line}], frame_all([First, Rest, <<"\n">>])).

a_framing_fault_breaks_the_framer_test() ->
    Max = mcp_stdio:max_line_bytes(),
    {Events, Broken} = mcp_transport:frame(mcp_transport:framer(), binary:copy(<<"x">>, Max + 1)),
    ?assertEqual([{fault, {line_too_long, Max + 1}}], Events),
    ?assertEqual({[], Broken}, mcp_transport:frame(Broken, <<"{}\n">>)).

%% A string holding `Bytes', as a JSON-RPC notification line: where the
%% first byte that is not UTF-8 starts, from the start of the line.
utf8_verdict(Bytes) ->
    Prefix = <<"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":[\"">>,
    case mcp_protocol:read(<<Prefix/binary, Bytes/binary, "\"]}">>, #{}) of
        {error, {invalid_utf8, At}} -> At - byte_size(Prefix);
        ignored -> valid
    end.

invalid_bytes_are_named_where_the_bad_sequence_starts_test() ->
    Cases = [{<<"ab", 16#FF>>, 2},               % never valid
             {<<"ab", 16#80, "c">>, 2},          % stray continuation byte
             {<<16#C0, 16#80>>, 0},              % overlong NUL
             {<<"x", 16#C3, "(">>, 1},           % lead byte, then not a continuation
             {<<"xy", 16#C3>>, 2},               % a lead byte the line never completes
             {<<"x", 16#E0, 16#80>>, 1},         % overlong three-byte form
             {<<"x", 16#ED, 16#A0>>, 1},         % surrogate half
             {<<"x", 16#ED, 16#A0, 16#80>>, 1},  % whole surrogate
             {<<"x", 16#F4, 16#90>>, 1},         % past U+10FFFF
             {<<"x", 16#F5>>, 1},                % lead byte past U+10FFFF
             {<<"x", 16#C1>>, 1},                % overlong lead byte
             {<<"x", 16#F0, 16#80>>, 1},         % overlong four-byte form
             {<<"é€😀"/utf8>>, valid}],
    [?assertEqual({Bytes, Offset}, {Bytes, utf8_verdict(Bytes)}) || {Bytes, Offset} <- Cases].

bytes_outside_strings_are_named_too_test() ->
    ?assertEqual({error, {invalid_utf8, 7}}, mcp_protocol:read(<<"{\"a\":1,", 16#FF, "}">>, #{})),
    %% A corruption before the bad byte is reported as a corruption.
    ?assertMatch({error, {malformed_message, {corruption_report, 5, _}}},
                 mcp_protocol:read(<<"{\"a\":x", 16#FF, "}">>, #{})).

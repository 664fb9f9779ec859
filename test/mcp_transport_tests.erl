%% `mcp_transport:utf8_prefix/1': the valid prefix of a chunk and the held
%% tail (a proper prefix of one multi-byte character, at most three bytes).
-module(mcp_transport_tests).

-include_lib("proper/include/proper.hrl").
-include_lib("eunit/include/eunit.hrl").

prefix(Bytes) -> mcp_transport:utf8_prefix(Bytes).

ascii_and_whole_characters_are_valid_test() ->
    ?assertEqual({ok, <<>>, <<>>}, prefix(<<>>)),
    ?assertEqual({ok, <<"plain">>, <<>>}, prefix(<<"plain">>)),
    Whole = <<"é€😀"/utf8>>,
    ?assertEqual({ok, Whole, <<>>}, prefix(Whole)).

every_proper_prefix_of_a_character_is_held_test() ->
    [begin
         Encoded = <<Char/utf8>>,
         [?assertEqual({ok, <<"a">>, binary:part(Encoded, 0, N)},
                       prefix(<<"a", (binary:part(Encoded, 0, N))/binary>>))
          || N <- lists:seq(1, byte_size(Encoded) - 1)]
     end || Char <- [16#80, 16#7FF, 16#800, 16#D7FF, 16#E000, 16#FFFF, 16#10000, 16#10FFFF]].

held_tail_is_at_most_three_bytes_test() ->
    ?assertEqual({ok, <<>>, <<16#F0, 16#9F, 16#98>>}, prefix(<<16#F0, 16#9F, 16#98>>)).

invalid_bytes_report_where_the_bad_sequence_starts_test() ->
    Cases = [{<<"ab", 16#FF>>, 2},               % never valid
             {<<"ab", 16#80, "c">>, 2},          % stray continuation byte
             {<<16#C0, 16#80>>, 0},              % overlong NUL
             {<<"x", 16#C3, "(">>, 1},           % lead byte, then not a continuation
             {<<"xy", 16#C3>>, none},            % (valid: a held lead byte)
             {<<"x", 16#E0, 16#80>>, 1},         % overlong three-byte form
             {<<"x", 16#ED, 16#A0>>, 1},         % surrogate half
             {<<"x", 16#ED, 16#A0, 16#80>>, 1},  % whole surrogate
             {<<"x", 16#F4, 16#90>>, 1},         % past U+10FFFF
             {<<"x", 16#F5>>, 1},                % lead byte past U+10FFFF
             {<<"x", 16#C1>>, 1},                % overlong lead byte
             {<<"x", 16#F0, 16#80>>, 1}],        % overlong four-byte form
    [case Offset of
         none -> ?assertMatch({ok, _, _}, prefix(Bytes));
         _ -> ?assertEqual({Bytes, {error, {invalid_utf8, Offset}}}, {Bytes, prefix(Bytes)})
     end || {Bytes, Offset} <- Cases].

%% Any UTF-8 text cut anywhere: the left part's valid prefix plus held tail
%% is the left part, and the held tail completes with the right part.
prop_split_text_reassembles() ->
    ?FORALL({Chars, Cut}, {list(unicode_char()), non_neg_integer()},
            begin
                Text = unicode:characters_to_binary(Chars),
                At = Cut rem (byte_size(Text) + 1),
                <<Left:At/binary, Right/binary>> = Text,
                {ok, Valid, Held} = prefix(Left),
                {ok, Rest, <<>>} = prefix(<<Held/binary, Right/binary>>),
                byte_size(Held) =< 3 andalso <<Valid/binary, Held/binary>> =:= Left
                    andalso <<Valid/binary, Rest/binary>> =:= Text
            end).

unicode_char() ->
    oneof([integer(0, 16#7F), integer(16#80, 16#7FF), integer(16#800, 16#D7FF),
           integer(16#E000, 16#FFFF), integer(16#10000, 16#10FFFF)]).

%% Any bytes: a valid prefix and a short held tail that together are a
%% prefix of the input, or an offset inside it.
prop_total_on_any_bytes() ->
    ?FORALL(Bytes, binary(),
            case prefix(Bytes) of
                {ok, Valid, Held} ->
                    unicode:characters_to_binary(Valid) =:= Valid
                        andalso byte_size(Held) =< 3
                        andalso <<Valid/binary, Held/binary>> =:= Bytes;
                {error, {invalid_utf8, Offset}} ->
                    Offset < byte_size(Bytes)
                        andalso unicode:characters_to_binary(binary:part(Bytes, 0, Offset))
                                =:= binary:part(Bytes, 0, Offset)
            end).

properties_test_() ->
    {timeout, 60,
     [?_assert(proper:quickcheck(prop_split_text_reassembles(), [{numtests, 2000}, {to_file, user}])),
      ?_assert(proper:quickcheck(prop_total_on_any_bytes(), [{numtests, 5000}, {to_file, user}]))]}.

bad_transport_spec_test() ->
    ?assertEqual({error, {bad_transport_spec, nonsense}}, mcp_transport:open(nonsense, self())).

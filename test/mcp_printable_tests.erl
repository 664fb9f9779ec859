%% mcp_printable: the one escaped set, tested at each range boundary in the
%% text modes and in terminal JSON, and the caps on server-chosen text.
-module(mcp_printable_tests).

-include_lib("eunit/include/eunit.hrl").

-define(FFFD, 16#FFFD/utf8).

%% Both sides of every range: the first and last codepoint inside are
%% escaped, the neighbours outside are not (unless another range starts there).
boundaries() ->
    Ranges = mcp_printable:escaped_ranges(),
    lists:usort(lists:append([[Low - 1, Low, High, High + 1] || {Low, High} <- Ranges, Low > 0]
                             ++ [[0, 16#1F, 16#20]])).

the_set_is_the_documented_one_test() ->
    ?assertEqual([{16#00, 16#1F}, {16#7F, 16#9F}, {16#061C, 16#061C}, {16#200B, 16#200B},
                  {16#200E, 16#200F}, {16#2028, 16#202E}, {16#2066, 16#2069}, {16#FEFF, 16#FEFF}],
                 mcp_printable:escaped_ranges()),
    %% the ones the review named, each inside
    [?assert(mcp_printable:is_escaped(C))
     || C <- [16#7F, 16#85, 16#9B, 16#200E, 16#200F, 16#061C, 16#202A, 16#202C, 16#202E,
              16#2066, 16#2069, 16#2028, 16#2029, 16#200B, 16#FEFF]].

text_mode_at_every_boundary_test_() ->
    [?_assertEqual({C, expected_text(C)}, {C, mcp_printable:printable(<<C/utf8>>, line)})
     || C <- boundaries()].

expected_text(C) ->
    case mcp_printable:is_escaped(C) of
        true -> <<?FFFD>>;
        false -> <<C/utf8>>
    end.

json_mode_at_every_boundary_test_() ->
    [?_assertEqual({C, expected_json(C)},
                   {C, mcp_printable:terminal_json(mcp_json:encode({string, <<C/utf8>>}))})
     || C <- boundaries(), C >= 16#20, C =/= $", C =/= $\\].

expected_json(C) ->
    case mcp_printable:is_escaped(C) of
        true -> iolist_to_binary(io_lib:format("\"\\u~4.16.0b\"", [C]));
        false -> <<$", C/utf8, $">>
    end.

%% Every codepoint up to U+3000 and the ones past it in the set: the
%% terminal JSON holds no escaped codepoint raw, and decodes to the same value.
terminal_json_keeps_the_meaning_test() ->
    Codepoints = [C || C <- lists:seq(0, 16#3000) ++ [16#FEFE, 16#FEFF, 16#FF00, 16#1F600],
                       C < 16#D800 orelse C > 16#DFFF],
    Text = unicode:characters_to_binary(Codepoints),
    Value = {object, [{Text, {array, [{string, Text}, {int, 1}]}}]},
    Json = mcp_json:encode(Value),
    Safe = mcp_printable:terminal_json(Json),
    ?assertEqual({ok, Value}, mcp_json:decode(Safe)),
    ?assertEqual([], [C || C <- unicode:characters_to_list(Safe), mcp_printable:is_escaped(C)]).

terminal_json_leaves_clean_output_alone_test() ->
    Json = <<"{\"a\":\"héllo 世界\"}"/utf8>>,
    ?assertEqual(Json, mcp_printable:terminal_json(Json)).

multiline_keeps_newline_and_tab_only_test() ->
    ?assertEqual(<<"a\nb\tc">>, mcp_printable:printable(<<"a\nb\tc">>, multiline)),
    ?assertEqual(<<"a", ?FFFD, "b", ?FFFD, "c">>, mcp_printable:printable(<<"a\nb\tc">>, line)),
    ?assertEqual(<<"a", ?FFFD, "b">>, mcp_printable:printable(<<"a\rb">>, multiline)).

each_byte_outside_utf8_is_replaced_test() ->
    ?assertEqual(<<"a", ?FFFD, ?FFFD, "b">>, mcp_printable:printable(<<"a", 16#C3, 16#FF, "b">>, line)).

ordinary_unicode_is_kept_test() ->
    Text = <<"héllo 世界 \x{1F600} \x{A0}"/utf8>>,
    ?assertEqual(Text, mcp_printable:printable(Text, line)).

%% N characters are kept whole, N + 1 are cut to N and an ellipsis.
cap_on_both_sides_test() ->
    ?assertEqual(<<"abc">>, mcp_printable:printable(<<"abc">>, line, 3)),
    ?assertEqual(<<"abc…"/utf8>>, mcp_printable:printable(<<"abcd">>, line, 3)),
    ?assertEqual(<<"世界…"/utf8>>, mcp_printable:printable(<<"世界世"/utf8>>, line, 2)).

cap_touches_only_what_it_shows_test() ->
    Huge = binary:copy(<<"世"/utf8>>, 8 * 1024 * 1024 div 3),
    Shown = mcp_printable:printable(Huge, line, mcp_printable:name_chars()),
    ?assertEqual(mcp_printable:name_chars() + 1, string:length(Shown)).

folded_turns_line_breaks_into_one_space_test() ->
    ?assertEqual(<<"a b c d", ?FFFD, "e">>,
                 mcp_printable:printable(<<"a\n    b\r\n\tc\td\ee">>, folded)),
    ?assertEqual(<<"a …"/utf8>>, mcp_printable:printable(<<"a\n  bc">>, folded, 2)).

%% Folding reads no further than the cap allows: blanks past the characters
%% left to show are shown as spaces, not skipped, so 8 MB of blanks after a
%% line break cost what the cap shows.
folded_blanks_are_skipped_only_up_to_the_cap_test() ->
    Blanks = binary:copy(<<" ">>, 8 * 1024 * 1024),
    ?assertEqual(<<"a"/utf8, (binary:copy(<<" ">>, 9))/binary, "…"/utf8>>,
                 mcp_printable:printable(<<"a\n", Blanks/binary, "b">>, folded, 10)),
    %% Within the cap, a run of blanks still folds into one space.
    ?assertEqual(<<"a b">>, mcp_printable:printable(<<"a\n        b">>, folded, 10)),
    ?assertEqual(<<"a b">>, mcp_printable:printable(<<"a\n", Blanks/binary, "b">>, folded)).

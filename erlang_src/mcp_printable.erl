%% @doc Terminal safety: the one set of codepoints a server may not put on a
%% person's terminal, and the caps on how much of a server-chosen string is
%% shown (`bin/mcp-gen', the wire log and `mcp_describe' use it).
%%
%% The escaped set (`escaped_ranges/0') is shared by every output mode:
%% <ul>
%% <li>C0 controls U+0000–U+001F, DEL U+007F and C1 controls U+0080–U+009F
%%     (U+0085 NEL and U+009B, the 8-bit CSI, included): they move the
%%     cursor, clear the screen or start escape sequences;</li>
%% <li>U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069: bidi marks,
%%     embeddings, overrides and isolates, which reorder what is read;</li>
%% <li>U+2028 and U+2029: line and paragraph separators;</li>
%% <li>U+200B and U+FEFF: zero-width characters that hide inside names.</li>
%% </ul>
%% Text modes (`printable/3') replace each with U+FFFD (`multiline' keeps
%% newline and tab); JSON output (`terminal_json/1') writes each as a
%% `\uXXXX' escape, which leaves the JSON document's meaning unchanged.
%% A byte that does not start a well-formed UTF-8 sequence becomes U+FFFD.
%%
%% Caps: `printable/3' stops after `MaxChars' characters and ends a cut text
%% with `…', reading at most about twice as many input characters as it
%% shows (`folded' skips blanks only up to the characters left to show), so
%% an 8 MB name costs what a 120-character one does.
-module(mcp_printable).

-export([escaped_ranges/0, is_escaped/1, printable/2, printable/3, terminal_json/1,
         name_chars/0, text_chars/0]).

-type mode() :: line | multiline | folded.
-export_type([mode/0]).

-define(REPLACEMENT, 16#FFFD).
-define(ELLIPSIS, 16#2026).
-define(NAME_CHARS, 120).
-define(TEXT_CHARS, 400).

%% @doc The escaped codepoints, as inclusive ranges (see the module doc).
-spec escaped_ranges() -> [{char(), char()}].
escaped_ranges() ->
    [{16#0000, 16#001F}, {16#007F, 16#009F}, {16#061C, 16#061C}, {16#200B, 16#200B},
     {16#200E, 16#200F}, {16#2028, 16#202E}, {16#2066, 16#2069}, {16#FEFF, 16#FEFF}].

-spec is_escaped(char()) -> boolean().
is_escaped(C) ->
    lists:any(fun({Low, High}) -> C >= Low andalso C =< High end, escaped_ranges()).

%% @doc Characters shown of a server-chosen name (tool, server, version,
%% parameter) or a short reason.
-spec name_chars() -> pos_integer().
name_chars() -> ?NAME_CHARS.

%% @doc Characters shown of a server-chosen description or message.
-spec text_chars() -> pos_integer().
text_chars() -> ?TEXT_CHARS.

%% @doc `printable(Text, Mode, infinity)'.
-spec printable(binary(), mode()) -> binary().
printable(Text, Mode) ->
    printable(Text, Mode, infinity).

%% @doc `Text' safe for a terminal: every escaped codepoint and every byte
%% outside well-formed UTF-8 becomes U+FFFD, except that `multiline' keeps
%% newline and tab and `folded' turns a line break or tab, with the blanks
%% after it (up to the characters left to show), into one space (a
%% description shown on one line); a text longer than `MaxChars' characters
%% shows its first `MaxChars' followed by `…'.
-spec printable(binary(), mode(), pos_integer() | infinity) -> binary().
printable(Text, Mode, MaxChars) when is_binary(Text) ->
    printable(Text, Mode, MaxChars, <<>>).

printable(<<>>, _Mode, _Left, Acc) ->
    Acc;
printable(_Rest, _Mode, 0, Acc) ->
    <<Acc/binary, ?ELLIPSIS/utf8>>;
printable(<<C/utf8, Rest/binary>>, folded, Left, Acc) when C =:= $\n; C =:= $\r; C =:= $\t ->
    printable(skip_blanks(Rest, decrement(Left)), folded, decrement(Left), <<Acc/binary, $\s>>);
printable(<<C/utf8, Rest/binary>>, Mode, Left, Acc) ->
    printable(Rest, Mode, decrement(Left), <<Acc/binary, (safe_codepoint(C, Mode))/utf8>>);
printable(<<_NotUtf8, Rest/binary>>, Mode, Left, Acc) ->
    printable(Rest, Mode, decrement(Left), <<Acc/binary, ?REPLACEMENT/utf8>>).

%% At most `Left' blanks are folded away (any: unbounded), so a folded text
%% is read no further than about twice what it shows; blanks past that are
%% shown, each as a space.
skip_blanks(Rest, 0) -> Rest;
skip_blanks(<<C, Rest/binary>>, Left) when C =:= $\s; C =:= $\n; C =:= $\r; C =:= $\t ->
    skip_blanks(Rest, decrement(Left));
skip_blanks(Rest, _Left) -> Rest.

decrement(infinity) -> infinity;
decrement(N) -> N - 1.

safe_codepoint(C, multiline) when C =:= $\n; C =:= $\t -> C;
safe_codepoint(C, _Mode) ->
    case is_escaped(C) of
        true -> ?REPLACEMENT;
        false -> C
    end.

%% @doc Compact JSON (as `mcp_json:encode/1' writes it, so valid UTF-8 in
%% which these codepoints can only occur inside strings) with every escaped
%% codepoint written as `\uXXXX'.
-spec terminal_json(binary()) -> binary().
terminal_json(Json) ->
    case binary:matches(Json, json_pattern()) of
        [] -> Json;
        Matches -> iolist_to_binary(splice(Json, 0, Matches))
    end.

splice(Json, At, []) ->
    [binary:part(Json, At, byte_size(Json) - At)];
splice(Json, At, [{Start, Length} | Rest]) ->
    <<C/utf8>> = binary:part(Json, Start, Length),
    [binary:part(Json, At, Start - At), io_lib:format("\\u~4.16.0b", [C])
     | splice(Json, Start + Length, Rest)].

%% Every escaped codepoint's UTF-8 encoding; each starts with a byte that
%% begins a character, so a match never lands inside another character.
json_pattern() ->
    case persistent_term:get({?MODULE, json_pattern}, undefined) of
        undefined ->
            Pattern = binary:compile_pattern([<<C/utf8>> || {Low, High} <- escaped_ranges(),
                                                            C <- lists:seq(Low, High)]),
            persistent_term:put({?MODULE, json_pattern}, Pattern),
            Pattern;
        Pattern ->
            Pattern
    end.
